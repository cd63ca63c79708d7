/**
 * `PUT /projects/:id/merge_requests/:iid/rebase` with the real git: the source branch is rebased onto
 * the target (`MergeRequests::RebaseService`, Gitaly's `UserRebaseConfirmable`) when the rebase ends on
 * the instance clock, and `git fetch` sees the new commits; a conflict sets `merge_error`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, localServers } from '../../helpers.js';
import { hasGit, runGit } from './run-git.js';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-api', scopes: ['api'] }] },
    {
      username: 'bob',
      name: 'Bob Builder',
      email: 'bob@example.com',
      tokens: [{ token: 'bob-api', scopes: ['api'] }],
    },
  ],
  groups: [{ path: 'acme', visibility: 'public' }],
  projects: [
    {
      path: 'acme/app',
      visibility: 'public',
      members: [{ username: 'bob', access_level: 'developer' }],
      repository: {
        commits: [
          {
            id: 'one',
            branch: 'master',
            message: 'CI\n',
            author: 'bob',
            files: { '.gitlab-ci.yml': 'test:\n  script: make\n', 'shared.txt': 'base\n' },
          },
        ],
      },
    },
  ],
};

let root: string;
let fx: Fauxlab;
let base: string;
const listen = localServers();
const git = (args: string[], cwd = root) => runGit(root, args, cwd);
const url = () => `${base.replace('http://', 'http://bob:bob-api@')}/acme/app.git`;
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fx.fetch(
    new Request(`${base}/api/v4/projects/acme%2Fapp${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': 'bob-api', 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, body: await json(res) };
};
const commitFile = async (dir: string, file: string, content: string, message: string) => {
  writeFileSync(join(dir, file), content);
  await git(['add', file], dir);
  await git(['commit', '-q', '-m', message], dir);
  return (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
};
const onMaster = (file: string, content: string) =>
  api('POST', '/repository/commits', {
    branch: 'master',
    commit_message: `Master: ${file}`,
    actions: [{ action: 'create', file_path: file, content }],
  });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-git-rebase-'));
  fx = createFauxlab({ scenario });
  base = await listen(fx.fetch);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('rebasing a merge request through the API', () => {
  it('the source branch is replayed on the target by the user (author and message kept), moved as a push with a new pipeline; skip_ci skips it', async () => {
    const dir = join(root, 'work');
    expect((await git(['clone', '-q', url(), dir])).code).toBe(0);
    await git(['checkout', '-q', '-b', 'feature'], dir);
    const a = await commitFile(dir, 'a.txt', 'a\n', 'Add a\n\nWith a body.');
    const b = await commitFile(dir, 'b.txt', 'b\n', 'Add b');
    expect((await git(['push', '-q', 'origin', 'feature'], dir)).code).toBe(0);
    const master = (await onMaster('m.txt', 'm\n')).body.id as string;
    const mr = (
      await api('POST', '/merge_requests', { source_branch: 'feature', target_branch: 'master', title: 'F' })
    ).body;
    const pipelinesBefore = (await api('GET', '/pipelines?ref=feature')).body.length;

    const asked = await api('PUT', `/merge_requests/${mr.iid}/rebase`);
    expect(asked).toEqual({ status: 202, body: { rebase_in_progress: true } });
    // In progress: the branch has not moved yet.
    const during = (await api('GET', `/merge_requests/${mr.iid}?include_rebase_in_progress=true`)).body;
    expect([during.rebase_in_progress, during.sha]).toEqual([true, b]);
    fx.clock.advance(1000);
    const after = (await api('GET', `/merge_requests/${mr.iid}?include_rebase_in_progress=true`)).body;
    expect([after.rebase_in_progress, after.merge_error]).toEqual([false, null]);
    expect(after.sha).not.toBe(b);

    expect((await git(['fetch', '-q', 'origin'], dir)).code).toBe(0);
    const log = (await git(['log', '--format=%H %P|%an <%ae>|%cn <%ce>|%B', 'origin/feature', '-3'], dir))
      .stdout;
    const [newB, newA] = (await git(['rev-list', '-2', 'origin/feature'], dir)).stdout.trim().split('\n');
    expect(newB).toBe(after.sha);
    expect([newA, newB]).not.toContain(a);
    expect(log).toContain(`${newB} ${newA}|Git User <git@example.com>|Bob Builder <bob@example.com>|Add b`);
    expect(log).toContain(
      `${newA} ${master}|Git User <git@example.com>|Bob Builder <bob@example.com>|Add a\n\nWith a body.`,
    );
    const files = (await git(['ls-tree', '--name-only', 'origin/feature'], dir)).stdout.trim().split('\n');
    expect(files).toEqual(['.gitlab-ci.yml', 'a.txt', 'b.txt', 'm.txt', 'shared.txt']);
    // The merge request's head ref follows, and the push made the branch's pipeline.
    const head = (await git(['ls-remote', url(), `refs/merge-requests/${mr.iid}/head`])).stdout;
    expect(head).toBe(`${newB}\trefs/merge-requests/${mr.iid}/head\n`);
    const pipelines = (await api('GET', '/pipelines?ref=feature')).body;
    expect(pipelines.length).toBe(pipelinesBefore + 1);
    expect([pipelines[0].sha, pipelines[0].status]).toEqual([newB, 'pending']);

    // Up to date: nothing to rebase, nothing moves.
    await api('PUT', `/merge_requests/${mr.iid}/rebase`);
    fx.clock.advance(1000);
    expect((await api('GET', `/merge_requests/${mr.iid}`)).body.sha).toBe(newB);

    // skip_ci: the push pipeline is skipped (`-o ci.skip`).
    await onMaster('n.txt', 'n\n');
    await api('PUT', `/merge_requests/${mr.iid}/rebase`, { skip_ci: true });
    fx.clock.advance(1000);
    const skipped = (await api('GET', '/pipelines?ref=feature')).body;
    expect(skipped.length).toBe(pipelinesBefore + 2);
    expect([skipped[0].sha, skipped[0].status]).toEqual([
      (await api('GET', `/merge_requests/${mr.iid}`)).body.sha,
      'skipped',
    ]);
  });

  it('a conflict leaves the branch and sets merge_error as RebaseService saves it', async () => {
    const dir = join(root, 'work');
    await git(['checkout', '-q', '-b', 'clash', 'origin/master'], dir);
    const mine = await commitFile(dir, 'shared.txt', 'mine\n', 'Mine');
    expect((await git(['push', '-q', 'origin', 'clash'], dir)).code).toBe(0);
    await api('PUT', '/repository/files/shared.txt', {
      branch: 'master',
      content: 'theirs\n',
      commit_message: 'Theirs',
    });
    const mr = (
      await api('POST', '/merge_requests', { source_branch: 'clash', target_branch: 'master', title: 'C' })
    ).body;
    await api('PUT', `/merge_requests/${mr.iid}/rebase`);
    fx.clock.advance(1000);
    const after = (await api('GET', `/merge_requests/${mr.iid}?include_rebase_in_progress=true`)).body;
    expect([after.rebase_in_progress, after.merge_error, after.sha]).toEqual([
      false,
      'Rebase failed. Please rebase locally',
      mine,
    ]);
    expect((await git(['ls-remote', url(), 'refs/heads/clash'])).stdout).toBe(`${mine}\trefs/heads/clash\n`);
  });
});
