/**
 * Boards by release (src/resources/boards/versions.ts): a parent's last board stays on delete until
 * 15.4; no release creates a default board on the REST list.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { Minor } from '../../../src/core/versions.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const at = (version: Minor) => createFauxlab({ scenario: ciWorld, tier: 'premium', version });

/** python-gitlab 3.12's test_project_boards / test_group_boards: list, create, delete, list. */
async function createThenDelete(version: Minor, base: string, token: string) {
  const fx = at(version);
  const before = await body(await call(fx, 'GET', base, token));
  const made = await call(fx, 'POST', base, token, { name: 'testboard' });
  const id = (await body(made)).id as number;
  const gone = await call(fx, 'DELETE', `${base}/${id}`, token);
  const after = (await body(await call(fx, 'GET', base, token))) as { id: number }[];
  return { before, made: made.status, gone: gone.status, after: after.map((b) => b.id), id };
}

describe("a parent's last board by release", () => {
  for (const [what, base, token] of [
    ['project', `${APP}/boards`, 'rep'],
    ['group', '/api/v4/groups/acme/boards', 'owner'],
  ] as const) {
    it(`${what} boards: no default board on list; the last board stays at 15.3 (204), is deleted from 15.4`, async () => {
      const old = await createThenDelete('15.3', base, token);
      expect(old).toEqual({ before: [], made: 201, gone: 204, after: [old.id], id: old.id });
      const now = await createThenDelete('15.4', base, token);
      expect(now).toEqual({ before: [], made: 201, gone: 204, after: [], id: now.id });
    });
  }
});
