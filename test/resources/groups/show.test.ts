import { describe, expect, it } from 'vitest';
import { EE_GROUP_KEYS, GROUP_KEYS, groupsFx, send } from './world.js';

const fx = groupsFx();
const NOT_FOUND = { status: 404, body: { message: '404 Group Not Found' } };

describe('GET /groups/:id', () => {
  it('GET /groups/:id: GroupDetail adds projects and shared_projects; runners_token only for owners and admins', async () => {
    const owner = await send(fx, 'GET', '/groups/acme', 'alice-api');
    expect(owner.status).toBe(200);
    expect(Object.keys(owner.body)).toEqual([
      ...GROUP_KEYS,
      'shared_with_groups',
      'runners_token',
      'projects',
      'shared_projects',
    ]);
    expect(owner.body.runners_token).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(owner.body.projects.map((p: any) => p.path_with_namespace)).toEqual(['acme/website']);
    expect(owner.body.shared_projects).toEqual([]);
    const admin = await send(fx, 'GET', '/groups/acme', 'root-api');
    expect(admin.body.runners_token).toBe(owner.body.runners_token);
    const dev = await send(fx, 'GET', '/groups/acme', 'bob-api');
    expect(Object.keys(dev.body)).toEqual([
      ...GROUP_KEYS,
      'shared_with_groups',
      'projects',
      'shared_projects',
    ]);
    const anon = await send(fx, 'GET', '/groups/acme');
    expect(anon.status).toBe(200);
    expect(anon.body.runners_token).toBeUndefined();
  });

  it('GET /groups/:id: an owner of an ancestor owns the subgroup too', async () => {
    const out = await send(fx, 'GET', '/groups/acme%2Fsecret', 'alice-api');
    expect(out.body.runners_token).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(out.body.projects.map((p: any) => p.path_with_namespace)).toEqual(['acme/secret/vault']);
  });

  it('GET /groups/:id: projects only lists the ones the viewer may read', async () => {
    const out = await send(fx, 'GET', '/groups/acme%2Fsecret', 'frank-api');
    expect(out.status).toBe(200);
    expect(out.body.projects.map((p: any) => p.path)).toEqual(['vault']);
    const paths = (await send(fx, 'GET', '/groups/acme', 'erin-api')).body.projects.map((p: any) => p.path);
    expect(paths).toEqual(['website']);
  });

  it('GET /groups/:id: with_projects=false answers the plain Group', async () => {
    const out = await send(fx, 'GET', '/groups/acme?with_projects=false', 'alice-api');
    expect(Object.keys(out.body)).toEqual(GROUP_KEYS);
  });

  it('GET /groups/:id: with_custom_attributes is for admins', async () => {
    const attrs = groupsFx({
      scenario: {
        users: [
          { username: 'root', admin: true, tokens: [{ token: 'root-api' }] },
          { username: 'u', tokens: [{ token: 'u-api' }] },
        ],
        groups: [{ path: 'red', visibility: 'public', custom_attributes: { team: 'red' } }],
      },
    });
    const admin = await send(attrs, 'GET', '/groups/red?with_custom_attributes=true', 'root-api');
    expect(admin.body.custom_attributes).toEqual([{ key: 'team', value: 'red' }]);
    expect(Object.keys(admin.body).indexOf('custom_attributes')).toBe(GROUP_KEYS.length);
    const user = await send(attrs, 'GET', '/groups/red?with_custom_attributes=true', 'u-api');
    expect(user.body.custom_attributes).toBeUndefined();
  });

  it('GET /groups/:id: a private group is a 404 for anonymous callers and strangers', async () => {
    expect(await send(fx, 'GET', '/groups/acme%2Fsecret')).toMatchObject(NOT_FOUND);
    expect(await send(fx, 'GET', '/groups/acme%2Fsecret', 'erin-api')).toMatchObject(NOT_FOUND);
    expect(await send(fx, 'GET', '/groups/does-not-exist', 'root-api')).toMatchObject(NOT_FOUND);
    expect(await send(fx, 'GET', '/groups/99999', 'root-api')).toMatchObject(NOT_FOUND);
  });

  it('GET /groups/:id: members of the group or an ancestor, and admins, see a private group', async () => {
    expect((await send(fx, 'GET', '/groups/acme%2Fsecret%2Fdeep', 'bob-api')).status).toBe(200);
    expect((await send(fx, 'GET', '/groups/hidden%2Finner', 'dave-api')).status).toBe(200);
    expect((await send(fx, 'GET', '/groups/hidden', 'root-api')).status).toBe(200);
  });

  it('GET /groups/:id: a member of a project inside a private group sees the group and its ancestors only', async () => {
    expect((await send(fx, 'GET', '/groups/acme%2Fsecret', 'frank-api')).status).toBe(200);
    expect(await send(fx, 'GET', '/groups/acme%2Fsecret%2Fdeep', 'frank-api')).toMatchObject(NOT_FOUND);
  });

  it('GET /groups/:id: a member of a subgroup sees the private parent', async () => {
    expect((await send(fx, 'GET', '/groups/hidden', 'grace-api')).status).toBe(200);
    expect(await send(fx, 'GET', '/groups/hidden', 'erin-api')).toMatchObject(NOT_FOUND);
  });

  it('GET /groups/:id: a public project inside makes a private group readable to everyone', async () => {
    const odd = groupsFx({
      scenario: {
        users: [{ username: 'u', tokens: [{ token: 'u-api' }] }],
        groups: [
          { path: 'closed', visibility: 'private' },
          { path: 'closed/sub', visibility: 'private' },
        ],
        projects: [
          { path: 'closed/sub/open', visibility: 'public', creator: 'u' },
          { path: 'u/own', visibility: 'private' },
        ],
      },
    });
    expect((await send(odd, 'GET', '/groups/closed')).status).toBe(200);
    expect((await send(odd, 'GET', '/groups/closed%2Fsub', 'u-api')).status).toBe(200);
  });

  it('GET /groups/:id: internal groups are for signed-in users who are not external', async () => {
    expect((await send(fx, 'GET', '/groups/zeta', 'erin-api')).status).toBe(200);
    expect(await send(fx, 'GET', '/groups/zeta', 'carol-api')).toMatchObject(NOT_FOUND);
    expect(await send(fx, 'GET', '/groups/zeta')).toMatchObject(NOT_FOUND);
  });

  it('GET /groups/:id: an unencoded full path is an unknown route', async () => {
    const out = await send(fx, 'GET', '/groups/acme/secret', 'root-api');
    expect(out).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
  });

  it('GET /groups/:id: paid tiers add the EE fields and the minutes quotas', async () => {
    const paid = groupsFx({ tier: 'premium' });
    const out = await send(paid, 'GET', '/groups/acme', 'bob-api');
    expect(Object.keys(out.body)).toEqual([
      ...EE_GROUP_KEYS,
      'shared_with_groups',
      'projects',
      'shared_projects',
      'shared_runners_minutes_limit',
      'extra_shared_runners_minutes_limit',
    ]);
  });
});
