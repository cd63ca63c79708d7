/**
 * Application settings that later releases add (src/resources/settings/versions.ts): each at the
 * release before it and at its own; PUT ignores one the release lacks, and so does a scenario.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { Minor } from '../../../src/core/versions.js';
import type { Tier } from '../../../src/core/state.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { apiPath, json, request } from '../helpers.js';

const world = (settings: Record<string, unknown> = {}, tier: Tier = 'free'): ScenarioFile => ({
  tier,
  settings,
  users: [{ username: 'root', admin: true, tokens: [{ token: 'root-api' }] }],
});
const at = (version: Minor, settings?: Record<string, unknown>, tier?: Tier) =>
  createFauxlab({ scenario: world(settings, tier), version });
async function call(fx: ReturnType<typeof at>, method: string, body?: unknown) {
  const res = await request(fx, method, apiPath('/application/settings'), { token: 'root-api', body });
  return { status: res.status, body: (await json(res)) as Record<string, unknown> };
}

/** Each setting: the release before it, its own, its default, another value, and the tier it needs. */
const CASES: { name: string; before: Minor; since: Minor; def: boolean; other: boolean; tier: Tier }[] = [
  {
    name: 'delayed_project_deletion',
    before: '14.1',
    since: '14.2',
    def: false,
    other: true,
    tier: 'ultimate',
  },
  {
    name: 'delayed_group_deletion',
    before: '14.10',
    since: '15.0',
    def: true,
    other: false,
    tier: 'premium',
  },
  { name: 'can_create_group', before: '15.4', since: '15.5', def: true, other: false, tier: 'free' },
  {
    name: 'disable_admin_oauth_scopes',
    before: '15.5',
    since: '15.6',
    def: false,
    other: true,
    tier: 'free',
  },
  {
    name: 'disable_personal_access_token',
    before: '15.6',
    since: '15.7',
    def: false,
    other: true,
    tier: 'premium',
  },
];

describe('application settings by release', () => {
  for (const k of CASES)
    it(`${k.name}: absent at ${k.before} (PUT ignores it, and so does a scenario); from ${k.since} shown, ${k.def} by default, set by PUT and scenarios`, async () => {
      const old = at(k.before, { [k.name]: k.other }, k.tier);
      expect(Object.keys((await call(old, 'GET')).body)).not.toContain(k.name);
      expect(old.state.settings[k.name]).toBeUndefined();
      // Alone it is no declared param at all: the at-least-one error, which does not name it.
      const alone = await call(old, 'PUT', { [k.name]: k.other });
      expect(alone.status).toBe(400);
      expect(String(alone.body.error)).not.toContain(k.name);
      const withOther = await call(old, 'PUT', { [k.name]: k.other, gravatar_enabled: false });
      expect(withOther.status).toBe(200);
      expect(Object.keys(withOther.body)).not.toContain(k.name);
      expect(old.state.settings[k.name]).toBeUndefined();

      const fx = at(k.since, {}, k.tier);
      expect((await call(fx, 'GET')).body[k.name]).toBe(k.def);
      const put = await call(fx, 'PUT', { [k.name]: k.other });
      expect([put.status, put.body[k.name]]).toEqual([200, k.other]);
      expect((await call(fx, 'PUT', { [k.name]: 'maybe' })).body).toEqual({ error: `${k.name} is invalid` });
      expect((await call(at(k.since, { [k.name]: k.other }, k.tier), 'GET')).body[k.name]).toBe(k.other);
    });

  it('delayed_group_deletion and disable_personal_access_token are paid settings: absent on the free tier at 15.7', async () => {
    const body = (await call(at('15.7'), 'GET')).body;
    expect(Object.keys(body)).not.toContain('delayed_group_deletion');
    expect(Object.keys(body)).not.toContain('disable_personal_access_token');
    expect(body.can_create_group).toBe(true);
  });
});
