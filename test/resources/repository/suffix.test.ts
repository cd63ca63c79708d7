/**
 * Grape's `(.json)` format suffix: every path takes it as optional, and a param at the end of the path
 * whose requirement is `NO_SLASH_URL_PART_REGEX` (file paths, branch, tag, project and group ids) takes
 * it as part of itself, while a plain param (no dot) or a literal segment leaves it to the format.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { APP, call, commitFiles, repoWorld, world } from './world.js';

describe('format suffixes', () => {
  it('GET /projects/:id/repository/files/:file_path: renovate.json is the file, not renovate with a format', async () => {
    const fx = world();
    await commitFiles(fx, { 'renovate.json': '{"extends":[]}\n', renovate: 'plain\n' });
    const res = await call(fx, 'GET', `${APP}/repository/files/renovate.json?ref=HEAD`, 'rep');
    expect([res.status, res.body.file_path]).toEqual([200, 'renovate.json']);
    expect(Buffer.from(res.body.content, 'base64').toString()).toBe('{"extends":[]}\n');
    // A path within a directory keeps it too; the raw route ends in a literal and so strips it.
    await commitFiles(fx, { 'config/renovate.json': '{}\n' });
    const nested = await call(fx, 'GET', `${APP}/repository/files/config%2Frenovate.json?ref=master`, 'rep');
    expect([nested.status, nested.body.file_path]).toEqual([200, 'config/renovate.json']);
    const raw = await fx.app.request(`/api/v4${APP}/repository/files/renovate.json/raw.json?ref=master`, {
      headers: { 'PRIVATE-TOKEN': 'rep' },
    });
    expect([raw.status, await raw.text()]).toEqual([200, '{"extends":[]}\n']);
  });

  it('POST, PUT, DELETE /projects/:id/repository/files/:file_path: the file named with .json is written', async () => {
    const fx = world();
    const path = `${APP}/repository/files/settings.json`;
    const body = { branch: 'master', commit_message: 'm', content: '{}' };
    const created = await call(fx, 'POST', path, 'owner', body);
    expect([created.status, created.body]).toEqual([201, { file_path: 'settings.json', branch: 'master' }]);
    const updated = await call(fx, 'PUT', path, 'owner', { ...body, content: '{"a":1}' });
    expect([updated.status, updated.body.file_path]).toEqual([200, 'settings.json']);
    const tree = await call(fx, 'GET', `${APP}/repository/tree?ref=master`, 'owner');
    expect(tree.body.map((e: { path: string }) => e.path)).toContain('settings.json');
    const gone = await call(fx, 'DELETE', path, 'owner', { branch: 'master', commit_message: 'rm' });
    expect(gone.status).toBe(204);
    expect((await call(fx, 'GET', `${path}?ref=master`, 'owner')).status).toBe(404);
  });

  it('GET, DELETE /projects/:id/repository/branches/:branch: main.json is the branch main.json', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/repository/branches/master.json`, 'rep')).body).toEqual({
      message: '404 Branch Not Found',
    });
    await call(fx, 'POST', `${APP}/repository/branches`, 'owner', { branch: 'main.json', ref: 'master' });
    const got = await call(fx, 'GET', `${APP}/repository/branches/main.json`, 'rep');
    expect([got.status, got.body.name]).toEqual([200, 'main.json']);
    expect((await call(fx, 'DELETE', `${APP}/repository/branches/main.json`, 'owner')).status).toBe(204);
    expect((await call(fx, 'GET', `${APP}/repository/branches/main.json`, 'rep')).status).toBe(404);
    // A literal end strips it: the list.
    const list = await call(fx, 'GET', `${APP}/repository/branches.json`, 'rep');
    expect([list.status, list.body.map((b: { name: string }) => b.name)]).toEqual([200, ['master']]);
  });

  it('GET, DELETE /projects/:id/protected_branches/:name: the name keeps its .json', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/protected_branches/master.json`, 'maint')).status).toBe(404);
    await call(fx, 'POST', `${APP}/protected_branches`, 'maint', { name: 'rel.json' });
    const got = await call(fx, 'GET', `${APP}/protected_branches/rel.json`, 'maint');
    expect([got.status, got.body.name]).toEqual([200, 'rel.json']);
    expect((await call(fx, 'DELETE', `${APP}/protected_branches/rel.json`, 'maint')).status).toBe(204);
  });

  it('GET, DELETE /projects/:id/repository/tags/:tag_name and GET commits/:sha: a tag v1.json', async () => {
    const fx = world();
    const made = await call(fx, 'POST', `${APP}/repository/tags`, 'owner', {
      tag_name: 'v1.json',
      ref: 'master',
    });
    expect(made.status).toBe(201);
    const tag = await call(fx, 'GET', `${APP}/repository/tags/v1.json`, 'rep');
    expect([tag.status, tag.body.name]).toEqual([200, 'v1.json']);
    const commit = await call(fx, 'GET', `${APP}/repository/commits/v1.json`, 'rep');
    expect([commit.status, commit.body.id]).toEqual([200, made.body.commit.id]);
    expect((await call(fx, 'GET', `${APP}/repository/commits/v1`, 'rep')).status).toBe(404);
    expect((await call(fx, 'DELETE', `${APP}/repository/tags/v1.json`, 'owner')).status).toBe(204);
    expect((await call(fx, 'GET', `${APP}/repository/tags/v1.json`, 'rep')).status).toBe(404);
  });

  it('GET, PUT, DELETE /projects/:id/releases/:tag_name: the release of the tag v2.json', async () => {
    const fx = world();
    const made = await call(fx, 'POST', `${APP}/releases`, 'owner', {
      tag_name: 'v2.json',
      ref: 'master',
      description: 'd',
    });
    expect(made.status).toBe(201);
    const got = await call(fx, 'GET', `${APP}/releases/v2.json`, 'rep');
    expect([got.status, got.body.tag_name]).toEqual([200, 'v2.json']);
    const put = await call(fx, 'PUT', `${APP}/releases/v2.json`, 'owner', { name: 'Two' });
    expect([put.status, put.body.name]).toEqual([200, 'Two']);
    expect((await call(fx, 'DELETE', `${APP}/releases/v2.json`, 'owner')).status).toBe(200);
  });

  it('GET, PUT, DELETE /projects/:id and /groups/:id, GET /namespaces/:id: the id takes the suffix, a 404', async () => {
    const fx = world();
    for (const [path, message] of [
      ['/projects/1.json', '404 Project Not Found'],
      ['/groups/1.json', '404 Group Not Found'],
      ['/namespaces/1.json', '404 Namespace Not Found'],
    ] as const) {
      const res = await call(fx, 'GET', path, 'root');
      expect([path, res.status, res.body]).toEqual([path, 404, { message }]);
    }
    expect((await call(fx, 'PUT', '/projects/1.json', 'root', { description: 'x' })).status).toBe(404);
    expect((await call(fx, 'DELETE', '/groups/1.json', 'root')).status).toBe(404);
    // Without the suffix, and where the route ends in a literal or a plain param, the format's.
    expect((await call(fx, 'GET', '/projects/1', 'root')).status).toBe(200);
    expect((await call(fx, 'GET', '/projects/1/repository/branches.json', 'root')).status).toBe(200);
    expect((await call(fx, 'GET', '/users/1.json', 'root')).body.username).toBe('root');
  });

  it('a project whose path ends in .json is found by its full path with the suffix', async () => {
    const fx = createFauxlab({
      scenario: {
        ...repoWorld,
        projects: [{ path: 'acme/conf.json', visibility: 'public', creator: 'owner' }],
      },
    });
    const res = await call(fx, 'GET', '/projects/acme%2Fconf.json', 'owner');
    expect([res.status, res.body.path_with_namespace]).toEqual([200, 'acme/conf.json']);
  });
});
