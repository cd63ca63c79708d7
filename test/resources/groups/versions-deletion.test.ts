/**
 * Adjourned deletion by release (groups/versions.ts, projects/versions.ts): from 15.0 a group's follows
 * `delayed_group_deletion`, from 14.2 a project's follows `delayed_project_deletion`; before, both
 * follow `deletion_adjourned_period` alone.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { Minor } from '../../../src/core/versions.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api' };
const at = (version: Minor, settings: Record<string, unknown> = {}) =>
  createFauxlab({
    version,
    scenario: {
      tier: 'premium',
      settings,
      users: [{ username: 'root', admin: true, tokens: [{ token: 'root-api' }] }],
      groups: [{ path: 'acme', members: [{ username: 'root', access_level: 'owner' }] }],
      projects: [{ path: 'acme/app' }],
    },
  });

/** Deletes the record and answers what a read of it then gives: 200 (marked) or 404 (gone). */
async function deleted(fx: ReturnType<typeof at>, path: string): Promise<number> {
  const del = await fx.app.request(path, { method: 'DELETE', headers: ROOT });
  expect(del.status).toBe(202);
  return (await fx.app.request(path, { headers: ROOT })).status;
}

describe('adjourned deletion by release', () => {
  it('groups: marked at 14.10 whatever delayed_group_deletion says; from 15.0 only while it is on', async () => {
    expect(await deleted(at('14.10', { delayed_group_deletion: false }), '/api/v4/groups/acme')).toBe(200);
    expect(await deleted(at('15.0'), '/api/v4/groups/acme')).toBe(200);
    expect(await deleted(at('15.0', { delayed_group_deletion: false }), '/api/v4/groups/acme')).toBe(404);
  });

  it('projects: marked at 14.1; from 14.2 only while delayed_project_deletion is on (default off)', async () => {
    expect(await deleted(at('14.1'), '/api/v4/projects/acme%2Fapp')).toBe(200);
    expect(await deleted(at('14.2'), '/api/v4/projects/acme%2Fapp')).toBe(404);
    expect(await deleted(at('14.2', { delayed_project_deletion: true }), '/api/v4/projects/acme%2Fapp')).toBe(
      200,
    );
  });
});
