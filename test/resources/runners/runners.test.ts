import { describe, expect, it } from 'vitest';
import { body, call, runnersFx } from './world.js';

const ids = async (res: Response) => (await body(res)).map((r: any) => r.id);

describe('GET /runners (ci_owned_runners)', () => {
  it('the runners of the projects one maintains and of the groups one owns; none for a developer', async () => {
    const fx = runnersFx();
    expect(await ids(await call(fx, 'GET', '/runners', 'owner'))).toEqual([2, 3, 4]);
    expect(await ids(await call(fx, 'GET', '/runners', 'maint'))).toEqual([3, 4]);
    expect(await ids(await call(fx, 'GET', '/runners', 'dev'))).toEqual([]);
    // An admin owns no runner by being one.
    expect(await ids(await call(fx, 'GET', '/runners', 'root'))).toEqual([]);
  });

  it('Entities::Runner: online is null before any contact, status as 13.12 computes it', async () => {
    const fx = runnersFx();
    const list = await body(await call(fx, 'GET', '/runners', 'owner'));
    expect(list[1]).toEqual({
      id: 3,
      description: 'app-docker',
      ip_address: null,
      active: false,
      is_shared: false,
      name: null,
      online: null,
      status: 'not_connected',
    });
    expect(list.map((r: any) => [r.online, r.status])).toEqual([
      [true, 'online'],
      [null, 'not_connected'],
      [false, 'offline'],
    ]);
    // Two hours after its last contact a runner is offline (ONLINE_CONTACT_TIMEOUT).
    fx.clock.advance(3_600_000);
    const later = await body(await call(fx, 'GET', '/runners/2', 'owner'));
    expect([later.online, later.status]).toEqual([false, 'offline']);
  });

  it('scope, type, status and tag_list filter; values outside the lists are 400', async () => {
    const fx = runnersFx();
    expect(await ids(await call(fx, 'GET', '/runners?scope=paused', 'owner'))).toEqual([3]);
    expect(await ids(await call(fx, 'GET', '/runners?type=project_type&status=active', 'owner'))).toEqual([
      4,
    ]);
    expect(await ids(await call(fx, 'GET', '/runners?status=offline', 'owner'))).toEqual([3, 4]);
    expect(await ids(await call(fx, 'GET', '/runners?tag_list=LINUX,docker', 'owner'))).toEqual([3]);
    expect(await ids(await call(fx, 'GET', '/runners?tag_list=docker,windows', 'owner'))).toEqual([]);
    const shared = await call(fx, 'GET', '/runners?scope=shared', 'owner');
    expect([shared.status, await body(shared)]).toEqual([
      400,
      { error: 'scope does not have a valid value' },
    ]);
    const type = await call(fx, 'GET', '/runners?type=shared', 'owner');
    expect([type.status, await body(type)]).toEqual([400, { error: 'type does not have a valid value' }]);
  });

  it('401 anonymous, before the params are looked at', async () => {
    const res = await call(runnersFx(), 'GET', '/runners?scope=nope');
    expect([res.status, await body(res)]).toEqual([401, { message: '401 Unauthorized' }]);
  });
});

describe('GET /runners/all', () => {
  it('every runner for an admin, with the deprecated scopes; 403 for anyone else', async () => {
    const fx = runnersFx();
    expect(await ids(await call(fx, 'GET', '/runners/all', 'root'))).toEqual([1, 2, 3, 4]);
    expect(await ids(await call(fx, 'GET', '/runners/all?scope=shared', 'root'))).toEqual([1]);
    expect(await ids(await call(fx, 'GET', '/runners/all?scope=specific', 'root'))).toEqual([2, 3, 4]);
    expect(await ids(await call(fx, 'GET', '/runners/all?scope=online', 'root'))).toEqual([1, 2]);
    const res = await call(fx, 'GET', '/runners/all?per_page=2', 'root');
    expect([res.headers.get('X-Total'), res.headers.get('X-Total-Pages')]).toEqual(['4', '2']);
    const owner = await call(fx, 'GET', '/runners/all', 'owner');
    expect([owner.status, await body(owner)]).toEqual([403, { message: '403 Forbidden' }]);
  });
});

describe('GET /runners/:id (authenticate_show_runner!)', () => {
  it('an instance runner is every signed-in user’s to read; others need ownership', async () => {
    const fx = runnersFx();
    const shared = await call(fx, 'GET', '/runners/1', 'outsider');
    expect(shared.status).toBe(200);
    expect(await body(shared)).toEqual({
      id: 1,
      description: 'shared-1',
      ip_address: '10.0.0.1',
      active: true,
      is_shared: true,
      name: 'gitlab-runner',
      online: true,
      status: 'online',
      tag_list: [],
      run_untagged: true,
      locked: false,
      maximum_timeout: null,
      access_level: 'not_protected',
      version: '13.12.0',
      revision: '7a6612da',
      platform: 'linux',
      architecture: 'amd64',
      contacted_at: '2021-03-01T11:59:30.000Z',
      projects: [],
      groups: [],
    });
    const dev = await call(fx, 'GET', '/runners/4', 'dev');
    expect([dev.status, await body(dev)]).toEqual([403, { message: '403 Forbidden - No access granted' }]);
    const none = await call(fx, 'GET', '/runners/99', 'root');
    expect([none.status, await body(none)]).toEqual([404, { message: '404 Not found' }]);
    expect((await call(fx, 'GET', '/runners/1')).status).toBe(401);
  });

  it('projects and groups: all for an admin, those the caller is authorized for otherwise', async () => {
    const fx = runnersFx();
    // acme/site is public, but the maintainer of acme/app is a member of both through acme.
    const maint = await body(await call(fx, 'GET', '/runners/4', 'maint'));
    expect(maint.projects.map((p: any) => p.path_with_namespace)).toEqual(['acme/app', 'acme/site']);
    expect(Object.keys(maint.projects[0])).toContain('namespace');
    const group = await body(await call(fx, 'GET', '/runners/2', 'owner'));
    expect(group.groups).toEqual([{ id: 8, web_url: 'http://localhost/groups/acme', name: 'acme' }]);
  });
});

describe('PUT /runners/:id (authenticate_update_runner!)', () => {
  it('the owner pauses and retags it: RunnerDetails, updated', async () => {
    const fx = runnersFx();
    const res = await call(fx, 'PUT', '/runners/4', 'maint', {
      active: false,
      tag_list: 'a, b',
      description: 'renamed',
      maximum_timeout: 600,
      access_level: 'ref_protected',
    });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({
      id: 4,
      description: 'renamed',
      active: false,
      status: 'paused',
      tag_list: ['a', 'b'],
      maximum_timeout: 600,
      access_level: 'ref_protected',
    });
    expect(await ids(await call(fx, 'GET', '/runners?scope=paused', 'maint'))).toEqual([3, 4]);
  });

  it('400 without any attribute (before the runner is looked up), and for what the model refuses', async () => {
    const fx = runnersFx();
    const none = await call(fx, 'PUT', '/runners/99', 'root', {});
    expect([none.status, await body(none)]).toEqual([
      400,
      {
        error:
          'description, active, tag_list, run_untagged, locked, access_level, maximum_timeout are missing, at least one parameter must be provided',
      },
    ]);
    const bad = await call(fx, 'PUT', '/runners/3', 'maint', { tag_list: [] });
    expect([bad.status, await body(bad)]).toEqual([
      400,
      { message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } },
    ]);
    const short = await call(fx, 'PUT', '/runners/1', 'root', { maximum_timeout: 599 });
    expect([short.status, await body(short)]).toEqual([
      400,
      { message: { maximum_timeout: ['needs to be at least 10 minutes'] } },
    ]);
  });

  it('403 No access granted for a non-owner, an instance runner included; 404 for none; admins may', async () => {
    const fx = runnersFx();
    const dev = await call(fx, 'PUT', '/runners/4', 'dev', { description: 'x' });
    expect([dev.status, await body(dev)]).toEqual([403, { message: '403 Forbidden - No access granted' }]);
    const shared = await call(fx, 'PUT', '/runners/1', 'owner', { description: 'x' });
    expect(shared.status).toBe(403);
    expect((await call(fx, 'PUT', '/runners/1', 'root', { locked: true })).status).toBe(200);
    expect((await call(fx, 'PUT', '/runners/99', 'root', { locked: true })).status).toBe(404);
  });
});

describe('DELETE /runners/:id (authenticate_delete_runner!)', () => {
  it('a runner of more than one project is only an admin’s to delete', async () => {
    const fx = runnersFx();
    const res = await call(fx, 'DELETE', '/runners/4', 'maint');
    expect([res.status, await body(res)]).toEqual([
      403,
      { message: '403 Forbidden - Runner associated with more than one project' },
    ]);
    expect((await call(fx, 'DELETE', '/runners/3', 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', '/runners/3', 'maint')).status).toBe(204);
    expect((await call(fx, 'DELETE', '/runners/4', 'root')).status).toBe(204);
    expect(await ids(await call(fx, 'GET', '/runners/all', 'root'))).toEqual([1, 2]);
    expect((await call(fx, 'DELETE', '/runners/4', 'root')).status).toBe(404);
  });

  it('412 when the runner changed after If-Unmodified-Since', async () => {
    const fx = runnersFx();
    await call(fx, 'PUT', '/runners/3', 'maint', { description: 'now' });
    const res = await fx.app.request('/api/v4/runners/3', {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'maint', 'If-Unmodified-Since': 'Mon, 01 Mar 2021 11:00:00 GMT' },
    });
    expect(res.status).toBe(412);
  });
});
