import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { send, setupWorld } from '../metadata/world.js';

/** dev has `team: core`, acme `tier: gold`, acme/app (1) `cost: high`. */
const world = () =>
  createFauxlab({
    scenario: {
      ...setupWorld,
      users: (setupWorld.users ?? []).map((u) =>
        u.username === 'dev' ? { ...u, custom_attributes: { team: 'core' } } : u,
      ),
      groups: (setupWorld.groups ?? []).map((g) => ({ ...g, custom_attributes: { tier: 'gold' } })),
      projects: (setupWorld.projects ?? []).map((p) =>
        p.path === 'acme/app' ? { ...p, custom_attributes: { cost: 'high' } } : p,
      ),
    },
  });

describe('custom attributes', () => {
  for (const [kind, id, key, value] of [
    ['users', 'dev', 'team', 'core'],
    ['groups', 'acme', 'tier', 'gold'],
    ['projects', '1', 'cost', 'high'],
  ] as const) {
    it(`GET /${kind}/:id/custom_attributes: admins list and read them, by id or path`, async () => {
      const fx = world();
      const r = await send(fx, 'GET', `/${kind}/${id}/custom_attributes`, 'root');
      expect(r.status).toBe(200);
      expect(r.body).toEqual([{ key, value }]);
      expect(r.res.headers.get('X-Total')).toBe('1');
      expect((await send(fx, 'GET', `/${kind}/${id}/custom_attributes/${key}`, 'root')).body).toEqual({
        key,
        value,
      });
      expect(await send(fx, 'GET', `/${kind}/${id}/custom_attributes/nope`, 'root')).toMatchObject({
        status: 404,
        body: { message: '404 Not found' },
      });
    });

    it(`GET /${kind}/:id/custom_attributes: 403 for everyone else, anonymous callers included`, async () => {
      const fx = world();
      expect(await send(fx, 'GET', `/${kind}/${id}/custom_attributes`, 'owner')).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden' },
      });
      expect((await send(fx, 'GET', `/${kind}/${id}/custom_attributes/${key}`)).status).toBe(403);
      expect((await send(fx, 'GET', `/${kind}/999/custom_attributes`, 'dev')).status).toBe(403);
    });

    it(`PUT /${kind}/:id/custom_attributes/:key: sets or replaces a value; DELETE removes it`, async () => {
      const fx = world();
      expect(
        (await send(fx, 'PUT', `/${kind}/${id}/custom_attributes/${key}`, undefined, { value: 'x' })).status,
      ).toBe(401);
      expect(
        (await send(fx, 'PUT', `/${kind}/${id}/custom_attributes/${key}`, 'owner', { value: 'x' })).status,
      ).toBe(403);
      const set = await send(fx, 'PUT', `/${kind}/${id}/custom_attributes/region`, 'root', { value: 'eu' });
      expect(set).toMatchObject({ status: 200, body: { key: 'region', value: 'eu' } });
      await send(fx, 'PUT', `/${kind}/${id}/custom_attributes/${key}`, 'root', { value: 'changed' });
      expect((await send(fx, 'GET', `/${kind}/${id}/custom_attributes`, 'root')).body).toEqual([
        { key, value: 'changed' },
        { key: 'region', value: 'eu' },
      ]);
      expect((await send(fx, 'DELETE', `/${kind}/${id}/custom_attributes/${key}`, 'root')).status).toBe(204);
      expect((await send(fx, 'DELETE', `/${kind}/${id}/custom_attributes/${key}`, 'root')).status).toBe(404);
      expect((await send(fx, 'GET', `/${kind}/${id}/custom_attributes`, 'root')).body).toEqual([
        { key: 'region', value: 'eu' },
      ]);
    });
  }

  it('PUT /users/:id/custom_attributes/:key: value is required and may not be blank; any key is an ordinary key', async () => {
    const fx = world();
    expect((await send(fx, 'PUT', '/users/dev/custom_attributes/a', 'root', {})).body).toEqual({
      error: 'value is missing',
    });
    expect((await send(fx, 'PUT', '/users/dev/custom_attributes/a', 'root', { value: ' ' })).body).toEqual({
      message: { value: ["can't be blank"] },
    });
    await send(fx, 'PUT', '/users/dev/custom_attributes/constructor', 'root', { value: 'x' });
    expect((await send(fx, 'GET', '/users/dev/custom_attributes/toString', 'root')).status).toBe(404);
    expect((await send(fx, 'GET', '/users/dev/custom_attributes/constructor', 'root')).body).toEqual({
      key: 'constructor',
      value: 'x',
    });
    expect((await send(fx, 'GET', '/users/999/custom_attributes', 'root')).body).toEqual({
      message: '404 User Not Found',
    });
  });

  it('custom_attributes[key]=value filters the admin lists of users, groups and projects', async () => {
    const fx = world();
    await send(fx, 'PUT', '/projects/2/custom_attributes/cost', 'root', { value: 'low' });
    const users = await send(fx, 'GET', '/users?custom_attributes[team]=core', 'root');
    expect(users.body.map((u: any) => u.username)).toEqual(['dev']);
    const projects = await send(fx, 'GET', '/projects?custom_attributes[cost]=low', 'root');
    expect(projects.body.map((p: any) => p.id)).toEqual([2]);
    const groups = await send(fx, 'GET', '/groups?custom_attributes[tier]=silver', 'root');
    expect(groups.body).toEqual([]);
    const shown = await send(fx, 'GET', '/projects/2?with_custom_attributes=true', 'root');
    expect(shown.body.custom_attributes).toEqual([{ key: 'cost', value: 'low' }]);
  });
});
