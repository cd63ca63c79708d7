import { describe, expect, it } from 'vitest';
import { APP, call, commitFiles, world } from './world.js';

const push = (fx: ReturnType<typeof world>, body: Record<string, unknown>) =>
  call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ...body });

describe('control-plane push', () => {
  it('POST /__fauxlab/push: a branch push adds a real commit by the pusher on top of the branch', async () => {
    const fx = world();
    const head = await commitFiles(fx, { 'a.txt': 'A\n' });
    const res = await push(fx, { ref: 'master', user: 'dev' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ref: 'master', tag: false, before: head.id });
    const commit = await call(fx, 'GET', `${APP}/repository/commits/${res.body.after}`, 'dev');
    expect(commit.status).toBe(200);
    expect(commit.body).toMatchObject({
      id: res.body.after,
      parent_ids: [head.id],
      title: 'Push to master',
      author_name: 'Dev User',
      committer_email: 'dev@example.com',
      committed_date: '2021-03-01T12:00:00.000+00:00',
    });
    const branch = await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev');
    expect(branch.body.commit.id).toBe(res.body.after);
    // The tree is the parent's: the file is still there.
    const file = await call(fx, 'GET', `${APP}/repository/files/a.txt?ref=master`, 'dev');
    expect(Buffer.from(file.body.content, 'base64').toString()).toBe('A\n');
  });

  it('POST /__fauxlab/push: a new branch starts from the default branch and is readable through the API', async () => {
    const fx = world();
    const head = await commitFiles(fx, { 'a.txt': 'A\n' });
    const res = await push(fx, { ref: 'topic', user: 'dev' });
    expect(res.body.before).toBe('0'.repeat(40));
    const commits = await call(fx, 'GET', `${APP}/repository/commits?ref_name=topic`, 'dev');
    expect(commits.body.map((c: any) => c.id).slice(0, 2)).toEqual([res.body.after, head.id]);
    const compare = await call(fx, 'GET', `${APP}/repository/compare?from=master&to=topic`, 'dev');
    expect(compare.body.commits.map((c: any) => c.id)).toEqual([res.body.after]);
    expect(compare.body.diffs).toEqual([]);
  });

  it('POST /__fauxlab/push: a tag push without a sha tags the default branch head', async () => {
    const fx = world();
    const head = await commitFiles(fx, { 'a.txt': 'A\n' });
    const res = await push(fx, { ref: 'v1.0', tag: true });
    expect(res.body).toMatchObject({ tag: true, before: '0'.repeat(40), after: head.id });
    const tag = await call(fx, 'GET', `${APP}/repository/tags/v1.0`, 'dev');
    expect(tag.status).toBe(200);
    expect(tag.body.commit.id).toBe(head.id);
  });

  it('POST /__fauxlab/push: a given sha must name a commit in the instance; nothing moves otherwise', async () => {
    const fx = world();
    const head = await commitFiles(fx, { 'a.txt': 'A\n' });
    const missing = await push(fx, { ref: 'master', sha: 'a'.repeat(40) });
    expect(missing).toMatchObject({
      status: 400,
      body: { message: { push: [`sha: no commit ${'a'.repeat(40)} in the instance`] } },
    });
    // A blob is no commit either.
    const blob = (await call(fx, 'GET', `${APP}/repository/tree?ref=master`, 'dev')).body.find(
      (e: any) => e.name === 'a.txt',
    ).id;
    expect((await push(fx, { ref: 'other', sha: blob })).status).toBe(400);
    expect((await call(fx, 'GET', `${APP}/repository/branches/other`, 'dev')).status).toBe(404);
    const branch = await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev');
    expect(branch.body.commit.id).toBe(head.id);
    // An existing commit moves a branch to it (here: back, as a force push).
    const more = await commitFiles(fx, { 'b.txt': 'B\n' });
    const back = await push(fx, { ref: 'master', sha: head.id });
    expect(back.body).toMatchObject({ before: more.id, after: head.id });
    expect((await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev')).body.commit.id).toBe(head.id);
  });

  it('POST /__fauxlab/push: the first push to an empty repository makes its default branch', async () => {
    const fx = world();
    const created = await call(fx, 'POST', '/projects', 'dev', { name: 'empty' });
    expect(created.body.default_branch).toBeNull();
    const res = await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'dev/empty', ref: 'main' });
    expect(res.status).toBe(201);
    const project = await call(fx, 'GET', `/projects/${created.body.id}`, 'dev');
    expect(project.body.default_branch).toBe('main');
    const commit = await call(fx, 'GET', `/projects/${created.body.id}/repository/commits/main`, 'dev');
    expect(commit.body).toMatchObject({ id: res.body.after, parent_ids: [] });
  });
});
