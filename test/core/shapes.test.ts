import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import type { PlatformState } from '../../src/core/state.js';
import { tvalues, type Table } from '../../src/core/table.js';

// V8's own answer to "do these two objects share a hidden class", which nothing else can observe: records
// of one kind that each get a shape of their own hold hundreds of bytes of shape apiece and make every
// read of their fields megamorphic. The flag only lets code compiled after it use `%` intrinsics.
setFlagsFromString('--allow-natives-syntax');
const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** How many hidden classes the records of `t` have (counting stops past `cap`). */
function shapes(t: Table<unknown>, cap = 20): number {
  const seen: object[] = [];
  for (const r of tvalues(t)) {
    if (typeof r !== 'object' || r === null || seen.some((s) => sameShape(s, r))) continue;
    seen.push(r);
    if (seen.length > cap) break;
  }
  return seen.length;
}

/** Every table of the state (areas' slices too) holding at least `min` records, by path. */
function tables(st: PlatformState, min = 8): Map<string, Table<unknown>> {
  const out = new Map<string, Table<unknown>>();
  const walk = (o: object, path: string, depth: number) => {
    for (const [k, v] of Object.entries(o)) {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
      const t = v as Partial<Table<unknown>>;
      if (Array.isArray(t.buckets) && typeof t.size === 'number') {
        if (t.size >= min) out.set(path + k, v as Table<unknown>);
      } else if (depth < 2) walk(v as object, `${path}${k}.`, depth + 1);
    }
  };
  walk(st, '', 0);
  return out;
}

const ADMIN = { username: 'root', name: 'Administrator', admin: true, tokens: [{ token: 'root-api' }] };

describe('record shapes', () => {
  it('a generated world: the records of every table share a few hidden classes', () => {
    const fx = createFauxlab({
      scenario: {
        users: [ADMIN],
        generate: {
          users: 60,
          groups: 6,
          projects: 12,
          issues_per_project: 40,
          merge_requests_per_project: 15,
          repository_files_per_project: 3,
          repository_commits_per_project: 3,
        },
      },
    });
    const found = tables(fx.state);
    for (const name of ['users', 'projects', 'members', 'issuables.issues', 'issuables.mergeRequests'])
      expect(found.has(name), name).toBe(true);
    const counts = Object.fromEntries([...found].map(([name, t]) => [name, shapes(t)]));
    for (const [name, n] of Object.entries(counts))
      expect(n, `${name}: ${JSON.stringify(counts)}`).toBeLessThanOrEqual(3);
  });

  it('issues and merge requests created over the API share a few hidden classes', async () => {
    const fx = createFauxlab({ scenario: { users: [ADMIN], projects: [{ path: 'root/app' }] } });
    const post = async (path: string, body: object) => {
      const res = await fx.fetch(`http://localhost/api/v4/projects/1${path}`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBe(201);
    };
    for (let i = 0; i < 30; i++) {
      await post('/issues', {
        title: `issue ${i}`,
        ...(i % 2 ? { description: 'steps', due_date: '2030-01-01' } : {}),
      });
      await post('/repository/branches', { branch: `topic-${i}`, ref: 'master' });
      await post('/merge_requests', {
        title: `change ${i}`,
        source_branch: `topic-${i}`,
        target_branch: 'master',
      });
    }
    expect(shapes(fx.state.issuables.issues)).toBeLessThanOrEqual(3);
    expect(shapes(fx.state.issuables.mergeRequests)).toBeLessThanOrEqual(3);
  });
});
