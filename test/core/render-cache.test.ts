import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_RENDER_CACHE_BYTES,
  projectRenderings,
  RenderCache,
  type CacheEntry,
} from '../../src/core/render-cache.js';
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
    drop() {
      dropped.push(name);
    },
  };
}

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
  afterEach(() => {
    projectRenderings.limit = DEFAULT_RENDER_CACHE_BYTES;
  });

  it('GET /projects/:id and /projects: the same bytes whether renderings are kept or dropped at once, and the budget holds', async () => {
    const fx = createFauxlab({ scenario, responseCache: false, renderCacheBytes: 20_000 });
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
