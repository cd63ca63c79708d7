/**
 * @gitbeaker/rest through MSW: a merge request's whole way over the real repository (a branch, a commit
 * of three files, the merge request, its changes, the merge, and the issue it names closed).
 */
import { Gitlab } from '@gitbeaker/rest';
import { setupServer } from 'msw/node';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { fauxlabHandlers } from '../../src/msw/index.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import { CLIENT_VERSIONS } from './targets.js';

/** A host per release: the suites' MSW servers never answer for each other. */
const hostOf = (version: string) => `http://gitlab-mr-${version.replace('.', '-')}.test`;

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [{ username: 'alice', name: 'Alice Liddell', tokens: [{ token: 'alice-token' }] }],
  projects: [
    {
      path: 'alice/app',
      name: 'App',
      issues: [{ title: 'Ship the files', author: 'alice' }],
    },
  ],
};

describe.each(CLIENT_VERSIONS)('gitbeaker: merge requests over the repository, GitLab %s', (version) => {
  it('gitbeaker: branch, commit with actions, merge request, changes, merge, issue closed', async () => {
    const fx = createFauxlab({ scenario, version });
    const server = setupServer(...fauxlabHandlers(fx, { baseUrl: hostOf(version) }));
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const api = new Gitlab({ host: hostOf(version), token: 'alice-token' });
      const project = 'alice/app';
      const before = (await api.Branches.show(project, 'master')).commit.id;
      await api.Branches.create(project, 'feature', 'master');
      const commit = await api.Commits.create(project, 'feature', 'Add three files', [
        { action: 'create', filePath: 'docs/one.md', content: 'one\n' },
        { action: 'create', filePath: 'docs/two.md', content: 'two\n' },
        { action: 'create', filePath: 'src/main.rb', content: 'puts 1\n' },
      ]);
      const mr = await api.MergeRequests.create(project, 'feature', 'master', 'Add the files', {
        description: 'Closes #1',
      });
      expect(mr).toMatchObject({ iid: 1, sha: commit.id, state: 'opened' });

      const changes = await api.MergeRequests.showChanges(project, mr.iid);
      expect(changes.changes_count).toBe('3');
      expect(changes.changes.map((c) => [c.new_path, c.new_file, c.diff])).toEqual([
        ['docs/one.md', true, '@@ -0,0 +1 @@\n+one\n'],
        ['docs/two.md', true, '@@ -0,0 +1 @@\n+two\n'],
        ['src/main.rb', true, '@@ -0,0 +1 @@\n+puts 1\n'],
      ]);

      const merged = await api.MergeRequests.merge(project, mr.iid);
      expect(merged.state).toBe('merged');
      // The fields later releases add (14.0 `draft`, 14.7 `merge_user`), which gitbeaker's types read.
      if (version === '13.12') expect(Object.keys(merged)).not.toContain('draft');
      else expect(merged).toMatchObject({ draft: false, merge_user: { username: 'alice' } });
      const master = await api.Branches.show(project, 'master');
      expect(master.commit.id).toBe(merged.merge_commit_sha);
      expect(master.commit.parent_ids).toEqual([before, commit.id]);
      const tree = await api.Repositories.allRepositoryTrees(project, { recursive: true });
      expect(tree.filter((e) => e.type === 'blob').map((e) => e.path)).toEqual(
        expect.arrayContaining(['docs/one.md', 'docs/two.md', 'src/main.rb', 'README.md']),
      );
      expect((await api.Issues.show(1, { projectId: project })).state).toBe('closed');
    } finally {
      server.close();
    }
  });
});
