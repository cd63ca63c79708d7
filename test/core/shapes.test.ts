import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import type { PlatformState } from '../../src/core/state.js';
import { tvalues, type Table } from '../../src/core/table.js';
import { projectEvents } from '../../src/resources/events/derive.js';
import type { CommitObject } from '../../src/resources/repository/objects.js';
import { resolveCommit } from '../../src/resources/repository/refs.js';
import { objectsOf } from '../../src/resources/repository/store.js';
import { listTree } from '../../src/resources/repository/tree.js';

// V8's own answer to "do these two objects share a hidden class", which nothing else can observe: records
// of one kind that each get a shape of their own hold hundreds of bytes of shape apiece and make every
// read of their fields megamorphic. The flag only lets code compiled after it use `%` intrinsics.
setFlagsFromString('--allow-natives-syntax');
const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** How many hidden classes the objects of `list` have (counting stops past `cap`). */
function shapesOf(list: Iterable<unknown>, cap = 20): number {
  const seen: object[] = [];
  for (const r of list) {
    if (typeof r !== 'object' || r === null || seen.some((s) => sameShape(s, r))) continue;
    seen.push(r);
    if (seen.length > cap) break;
  }
  return seen.length;
}

/** How many hidden classes the records of `t` have. */
const shapes = (t: Table<unknown>) => shapesOf(tvalues(t));

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

  it("a project's event rows, its tree's entries and its commits' signatures share a few hidden classes", () => {
    const fx = createFauxlab({
      scenario: {
        users: [ADMIN],
        generate: {
          users: 10,
          projects: 1,
          issues_per_project: 60,
          merge_requests_per_project: 20,
          repository_files_per_project: 40,
          repository_commits_per_project: 30,
        },
      },
    });
    const st = fx.state;
    const project = tvalues(st.projects)[0]!;
    const events = projectEvents(st, project.id);
    expect(events.length).toBeGreaterThan(80);
    expect(shapesOf(events)).toBeLessThanOrEqual(3);
    const store = objectsOf(st);
    const head = resolveCommit(st, project, project.default_branch ?? 'master')!;
    const entries = listTree(store, store.commit(head)!.tree, '', true);
    expect(entries.length).toBeGreaterThan(40);
    expect(shapesOf(entries)).toBeLessThanOrEqual(3);
    const signatures: object[] = [];
    for (let id: string | undefined = head; id !== undefined && signatures.length < 60;) {
      const commit: CommitObject = store.commit(id)!;
      signatures.push(commit.author, commit.committer);
      id = commit.parents[0];
    }
    expect(signatures.length).toBeGreaterThan(40);
    expect(shapesOf(signatures)).toBeLessThanOrEqual(3);
  });
});
