import { describe, expect, it } from 'vitest';
import { createFauxlab, ScenarioError, loadScenario } from '../../../src/index.js';
import { call } from './world.js';

const generated = {
  now: '2021-03-01T12:00:00Z',
  seed: 11,
  users: [{ username: 'root', admin: true, tokens: [{ token: 'root', scopes: ['api' as const] }] }],
  generate: { projects: 2, repository_files_per_project: 250, repository_commits_per_project: 3 },
};

describe('repository scenarios', () => {
  it('generate.repository_files_per_project: files in directories and a chain of commits, the same for a seed', async () => {
    const a = createFauxlab({ scenario: generated });
    const b = createFauxlab({ scenario: generated });
    const head = async (fx: typeof a) =>
      (await call(fx, 'GET', '/projects/1/repository/branches', 'root')).body;
    const [ha, hb] = [await head(a), await head(b)];
    expect(ha.length).toBe(1);
    expect(ha[0].commit.id).toBe(hb[0].commit.id);
    const commits = await call(a, 'GET', '/projects/1/repository/commits?per_page=100', 'root');
    expect(commits.body.length).toBe(4);
    expect(commits.body[2].title).toBe('Add 250 files');
    const tree = await call(a, 'GET', '/projects/1/repository/tree?path=src&per_page=100', 'root');
    expect(tree.body.map((e: { name: string }) => e.name)).toEqual(['dir-0', 'dir-1', 'dir-2']);
    const other = createFauxlab({ scenario: { ...generated, seed: 12 } });
    expect((await head(other))[0].commit.id).not.toBe(ha[0].commit.id);
  });

  it('projects[].repository: unknown users and labels are named', () => {
    let problems: string[] = [];
    try {
      loadScenario({
        users: [{ username: 'a' }],
        projects: [
          {
            path: 'a/p',
            repository: {
              commits: [{ branch: 'master', message: 'x', author: 'ghost', parents: ['nope'] }],
              branches: [{ name: 'b', commit: 'missing' }],
              tags: [{ name: 't', commit: 'elsewhere' }],
            },
          },
        ],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [];
    }
    expect(problems).toEqual([
      'projects[0].repository.commits[0].parents: no earlier commit "nope"',
      'projects[0].repository.commits[0].author: no user "ghost"',
      'projects[0].repository.branches: "b" names no earlier commit "missing"',
      'projects[0].repository.tags[0].commit: no commit or branch "elsewhere"',
    ]);
  });
});
