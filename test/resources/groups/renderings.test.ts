import { describe, expect, it } from 'vitest';
import type { PlatformState } from '../../../src/core/state.js';
import { createFauxlab } from '../../../src/index.js';
import { tvalues } from '../../../src/core/table.js';
import {
  orderedGroups,
  pickInOrder,
  userHierarchy,
  type GroupKey,
} from '../../../src/resources/groups/finder.js';
import type { Group } from '../../../src/resources/groups/model.js';
import { groupsFx, groupsWorld, send, type Fx } from './world.js';

// erin and carol (external) belong to no group: their lists are the visible groups alone.
const VIEWERS = [
  'root-api',
  'alice-api',
  'bob-api',
  'dave-api',
  'grace-api',
  'erin-api',
  'carol-api',
  undefined,
];

const PATHS = [
  '/groups',
  '/groups?with_custom_attributes=true',
  '/groups?statistics=true',
  '/groups?order_by=path&sort=asc&per_page=3&page=2',
  '/groups?search=in',
  '/groups?all_available=true&order_by=path',
  '/groups?all_available=true&sort=asc&per_page=2&page=2',
  '/groups?top_level_only=true',
  '/groups/acme?with_projects=false',
  '/groups/acme%2Fsecret?with_projects=false&with_custom_attributes=true',
  '/groups/hidden%2Finner?with_projects=false',
  '/groups/acme',
  '/groups/acme/subgroups',
  '/groups/acme/descendant_groups',
  '/groups/hidden/descendant_groups?per_page=1',
];

/** Every path as every viewer: status, the headers a client reads, and the body as sent. */
async function readAll(fx: Fx): Promise<string[]> {
  const out: string[] = [];
  for (const token of VIEWERS)
    for (const path of PATHS) {
      const res = await fx.fetch(`http://localhost/api/v4${path}`, {
        headers: token ? { 'PRIVATE-TOKEN': token } : {},
      });
      const headers = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
      out.push(`${token} ${path} ${res.status}\n${headers}\n${await res.text()}`);
    }
  return out;
}

interface Listed {
  id: number;
  name: string;
  full_name: string;
  full_path: string;
  web_url: string;
  share_with_group_lock: boolean;
  ldap_cn?: unknown;
}

/** The group list as the admin reads it, read often enough for every rendering to be kept. */
async function listed(fx: Fx): Promise<Listed[]> {
  let body: Listed[] = [];
  for (let i = 0; i < 3; i++)
    body = (await send(fx, 'GET', '/groups?per_page=100', 'root-api')).body as Listed[];
  return body;
}

describe('group renderings', () => {
  it('GET /groups, /groups/:id, subgroups and descendant groups: the same answers whether renderings are kept or not, for every viewer', async () => {
    const kept = groupsFx({ responseCache: false, renderCacheBytes: 1024 * 1024 });
    const none = groupsFx({ responseCache: false, renderCacheBytes: 0 });
    for (let i = 0; i < 3; i++) {
      const expected = await readAll(none);
      expect(expected.filter((s) => / 200\n/.test(s)).length).toBeGreaterThan(PATHS.length * 3);
      expect(await readAll(kept)).toEqual(expected);
    }
    expect(kept.renderCache.size).toBeGreaterThan(0);
  });

  it('PUT /groups/:id: a rename shows at once in the kept renderings of the group and of every group below it', async () => {
    const fx = groupsFx({ responseCache: false, renderCacheBytes: 1024 * 1024 });
    const before = await listed(fx);
    expect(before.find((g) => g.full_path === 'acme/secret/deep')?.full_name).toBe(
      'Acme Corp / Secret / Deep',
    );
    expect(
      (await send(fx, 'PUT', '/groups/acme', 'root-api', { name: 'Acme Two', path: 'acme2' })).status,
    ).toBe(200);
    const after = await listed(fx);
    const deep = after.find((g) => g.name === 'Deep')!;
    expect(deep).toMatchObject({
      full_path: 'acme2/secret/deep',
      full_name: 'Acme Two / Secret / Deep',
      web_url: 'http://localhost/groups/acme2/secret/deep',
    });
    const one = async () =>
      (await send(fx, 'GET', `/groups/${deep.id}?with_projects=false`, 'root-api')).body as Listed;
    for (let i = 0; i < 2; i++) await one();
    expect((await send(fx, 'PUT', '/groups/acme2%2Fsecret', 'root-api', { path: 'vault' })).status).toBe(200);
    expect(await one()).toMatchObject({
      full_path: 'acme2/vault/deep',
      web_url: 'http://localhost/groups/acme2/vault/deep',
    });
  });

  it('PUT /groups/:id: a share lock forced onto the groups below shows in their kept renderings', async () => {
    const fx = groupsFx({ responseCache: false, renderCacheBytes: 1024 * 1024 });
    const locks = async () =>
      (await listed(fx)).filter((g) => g.full_path.startsWith('acme')).map((g) => g.share_with_group_lock);
    expect(await locks()).toEqual([false, false, false, false]);
    expect((await send(fx, 'PUT', '/groups/acme', 'root-api', { share_with_group_lock: true })).status).toBe(
      200,
    );
    expect(await locks()).toEqual([true, true, true, true]);
  });

  it("GET /groups: a state of another tier over the same group records renders the tier's fields, not the kept free ones", async () => {
    const fx = groupsFx({ responseCache: false, renderCacheBytes: 1024 * 1024 });
    expect((await listed(fx)).every((g) => !('ldap_cn' in g))).toBe(true);
    const snap = fx.snapshot();
    const premium: PlatformState = Object.freeze({ ...snap.state, tier: 'premium' as const });
    fx.restore({ state: premium, clock: snap.clock });
    expect((await listed(fx)).every((g) => 'ldap_cn' in g)).toBe(true);
    fx.restore(snap);
    expect((await listed(fx)).every((g) => !('ldap_cn' in g))).toBe(true);
  });

  it('GET /groups: a viewer with no group of their own sees exactly the groups at their visibility level, and a visibility change shows at once', async () => {
    const fx = groupsFx({ responseCache: false });
    const paths = async (token?: string) =>
      (
        (await send(fx, 'GET', '/groups?all_available=true&order_by=path&sort=asc', token)).body as Listed[]
      ).map((g) => g.full_path);
    expect(await paths()).toEqual(['acme']);
    expect(await paths('carol-api')).toEqual(['acme']);
    expect(await paths('erin-api')).toEqual(['acme', 'acme/labs', 'zeta']);
    expect((await send(fx, 'PUT', '/groups/zeta', 'root-api', { visibility: 'public' })).status).toBe(200);
    expect(await paths()).toEqual(['acme', 'zeta']);
    expect(await paths('erin-api')).toEqual(['acme', 'acme/labs', 'zeta']);
    expect((await send(fx, 'PUT', '/groups/acme%2Flabs', 'root-api', { visibility: 'private' })).status).toBe(
      200,
    );
    expect(await paths('erin-api')).toEqual(['acme', 'zeta']);
  });

  it('pickInOrder: the groups of a set of ids in the order of a list, as filtering the list gives them', () => {
    const keys: GroupKey[] = [];
    for (let i = 0; i < 400; i++) {
      const id = ((i * 7919) % 400) + 1;
      keys.push({ g: {} as Group, id, level: 0, path: `p${id}`, name: `n${id}` });
    }
    for (const size of [0, 1, 3, 20, 49, 50, 51, 399]) {
      const ids = new Set<number>([100_000]);
      for (let i = 0; i < size; i++) ids.add(((i * 104729) % 400) + 1);
      const picked = pickInOrder(keys, ids);
      expect(picked).toEqual(keys.filter((k) => ids.has(k.id)));
      expect(pickInOrder(keys, ids)).toEqual(picked);
    }
  });

  it('GET /groups: a member among many groups gets their own hierarchy in the list order, as filtering every group gives it', async () => {
    const fx = createFauxlab({
      scenario: { ...groupsWorld, generate: { users: 3000, groups: 300 } },
      responseCache: false,
    });
    const st = fx.state;
    expect(st.groups.size).toBeGreaterThan(300);
    const checked: number[] = [];
    for (const [token, username] of [
      ['alice-api', 'alice'],
      ['bob-api', 'bob'],
      ['dave-api', 'dave'],
      ['grace-api', 'grace'],
    ] as const) {
      const user = [...tvalues(st.users)].find((u) => u.username === username)!;
      const own = userHierarchy(st, user.id);
      checked.push(own.size);
      for (const [orderBy, sort] of [
        ['path', 'asc'],
        ['name', 'desc'],
        ['id', 'desc'],
      ] as const) {
        const res = await send(fx, 'GET', `/groups?order_by=${orderBy}&sort=${sort}&per_page=100`, token);
        const expected = orderedGroups(st, orderBy, sort)
          .filter((k) => own.has(k.id))
          .slice(0, 100)
          .map((k) => k.g.full_path);
        expect((res.body as Listed[]).map((g) => g.full_path)).toEqual(expected);
      }
    }
    // Hierarchies small enough for the pick by place, at least one of them more than one group.
    expect(checked.every((n) => n * 8 <= st.groups.size)).toBe(true);
    expect(Math.max(...checked)).toBeGreaterThan(1);
  });
});
