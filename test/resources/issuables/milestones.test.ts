/** Project and group milestones. acme/website has v1.0 (due 03-10), v2.0 (due 06-01) and old (closed). */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { api, call, get, issuablesFx, issuablesWorld, refused, send, WEB } from './world.js';

const titles = (list: { title: string }[]) => list.map((m) => m.title);

describe('project milestones', () => {
  const fx = issuablesFx();
  it('GET /projects/:id/milestones: every state, newest id first, in the milestone shape', async () => {
    const r = await get(fx, `${WEB}/milestones`, 'bob-api');
    expect(titles(r.body)).toEqual(['old', 'v2.0', 'v1.0']);
    expect(Object.keys(r.body[2])).toEqual([
      'id',
      'iid',
      'project_id',
      'title',
      'description',
      'state',
      'created_at',
      'updated_at',
      'due_date',
      'start_date',
      'expired',
      'web_url',
    ]);
    expect(r.body[2]).toMatchObject({
      id: 1,
      iid: 1,
      project_id: 1,
      title: 'v1.0',
      state: 'active',
      due_date: '2021-03-10',
      expired: false,
      web_url: 'http://localhost/acme/website/-/milestones/1',
    });
  });
  it('GET /projects/:id/milestones: state, iids, title and search', async () => {
    expect(titles((await get(fx, `${WEB}/milestones?state=active`, 'bob-api')).body)).toEqual([
      'v2.0',
      'v1.0',
    ]);
    expect(titles((await get(fx, `${WEB}/milestones?state=closed`, 'bob-api')).body)).toEqual(['old']);
    expect(titles((await get(fx, `${WEB}/milestones?iids[]=2`, 'bob-api')).body)).toEqual(['v2.0']);
    expect(titles((await get(fx, `${WEB}/milestones?title=v1.0`, 'bob-api')).body)).toEqual(['v1.0']);
    expect(titles((await get(fx, `${WEB}/milestones?title=V1.0`, 'bob-api')).body)).toEqual([]);
    expect(titles((await get(fx, `${WEB}/milestones?search=old`, 'bob-api')).body)).toEqual(['old']);
    expect((await get(fx, `${WEB}/milestones?state=open`, 'bob-api')).body).toEqual({
      error: 'state does not have a valid value',
    });
  });
  it('GET /projects/:id/milestones: needs a user', async () => {
    expect((await get(fx, `${WEB}/milestones`)).body).toEqual({ message: '401 Unauthorized' });
  });
  it("GET /projects/:id/milestones/:milestone_id: one milestone; another project's is 404 Not found", async () => {
    expect((await get(fx, `${WEB}/milestones/2`, 'bob-api')).body.title).toBe('v2.0');
    expect((await get(fx, `${WEB}/milestones/99`, 'bob-api')).body).toEqual({ message: '404 Not found' });
  });
  it('GET /projects/:id/milestones/:milestone_id/issues and /merge_requests', async () => {
    const issues = (await get(fx, `${WEB}/milestones/1/issues`, 'bob-api')).body;
    expect(issues.map((i: { iid: number }) => i.iid)).toEqual([1, 6]);
    expect(issues[0]).not.toHaveProperty('_links');
    expect(issues[0]).toHaveProperty('task_completion_status');
    expect(
      (await get(fx, `${WEB}/milestones/1/merge_requests`, 'bob-api')).body.map(
        (m: { iid: number }) => m.iid,
      ),
    ).toEqual([1]);
  });
});

describe('project milestone writes', () => {
  it("POST /projects/:id/milestones: 201; a taken title is the platform's inspect-string 400", async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/milestones`, 'dave-api', {
      title: 'v3.0',
      description: 'Next',
      start_date: '2021-04-01',
      due_date: '2021-05-01',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: 4,
      iid: 4,
      title: 'v3.0',
      description: 'Next',
      state: 'active',
      start_date: '2021-04-01',
      due_date: '2021-05-01',
    });
    await refused(fx, 'POST', `${WEB}/milestones`, 'dave-api', { title: 'v1.0' }, 400, {
      message: 'Failed to create milestone {:title=>["has already been taken"]}',
    });
    await refused(
      fx,
      'POST',
      `${WEB}/milestones`,
      'dave-api',
      { title: 'x', start_date: '2021-05-02', due_date: '2021-05-01' },
      400,
      {
        message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}',
      },
    );
    await refused(fx, 'POST', `${WEB}/milestones`, 'dave-api', {}, 400, { error: 'title is missing' });
  });
  it('POST /projects/:id/milestones: reporters and outsiders may not (403)', async () => {
    const fx = issuablesFx();
    await refused(fx, 'POST', `${WEB}/milestones`, 'erin-api', { title: 'x' }, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'POST', `${WEB}/milestones`, 'bob-api', { title: 'x' }, 403, {
      message: '403 Forbidden',
    });
  });
  it('PUT /projects/:id/milestones/:milestone_id: state_event close and activate', async () => {
    const fx = issuablesFx();
    fx.clock.advance(1000);
    const closed = await send(fx, 'PUT', `${WEB}/milestones/1`, 'dave-api', { state_event: 'close' });
    expect(closed.body).toMatchObject({ state: 'closed', updated_at: '2021-03-03T12:00:01.000Z' });
    expect(
      (await send(fx, 'PUT', `${WEB}/milestones/1`, 'dave-api', { state_event: 'activate' })).body.state,
    ).toBe('active');
    expect((await get(fx, `${WEB}/issues/1`, 'dave-api')).body.milestone.state).toBe('active');
  });
  it('PUT /projects/:id/milestones/:milestone_id: validation and at least one param', async () => {
    const fx = issuablesFx();
    await refused(fx, 'PUT', `${WEB}/milestones/1`, 'dave-api', { title: 'v2.0' }, 400, {
      message: 'Failed to update milestone {:title=>["has already been taken"]}',
    });
    await refused(fx, 'PUT', `${WEB}/milestones/1`, 'dave-api', {}, 400, {
      error:
        'title, description, start_date, due_date, state_event are missing, at least one parameter must be provided',
    });
    await refused(fx, 'PUT', `${WEB}/milestones/1`, 'dave-api', { state_event: 'reopen' }, 400, {
      error: 'state_event does not have a valid value',
    });
    expect((await send(fx, 'PUT', `${WEB}/milestones/1`, 'dave-api', { title: 'v1.0.0' })).body.title).toBe(
      'v1.0.0',
    );
    expect(
      (await get(fx, `${WEB}/issues?milestone=v1.0.0`, 'dave-api')).body.map((i: { iid: number }) => i.iid),
    ).toEqual([6, 1]);
  });
  it('DELETE /projects/:id/milestones/:milestone_id: developers; issues lose the milestone', async () => {
    const fx = issuablesFx();
    await refused(fx, 'DELETE', `${WEB}/milestones/1`, 'erin-api', undefined, 403, {
      message: '403 Forbidden',
    });
    const r = await call(fx, 'DELETE', api(`${WEB}/milestones/1`), { token: 'dave-api' });
    expect(r.status).toBe(204);
    expect((await get(fx, `${WEB}/issues/1`, 'dave-api')).body.milestone).toBeNull();
    expect((await get(fx, `${WEB}/milestones/1`, 'dave-api')).body).toEqual({ message: '404 Not found' });
  });
  it('POST /projects/:id/milestones/:milestone_id/promote: a group milestone takes over the issues', async () => {
    const fx = issuablesFx();
    const r = await call(fx, 'POST', api(`${WEB}/milestones/1/promote`), { token: 'alice-api' });
    expect(r.status).toBe(200);
    const groupMilestones = (await get(fx, '/groups/acme/milestones', 'alice-api')).body;
    expect(groupMilestones).toEqual([
      expect.objectContaining({
        id: 4,
        iid: 1,
        group_id: 8,
        title: 'v1.0',
        web_url: 'http://localhost/groups/acme/-/milestones/1',
      }),
    ]);
    expect(groupMilestones[0]).not.toHaveProperty('project_id');
    expect(titles((await get(fx, `${WEB}/milestones`, 'alice-api')).body)).toEqual(['old', 'v2.0']);
    expect((await get(fx, `${WEB}/issues/1`, 'alice-api')).body.milestone).toMatchObject({
      id: 4,
      group_id: 8,
    });
    expect(
      (await get(fx, `${WEB}/issues?milestone=v1.0`, 'alice-api')).body.map((i: { iid: number }) => i.iid),
    ).toEqual([6, 1]);
  });
  it('POST .../promote: needs a group (a personal project is 403) and group rights', async () => {
    const fx = createFauxlab({
      scenario: {
        ...issuablesWorld,
        projects: issuablesWorld.projects!.map((p) =>
          p.path === 'bob/notes' ? { ...p, milestones: [{ title: 'm' }] } : p,
        ),
      },
    });
    await refused(fx, 'POST', '/projects/bob%2Fnotes/milestones/4/promote', 'bob-api', undefined, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'POST', `${WEB}/milestones/1/promote`, 'erin-api', undefined, 403, {
      message: '403 Forbidden',
    });
  });
});

describe('group milestones', () => {
  it('POST and GET /groups/:id/milestones; include_parent_milestones on projects and subgroups', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', '/groups/acme/milestones', 'dave-api', { title: 'Q2' });
    expect(r.status).toBe(201);
    // Group ids share the namespace sequence with the users' personal namespaces.
    expect(r.body).toMatchObject({ iid: 1, group_id: 8, title: 'Q2' });
    expect(titles((await get(fx, '/groups/acme/milestones', 'bob-api')).body)).toEqual(['Q2']);
    expect(
      titles((await get(fx, `${WEB}/milestones?include_parent_milestones=true`, 'bob-api')).body),
    ).toEqual(['Q2', 'old', 'v2.0', 'v1.0']);
    expect(
      titles(
        (await get(fx, '/groups/acme%2Flabs/milestones?include_parent_milestones=true', 'alice-api')).body,
      ),
    ).toEqual(['Q2']);
    await refused(fx, 'POST', '/groups/acme/milestones', 'bob-api', { title: 'x' }, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'POST', '/groups/acme/milestones', 'dave-api', { title: 'Q2' }, 400, {
      message: 'Failed to create milestone {:title=>["has already been taken"]}',
    });
  });
  it('group milestones: issues of every project in the group can use them', async () => {
    const fx = issuablesFx();
    const m = (await send(fx, 'POST', '/groups/acme/milestones', 'dave-api', { title: 'Q2' })).body;
    await send(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { milestone_id: m.id });
    await send(fx, 'PUT', '/projects/acme%2Flabs%2Frocket/issues/1', 'alice-api', { milestone_id: m.id });
    // In label priority order: `feature` has a priority, rocket's own `bug` none.
    expect(
      (await get(fx, `/groups/acme/milestones/${m.id}/issues`, 'alice-api')).body.map(
        (i: { title: string }) => i.title,
      ),
    ).toEqual(['Add dark mode', 'Fuel leak']);
    // A milestone of another project is not available.
    await send(fx, 'PUT', `${WEB}/issues/3`, 'alice-api', { milestone_id: 99 });
    expect((await get(fx, `${WEB}/issues/3`, 'alice-api')).body.milestone).toBeNull();
  });
  it('GET /projects/:id/milestones/:milestone_id/burndown_events: paid tiers only', async () => {
    const free = issuablesFx();
    expect((await get(free, `${WEB}/milestones/1/burndown_events`, 'alice-api')).body).toEqual({
      error: '404 Not Found',
    });
    const paid = createFauxlab({ scenario: issuablesWorld, tier: 'premium' });
    await send(paid, 'PUT', `${WEB}/issues/6`, 'alice-api', { state_event: 'close' });
    expect((await get(paid, `${WEB}/milestones/1/burndown_events`, 'alice-api')).body).toEqual([
      { created_at: '2021-01-01T10:00:00.000Z', weight: null, action: 'created' },
      { created_at: '2021-01-06T10:00:00.000Z', weight: null, action: 'created' },
      { created_at: '2021-03-03T12:00:00.000Z', weight: null, action: 'closed' },
    ]);
    const page = await paid.app.request(`/api/v4${WEB}/milestones/1/burndown_events?per_page=1&page=3`, {
      headers: { 'PRIVATE-TOKEN': 'alice-api' },
    });
    expect([page.headers.get('X-Total'), (await page.json()).map((e: any) => e.action)]).toEqual([
      '3',
      ['closed'],
    ]);
  });
});
