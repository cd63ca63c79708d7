import { describe, expect, it } from 'vitest';
import { APP, body, call, runnersFx } from './world.js';

const SITE = '/projects/acme%2Fsite';
const ids = async (res: Response) => (await body(res)).map((r: any) => r.id);

describe('GET /projects/:id/runners (owned_or_instance_wide)', () => {
  it("the project's, its groups' and the instance's runners, filtered", async () => {
    const fx = runnersFx();
    expect(await ids(await call(fx, 'GET', `${APP}/runners`, 'maint'))).toEqual([1, 2, 3, 4]);
    expect(await ids(await call(fx, 'GET', `${SITE}/runners`, 'maint'))).toEqual([1, 2, 4]);
    expect(await ids(await call(fx, 'GET', `${APP}/runners?scope=specific&status=active`, 'maint'))).toEqual([
      2, 4,
    ]);
    expect(await ids(await call(fx, 'GET', `${APP}/runners?type=instance_type`, 'maint'))).toEqual([1]);
  });

  it('401, 404 Project Not Found, 403 below maintainer, before the params', async () => {
    const fx = runnersFx();
    expect((await call(fx, 'GET', `${APP}/runners`)).status).toBe(401);
    const hidden = await call(fx, 'GET', `${APP}/runners`, 'outsider');
    expect([hidden.status, await body(hidden)]).toEqual([404, { message: '404 Project Not Found' }]);
    const dev = await call(fx, 'GET', `${APP}/runners?type=nope`, 'dev');
    expect([dev.status, await body(dev)]).toEqual([403, { message: '403 Forbidden' }]);
    const bad = await call(fx, 'GET', `${APP}/runners?type=nope`, 'maint');
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'type does not have a valid value' }]);
  });
});

describe('POST /projects/:id/runners (authenticate_enable_runner!)', () => {
  it('an owner of a specific runner enables it in another project they maintain: 201 Entities::Runner', async () => {
    const fx = runnersFx();
    // Unlock runner 3 so that its maintainer may enable it elsewhere.
    await call(fx, 'PUT', '/runners/3', 'maint', { locked: false });
    const res = await call(fx, 'POST', `${SITE}/runners`, 'maint', { runner_id: 3 });
    expect(res.status).toBe(201);
    expect(await body(res)).toEqual({
      id: 3,
      description: 'app-docker',
      ip_address: null,
      active: false,
      is_shared: false,
      name: null,
      online: null,
      status: 'not_connected',
    });
    expect(await ids(await call(fx, 'GET', `${SITE}/runners?type=project_type`, 'maint'))).toEqual([3, 4]);
    const again = await call(fx, 'POST', `${SITE}/runners`, 'maint', { runner_id: 3 });
    expect([again.status, await body(again)]).toEqual([
      400,
      { message: { assign_to: ['Validation failed: Runner has already been taken'] } },
    ]);
  });

  it('Runner is a group runner (admins too), Runner is locked, No access granted; 404 Not found', async () => {
    const fx = runnersFx();
    const group = await call(fx, 'POST', `${SITE}/runners`, 'root', { runner_id: 2 });
    expect([group.status, await body(group)]).toEqual([
      403,
      { message: '403 Forbidden - Runner is a group runner' },
    ]);
    const locked = await call(fx, 'POST', `${SITE}/runners`, 'maint', { runner_id: 3 });
    expect([locked.status, await body(locked)]).toEqual([
      403,
      { message: '403 Forbidden - Runner is locked' },
    ]);
    const shared = await call(fx, 'POST', `${SITE}/runners`, 'maint', { runner_id: 1 });
    expect([shared.status, await body(shared)]).toEqual([
      403,
      { message: '403 Forbidden - No access granted' },
    ]);
    const none = await call(fx, 'POST', `${SITE}/runners`, 'maint', { runner_id: 99 });
    expect([none.status, await body(none)]).toEqual([404, { message: '404 Not found' }]);
    const missing = await call(fx, 'POST', `${SITE}/runners`, 'maint', {});
    expect([missing.status, await body(missing)]).toEqual([400, { error: 'runner_id is missing' }]);
  });

  it('an admin enabling an instance runner makes it a specific runner of the project', async () => {
    const fx = runnersFx();
    expect((await call(fx, 'POST', `${SITE}/runners`, 'root', { runner_id: 1 })).status).toBe(201);
    const r = await body(await call(fx, 'GET', '/runners/1', 'root'));
    expect([r.is_shared, r.projects.map((p: any) => p.path_with_namespace)]).toEqual([false, ['acme/site']]);
    expect(await ids(await call(fx, 'GET', `${APP}/runners`, 'maint'))).toEqual([2, 3, 4]);
  });
});

describe('DELETE /projects/:id/runners/:runner_id', () => {
  it("disables a runner of several projects; the last project's runner must be deleted instead", async () => {
    const fx = runnersFx();
    expect((await call(fx, 'DELETE', `${SITE}/runners/4`, 'maint')).status).toBe(204);
    expect(await ids(await call(fx, 'GET', `${SITE}/runners`, 'maint'))).toEqual([1, 2]);
    const last = await call(fx, 'DELETE', `${APP}/runners/4`, 'maint');
    expect([last.status, await body(last)]).toEqual([
      403,
      {
        message:
          '403 Forbidden - Only one project associated with the runner. Please remove the runner instead',
      },
    ]);
    const notHers = await call(fx, 'DELETE', `${SITE}/runners/3`, 'maint');
    expect([notHers.status, await body(notHers)]).toEqual([404, { message: '404 Runner Not Found' }]);
    expect((await call(fx, 'DELETE', `${APP}/runners/4`, 'dev')).status).toBe(403);
  });
});

describe('GET /groups/:id/runners (authorize_admin_group)', () => {
  it("the group's and its ancestors' runners, for its owners", async () => {
    const fx = runnersFx();
    expect(await ids(await call(fx, 'GET', '/groups/acme/runners', 'owner'))).toEqual([2]);
    expect(await ids(await call(fx, 'GET', '/groups/acme/runners?status=paused', 'owner'))).toEqual([]);
    const maint = await call(fx, 'GET', '/groups/acme/runners', 'maint');
    expect([maint.status, await body(maint)]).toEqual([403, { message: '403 Forbidden' }]);
    const none = await call(fx, 'GET', '/groups/nope/runners', 'owner');
    expect([none.status, await body(none)]).toEqual([404, { message: '404 Group Not Found' }]);
    // `scope` is not a param of the group route: it is ignored.
    expect(await ids(await call(fx, 'GET', '/groups/acme/runners?scope=nope', 'owner'))).toEqual([2]);
  });

  it("a subgroup lists its parent's runners", async () => {
    const fx = runnersFx();
    const sub = await call(fx, 'POST', '/groups', 'owner', { name: 'sub', path: 'sub', parent_id: 8 });
    expect(sub.status).toBe(201);
    expect(await ids(await call(fx, 'GET', '/groups/acme%2Fsub/runners', 'owner'))).toEqual([2]);
  });

  it('deleting a project takes it off its runners', async () => {
    const fx = runnersFx();
    expect((await call(fx, 'DELETE', SITE, 'owner')).status).toBe(202);
    const r = await body(await call(fx, 'GET', '/runners/4', 'root'));
    expect(r.projects.map((p: any) => p.path_with_namespace)).toEqual(['acme/app']);
  });
});
