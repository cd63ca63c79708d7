import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { APP, SITE, call, commitFiles, world } from './world.js';

const FILE = `${APP}/repository/files`;

describe('repository files', () => {
  it('GET /projects/:id/repository/files/:file_path: base64 content, sha256, ids, and the X-Gitlab-* headers', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'docs/a b.md': 'Hi\n' });
    const res = await call(fx, 'GET', `${FILE}/docs%2Fa%20b.md?ref=master`, 'rep');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      file_name: 'a b.md',
      file_path: 'docs/a b.md',
      size: 3,
      encoding: 'base64',
      content_sha256: createHash('sha256').update('Hi\n').digest('hex'),
      ref: 'master',
      blob_id: createHash('sha1').update('blob 3\0Hi\n').digest('hex'),
      commit_id: c.id,
      last_commit_id: c.id,
      content: Buffer.from('Hi\n').toString('base64'),
    });
    expect(res.headers.get('x-gitlab-blob-id')).toBe(res.body.blob_id);
    expect(res.headers.get('x-gitlab-last-commit-id')).toBe(c.id);
    expect(res.headers.get('x-gitlab-file-name')).toBe('a b.md');
    const head = await fx.app.request(`/api/v4${FILE}/docs%2Fa%20b.md?ref=master`, {
      method: 'HEAD',
      headers: { 'PRIVATE-TOKEN': 'rep' },
    });
    expect([head.status, head.headers.get('x-gitlab-size'), await head.text()]).toEqual([200, '3', '']);
  });

  it('GET /projects/:id/repository/files/:file_path: 404 File Not Found, 404 Commit Not Found, ref is missing', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${FILE}/nope.md?ref=master`, 'rep')).body).toEqual({
      message: '404 File Not Found',
    });
    expect((await call(fx, 'GET', `${FILE}/README.md?ref=nope`, 'rep')).body).toEqual({
      message: '404 Commit Not Found',
    });
    expect((await call(fx, 'GET', `${FILE}/README.md`, 'rep')).body).toEqual({ error: 'ref is missing' });
  });

  it('GET /projects/:id/repository/files/:file_path/raw: the bytes, ref defaulting to the default branch', async () => {
    const fx = world();
    await commitFiles(fx, { 'x.txt': 'raw text\n' });
    const res = await fx.app.request(`/api/v4${FILE}/x.txt/raw`, { headers: { 'PRIVATE-TOKEN': 'rep' } });
    expect([res.status, await res.text(), res.headers.get('x-gitlab-file-path')]).toEqual([
      200,
      'raw text\n',
      'x.txt',
    ]);
  });

  it("POST, PUT, DELETE /projects/:id/repository/files/:file_path: one commit each, with the platform's bodies", async () => {
    const fx = world();
    const create = await call(fx, 'POST', `${FILE}/new%2Ffile.txt`, 'dev', {
      branch: 'master',
      content: 'v1\n',
      commit_message: 'Create',
    });
    expect([create.status, create.body]).toEqual([201, { file_path: 'new/file.txt', branch: 'master' }]);
    expect(
      (
        await call(fx, 'POST', `${FILE}/new%2Ffile.txt`, 'dev', {
          branch: 'master',
          content: 'x',
          commit_message: 'Again',
        })
      ).body,
    ).toEqual({
      message: 'A file with this name already exists',
    });
    const first = (await call(fx, 'GET', `${FILE}/new%2Ffile.txt?ref=master`, 'dev')).body.last_commit_id;
    const update = await call(fx, 'PUT', `${FILE}/new%2Ffile.txt`, 'dev', {
      branch: 'master',
      content: 'djI=',
      encoding: 'base64',
      commit_message: 'Update',
      last_commit_id: first,
    });
    expect([update.status, update.body]).toEqual([200, { file_path: 'new/file.txt', branch: 'master' }]);
    expect((await call(fx, 'GET', `${FILE}/new%2Ffile.txt?ref=master`, 'dev')).body.content).toBe('djI=');
    const stale = await call(fx, 'PUT', `${FILE}/new%2Ffile.txt`, 'dev', {
      branch: 'master',
      content: 'v3',
      commit_message: 'Stale',
      last_commit_id: first,
    });
    expect([stale.status, stale.body]).toEqual([
      400,
      { message: 'You are attempting to update a file that has changed since you started editing it.' },
    ]);
    expect(
      (
        await call(fx, 'PUT', `${FILE}/missing.txt`, 'dev', {
          branch: 'master',
          content: 'x',
          commit_message: 'm',
        })
      ).body,
    ).toEqual({
      message: "A file with this name doesn't exist",
    });
    const del = await call(fx, 'DELETE', `${FILE}/new%2Ffile.txt`, 'dev', {
      branch: 'master',
      commit_message: 'Remove',
    });
    expect(del.status).toBe(204);
    expect((await call(fx, 'GET', `${FILE}/new%2Ffile.txt?ref=master`, 'dev')).status).toBe(404);
    const titles = (await call(fx, 'GET', `${APP}/repository/commits`, 'dev')).body.map(
      (x: { title: string }) => x.title,
    );
    expect(titles).toEqual(['Remove', 'Update', 'Create', 'Initial commit']);
  });

  it('POST /projects/:id/repository/files/:file_path: reporters 403; a protected branch needs its push level (400)', async () => {
    const fx = world();
    const body = { branch: 'master', content: 'x', commit_message: 'm' };
    expect((await call(fx, 'POST', `${FILE}/a.txt`, 'rep', body)).status).toBe(403);
    await call(fx, 'POST', `${APP}/protected_branches`, 'maint', { name: 'master' });
    expect(await call(fx, 'POST', `${FILE}/a.txt`, 'dev', body)).toMatchObject({
      status: 400,
      body: { message: 'You are not allowed to push into this branch' },
    });
    expect((await call(fx, 'POST', `${FILE}/a.txt`, 'maint', body)).status).toBe(201);
    expect((await call(fx, 'POST', `${SITE}/repository/files/a.txt`, 'outsider', body)).status).toBe(403);
  });
});

describe('tree, blobs and compare', () => {
  it('GET /projects/:id/repository/tree: path, recursive, pagination; 404 Tree Not Found for an unknown ref', async () => {
    const fx = world();
    await commitFiles(fx, { 'src/a.ts': 'a', 'src/lib/b.ts': 'b', 'z.txt': 'z' });
    const top = await call(fx, 'GET', `${APP}/repository/tree`, 'rep');
    expect(top.body.map((e: { path: string; type: string }) => `${e.type} ${e.path}`)).toEqual([
      'blob README.md',
      'tree src',
      'blob z.txt',
    ]);
    expect(top.body[1]).toMatchObject({ name: 'src', mode: '040000' });
    const rec = await call(fx, 'GET', `${APP}/repository/tree?path=src&recursive=true&per_page=2`, 'rep');
    expect(rec.body.map((e: { path: string }) => e.path)).toEqual(['src/a.ts', 'src/lib']);
    expect(rec.headers.get('x-total')).toBe('3');
    expect((await call(fx, 'GET', `${APP}/repository/tree?ref=nope`, 'rep')).body).toEqual({
      message: '404 Tree Not Found',
    });
  });

  it('GET /projects/:id/repository/blobs/:sha and /raw; 404 Blob Not Found', async () => {
    const fx = world();
    await commitFiles(fx, { 'b.txt': 'blob!' });
    const id = (await call(fx, 'GET', `${APP}/repository/files/b.txt?ref=master`, 'rep')).body.blob_id;
    expect((await call(fx, 'GET', `${APP}/repository/blobs/${id}`, 'rep')).body).toEqual({
      size: 5,
      encoding: 'base64',
      content: Buffer.from('blob!').toString('base64'),
      sha: id,
    });
    const raw = await fx.app.request(`/api/v4${APP}/repository/blobs/${id}/raw`, {
      headers: { 'PRIVATE-TOKEN': 'rep' },
    });
    expect(await raw.text()).toBe('blob!');
    expect((await call(fx, 'GET', `${APP}/repository/blobs/${'1'.repeat(40)}`, 'rep')).body).toEqual({
      message: '404 Blob Not Found',
    });
  });

  it('GET /projects/:id/repository/compare: commits oldest first, diffs from the merge base; 404 Ref Not Found', async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'topic', ref: 'master' });
    await commitFiles(fx, { 'one.txt': '1\n' }, { branch: 'topic', message: 'One' });
    await commitFiles(fx, { 'two.txt': '2\n' }, { branch: 'topic', message: 'Two' });
    await commitFiles(fx, { 'main.txt': 'm\n' }, { message: 'On master' });
    const res = await call(fx, 'GET', `${APP}/repository/compare?from=master&to=topic`, 'rep');
    expect(res.body.commits.map((x: { title: string }) => x.title)).toEqual(['One', 'Two']);
    expect(res.body.commit.title).toBe('Two');
    expect(
      res.body.diffs.map((d: { new_path: string; new_file: boolean }) => [d.new_path, d.new_file]),
    ).toEqual([
      ['one.txt', true],
      ['two.txt', true],
    ]);
    expect(res.body.diffs[0].diff).toBe('@@ -0,0 +1 @@\n+1\n');
    expect([res.body.compare_timeout, res.body.compare_same_ref]).toEqual([false, false]);
    const straight = await call(
      fx,
      'GET',
      `${APP}/repository/compare?from=master&to=topic&straight=true`,
      'rep',
    );
    expect(straight.body.diffs.map((d: { new_path: string }) => d.new_path)).toEqual([
      'main.txt',
      'one.txt',
      'two.txt',
    ]);
    expect((await call(fx, 'GET', `${APP}/repository/compare?from=master&to=nope`, 'rep')).body).toEqual({
      message: '404 Ref Not Found',
    });
    const base = await call(fx, 'GET', `${APP}/repository/merge_base?refs[]=master&refs[]=topic`, 'rep');
    expect(base.body.title).toBe('Initial commit');
  });
});

describe('blame', () => {
  it('GET /projects/:id/repository/files/:file_path/blame: runs of lines with the commit that last changed them', async () => {
    const fx = world();
    const first = await commitFiles(fx, { 'f.txt': 'one\ntwo\nthree\n' }, { message: 'First' });
    fx.clock.advance(60_000);
    const second = await call(fx, 'PUT', `${FILE}/f.txt`, 'dev', {
      branch: 'master',
      content: 'one\nTWO\nthree\nfour\n',
      commit_message: 'Second',
    });
    expect(second.status).toBe(200);
    const res = await call(fx, 'GET', `${FILE}/f.txt/blame?ref=master`, 'rep');
    expect(res.status).toBe(200);
    const ranges = res.body.map((r: { commit: { id: string; message: string }; lines: string[] }) => [
      r.commit.message,
      r.lines,
    ]);
    expect(ranges).toEqual([
      ['First', ['one']],
      ['Second', ['TWO']],
      ['First', ['three']],
      ['Second', ['four']],
    ]);
    expect(res.body[0].commit.id).toBe(first.id);
    expect(Object.keys(res.body[0].commit)).toEqual([
      'id',
      'parent_ids',
      'message',
      'authored_date',
      'author_name',
      'author_email',
      'committed_date',
      'committer_name',
      'committer_email',
    ]);
    expect((await call(fx, 'GET', `${FILE}/nope.txt/blame?ref=master`, 'rep')).body).toEqual({
      message: '404 File Not Found',
    });
  });
  it('GET /projects/:id/repository/files/:file_path/blame: ranges are paginated with the pagination headers', async () => {
    const fx = world();
    await commitFiles(fx, { 'f.txt': 'a\nb\nc\n' }, { message: 'First' });
    fx.clock.advance(60_000);
    await call(fx, 'PUT', `${FILE}/f.txt`, 'dev', {
      branch: 'master',
      content: 'a\nB\nc\nd\n',
      commit_message: 'Second',
    });
    const res = await call(fx, 'GET', `${FILE}/f.txt/blame?ref=master&per_page=3&page=2`, 'rep');
    expect(res.status).toBe(200);
    expect(res.body.map((r: { lines: string[] }) => r.lines)).toEqual([['d']]);
    expect({
      total: res.headers.get('x-total'),
      pages: res.headers.get('x-total-pages'),
      page: res.headers.get('x-page'),
      prev: res.headers.get('x-prev-page'),
    }).toEqual({ total: '4', pages: '2', page: '2', prev: '1' });
    expect(res.headers.get('link')).toContain('rel="first"');
  });
});
