import { describe, expect, it } from 'vitest';
import { APP, call, commitFiles, SITE, world } from './world.js';

const FORK = '/projects/dev%2Fapp';

/** dev forks acme/app after owner committed to it; the parent then moves on. */
async function forked() {
  const fx = world();
  const before = await commitFiles(fx, { 'a.txt': 'A\n' });
  const fork = await call(fx, 'POST', `${APP}/fork`, 'dev');
  expect(fork.status).toBe(201);
  const ahead = await commitFiles(fx, { 'b.txt': 'B\n' }, { branch: 'feature', start_branch: 'master' });
  return { fx, before, ahead };
}

const commitToFork = (fx: ReturnType<typeof world>, body: Record<string, unknown>, token = 'dev') =>
  call(fx, 'POST', `${FORK}/repository/commits`, token, {
    commit_message: 'From the parent',
    actions: [{ action: 'create', file_path: 'c.txt', content: 'C\n' }],
    ...body,
  });

describe('commits: start_project', () => {
  it('POST /projects/:id/repository/commits: start_project takes the start branch from the fork parent', async () => {
    const { fx, ahead } = await forked();
    // `feature` exists only in the parent.
    expect((await call(fx, 'GET', `${FORK}/repository/branches/feature`, 'dev')).status).toBe(404);
    const res = await commitToFork(fx, { branch: 'feature', start_project: 'acme/app' });
    expect(res.status).toBe(201);
    expect(res.body.parent_ids).toEqual([ahead.id]);
    const tree = await call(fx, 'GET', `${FORK}/repository/tree?ref=feature`, 'dev');
    expect(tree.body.map((e: any) => e.name)).toEqual(['README.md', 'a.txt', 'b.txt', 'c.txt']);
    // The parent's branch did not move.
    const parent = await call(fx, 'GET', `${APP}/repository/branches/feature`, 'dev');
    expect(parent.body.commit.id).toBe(ahead.id);
  });

  it('POST /projects/:id/repository/commits: start_project with start_branch and by numeric id', async () => {
    const { fx, ahead } = await forked();
    const id = (await call(fx, 'GET', APP, 'dev')).body.id;
    const res = await commitToFork(fx, { branch: 'sync', start_branch: 'feature', start_project: id });
    expect(res.status).toBe(201);
    expect(res.body.parent_ids).toEqual([ahead.id]);
  });

  it('POST /projects/:id/repository/commits: start_project with start_sha resolves the sha in the parent', async () => {
    const { fx, ahead } = await forked();
    const res = await commitToFork(fx, { branch: 'pick', start_sha: ahead.id, start_project: 'acme/app' });
    expect(res.status).toBe(201);
    expect(res.body.parent_ids).toEqual([ahead.id]);
  });

  it('POST /projects/:id/repository/commits: 400 when the start branch is missing in start_project or the branch exists', async () => {
    const { fx } = await forked();
    const missing = await commitToFork(fx, { branch: 'x', start_branch: 'nope', start_project: 'acme/app' });
    expect(missing).toMatchObject({
      status: 400,
      body: { message: 'You can only create or edit files when you are on a branch' },
    });
    // `master` exists in the fork: starting it from another project is a different branch.
    const exists = await commitToFork(fx, { branch: 'master', start_project: 'acme/app' });
    expect(exists).toMatchObject({
      status: 400,
      body: {
        message: "A branch called 'master' already exists. Switch to that branch in order to make changes",
      },
    });
  });

  it('POST /projects/:id/repository/commits: 403 for a start_project that is not the fork parent; 404 for a hidden one', async () => {
    const { fx } = await forked();
    const other = await commitToFork(fx, { branch: 'x', start_project: 'acme/site' });
    expect(other).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Project is not included in the fork network for acme / site' },
    });
    // The parent itself has no parent.
    const self = await call(fx, 'POST', `${APP}/repository/commits`, 'dev', {
      branch: 'y',
      commit_message: 'm',
      actions: [],
      start_project: 'dev/app',
    });
    expect(self.status).toBe(403);
    const hidden = await commitToFork(fx, { branch: 'x', start_project: 'acme/nothing' });
    expect(hidden).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await call(fx, 'GET', `${SITE}/repository/branches/x`, 'dev')).status).toBe(404);
    expect((await call(fx, 'GET', `${FORK}/repository/branches/x`, 'dev')).status).toBe(404);
  });
});
