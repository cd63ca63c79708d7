/**
 * The group-level PyPI registry over HTTP (`lib/api/pypi_packages.rb`, `resource :groups`): the simple
 * index of a name across the group's tree with links under the group, downloads through those links,
 * the integer id, and who sees which projects' packages.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { body, call, packagesFx } from './world.js';

type Fx = ReturnType<typeof packagesFx>;
const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

async function upload(fx: Fx, project: string, name: string, version: string, content: string) {
  const bytes = Buffer.from(content);
  const f = new FormData();
  f.set('name', name);
  f.set('version', version);
  f.set('requires_python', '>=3.8');
  f.set('sha256_digest', createHash('sha256').update(bytes).digest('hex'));
  f.set('content', new Blob([new Uint8Array(bytes)]), `${name}-${version}-py3-none-any.whl`);
  const res = await fx.app.request(`/api/v4/projects/${encodeURIComponent(project)}/packages/pypi`, {
    method: 'POST',
    headers: basic('__token__', 'root'),
    body: f,
  });
  expect(res.status).toBe(201);
  return createHash('sha256').update(bytes).digest('hex');
}

async function groupId(fx: Fx, path: string): Promise<number> {
  return (
    (await body(await call(fx, 'GET', `/groups/${encodeURIComponent(path)}`, 'root'))) as { id: number }
  ).id;
}

describe('PyPI: the group’s registry', () => {
  it('the simple index lists the name’s files of the group’s projects and subgroups, linked under the group', async () => {
    const fx = packagesFx();
    const a = await upload(fx, 'acme/pkgs', 'demo', '1.0.0', 'one');
    const b = await upload(fx, 'acme/sub/inner', 'Demo', '2.0.0', 'two');
    await upload(fx, 'acme/pkgs', 'other', '1.0.0', 'three');
    const id = await groupId(fx, 'acme');
    const res = await fx.app.request(`/api/v4/groups/${id}/-/packages/pypi/simple/demo`, {
      headers: basic('rep', 'rep'),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const link = (sha: string, file: string) =>
      `<a href="http://localhost/api/v4/groups/${id}/-/packages/pypi/files/${sha}/${file}#sha256=${sha}" data-requires-python="&gt;=3.8">${file}</a><br>`;
    expect(html).toContain(
      `${link(a, 'demo-1.0.0-py3-none-any.whl')}${link(b, 'Demo-2.0.0-py3-none-any.whl')}`,
    );
    expect(html).toContain('<title>Links for demo</title>');
    expect(html).not.toContain('other');
    // The link pip follows.
    const file = await fx.app.request(
      `/api/v4/groups/${id}/-/packages/pypi/files/${b}/Demo-2.0.0-py3-none-any.whl`,
      { headers: basic('rep', 'rep') },
    );
    expect([file.status, await file.text()]).toEqual([200, 'two']);
    expect(file.headers.get('content-disposition')).toContain(
      'attachment; filename="Demo-2.0.0-py3-none-any.whl"',
    );
  });

  it('the id is an integer, the group must exist, the name no path; unknown names 404', async () => {
    const fx = packagesFx();
    await upload(fx, 'acme/pkgs', 'demo', '1.0.0', 'one');
    const id = await groupId(fx, 'acme');
    const st = async (res: Response) => [res.status, await body(res)];
    const get = (path: string, headers: Record<string, string> = basic('rep', 'rep')) =>
      fx.app.request(`/api/v4/groups/${path}`, { headers });
    expect(await st(await get('acme/-/packages/pypi/simple/demo'))).toEqual([
      400,
      { error: 'id is invalid' },
    ]);
    expect(await st(await get('999/-/packages/pypi/simple/demo'))).toEqual([
      404,
      { message: '404 Not Found' },
    ]);
    expect(await st(await get(`${id}/-/packages/pypi/simple/..%2Fdemo`))).toEqual([
      400,
      { error: 'package_name should be a valid file path' },
    ]);
    expect(await st(await get(`${id}/-/packages/pypi/simple/nothing`))).toEqual([
      404,
      { message: '404 Not found' },
    ]);
    expect(
      await st(await get(`${id}/-/packages/pypi/files/${'0'.repeat(64)}/demo-1.0.0-py3-none-any.whl`)),
    ).toEqual([404, { message: '404 Not found' }]);
  });

  it('who reads: the group’s reporters and deploy tokens; others 403, a worthless credential 401', async () => {
    const fx = packagesFx();
    const sha = await upload(fx, 'acme/pkgs', 'demo', '1.0.0', 'one');
    const id = await groupId(fx, 'acme');
    const index = (headers: Record<string, string>) =>
      fx.app.request(`/api/v4/groups/${id}/-/packages/pypi/simple/demo`, { headers });
    expect((await index(basic('x', 'rep'))).status).toBe(200);
    expect((await index({ 'Deploy-Token': 'group-write' })).status).toBe(200);
    expect((await index(basic('pusher', 'pkg-write'))).status).toBe(403);
    expect((await index(basic('x', 'guest'))).status).toBe(403);
    expect((await index(basic('x', 'outsider'))).status).toBe(403);
    expect((await index({})).status).toBe(403);
    const bad = await index(basic('x', 'not-a-token'));
    expect(bad.status).toBe(401);
    // Downloads go through the finder alone: an outsider gets the public group's public projects only,
    // and `acme/pkgs` is private.
    const dl = (headers: Record<string, string>) =>
      fx.app.request(`/api/v4/groups/${id}/-/packages/pypi/files/${sha}/demo-1.0.0-py3-none-any.whl`, {
        headers,
      });
    expect((await dl(basic('x', 'outsider'))).status).toBe(404);
    expect((await dl({})).status).toBe(404);
    expect((await dl(basic('x', 'rep'))).status).toBe(200);
    // A guest of the group is no reporter of its private project (`public_or_visible_to_user(user, REPORTER)`).
    expect((await dl(basic('x', 'guest'))).status).toBe(404);
  });
});
