/**
 * Container repositories (`lib/api/project_container_repositories.rb`, `group_container_repositories.rb`,
 * `container_repositories.rb`): `Entities::ContainerRegistry::Repository`, the `tags` / `tags_count`
 * options, ProjectPolicy's and GroupPolicy's `read_container_image`, and the asynchronous delete.
 */
import { describe, expect, it } from 'vitest';
import { APP, call, SITE, world } from './world.js';

const ROOT_IMAGE = {
  id: 1,
  name: '',
  path: 'acme/app',
  project_id: 1,
  location: 'registry.example.com:5000/acme/app',
  created_at: '2021-01-10T13:38:57.391Z',
  cleanup_policy_started_at: null,
};

describe('GET /projects/:id/registry/repositories', () => {
  it('lists the repositories in id order, tags and tags_count only when asked', async () => {
    const fx = world();
    const r = await call(fx, 'GET', `${APP}/registry/repositories`, 'rep');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-total')).toBe('2');
    expect(r.body).toEqual([
      ROOT_IMAGE,
      {
        id: 2,
        name: 'worker',
        path: 'acme/app/worker',
        project_id: 1,
        location: 'registry.example.com:5000/acme/app/worker',
        created_at: '2021-01-11T00:00:00.000Z',
        cleanup_policy_started_at: '2021-02-01T03:00:00.000Z',
      },
    ]);
    const full = await call(fx, 'GET', `${APP}/registry/repositories?tags=true&tags_count=1`, 'rep');
    // Field order: tags_count before tags; tags in name order.
    expect(Object.keys(full.body[0])).toEqual([...Object.keys(ROOT_IMAGE), 'tags_count', 'tags']);
    expect(full.body[0].tags_count).toBe(4);
    expect(full.body[0].tags.map((t: { name: string }) => t.name)).toEqual([
      'latest',
      'stable-1',
      'v1.0',
      'v1.1',
    ]);
    expect(full.body[0].tags[0]).toEqual({
      name: 'latest',
      path: 'acme/app:latest',
      location: 'registry.example.com:5000/acme/app:latest',
    });
    expect(full.body[1]).toMatchObject({ tags_count: 0, tags: [] });
    // The list is presented without the user: no delete_api_path even for a maintainer.
    expect((await call(fx, 'GET', `${APP}/registry/repositories`, 'maint')).body[0]).not.toHaveProperty(
      'delete_api_path',
    );
  });

  it('who may read: reporters of a private project; anyone on a public one; signed-in on an internal one', async () => {
    const fx = world();
    const list = (path: string, token?: string) => call(fx, 'GET', `${path}/registry/repositories`, token);
    expect((await list(APP, 'guest')).body).toEqual({ message: '403 Forbidden' });
    expect((await list(APP, 'outsider')).body).toEqual({ message: '404 Project Not Found' });
    expect((await list(APP)).status).toBe(404);
    expect((await list(APP, 'root')).status).toBe(200);
    expect((await list(SITE)).status).toBe(200);
    expect((await list(SITE, 'ext')).status).toBe(200);
    expect((await list('/projects/acme%2Fintranet', 'outsider')).status).toBe(200);
    // An external user sees an internal project only as a member.
    expect((await list('/projects/acme%2Fintranet', 'ext')).status).toBe(404);
    // `container_registry_disabled` prevents the ability for everyone, admins too.
    expect((await list('/projects/acme%2Foff', 'root')).body).toEqual({ message: '403 Forbidden' });
    // The `before` authorizes before Grape validates: a bad param of a refused reader is the 403.
    expect((await call(fx, 'GET', `${APP}/registry/repositories?tags=maybe`, 'guest')).status).toBe(403);
    expect(await call(fx, 'GET', `${APP}/registry/repositories?tags=maybe`, 'rep')).toMatchObject({
      status: 400,
      body: { error: 'tags is invalid' },
    });
  });

  it('pagination: per_page and the headers', async () => {
    const fx = world();
    const r = await call(fx, 'GET', `${APP}/registry/repositories?per_page=1&page=2`, 'rep');
    expect(r.body.map((x: { id: number }) => x.id)).toEqual([2]);
    expect(r.headers.get('x-total-pages')).toBe('2');
  });
});

describe('GET /groups/:id/registry/repositories', () => {
  it("the repositories of the group's projects whose registry is on, for the group's reporters", async () => {
    const fx = world();
    const r = await call(fx, 'GET', '/groups/acme/registry/repositories?tags_count=true', 'rep');
    expect(r.status).toBe(200);
    // acme/off (5) has its registry off.
    expect(r.body.map((x: { id: number }) => x.id)).toEqual([1, 2, 3, 4]);
    expect(r.body[2]).toMatchObject({ path: 'acme/site/web', project_id: 2, tags_count: 1 });
    expect(r.body[0]).not.toHaveProperty('tags');
    expect((await call(fx, 'GET', '/groups/acme/registry/repositories', 'guest')).status).toBe(403);
    expect((await call(fx, 'GET', '/groups/acme/registry/repositories', 'outsider')).status).toBe(403);
    expect((await call(fx, 'GET', '/groups/acme/registry/repositories')).status).toBe(403);
    expect((await call(fx, 'GET', '/groups/nope/registry/repositories', 'root')).body).toEqual({
      message: '404 Group Not Found',
    });
    expect((await call(fx, 'GET', '/groups/acme/registry/repositories', 'root')).status).toBe(200);
  });
});

describe('GET /registry/repositories/:id', () => {
  it('one repository by id; delete_api_path for who may admin it; 401, 403 and 404', async () => {
    const fx = world();
    const rep = await call(fx, 'GET', '/registry/repositories/1?tags=true', 'rep');
    expect(rep.status).toBe(200);
    expect(rep.body).toMatchObject({ ...ROOT_IMAGE });
    expect(rep.body.tags).toHaveLength(4);
    expect(rep.body).not.toHaveProperty('delete_api_path');
    const maint = await call(fx, 'GET', '/registry/repositories/1', 'maint');
    expect(Object.keys(maint.body).at(-1)).toBe('delete_api_path');
    expect(maint.body.delete_api_path).toMatch(/\/api\/v4\/projects\/1\/registry\/repositories\/1$/);
    expect((await call(fx, 'GET', '/registry/repositories/1')).body).toEqual({ message: '401 Unauthorized' });
    // A repository of a project the caller cannot read: the ability's 403, not a 404.
    expect((await call(fx, 'GET', '/registry/repositories/1', 'outsider')).body).toEqual({
      message: '403 Forbidden',
    });
    expect((await call(fx, 'GET', '/registry/repositories/99', 'root')).body).toEqual({
      message: '404 Not found',
    });
    expect((await call(fx, 'GET', '/registry/repositories/abc', 'root')).body).toEqual({
      error: '404 Not Found',
    });
    expect((await call(fx, 'GET', '/registry/repositories/3', 'outsider')).status).toBe(200);
  });
});

describe('DELETE /projects/:id/registry/repositories/:repository_id', () => {
  it('maintainers schedule the delete (202); the worker removes the repository before the next request', async () => {
    const fx = world();
    const path = `${APP}/registry/repositories/2`;
    expect((await call(fx, 'DELETE', path)).status).toBe(401);
    expect((await call(fx, 'DELETE', path, 'dev')).body).toEqual({ message: '403 Forbidden' });
    expect((await call(fx, 'DELETE', path, 'outsider')).status).toBe(404);
    expect((await call(fx, 'DELETE', `${APP}/registry/repositories/3`, 'maint')).body).toEqual({
      message: '404 Not found',
    });
    expect(await call(fx, 'DELETE', `${APP}/registry/repositories/x`, 'maint')).toMatchObject({
      status: 400,
      body: { error: 'repository_id is invalid' },
    });
    const r = await call(fx, 'DELETE', path, 'maint');
    expect(r).toMatchObject({ status: 202, body: 202 });
    const after = await call(fx, 'GET', `${APP}/registry/repositories`, 'maint');
    expect(after.body.map((x: { id: number }) => x.id)).toEqual([1]);
    expect((await call(fx, 'GET', '/registry/repositories/2', 'root')).status).toBe(404);
  });

  it("a deleted project's repositories go with it", async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', SITE, 'owner')).status).toBe(202);
    expect((await call(fx, 'GET', '/registry/repositories/3', 'root')).status).toBe(404);
  });
});
