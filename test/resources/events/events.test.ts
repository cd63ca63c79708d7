import { describe, expect, it } from 'vitest';
import { APP, NOW, body, call, contentWorld, world, type World } from '../settings/world.js';

/** dev opens an issue, alice closes it, dev comments and pushes a new branch, an hour apart each. */
async function story(fx: World) {
  fx.clock.advance(3_600_000);
  const issue = await body(await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Crash' }));
  fx.clock.advance(3_600_000);
  await call(fx, 'PUT', `${APP}/issues/${issue.iid}`, 'alice', { state_event: 'close' });
  fx.clock.advance(3_600_000);
  const note = await body(
    await call(fx, 'POST', `${APP}/issues/${issue.iid}/notes`, 'dev', { body: 'Why?' }),
  );
  fx.clock.advance(3_600_000);
  await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ref: 'topic', user: 'dev' });
  return { issue, note };
}

const at = (hours: number) => new Date(Date.parse(NOW) + hours * 3_600_000).toISOString();

describe('events API', () => {
  it('GET /projects/:id/events: what happened, newest first, as the Event entity', async () => {
    const fx = world();
    const { issue, note } = await story(fx);
    const res = await call(fx, 'GET', `${APP}/events`, 'alice');
    expect(res.status).toBe(200);
    const list = await body(res);
    expect(
      list.slice(0, 4).map((e: any) => [e.action_name, e.target_type, e.author_username, e.created_at]),
    ).toEqual([
      ['pushed new', null, 'dev', at(4)],
      ['commented on', 'Note', 'dev', at(3)],
      ['closed', 'Issue', 'alice', at(2)],
      ['opened', 'Issue', 'dev', at(1)],
    ]);
    expect(Object.keys(list[2])).toEqual([
      'id',
      'project_id',
      'action_name',
      'target_id',
      'target_iid',
      'target_type',
      'author_id',
      'target_title',
      'created_at',
      'author',
      'author_username',
    ]);
    expect(list[2]).toMatchObject({
      project_id: 1,
      target_id: issue.id,
      target_iid: issue.iid,
      target_title: 'Crash',
      author: { username: 'alice' },
    });
    expect(list[1]).toMatchObject({
      target_id: note.id,
      target_iid: null,
      target_title: 'Crash',
      note: { body: 'Why?' },
    });
    expect(list[0].push_data).toEqual({
      commit_count: 1,
      action: 'created',
      ref_type: 'branch',
      commit_from: null,
      commit_to: expect.stringMatching(/^[0-9a-f]{40}$/),
      ref: 'topic',
      commit_title: null,
      ref_count: null,
    });
    expect(list.at(-1)).toMatchObject({ action_name: 'created', target_type: null, target_id: null });
    expect(res.headers.get('X-Total')).toBe(String(list.length));
  });

  it('GET /projects/:id/events: action, target_type, before, after and sort filter; bad values are 400', async () => {
    const fx = world();
    await story(fx);
    const closed = await body(await call(fx, 'GET', `${APP}/events?action=closed`, 'alice'));
    expect(closed.map((e: any) => e.action_name)).toEqual(['closed']);
    const notes = await body(await call(fx, 'GET', `${APP}/events?target_type=note`, 'alice'));
    expect(notes.map((e: any) => e.action_name)).toEqual(['commented on']);
    const asc = await body(await call(fx, 'GET', `${APP}/events?sort=asc&target_type=issue`, 'alice'));
    expect(asc.map((e: any) => e.action_name)).toEqual(['opened', 'opened', 'closed']);
    const before = await body(await call(fx, 'GET', `${APP}/events?before=2021-03-01`, 'alice'));
    expect(before).toEqual([]);
    const after = await body(await call(fx, 'GET', `${APP}/events?after=2021-02-28`, 'alice'));
    expect(after.length).toBeGreaterThan(0);
    expect(await body(await call(fx, 'GET', `${APP}/events?after=2021-03-01`, 'alice'))).toEqual([]);
    const bad = await call(fx, 'GET', `${APP}/events?action=exploded`, 'alice');
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'action does not have a valid value' }]);
  });

  it("GET /projects/:id/events: a confidential issue's events only for those who see the issue; 404 hidden project", async () => {
    const fx = world();
    await call(fx, 'POST', '/projects/acme%2Fsite/issues', 'alice', { title: 'Secret', confidential: true });
    const mine = await body(await call(fx, 'GET', '/projects/acme%2Fsite/events', 'alice'));
    expect(mine.some((e: any) => e.target_title === 'Secret')).toBe(true);
    const theirs = await body(await call(fx, 'GET', '/projects/acme%2Fsite/events', 'outsider'));
    expect(theirs.some((e: any) => e.target_type === 'Issue')).toBe(false);
    expect(theirs.length).toBeGreaterThan(0);
    const hidden = await call(fx, 'GET', `${APP}/events`, 'outsider');
    expect([hidden.status, await body(hidden)]).toEqual([404, { message: '404 Project Not Found' }]);
  });

  it('GET /projects/:id/events: a list read once still shows what happens afterwards', async () => {
    const fx = world();
    const { issue } = await story(fx);
    const names = async () =>
      (await body(await call(fx, 'GET', `${APP}/events?per_page=100`, 'alice'))).map(
        (e: any) => e.action_name,
      );
    const before = await names();
    await call(fx, 'POST', `${APP}/issues/${issue.iid}/notes`, 'alice', { body: 'Because.' });
    await call(fx, 'PUT', `${APP}/issues/${issue.iid}`, 'alice', { state_event: 'reopen' });
    await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ref: 'topic', user: 'dev' });
    await call(fx, 'POST', `${APP}/members`, 'alice', { user_id: 5, access_level: 30 });
    const after = await names();
    expect(after.length).toBe(before.length + 4);
    expect(after.slice(0, 4).sort()).toEqual(['commented on', 'joined', 'pushed to', 'reopened']);
    const ids = (await body(await call(fx, 'GET', `${APP}/events?per_page=100`, 'alice'))).map(
      (e: any) => e.id,
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("GET /events: the caller's own events; scope=all adds their projects' events; 401 anonymous", async () => {
    const fx = world();
    await story(fx);
    expect((await call(fx, 'GET', '/events')).status).toBe(401);
    const own = await body(await call(fx, 'GET', '/events', 'dev'));
    expect(own.map((e: any) => e.action_name)).toEqual(['pushed new', 'commented on', 'opened', 'opened']);
    const all = await body(await call(fx, 'GET', '/events?scope=all', 'dev'));
    expect(all.map((e: any) => e.action_name)).toContain('closed');
  });

  it('GET /users/:id/events: by id or username, only what the viewer may see; private profiles show nothing', async () => {
    const fx = world();
    await story(fx);
    const byName = await body(await call(fx, 'GET', '/users/dev/events', 'alice'));
    expect(byName.length).toBe(4);
    // acme/app is private: an outsider sees none of dev's events there.
    expect(await body(await call(fx, 'GET', '/users/dev/events', 'outsider'))).toEqual([]);
    const missing = await call(fx, 'GET', '/users/nobody/events', 'alice');
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 User Not Found' }]);
    await call(fx, 'PUT', '/users/4', 'root', { private_profile: true });
    expect(await body(await call(fx, 'GET', '/users/dev/events', 'alice'))).toEqual([]);
    expect((await body(await call(fx, 'GET', '/users/dev/events', 'dev'))).length).toBe(4);
  });

  it('GET /user/activities: admins only; users active on or after `from`', async () => {
    const active: Record<string, string> = { alice: '2021-02-27', dev: '2021-03-01', maint: '2020-01-01' };
    const users = contentWorld.users!.map((u) =>
      active[u.username] ? { ...u, last_activity_on: active[u.username] } : u,
    );
    const fx = world({}, { users });
    expect((await call(fx, 'GET', '/user/activities', 'alice')).status).toBe(403);
    const res = await call(fx, 'GET', '/user/activities?from=2021-02-01', 'root');
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual([
      { username: 'alice', last_activity_on: '2021-02-27', last_activity_at: '2021-02-27' },
      { username: 'dev', last_activity_on: '2021-03-01', last_activity_at: '2021-03-01' },
    ]);
    // Six months back by default; root's own successful calls are activity of the day (2021-03-01).
    const recent = await body(await call(fx, 'GET', '/user/activities', 'root'));
    expect(recent.map((a: any) => [a.username, a.last_activity_on])).toEqual([
      ['alice', '2021-02-27'],
      ['root', '2021-03-01'],
      ['dev', '2021-03-01'],
    ]);
    expect(await body(await call(fx, 'GET', '/user/activities?from=2099-01-01', 'root'))).toEqual([]);
  });
});
