import { describe, expect, it } from 'vitest';
import { FrequencySketch, RenderCache, Renderings, type CacheEntry } from '../../src/core/render-cache.js';
import { createFauxlab, type Fauxlab } from '../../src/index.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';

let hashes = 0;
function entry(name: string, dropped: string[]): CacheEntry & { name: string } {
  return {
    name,
    hash: ++hashes,
    held: 0,
    older: null,
    newer: null,
    cached: false,
    owner: null,
    drop() {
      dropped.push(name);
    },
  };
}

describe('FrequencySketch', () => {
  it('starts at 256 counters and doubles each time it was asked as often as it has counters, up to its maximum', () => {
    const sketch = new FrequencySketch();
    expect(sketch.bytes).toBe(256);
    for (let h = 0; h < 255; h++) sketch.record(h);
    expect(sketch.bytes).toBe(256);
    sketch.record(255);
    expect(sketch.bytes).toBe(512);
    for (let h = 256; h < 1 << 17; h++) sketch.record(h);
    expect(sketch.bytes).toBe(1 << 17);
    for (let h = 0; h < 1 << 17; h++) sketch.record(h);
    expect(sketch.bytes).toBe(1 << 17);
    const small = new FrequencySketch(6);
    for (let h = 0; h < 1000; h++) small.record(h);
    expect(small.bytes).toBe(64);
  });

  it('counts no key less once it has grown', () => {
    const sketch = new FrequencySketch(12);
    const asked = new Map<number, number>();
    // 100 keys asked 1..5 times each while the table is small, then others until it is full size.
    for (let k = 1; k <= 100; k++)
      for (let n = 0; n <= k % 5; n++) {
        sketch.record(k * 7919);
        asked.set(k * 7919, n + 1);
      }
    for (let h = 1_000_000; sketch.bytes < 1 << 12; h++) sketch.record(h);
    for (const [h, n] of asked) {
      expect(sketch.frequency(h)).toBeGreaterThanOrEqual(n);
    }
  });
});

describe('RenderCache', () => {
  it('drops the least recently used entries when over its budget, and what it holds stays within it', () => {
    const dropped: string[] = [];
    const cache = new RenderCache(100);
    const a = entry('a', dropped);
    const b = entry('b', dropped);
    const c = entry('c', dropped);
    const d = entry('d', dropped);
    expect(cache.add(a, 40)).toBe(true);
    expect(cache.add(b, 40)).toBe(true);
    cache.touch(a);
    // Full: a newcomer asked for no more often than the oldest entry (b) stays out.
    expect(cache.add(c, 40)).toBe(false);
    expect([c.cached, dropped]).toEqual([false, []]);
    cache.touch(c);
    // Asked for more often now than b: it enters, and b (used least recently: a was touched after it) goes.
    expect(cache.add(c, 40)).toBe(true);
    expect(dropped).toEqual(['b']);
    expect([a.cached, b.cached, c.cached]).toEqual([true, false, true]);
    expect(cache.bytes).toBe(80);
    expect(cache.size).toBe(2);
    // Growing an entry makes room from the oldest, never from the entry that grew.
    cache.charge(c, 30);
    expect(dropped).toEqual(['b', 'a']);
    expect(cache.bytes).toBe(70);
    expect(cache.add(d, 20)).toBe(true);
    expect(cache.bytes).toBe(90);
    // A charge to an entry that is no longer kept changes nothing.
    cache.charge(b, 1000);
    expect(cache.bytes).toBe(90);
    cache.limit = 20;
    expect(dropped).toEqual(['b', 'a', 'c']);
    expect(cache.bytes).toBe(20);
    cache.clear();
    expect(dropped).toEqual(['b', 'a', 'c', 'd']);
    expect([cache.bytes, cache.size]).toEqual([0, 0]);
    expect(() => new RenderCache(-1)).toThrow(RangeError);
    expect(() => (cache.limit = 1.5)).toThrow(RangeError);
  });

  it('keeps the one entry in use even when it alone is over the budget', () => {
    const dropped: string[] = [];
    const cache = new RenderCache(10);
    const a = entry('a', dropped);
    const b = entry('b', dropped);
    expect(cache.add(a, 50)).toBe(true);
    expect(cache.add(b, 50)).toBe(false);
    expect(a.cached).toBe(true);
    cache.touch(b);
    cache.touch(b);
    expect(cache.add(b, 50)).toBe(true);
    expect(dropped).toEqual(['a']);
    expect(b.cached).toBe(true);
  });

  it('reads spread evenly over ten times what fits: the kept entries stay, the rest pass through', () => {
    const dropped: string[] = [];
    const cache = new RenderCache(100);
    const all = Array.from({ length: 100 }, (_, i) => entry(`e${i}`, dropped));
    let hits = 0;
    let i = 0;
    for (let n = 0; n < 5000; n++) {
      i = (i * 7919 + 13) % 100;
      const e = all[i]!;
      if (e.cached) {
        hits++;
        cache.touch(e);
      } else cache.add(e, 10);
    }
    expect(cache.size).toBe(10);
    // Without admission every miss would drop an entry (about 4,500); the first ten filled it.
    expect(dropped.length).toBeLessThan(100);
    expect(hits).toBeGreaterThan(300);
  });
});

/** A world of 60 projects in a group where alice is a developer, so that viewers see different fields. */
const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-api', scopes: ['api'] }] },
    { username: 'alice', tokens: [{ token: 'alice-api', scopes: ['api'] }] },
  ],
  groups: [
    { path: 'big', visibility: 'public', members: [{ username: 'alice', access_level: 'developer' }] },
  ],
  projects: Array.from({ length: 60 }, (_, i) => ({
    path: `big/p${i + 1}`,
    visibility: i % 3 === 0 ? ('private' as const) : ('public' as const),
    description: `project number ${i + 1}`,
  })),
};

const VIEWERS = ['root-api', 'alice-api', undefined];

async function read(fx: Fauxlab, path: string, token?: string): Promise<string> {
  const res = await fx.fetch(`http://localhost/api/v4${path}`, {
    headers: token ? { 'PRIVATE-TOKEN': token } : {},
  });
  return `${res.status} ${await res.text()}`;
}

/** Every project single and a few pages, as each viewer. */
async function readAll(fx: Fauxlab): Promise<string[]> {
  const out: string[] = [];
  for (const token of VIEWERS) {
    for (let id = 1; id <= 60; id++) out.push(await read(fx, `/projects/${id}`, token));
    for (const page of [1, 2, 3]) out.push(await read(fx, `/projects?per_page=20&page=${page}`, token));
    out.push(await read(fx, '/projects?statistics=true&per_page=5', token));
  }
  return out;
}

describe('project renderings within a budget', () => {
  it('GET /projects/:id and /projects: the same bytes whether renderings are kept or dropped at once, and the budget holds', async () => {
    const fx = createFauxlab({ scenario, responseCache: false, renderCacheBytes: 20_000 });
    const projectRenderings = fx.renderCache;
    expect(projectRenderings.limit).toBe(20_000);
    const first = await readAll(fx);
    // Over budget by at most the entry in use.
    expect(projectRenderings.bytes).toBeLessThanOrEqual(20_000 + 12_000);
    const again = await readAll(fx);
    projectRenderings.limit = 0;
    const none = await readAll(fx);
    projectRenderings.limit = 1024 * 1024 * 1024;
    const kept = await readAll(fx);
    const keptAgain = await readAll(fx);
    expect(projectRenderings.size).toBeGreaterThanOrEqual(60);
    for (const other of [again, none, kept, keptAgain]) expect(other).toEqual(first);
    expect(first.filter((s) => s.startsWith('200 ')).length).toBeGreaterThan(150);
  });

  it('PUT /projects/:id: the next GET shows the change for every viewer, whether the rendering was kept or dropped', async () => {
    for (const limit of [0, 20_000, 1024 * 1024 * 1024]) {
      const fx = createFauxlab({ scenario, renderCacheBytes: limit });
      await readAll(fx);
      const res = await fx.fetch('http://localhost/api/v4/projects/2', {
        method: 'PUT',
        headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
        body: JSON.stringify({ description: `changed under ${limit}`, name: `Renamed ${limit}` }),
      });
      expect(res.status).toBe(200);
      for (const token of VIEWERS) {
        const one = JSON.parse((await read(fx, '/projects/2', token)).slice(4)) as Record<string, unknown>;
        expect([one.description, one.name]).toEqual([`changed under ${limit}`, `Renamed ${limit}`]);
        const page = JSON.parse(
          (await read(fx, '/projects?per_page=20&page=1&sort=asc', token)).slice(4),
        ) as {
          id: number;
          description: string;
        }[];
        expect(page.find((p) => p.id === 2)?.description).toBe(`changed under ${limit}`);
      }
      // A membership change shows in the permissions a kept rendering carried before.
      const before = JSON.parse((await read(fx, '/projects/3', 'alice-api')).slice(4)) as {
        permissions: { group_access: { access_level: number } | null };
      };
      expect(before.permissions.group_access?.access_level).toBe(30);
      const up = await fx.fetch('http://localhost/api/v4/groups/big/members/2', {
        method: 'PUT',
        headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
        body: JSON.stringify({ access_level: 40 }),
      });
      expect(up.status).toBe(200);
      const after = JSON.parse((await read(fx, '/projects/3', 'alice-api')).slice(4)) as typeof before;
      expect(after.permissions.group_access?.access_level).toBe(40);
    }
  });
});

describe('renderings of any kind of record', () => {
  it('RecordRenderings: kept from the second ask on, the same bytes while key and deps stand, built afresh when a dep changes', () => {
    const kind = new Renderings(1024 * 1024).kind<{ id: number }>('thing');
    const rec = { id: 7 };
    let builds = 0;
    const build = () => `{"id":7,"n":${++builds}}`;
    const deps = [{}];
    expect(kind.bytes(rec, 'k', deps, build).toString()).toBe('{"id":7,"n":1}');
    const second = kind.bytes(rec, 'k', deps, build);
    expect(second.toString()).toBe('{"id":7,"n":2}');
    // Kept now: the same bytes, no build.
    expect(kind.bytes(rec, 'k', [deps[0]], build)).toBe(second);
    expect(builds).toBe(2);
    // Another dependency object (a write replaced a table) or another record (a write replaced it).
    expect(kind.bytes(rec, 'k', [{}], build).toString()).toBe('{"id":7,"n":3}');
    expect(kind.bytes({ id: 7 }, 'k', deps, build).toString()).toBe('{"id":7,"n":4}');
    // Another view of the same record is kept beside it.
    expect(kind.bytes(rec, 'other', deps, build).toString()).toBe('{"id":7,"n":5}');
    expect(kind.bytes(rec, 'other', deps, build).toString()).toBe('{"id":7,"n":5}');
    // The replaced record's entry stays until the budget drops it; nothing serves it any more.
    expect(kind.cache.size).toBe(2);
    expect(kind.cache.bytes).toBeGreaterThan(0);
  });

  it('RecordRenderings.json: the built string until kept, then the kept string; bytes of a view kept as a string are its UTF-8', () => {
    const kind = new Renderings(1024 * 1024).kind<{ id: number }>('thing');
    const rec = { id: 7 };
    let builds = 0;
    // Built by concatenation, as the users' builders do; non-ASCII so bytes and characters differ.
    const build = () => `{"id":7,"name":"Zoë",` + `"n":${++builds}}`;
    const deps = [{}];
    // First ask: the string itself, nothing kept.
    expect(kind.json(rec, 'k', deps, build)).toBe('{"id":7,"name":"Zoë","n":1}');
    expect(kind.cache.size).toBe(0);
    // Second ask: kept, as a string.
    const kept = kind.json(rec, 'k', deps, build);
    expect(kept).toBe('{"id":7,"name":"Zoë","n":2}');
    expect(kind.cache.size).toBe(1);
    expect(kind.json(rec, 'k', [deps[0]], build)).toBe(kept);
    const bytes = kind.bytes(rec, 'k', deps, build);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.equals(Buffer.from('{"id":7,"name":"Zoë","n":2}'))).toBe(true);
    expect(builds).toBe(2);
    // Charged by its UTF-8 length, like bytes.
    const held = kind.cache.bytes;
    expect(held).toBeGreaterThanOrEqual(Buffer.byteLength(kept as string));
    // A changed dep builds afresh; a view kept as bytes is answered as bytes.
    expect(kind.json(rec, 'k', [{}], build)).toBe('{"id":7,"name":"Zoë","n":3}');
    const asBytes = kind.bytes(rec, 'b', deps, build);
    expect(kind.json(rec, 'b', deps, build)).toBe(asBytes);
    expect(builds).toBe(4);
  });

  it('RecordRenderings.keysFor: one table per base URL for every request of the instance, at most 64 of them', () => {
    const kind = new Renderings(1024).kind<{ id: number }>('thing');
    const a = kind.keysFor('http://a');
    expect(kind.keysFor('http://a')).toBe(a);
    expect(kind.keysFor('http://b')).not.toBe(a);
    expect(new Renderings(1024).kind<{ id: number }>('thing').keysFor('http://a')).not.toBe(a);
    for (let i = 0; i < 64; i++) kind.keysFor(`http://host-${i}`);
    // Past the bound the tables start over: a new one for a base seen before.
    expect(kind.keysFor('http://a')).not.toBe(a);
  });

  it('RecordRenderings: a budget of 0 keeps only the rendering in use, and every answer is its own record', () => {
    const kind = new Renderings(0).kind<{ id: number }>('thing');
    const recs = [{ id: 1 }, { id: 2 }, { id: 3 }];
    for (let i = 0; i < 30; i++) {
      const rec = recs[i % 3]!;
      expect(kind.bytes(rec, 'k', [], () => `{"id":${rec.id}}`).toString()).toBe(`{"id":${rec.id}}`);
      expect(kind.cache.size).toBeLessThanOrEqual(1);
    }
  });

  it('renderCacheBytes: each instance has a budget of its own, and one restored from the other shares no budget', async () => {
    const a = createFauxlab({ scenario, responseCache: false, renderCacheBytes: 1024 * 1024 * 1024 });
    const b = createFauxlab({ scenario: {}, responseCache: false, renderCacheBytes: 0 });
    b.restore(a.snapshot());
    expect([a.renderCache.limit, b.renderCache.limit]).toEqual([1024 * 1024 * 1024, 0]);
    const first = await readAll(a);
    expect(a.renderCache.size).toBeGreaterThanOrEqual(60);
    // b serves a's kept renderings of the same records without taking them into its own budget.
    expect(await readAll(b)).toEqual(first);
    expect([b.renderCache.size, b.renderCache.bytes]).toEqual([0, 0]);
    const held = a.renderCache.bytes;
    a.renderCache.limit = 0;
    expect([a.renderCache.size, a.renderCache.bytes]).toEqual([0, 0]);
    expect(await readAll(b)).toEqual(first);
    expect(held).toBeGreaterThan(0);
  });
});

/** Every user single and page as each viewer, and /user. */
async function readUsers(fx: Fauxlab): Promise<string[]> {
  const out: string[] = [];
  for (const token of VIEWERS) {
    for (let id = 1; id <= 4; id++) out.push(await read(fx, `/users/${id}`, token));
    out.push(await read(fx, '/users?per_page=3&page=1', token));
    out.push(await read(fx, '/users?per_page=3&page=2&order_by=username', token));
    if (token) out.push(await read(fx, '/user', token));
  }
  out.push(await read(fx, '/users?with_custom_attributes=true', 'root-api'));
  return out;
}

describe('user renderings', () => {
  const users: ScenarioFile = {
    ...scenario,
    users: [
      {
        username: 'root',
        admin: true,
        tokens: [
          { token: 'root-api', scopes: ['api'] },
          { token: 'root-sudo', scopes: ['api', 'sudo'] },
        ],
      },
      scenario.users![1]!,
      { username: 'bob', private_profile: true, tokens: [{ token: 'bob-api', scopes: ['api'] }] },
      { username: 'carol', projects_limit: 1 },
    ],
  };

  it('GET /users, /users/:id and /user: the same bytes whether renderings are kept or not', async () => {
    const kept = createFauxlab({ scenario: users, responseCache: false, renderCacheBytes: 1024 * 1024 });
    const none = createFauxlab({ scenario: users, responseCache: false, renderCacheBytes: 0 });
    // Run by run: the first requests of a day record their users' activity, which later runs show.
    for (let i = 0; i < 3; i++) {
      const expected = await readUsers(none);
      expect(expected.filter((s) => s.startsWith('200 ')).length).toBe(expected.length - 2);
      expect(await readUsers(kept)).toEqual(expected);
    }
    expect(kept.renderCache.size).toBeGreaterThan(0);
  });

  it('GET /users/:id: a kept rendering gives way to a write of the user, a project of theirs and a new membership', async () => {
    const fx = createFauxlab({ scenario: users, responseCache: false, renderCacheBytes: 1024 * 1024 });
    const carol = async () =>
      JSON.parse((await read(fx, '/users/4', 'root-api')).slice(4)) as {
        name: string;
        can_create_project: boolean;
        highest_role: number;
      };
    for (let i = 0; i < 3; i++) await carol();
    const before = await carol();
    expect(before.can_create_project).toBe(true);
    const write = (method: string, path: string, body: object, sudo?: string) =>
      fx.fetch(`http://localhost/api/v4${path}`, {
        method,
        headers: {
          'PRIVATE-TOKEN': sudo ? 'root-sudo' : 'root-api',
          'Content-Type': 'application/json',
          ...(sudo ? { Sudo: sudo } : {}),
        },
        body: JSON.stringify(body),
      });
    expect((await write('PUT', '/users/4', { name: 'Carol Renamed' })).status).toBe(200);
    expect((await carol()).name).toBe('Carol Renamed');
    expect((await write('POST', '/projects', { name: 'mine' }, 'carol')).status).toBe(201);
    expect((await carol()).can_create_project).toBe(false);
    expect((await carol()).highest_role).toBe(40);
    expect((await write('POST', '/groups/big/members', { user_id: 4, access_level: 50 })).status).toBe(201);
    expect((await carol()).highest_role).toBe(50);
    const page = JSON.parse((await read(fx, '/users?per_page=20', 'root-api')).slice(4)) as {
      id: number;
      name: string;
      can_create_project: boolean;
    }[];
    expect(page.find((u) => u.id === 4)).toMatchObject({ name: 'Carol Renamed', can_create_project: false });
  });
});
