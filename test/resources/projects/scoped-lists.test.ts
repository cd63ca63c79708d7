import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { call, json, paths, projectsFx, projectsWorld, reads } from './world.js';

const fx = projectsFx();
const { get, list } = reads(fx);

describe('GET /users/:user_id/projects', () => {
  it('GET /users/:user_id/projects: the personal projects the caller may see, by id or username', async () => {
    expect(await list('/users/3/projects', 'bob-api')).toEqual(['bob/website', 'bob/notes']);
    expect(await list('/users/BOB/projects', 'alice-api')).toEqual(['bob/website']);
    expect(await list('/users/bob/projects')).toEqual(['bob/website']);
    expect(await list('/users/alice/projects', 'root-api')).toEqual([]);
  });

  it('GET /users/:user_id/projects: an unknown user is 404', async () => {
    const { res, body } = await get('/users/nobody/projects');
    expect(res.status).toBe(404);
    expect(body).toEqual({ message: '404 User Not Found' });
  });

  it('GET /users/:user_id/projects: the list filters apply; search_namespaces is not declared here', async () => {
    expect(await list('/users/bob/projects?archived=false', 'bob-api')).toEqual(['bob/notes']);
    expect(await list('/users/bob/projects?search=note', 'bob-api')).toEqual(['bob/notes']);
    const { res } = await get('/users/bob/projects?search_namespaces=notabool', 'bob-api');
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).not.toContain('last_activity');
  });

  it('GET /users/:user_id/projects: keyset pagination works here too', async () => {
    const { res, body } = await get(
      '/users/bob/projects?pagination=keyset&order_by=id&per_page=1',
      'bob-api',
    );
    expect(paths(body)).toEqual(['bob/website']);
    expect(res.headers.get('link')).toContain('id_before=5');
  });
});

describe('GET /groups/:id/projects', () => {
  it('GET /groups/:id/projects: the group projects, unarchived by default, in the Project entity', async () => {
    const { res, body } = await get('/groups/acme/projects', 'dave-api');
    expect(res.status).toBe(200);
    expect(paths(body)).toEqual(['acme/intranet', 'acme/website']);
    expect(Object.keys(body[0])).toContain('_links');
    expect(Object.keys(body[0])).not.toContain('permissions');
    expect(res.headers.get('link')).toContain('archived=false');
    expect(res.headers.get('link')).toContain('with_shared=true');
  });

  it('GET /groups/:id/projects: anonymous callers get the Project entity of public projects', async () => {
    const { body } = await get('/groups/acme/projects');
    expect(paths(body)).toEqual(['acme/website']);
    expect(Object.keys(body[0])).toContain('_links');
  });

  it('GET /groups/:id/projects: include_subgroups, simple and search', async () => {
    expect(await list('/groups/acme/projects?include_subgroups=true', 'dave-api')).toEqual([
      'acme/labs/rocket',
      'acme/intranet',
      'acme/website',
    ]);
    expect(await list('/groups/acme/projects?include_subgroups=true', 'frank-api')).toEqual([
      'acme/intranet',
      'acme/website',
    ]);
    const { body } = await get('/groups/acme/projects?simple=true', 'dave-api');
    expect(Object.keys(body[0])).not.toContain('_links');
    expect(await list('/groups/acme/projects?search=employees', 'dave-api')).toEqual(['acme/intranet']);
  });

  it('GET /groups/:id/projects: shared projects come with with_shared (default true)', async () => {
    expect(await list('/groups/partners/projects', 'bob-api')).toEqual(['acme/labs/rocket']);
    expect(await list('/groups/partners/projects?with_shared=false', 'bob-api')).toEqual([]);
  });

  it('GET /groups/:id/projects: starred, owned and min_access_level', async () => {
    expect(await list('/groups/acme/projects?starred=true', 'dave-api')).toEqual(['acme/website']);
    expect(await list('/groups/acme/projects?owned=true', 'alice-api')).toEqual([
      'acme/intranet',
      'acme/website',
    ]);
    expect(await list('/groups/acme/projects?min_access_level=40', 'dave-api')).toEqual([]);
  });

  it('GET /groups/:id/projects: archived=true lists only archived ones', async () => {
    const fx2 = createFauxlab({
      scenario: { ...projectsWorld, projects: [{ path: 'acme/old', archived: true }, { path: 'acme/new' }] },
    });
    const body = await json(
      await call(fx2, 'GET', '/api/v4/groups/acme/projects?archived=true', { token: 'alice-api' }),
    );
    expect(paths(body)).toEqual(['acme/old']);
  });

  it('GET /groups/:id/projects: a group the caller may not see is 404', async () => {
    const { res, body } = await get('/groups/partners/projects', 'frank-api');
    expect(res.status).toBe(404);
    expect(body).toEqual({ message: '404 Group Not Found' });
  });

  it('GET /groups/:id/projects: order_by=similarity is honoured behind its flag only', async () => {
    const scenario = {
      ...projectsWorld,
      projects: [
        { path: 'acme/gitlab-runner', name: 'Runner', created_at: '2020-01-01T00:00:00Z' },
        { path: 'acme/gitlab', name: 'GitLab', created_at: '2020-01-02T00:00:00Z' },
        { path: 'acme/other', name: 'Other', description: 'not gitlab', created_at: '2020-01-03T00:00:00Z' },
      ],
    };
    const off = createFauxlab({ scenario });
    const on = createFauxlab({
      scenario: { ...scenario, features: [{ name: 'similarity_search', state: 'on' }] },
    });
    const ask = async (f: typeof on, q: string) =>
      paths(await json(await call(f, 'GET', `/api/v4/groups/acme/projects?${q}`, { token: 'alice-api' })));
    expect(await ask(off, 'order_by=similarity&search=gitlab')).toEqual([
      'acme/other',
      'acme/gitlab',
      'acme/gitlab-runner',
    ]);
    expect(await ask(on, 'order_by=similarity&search=gitlab&sort=asc')).toEqual([
      'acme/gitlab',
      'acme/gitlab-runner',
      'acme/other',
    ]);
    expect(await ask(on, 'order_by=similarity')).toEqual(['acme/gitlab', 'acme/other', 'acme/gitlab-runner']);
  });
});

describe('GET /groups/:id/projects/shared', () => {
  it('GET /groups/:id/projects/shared: the projects shared with the group', async () => {
    expect(await list('/groups/partners/projects/shared', 'bob-api')).toEqual(['acme/labs/rocket']);
    expect(await list('/groups/acme/projects/shared', 'alice-api')).toEqual([]);
  });

  it('GET /groups/:id/projects/shared: similarity is not an order here', async () => {
    const { res, body } = await get('/groups/partners/projects/shared?order_by=similarity', 'bob-api');
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: 'order_by does not have a valid value' });
  });
});
