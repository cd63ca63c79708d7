import { describe, expect, it } from 'vitest';
import { APP, call, commitFiles, world } from './world.js';

describe('commit statuses', () => {
  it('POST /projects/:id/statuses/:sha: 201; the same name moves pending, running, success; listed latest per name', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a' });
    const post = (body: Record<string, unknown>, token = 'dev') =>
      call(fx, 'POST', `/projects/acme%2Fapp/statuses/${c.id}`, token, body);
    const first = await post({ state: 'pending', name: 'ci/build', target_url: 'https://ci.example.com/1' });
    expect(first.status).toBe(201);
    expect(Object.keys(first.body)).toEqual([
      'id',
      'sha',
      'ref',
      'status',
      'name',
      'target_url',
      'description',
      'created_at',
      'started_at',
      'finished_at',
      'allow_failure',
      'coverage',
      'author',
    ]);
    expect(first.body).toMatchObject({
      sha: c.id,
      ref: 'master',
      status: 'pending',
      name: 'ci/build',
      author: { username: 'dev' },
    });
    expect(await post({ state: 'pending', name: 'ci/build' })).toMatchObject({
      status: 400,
      body: {
        message:
          'Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")',
      },
    });
    const running = await post({ state: 'running', name: 'ci/build' });
    expect([running.body.id, running.body.status, running.body.target_url]).toEqual([
      first.body.id,
      'running',
      'https://ci.example.com/1',
    ]);
    const done = await post({ state: 'success', name: 'ci/build', coverage: 80.5 });
    expect([done.body.id, done.body.status, done.body.coverage, done.body.finished_at]).toEqual([
      first.body.id,
      'success',
      80.5,
      '2021-03-01T12:00:00.000Z',
    ]);
    await post({ state: 'failed', context: 'lint' });
    await post({ state: 'success', context: 'lint' });
    const list = await call(fx, 'GET', `${APP}/repository/commits/${c.id}/statuses`, 'rep');
    expect(list.body.map((s: { name: string; status: string }) => `${s.name} ${s.status}`)).toEqual([
      'ci/build success',
      'lint success',
    ]);
    const all = await call(fx, 'GET', `${APP}/repository/commits/${c.id}/statuses?all=true&name=lint`, 'rep');
    expect(all.body.map((s: { status: string }) => s.status)).toEqual(['failed', 'success']);
  });

  it('POST /projects/:id/statuses/:sha: 404 Commit Not Found, state is invalid, reporters 403', async () => {
    const fx = world();
    expect(
      (await call(fx, 'POST', `${APP}/statuses/${'a'.repeat(40)}`, 'dev', { state: 'success' })).body,
    ).toEqual({
      message: '404 Commit Not Found',
    });
    expect((await call(fx, 'POST', `${APP}/statuses/master`, 'dev', { state: 'done' })).body).toEqual({
      error: 'state does not have a valid value',
    });
    expect((await call(fx, 'POST', `${APP}/statuses/master`, 'rep', { state: 'success' })).status).toBe(403);
  });
});

describe('cherry-pick, revert and signature', () => {
  it("POST /projects/:id/repository/commits/:sha/cherry_pick: the change onto another branch, with the platform's message", async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'stable', ref: 'master' });
    const c = await commitFiles(fx, { 'fix.txt': 'fixed\n' }, { message: 'Fix it' });
    const res = await call(fx, 'POST', `${APP}/repository/commits/${c.id}/cherry_pick`, 'dev', {
      branch: 'stable',
    });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe(`Fix it\n\n(cherry picked from commit ${c.id})`);
    expect(res.body.author_name).toBe('Olive Owner');
    expect(res.body.committer_name).toBe('Dev User');
    const file = await call(fx, 'GET', `${APP}/repository/files/fix.txt?ref=stable`, 'dev');
    expect(file.status).toBe(200);
    const again = await call(fx, 'POST', `${APP}/repository/commits/${c.id}/cherry_pick`, 'dev', {
      branch: 'stable',
    });
    expect([again.status, again.body.message]).toEqual([
      400,
      'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.',
    ]);
    expect(
      (await call(fx, 'POST', `${APP}/repository/commits/${c.id}/cherry_pick`, 'dev', { branch: 'nope' }))
        .body,
    ).toEqual({
      message: '404 Branch Not Found',
    });
  });

  it('POST /projects/:id/repository/commits/:sha/revert: the inverse change; twice is refused', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'oops.txt': 'oops\n' }, { message: 'Oops' });
    const res = await call(fx, 'POST', `${APP}/repository/commits/${c.id}/revert`, 'dev', {
      branch: 'master',
    });
    expect([res.status, res.body.message, res.body.parent_ids]).toEqual([
      201,
      `Revert "Oops"\n\nThis reverts commit ${c.id}`,
      [c.id],
    ]);
    expect((await call(fx, 'GET', `${APP}/repository/files/oops.txt?ref=master`, 'dev')).status).toBe(404);
    const again = await call(fx, 'POST', `${APP}/repository/commits/${c.id}/revert`, 'dev', {
      branch: 'master',
    });
    expect(again.body.message).toMatch(/^Sorry, we cannot revert this commit automatically/);
  });

  it('GET /projects/:id/repository/commits/:sha/signature: 404 Signature Not Found for an existing commit', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/repository/commits/master/signature`, 'rep')).body).toEqual({
      message: '404 Signature Not Found',
    });
    expect((await call(fx, 'GET', `${APP}/repository/commits/nope/signature`, 'rep')).body).toEqual({
      message: '404 Commit Not Found',
    });
  });
});

describe('commit comments', () => {
  it('POST /projects/:id/repository/commits/:sha/comments: on the commit or on a line of its diff; listed', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    const url = `${APP}/repository/commits/${c.id}/comments`;
    const plain = await call(fx, 'POST', url, 'rep', { note: 'Nice' });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({
      note: 'Nice',
      path: null,
      line: null,
      line_type: null,
      author: { username: 'rep' },
    });
    const onLine = await call(fx, 'POST', url, 'rep', { note: 'Here', path: 'a.txt', line: 1 });
    expect(onLine.body).toMatchObject({ path: 'a.txt', line: 1, line_type: 'new' });
    expect((await call(fx, 'POST', url, 'rep', { note: 'x', path: 'other.txt', line: 1 })).status).toBe(400);
    expect((await call(fx, 'POST', url, 'rep', {})).body).toEqual({ error: 'note is missing' });
    expect((await call(fx, 'GET', url, 'outsider')).body).toEqual({ message: '404 Project Not Found' });
    const mine = await call(fx, 'GET', url, 'rep');
    expect(mine.body.map((n: { note: string }) => n.note)).toEqual(['Nice', 'Here']);
    expect(
      (await call(fx, 'GET', `${APP}/repository/commits/${'b'.repeat(40)}/comments`, 'rep')).body,
    ).toEqual({
      message: '404 Commit Not Found',
    });
  });
});

describe('external pipelines', () => {
  it('POST /projects/:id/statuses/:sha: an external pipeline for the sha and ref, its status the statuses’, the head pipeline of the branch’s merge requests', async () => {
    const fx = world();
    const head = await commitFiles(fx, { 'f.txt': 'f' }, { branch: 'feature', start_branch: 'master' });
    const open = await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
      source_branch: 'feature',
      target_branch: 'master',
      title: 'Feature',
    });
    expect(open.body.head_pipeline).toBeNull();
    const post = (state: string, name: string) =>
      call(fx, 'POST', `${APP}/statuses/${head.id}`, 'dev', { state, name, ref: 'feature' });
    expect((await post('running', 'ci/a')).status).toBe(201);
    const list = (await call(fx, 'GET', `${APP}/pipelines`, 'dev')).body;
    expect(list.map((p: any) => [p.ref, p.sha, p.status])).toEqual([['feature', head.id, 'running']]);
    const shown = (await call(fx, 'GET', `${APP}/merge_requests/1`, 'dev')).body;
    expect(shown.head_pipeline).toMatchObject({ id: list[0].id, status: 'running', sha: head.id });
    await post('success', 'ci/a');
    await post('pending', 'ci/b');
    expect((await call(fx, 'GET', `${APP}/pipelines/${list[0].id}`, 'dev')).body.status).toBe('running');
    await post('success', 'ci/b');
    expect((await call(fx, 'GET', `${APP}/pipelines`, 'dev')).body.map((p: any) => p.status)).toEqual([
      'success',
    ]);
    // A merge request opened afterwards picks it up.
    await call(fx, 'PUT', `${APP}/merge_requests/1`, 'dev', { state_event: 'close' });
    const later = await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
      source_branch: 'feature',
      target_branch: 'master',
      title: 'Again',
    });
    expect(later.body.head_pipeline).toMatchObject({ id: list[0].id, status: 'success' });
  });
});
