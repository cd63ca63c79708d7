import { describe, expect, it } from 'vitest';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { APP, NOW, body, call, world, type World } from '../settings/world.js';
import { listen } from './receivers.js';

async function addSystemHook(fx: World, params: Record<string, unknown>) {
  const res = await call(fx, 'POST', '/hooks', 'root', params);
  expect(res.status).toBe(201);
  return body(res);
}

/** The events the receiver got, by `event_name`, and their `X-Gitlab-Event` headers. */
const events = (r: Awaited<ReturnType<typeof listen>>) => r.received.map((x) => x.body.event_name);

describe('system hooks API', () => {
  it('POST /hooks: 201 with the Hook entity and the system hook defaults', async () => {
    const fx = world();
    const res = await call(fx, 'POST', '/hooks', 'root', { url: 'https://example.com/sys', token: 't' });
    expect(res.status).toBe(201);
    expect(await body(res)).toEqual({
      id: 1,
      url: 'https://example.com/sys',
      created_at: NOW,
      push_events: false,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: true,
      enable_ssl_verification: true,
    });
  });

  it('POST /hooks: repository_update_events is a param (13.12 system_hooks.rb), as are the other flags', async () => {
    const fx = world();
    const res = await call(fx, 'POST', '/hooks', 'root', {
      url: 'https://example.com/sys',
      repository_update_events: false,
      push_events: true,
      tag_push_events: true,
      merge_requests_events: true,
      enable_ssl_verification: false,
    });
    expect(res.status).toBe(201);
    expect(await body(res)).toMatchObject({
      push_events: true,
      tag_push_events: true,
      merge_requests_events: true,
      repository_update_events: false,
      enable_ssl_verification: false,
    });
    const list = await call(fx, 'GET', '/hooks', 'root');
    expect((await body(list))[0].repository_update_events).toBe(false);
  });

  it('POST /hooks: the model errors as 400 with a field hash; local URLs allowed by default', async () => {
    const fx = world();
    const missing = await call(fx, 'POST', '/hooks', 'root', {});
    expect([missing.status, await body(missing)]).toEqual([400, { error: 'url is missing' }]);
    const scheme = await call(fx, 'POST', '/hooks', 'root', { url: 'ftp://example.com' });
    expect([scheme.status, await body(scheme)]).toEqual([
      400,
      { message: { url: ['is blocked: Only allowed schemes are http, https'] } },
    ]);
    expect((await call(fx, 'POST', '/hooks', 'root', { url: 'http://127.0.0.1:1/x' })).status).toBe(201);
    await call(fx, 'PUT', '/application/settings', 'root', { allow_local_requests_from_system_hooks: false });
    const local = await call(fx, 'POST', '/hooks', 'root', { url: 'http://127.0.0.1:1/x' });
    expect([local.status, await body(local)]).toEqual([
      400,
      { message: { url: ['is blocked: Requests to localhost are not allowed'] } },
    ]);
  });

  it('system hooks: 401 anonymous, 403 for non-admins, before param checks', async () => {
    const fx = world();
    expect((await call(fx, 'GET', '/hooks')).status).toBe(401);
    const res = await call(fx, 'POST', '/hooks', 'alice', {});
    expect([res.status, await body(res)]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await call(fx, 'GET', '/hooks/1', 'maint')).status).toBe(403);
  });

  it('GET /hooks: paginated list; DELETE /hooks/:id: 204, then 404 System hook Not Found', async () => {
    const fx = world();
    const hook = await addSystemHook(fx, { url: 'https://example.com/a' });
    const list = await call(fx, 'GET', '/hooks', 'root');
    expect(list.headers.get('X-Total')).toBe('1');
    expect(await body(list)).toEqual([hook]);
    expect((await call(fx, 'DELETE', `/hooks/${hook.id}`, 'root')).status).toBe(204);
    const again = await call(fx, 'DELETE', `/hooks/${hook.id}`, 'root');
    expect([again.status, await body(again)]).toEqual([404, { message: '404 System hook Not Found' }]);
    const test = await call(fx, 'GET', `/hooks/${hook.id}`, 'root');
    expect([test.status, await body(test)]).toEqual([404, { message: '404 Not found' }]);
  });

  it('GET /hooks/:id: sends the sample project_create event to that hook and answers with it', async () => {
    const r = await listen();
    const other = await listen();
    const fx = world();
    const hook = await addSystemHook(fx, { url: r.url, token: 'sys-token' });
    await addSystemHook(fx, { url: other.url });
    const res = await call(fx, 'GET', `/hooks/${hook.id}`, 'root');
    const sample = {
      event_name: 'project_create',
      name: 'Ruby',
      path: 'ruby',
      project_id: 1,
      owner_name: 'Someone',
      owner_email: 'example@gitlabhq.com',
    };
    expect([res.status, await body(res)]).toEqual([200, sample]);
    // Each test sends again: the answer is never replayed from memory.
    expect((await call(fx, 'GET', `/hooks/${hook.id}`, 'root')).status).toBe(200);
    await deliveries(fx.clock).settled();
    expect(other.received).toHaveLength(0);
    expect(r.received).toHaveLength(2);
    expect(r.received[0]!.headers['x-gitlab-event']).toBe('System Hook');
    expect(r.received[0]!.headers['x-gitlab-token']).toBe('sys-token');
    expect(r.received[0]!.body).toEqual(sample);
  });
});

describe('system hook events', () => {
  it('system hooks: project_create, project_rename and project_destroy', async () => {
    const r = await listen();
    const fx = world();
    await addSystemHook(fx, { url: r.url });
    const group = await body(await call(fx, 'GET', '/groups/acme', 'alice'));
    const made = await body(
      await call(fx, 'POST', '/projects', 'alice', { name: 'tool', namespace_id: group.id }),
    );
    expect((await call(fx, 'PUT', `/projects/${made.id}`, 'alice', { path: 'tool2' })).status).toBe(200);
    expect((await call(fx, 'DELETE', `/projects/${made.id}`, 'alice')).status).toBe(202);
    await deliveries(fx.clock).settled();
    expect(events(r)).toEqual(['project_create', 'project_rename', 'project_destroy']);
    expect(r.received[0]!.headers['x-gitlab-event']).toBe('System Hook');
    expect(r.received[0]!.body).toEqual({
      event_name: 'project_create',
      created_at: '2021-03-01T12:00:00Z',
      updated_at: '2021-03-01T12:00:00Z',
      name: 'tool',
      path: 'tool',
      path_with_namespace: 'acme/tool',
      project_id: made.id,
      owner_name: 'Acme',
      owner_email: '',
      project_visibility: 'private',
    });
    expect(r.received[1]!.body).toMatchObject({
      path_with_namespace: 'acme/tool2',
      old_path_with_namespace: 'acme/tool',
    });
  });

  it('system hooks: user_create, user_destroy, group_create, group_destroy, key_create', async () => {
    const r = await listen();
    const fx = world();
    await addSystemHook(fx, { url: r.url });
    const u = await body(
      await call(fx, 'POST', '/users', 'root', {
        username: 'newbie',
        name: 'New Bie',
        email: 'newbie@example.com',
        password: 'secret-password-1',
      }),
    );
    const g = await body(await call(fx, 'POST', '/groups', 'root', { name: 'Team', path: 'team' }));
    await call(fx, 'DELETE', `/groups/${g.id}`, 'root');
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl';
    const k = await call(fx, 'POST', '/user/keys', 'alice', { title: 'laptop', key });
    expect(k.status).toBe(201);
    await call(fx, 'DELETE', `/users/${u.id}`, 'root');
    await deliveries(fx.clock).settled();
    expect(events(r)).toEqual(['user_create', 'group_create', 'group_destroy', 'key_create', 'user_destroy']);
    expect(r.received[3]!.body).toMatchObject({ event_name: 'key_create', key, username: 'alice' });
    expect(r.received[0]!.body).toEqual({
      event_name: 'user_create',
      created_at: '2021-03-01T12:00:00Z',
      updated_at: '2021-03-01T12:00:00Z',
      name: 'New Bie',
      email: 'newbie@example.com',
      user_id: u.id,
      username: 'newbie',
    });
    expect(r.received.find((x) => x.body.event_name === 'group_create')!.body).toEqual({
      event_name: 'group_create',
      created_at: '2021-03-01T12:00:00Z',
      updated_at: '2021-03-01T12:00:00Z',
      name: 'Team',
      path: 'team',
      full_path: 'team',
      group_id: g.id,
    });
  });

  it('system hooks: user_add_to_team, user_update_for_team, user_remove_from_team; user_add_to_group', async () => {
    const r = await listen();
    const fx = world();
    await addSystemHook(fx, { url: r.url });
    await call(fx, 'POST', `${APP}/members`, 'alice', { user_id: 5, access_level: 30 });
    await call(fx, 'PUT', `${APP}/members/5`, 'alice', { access_level: 40 });
    await call(fx, 'DELETE', `${APP}/members/5`, 'alice');
    await call(fx, 'POST', '/groups/acme/members', 'alice', { user_id: 5, access_level: 20 });
    await deliveries(fx.clock).settled();
    expect(events(r)).toEqual([
      'user_add_to_team',
      'user_update_for_team',
      'user_remove_from_team',
      'user_add_to_group',
    ]);
    expect(r.received[0]!.body).toMatchObject({
      project_name: 'App',
      project_path: 'app',
      project_path_with_namespace: 'acme/app',
      project_id: 1,
      user_username: 'outsider',
      user_id: 5,
      access_level: 'Developer',
      project_visibility: 'private',
    });
    expect(r.received[2]!.body.access_level).toBe('Maintainer');
    expect(r.received[3]!.body).toMatchObject({
      group_name: 'Acme',
      group_path: 'acme',
      group_access: 'Reporter',
      user_username: 'outsider',
      expires_at: null,
    });
  });

  it('system hooks: pushes by push_events and tag_push_events, every push as repository_update', async () => {
    const r = await listen();
    const fx = world();
    await addSystemHook(fx, { url: r.url, tag_push_events: true });
    await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ref: 'main2' });
    await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ref: 'v9', tag: true });
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => [x.headers['x-gitlab-event'], x.body.event_name])).toEqual([
      ['System Hook', 'repository_update'],
      ['System Hook', 'tag_push'],
      ['System Hook', 'repository_update'],
    ]);
    expect(r.received[0]!.body).toMatchObject({
      project_id: 1,
      changes: [{ before: '0000000000000000000000000000000000000000', ref: 'refs/heads/main2' }],
      refs: ['refs/heads/main2'],
    });
  });

  it('system hooks: merge requests by merge_requests_events', async () => {
    const r = await listen();
    const fx = world();
    await addSystemHook(fx, { url: r.url, merge_requests_events: true, repository_update_events: false });
    // A merge request names an existing branch.
    await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'a', ref: 'master' });
    await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
      title: 'x',
      source_branch: 'a',
      target_branch: 'master',
    });
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => [x.headers['x-gitlab-event'], x.body.object_kind])).toEqual([
      ['System Hook', 'merge_request'],
    ]);
  });
});
