import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { BASIC_KEYS, paths, send } from './world.js';

/** Stars on a public and a private project, and a user with a private profile who stars too. */
const world: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: [{ token: 'root-api' }] },
    { username: 'alice', name: 'Alice', tokens: [{ token: 'alice-api' }] },
    { username: 'bob', name: 'Bob', tokens: [{ token: 'bob-api' }] },
    { username: 'frank', name: 'Frank', tokens: [{ token: 'frank-api' }] },
    { username: 'gina', name: 'Gina', private_profile: true, tokens: [{ token: 'gina-api' }] },
  ],
  groups: [
    {
      path: 'acme',
      name: 'Acme',
      visibility: 'public',
      members: [{ username: 'alice', access_level: 'owner' }],
    },
  ],
  projects: [
    {
      path: 'acme/website',
      visibility: 'public',
      created_at: '2020-01-01T00:00:00Z',
      starred_by: ['bob', 'gina'],
    },
    {
      path: 'acme/rocket',
      visibility: 'private',
      created_at: '2020-03-01T00:00:00Z',
      members: [{ username: 'bob', access_level: 'guest' }],
      starred_by: ['bob'],
    },
    { path: 'acme/intranet', visibility: 'internal', created_at: '2020-02-01T00:00:00Z' },
  ],
};

const fresh = () => createFauxlab({ scenario: world });
const fx = fresh();
const list = async (path: string, token?: string) => {
  const { res, body } = await send(fx, 'GET', path, token);
  expect(res.status).toBe(200);
  return paths(body);
};

describe('GET /users/:user_id/starred_projects', () => {
  it("lists the user's starred projects that the caller may read, newest first", async () => {
    expect(await list('/users/bob/starred_projects', 'bob-api')).toEqual(['acme/rocket', 'acme/website']);
    expect(await list('/users/bob/starred_projects', 'alice-api')).toEqual(['acme/rocket', 'acme/website']);
    expect(await list('/users/bob/starred_projects', 'frank-api')).toEqual(['acme/website']);
    expect(await list('/users/bob/starred_projects')).toEqual(['acme/website']);
    expect(await list('/users/alice/starred_projects', 'alice-api')).toEqual([]);
  });

  it('finds the user by id or by username, any case; an unknown user is 404', async () => {
    const { body: found } = await send(fx, 'GET', '/users?username=bob', 'root-api');
    const bob = found[0] as { id: number };
    expect(await list(`/users/${bob.id}/starred_projects`, 'root-api')).toEqual([
      'acme/rocket',
      'acme/website',
    ]);
    expect(await list('/users/BOB/starred_projects', 'frank-api')).toEqual(['acme/website']);
    const { res, body } = await send(fx, 'GET', '/users/nobody/starred_projects', 'root-api');
    expect(res.status).toBe(404);
    expect(body).toEqual({ message: '404 User Not Found' });
  });

  it("13.12's finder does not hide a private profile's stars", async () => {
    expect(await list('/users/gina/starred_projects', 'frank-api')).toEqual(['acme/website']);
  });

  it('takes the collection params (filters, order, simple, pagination) but not with_custom_attributes', async () => {
    expect(await list('/users/bob/starred_projects?order_by=name&sort=asc', 'bob-api')).toEqual([
      'acme/rocket',
      'acme/website',
    ]);
    expect(await list('/users/bob/starred_projects?visibility=private', 'bob-api')).toEqual(['acme/rocket']);
    expect(await list('/users/bob/starred_projects?search=web', 'bob-api')).toEqual(['acme/website']);
    const { res, body } = await send(
      fx,
      'GET',
      '/users/bob/starred_projects?simple=true&per_page=1',
      'bob-api',
    );
    // A guest of the private project may not download its code: no default_branch there.
    expect(Object.keys(body[0])).toEqual(BASIC_KEYS.filter((k) => k !== 'default_branch'));
    const simple = await send(
      fx,
      'GET',
      '/users/bob/starred_projects?simple=true&visibility=public',
      'bob-api',
    );
    expect(Object.keys(simple.body[0])).toEqual(BASIC_KEYS);
    expect(res.headers.get('x-total')).toBe('2');
    expect(res.headers.get('link')).toContain('/api/v4/users/bob/starred_projects?');
    expect((await send(fx, 'GET', '/users/bob/starred_projects?sort=up', 'bob-api')).res.status).toBe(400);
    // Undeclared here, so not validated; the user's own projects list declares it.
    const loose = '?with_custom_attributes=notabool';
    expect((await send(fx, 'GET', `/users/bob/starred_projects${loose}`, 'root-api')).res.status).toBe(200);
    expect((await send(fx, 'GET', `/users/bob/projects${loose}`, 'root-api')).res.status).toBe(400);
  });

  it('follows starring and unstarring', async () => {
    const own = fresh();
    const star = (method: string, project: string) =>
      send(own, 'POST', `/projects/${encodeURIComponent(project)}/${method}`, 'frank-api');
    expect((await star('star', 'acme/intranet')).res.status).toBe(201);
    const starred = async () =>
      paths((await send(own, 'GET', '/users/frank/starred_projects', 'frank-api')).body);
    expect(await starred()).toEqual(['acme/intranet']);
    expect((await star('unstar', 'acme/intranet')).res.status).toBe(201);
    expect(await starred()).toEqual([]);
  });
});
