/** Issuables in scenario files: nested entries, their cross-checks, and generated ones. */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { loadScenario, ScenarioError, type ScenarioFile } from '../../../src/scenario/index.js';
import { chunkIds } from '../../../src/resources/issuables/store.js';
import { tget, tvalues } from '../../../src/core/table.js';
import { get } from './world.js';

const base: ScenarioFile = {
  now: '2021-03-01T12:00:00Z',
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-api' }] },
    { username: 'ann', tokens: [{ token: 'ann-api' }] },
  ],
  groups: [{ path: 'g', visibility: 'public', members: [{ username: 'ann', access_level: 'owner' }] }],
};

function problems(s: ScenarioFile): string[] {
  try {
    loadScenario(s);
    return [];
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems;
    throw e;
  }
}

describe('scenario issuables', () => {
  it('scenario: issues, merge requests and milestones must name known users and milestones', () => {
    expect(
      problems({
        ...base,
        projects: [
          {
            path: 'g/p',
            milestones: [{ title: 'm1' }, { title: 'm1' }],
            issues: [
              { title: 'a', author: 'zed', assignees: ['ann', 'yo'], milestone: 'm9' },
              { title: 'b', iid: 3 },
              { title: 'c', iid: 3, notes: [{ body: 'hi', author: 'nobody' }] },
            ],
            merge_requests: [{ title: 'mr', source_branch: 'x', reviewers: ['ghost'] }],
          },
        ],
      }),
    ).toEqual([
      'projects[0].milestones[1].title: "m1" is listed twice',
      'projects[0].issues[0].author: no user "zed"',
      'projects[0].issues[0].assignees[1]: no user "yo"',
      'projects[0].issues[0].milestone: no milestone "m9" in the project\'s milestones',
      'projects[0].issues[2].iid: 3 is used twice',
      'projects[0].issues[2].notes[0].author: no user "nobody"',
      'projects[0].merge_requests[0].reviewers[0]: no user "ghost"',
    ]);
  });
  it('scenario: field shapes are validated with their paths', () => {
    expect(problems({ ...base, projects: [{ path: 'g/p', issues: [{ title: '' }] }] })[0]).toMatch(
      /^projects\[0\]\.issues\[0\]\.title: /,
    );
    expect(
      problems({
        ...base,
        projects: [{ path: 'g/p', issues: [{ title: 'x', state: 'merged' as never }] }],
      })[0],
    ).toMatch(/^projects\[0\]\.issues\[0\]\.state: /);
    expect(problems({ ...base, epics: [{ group: 'nope', title: 'e', author: 'ann' }] })).toEqual([
      'epics[0].group: no group "nope"',
    ]);
  });
  it('scenario: explicit iids go first and the sequence continues after the highest', async () => {
    const fx = createFauxlab({
      scenario: {
        ...base,
        projects: [
          { path: 'g/p', visibility: 'public', issues: [{ title: 'later' }, { title: 'pinned', iid: 10 }] },
        ],
      },
    });
    const body = (await get(fx, '/projects/g%2Fp/issues', 'ann-api')).body;
    expect(body.map((i: { iid: number; title: string }) => [i.iid, i.title]).sort()).toEqual([
      [10, 'pinned'],
      [11, 'later'],
    ]);
  });
  it('scenario: the project record stays free of issuable fields', () => {
    const fx = createFauxlab({
      scenario: { ...base, projects: [{ path: 'g/p', issues: [{ title: 'x' }] }] },
    });
    const p = tget(fx.state.projects, 1) as unknown as Record<string, unknown>;
    expect(p).not.toHaveProperty('issues');
    expect(p).not.toHaveProperty('milestones');
    expect(p.open_issues_count).toBe(1);
  });
});

describe('generate.issues_per_project', () => {
  const scenario: ScenarioFile = {
    ...base,
    projects: [{ path: 'g/explicit', visibility: 'public' }],
    generate: { users: 20, groups: 3, projects: 5, issues_per_project: 40, merge_requests_per_project: 5 },
  };
  it('generate: every project gets its issues and merge requests, iids 1..n without gaps', () => {
    const fx = createFauxlab({ scenario });
    const st = fx.state;
    expect(st.issuables.issues.size).toBe(6 * 40);
    expect(st.issuables.mergeRequests.size).toBe(6 * 5);
    for (const p of tvalues(st.projects)) {
      const meta = tget(st.issuables.projectMeta, p.id)!;
      const got = chunkIds(st.issuables.idx.byProject, 'i', p.id, meta.issue_iid)
        .map((id) => tget(st.issuables.issues, id)!.iid)
        .sort((a, b) => a - b);
      expect(got).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    }
  });
  it('generate: the same seed gives the same issues', () => {
    const a = createFauxlab({ scenario });
    const b = createFauxlab({ scenario });
    expect(JSON.stringify(a.state.issuables)).toBe(JSON.stringify(b.state.issuables));
    const c = createFauxlab({ scenario, seed: 99 });
    expect(JSON.stringify(c.state.issuables)).not.toBe(JSON.stringify(a.state.issuables));
  });
  it('generate: generated issues answer the API with their labels and milestones', async () => {
    const fx = createFauxlab({ scenario });
    const r = await get(fx, '/projects/1/issues?labels=bug&per_page=100', 'root-api');
    expect(r.status).toBe(200);
    expect(r.body.length).toBeGreaterThan(0);
    expect(r.body.every((i: { labels: string[] }) => i.labels.includes('bug'))).toBe(true);
  });
  it('generate: issues_per_project alone fills the explicit projects', () => {
    const fx = createFauxlab({
      scenario: { ...base, projects: [{ path: 'g/p' }], generate: { issues_per_project: 3 } },
    });
    expect(fx.state.issuables.issues.size).toBe(3);
  });
});
