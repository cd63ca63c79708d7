/**
 * One issue: show, create, update, delete and the actions on it (subscribe, unsubscribe, todo,
 * closed_by, participants, user agent detail), with the platform's statuses and bodies, and refused
 * writes that leave the state untouched.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { api, call, get, issuablesFx, issuablesWorld, json, refused, send, WEB } from './world.js';
import { tvalues } from '../../../src/core/table.js';

describe('GET /projects/:id/issues/:issue_iid', () => {
  const fx = issuablesFx();
  it('GET /projects/:id/issues/:issue_iid: the full shape, in the platform order', async () => {
    const r = await get(fx, `${WEB}/issues/1`, 'alice-api');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual([
      'id',
      'iid',
      'project_id',
      'title',
      'description',
      'state',
      'created_at',
      'updated_at',
      'closed_at',
      'closed_by',
      'labels',
      'milestone',
      'assignees',
      'author',
      'type',
      'assignee',
      'user_notes_count',
      'merge_requests_count',
      'upvotes',
      'downvotes',
      'due_date',
      'confidential',
      'discussion_locked',
      'web_url',
      'time_stats',
      'task_completion_status',
      'has_tasks',
      'task_status',
      '_links',
      'reference',
      'references',
      'subscribed',
      'moved_to_id',
      'service_desk_reply_to',
    ]);
    expect(r.body).toMatchObject({
      id: 1,
      iid: 1,
      project_id: 1,
      title: 'Login button broken',
      state: 'opened',
      created_at: '2021-01-01T10:00:00.000Z',
      labels: ['bug'],
      milestone: {
        id: 1,
        iid: 1,
        project_id: 1,
        title: 'v1.0',
        state: 'active',
        due_date: '2021-03-10',
        expired: false,
      },
      assignees: [{ id: 5, username: 'dave' }],
      assignee: { id: 5, username: 'dave' },
      author: {
        id: 3,
        username: 'bob',
        name: 'Bob Builder',
        state: 'active',
        web_url: 'http://localhost/bob',
      },
      type: 'ISSUE',
      upvotes: 2,
      downvotes: 0,
      merge_requests_count: 1,
      due_date: '2021-03-01',
      confidential: false,
      discussion_locked: null,
      web_url: 'http://localhost/acme/website/-/issues/1',
      time_stats: {
        time_estimate: 0,
        total_time_spent: 0,
        human_time_estimate: null,
        human_total_time_spent: null,
      },
      task_completion_status: { count: 3, completed_count: 1 },
      has_tasks: true,
      task_status: '1 of 3 tasks completed',
      _links: {
        self: 'http://localhost/api/v4/projects/1/issues/1',
        notes: 'http://localhost/api/v4/projects/1/issues/1/notes',
        award_emoji: 'http://localhost/api/v4/projects/1/issues/1/award_emoji',
        project: 'http://localhost/api/v4/projects/1',
      },
      references: { short: '#1', relative: '#1', full: 'acme/website#1' },
      moved_to_id: null,
    });
  });
  it('GET /projects/:id/issues/:issue_iid: lists omit subscribed; a single issue has it', async () => {
    expect((await get(fx, `${WEB}/issues`, 'alice-api')).body[0]).not.toHaveProperty('subscribed');
    expect((await get(fx, `${WEB}/issues/1`, 'bob-api')).body.subscribed).toBe(true);
    expect((await get(fx, `${WEB}/issues/1`, 'carol-api')).body.subscribed).toBe(false);
  });
  it('GET /projects/:id/issues/:issue_iid: weight and health_status appear on paid tiers only', async () => {
    expect((await get(fx, `${WEB}/issues/1`, 'alice-api')).body).not.toHaveProperty('weight');
    const paid = createFauxlab({ scenario: issuablesWorld, tier: 'premium' });
    expect((await get(paid, `${WEB}/issues/1`, 'alice-api')).body).toMatchObject({
      weight: null,
      health_status: null,
    });
  });
  it('GET /projects/:id/issues/:issue_iid: an unknown iid is 404 Not found, lowercase f', async () => {
    const r = await get(fx, `${WEB}/issues/99`, 'alice-api');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: '404 Not found' });
  });
  it('GET /projects/:id/issues/:issue_iid: a hidden confidential issue is the same 404', async () => {
    for (const token of ['carol-api', 'gus-api', undefined])
      expect(await get(fx, `${WEB}/issues/4`, token)).toMatchObject({
        status: 404,
        body: { message: '404 Not found' },
      });
    expect((await get(fx, `${WEB}/issues/4`, 'bob-api')).status).toBe(200);
    expect((await get(fx, `${WEB}/issues/4`, 'erin-api')).status).toBe(200);
    expect((await get(fx, `${WEB}/issues/5`, 'carol-api')).status).toBe(200);
  });
  it('GET /projects/:id/issues/:issue_iid: a non-integer iid is a 400', async () => {
    expect((await get(fx, `${WEB}/issues/abc`, 'alice-api')).body).toEqual({ error: 'issue_iid is invalid' });
  });
  it('GET /projects/:id/issues/:issue_iid: a project in the user namespace by path', async () => {
    expect((await get(fx, '/projects/bob%2Fnotes/issues/1')).body.references.full).toBe('bob/notes#1');
  });
  it('GET /issues/:id: admins only, by global id', async () => {
    expect((await get(fx, '/issues/7', 'root-api')).body.title).toBe('Fuel leak');
    expect((await get(fx, '/issues/7', 'alice-api')).status).toBe(403);
    expect((await get(fx, '/issues/999', 'root-api')).body).toEqual({ message: '404 Not found' });
  });
});

describe('POST /projects/:id/issues', () => {
  it('POST /projects/:id/issues: 201 with the issue; iids continue without gaps', async () => {
    const fx = issuablesFx();
    const a = await send(fx, 'POST', `${WEB}/issues`, 'bob-api', { title: 'First new' });
    const b = await send(fx, 'POST', `${WEB}/issues`, 'carol-api', { title: 'Second new', description: 'x' });
    expect(a.status).toBe(201);
    expect([a.body.iid, b.body.iid]).toEqual([7, 8]);
    expect(a.body).toMatchObject({
      title: 'First new',
      state: 'opened',
      description: null,
      author: { username: 'bob' },
      created_at: '2021-03-03T12:00:00.000Z',
      updated_at: '2021-03-03T12:00:00.000Z',
      labels: [],
      subscribed: true,
      discussion_locked: null,
    });
    // The iid sequence survives the deletion of the last issue.
    await send(fx, 'DELETE', `${WEB}/issues/8`, 'alice-api');
    expect((await send(fx, 'POST', `${WEB}/issues`, 'bob-api', { title: 'Third' })).body.iid).toBe(9);
    // Each project has its own sequence.
    expect(
      (await send(fx, 'POST', '/projects/bob%2Fnotes/issues', 'bob-api', { title: 'Mine' })).body.iid,
    ).toBe(2);
  });
  it('POST /projects/:id/issues: concurrent creates get distinct iids', async () => {
    const fx = issuablesFx();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => send(fx, 'POST', `${WEB}/issues`, 'bob-api', { title: `n${i}` })),
    );
    expect(results.map((r) => r.body.iid).sort((x, y) => x - y)).toEqual([
      7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
    ]);
  });
  it('POST /projects/:id/issues: labels, assignee, milestone and due date by a reporter', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues`, 'erin-api', {
      title: 'Triaged',
      labels: 'bug,brand-new',
      assignee_ids: [5],
      milestone_id: 2,
      due_date: '2021-04-01',
      confidential: true,
    });
    expect(r.body).toMatchObject({
      labels: ['brand-new', 'bug'],
      assignees: [{ username: 'dave' }],
      milestone: { title: 'v2.0' },
      due_date: '2021-04-01',
      confidential: true,
    });
    const details = await get(fx, `${WEB}/issues?iids[]=7&with_labels_details=true`, 'erin-api');
    // Label 4 is acme/labs/rocket's `bug`: ids are global.
    expect(details.body[0].labels[0]).toEqual({
      id: 5,
      name: 'brand-new',
      color: '#428BCA',
      description: null,
      description_html: '',
      text_color: '#FFFFFF',
    });
  });
  it('POST /projects/:id/issues: a non-member cannot set labels, assignees, milestone or due date (dropped)', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues`, 'bob-api', {
      title: 'Outsider',
      labels: 'bug',
      assignee_ids: [5],
      milestone_id: 1,
      due_date: '2021-04-01',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ labels: [], assignees: [], milestone: null, due_date: null });
  });
  it('POST /projects/:id/issues: the free tier keeps one assignee', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues`, 'alice-api', { title: 'Two', assignee_ids: [5, 4] });
    expect(r.body.assignees.map((u: { username: string }) => u.username)).toEqual(['dave']);
  });
  it('POST /projects/:id/issues: iid and created_at are for admins and owners; others are dropped', async () => {
    const fx = issuablesFx();
    const own = await send(fx, 'POST', `${WEB}/issues`, 'alice-api', {
      title: 'Imported',
      iid: 50,
      created_at: '2020-06-01T00:00:00Z',
    });
    expect(own.body).toMatchObject({ iid: 50, created_at: '2020-06-01T00:00:00.000Z' });
    const other = await send(fx, 'POST', `${WEB}/issues`, 'erin-api', {
      title: 'Try',
      iid: 60,
      created_at: '2020-06-01T00:00:00Z',
    });
    expect(other.body).toMatchObject({ iid: 51, created_at: '2021-03-03T12:00:00.000Z' });
  });
  it('POST /projects/:id/issues: a taken iid is 409 Duplicated issue', async () => {
    const fx = issuablesFx();
    await refused(fx, 'POST', `${WEB}/issues`, 'alice-api', { title: 'Dup', iid: 2 }, 409, {
      message: 'Duplicated issue',
    });
  });
  it('POST /projects/:id/issues: a missing title is a Grape 400; a blank one a model 400', async () => {
    const fx = issuablesFx();
    await refused(fx, 'POST', `${WEB}/issues`, 'bob-api', {}, 400, { error: 'title is missing' });
    await refused(fx, 'POST', `${WEB}/issues`, 'bob-api', { title: ' ' }, 400, {
      message: { title: ["can't be blank"] },
    });
    await refused(fx, 'POST', `${WEB}/issues`, 'bob-api', { title: 'x'.repeat(256) }, 400, {
      message: { title: ['is too long (maximum is 255 characters)'] },
    });
  });
  it('POST /projects/:id/issues: anonymous is 401 before params; a private project is 404; disabled issues 403', async () => {
    const fx = issuablesFx();
    await refused(fx, 'POST', `${WEB}/issues`, undefined, {}, 401, { message: '401 Unauthorized' });
    await refused(fx, 'POST', '/projects/acme%2Flabs%2Frocket/issues', 'bob-api', { title: 'x' }, 404, {
      message: '404 Project Not Found',
    });
    const off = createFauxlab({
      scenario: {
        ...issuablesWorld,
        projects: issuablesWorld.projects!.map((p) =>
          p.path === 'acme/website' ? { ...p, issues_access_level: 'disabled' } : p,
        ),
      },
    });
    await refused(off, 'POST', `${WEB}/issues`, 'alice-api', { title: 'x' }, 403, {
      message: '403 Forbidden',
    });
  });
  it('POST /projects/:id/issues: the user agent detail is kept for admins to see', async () => {
    const fx = issuablesFx();
    await call(fx, 'POST', api(`${WEB}/issues`), {
      token: 'bob-api',
      body: { title: 'Spammy?' },
      headers: { 'User-Agent': 'curl/7.68', 'X-Forwarded-For': '203.0.113.9' },
    });
    expect((await get(fx, `${WEB}/issues/7/user_agent_detail`, 'root-api')).body).toEqual({
      user_agent: 'curl/7.68',
      ip_address: '203.0.113.9',
      akismet_submitted: false,
    });
    expect((await get(fx, `${WEB}/issues/7/user_agent_detail`, 'alice-api')).body).toEqual({
      message: '403 Forbidden',
    });
    expect((await get(fx, `${WEB}/issues/7/user_agent_detail`)).body).toEqual({
      message: '401 Unauthorized',
    });
    expect((await get(fx, `${WEB}/issues/1/user_agent_detail`, 'root-api')).body).toEqual({
      message: '404 UserAgentDetail Not Found',
    });
  });
});

describe('PUT /projects/:id/issues/:issue_iid', () => {
  it('PUT /projects/:id/issues/:issue_iid: close and reopen', async () => {
    const fx = issuablesFx();
    fx.clock.advance(60_000);
    const closed = await send(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { state_event: 'close' });
    expect(closed.body).toMatchObject({
      state: 'closed',
      closed_at: '2021-03-03T12:01:00.000Z',
      closed_by: { username: 'alice' },
      updated_at: '2021-03-03T12:01:00.000Z',
    });
    const reopened = await send(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { state_event: 'reopen' });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_at: null, closed_by: null });
  });
  it('PUT /projects/:id/issues/:issue_iid: closing a closed issue is 200 and changes nothing', async () => {
    const fx = issuablesFx();
    const before = await get(fx, `${WEB}/issues/3`, 'alice-api');
    fx.clock.advance(60_000);
    const r = await send(fx, 'PUT', `${WEB}/issues/3`, 'alice-api', { state_event: 'close' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(before.body);
    expect((await get(fx, `${WEB}/issues/3/notes`, 'alice-api')).body).toEqual([]);
  });
  it('PUT /projects/:id/issues/:issue_iid: title, description, labels and assignees, with system notes', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', {
      title: 'Add a dark mode',
      description: 'Many users want it',
      labels: 'feature,bug',
      assignee_ids: [5],
    });
    expect(r.body).toMatchObject({
      title: 'Add a dark mode',
      labels: ['bug', 'feature'],
      assignees: [{ username: 'dave' }],
    });
    const notes = (await get(fx, `${WEB}/issues/2/notes?sort=asc`, 'alice-api')).body;
    expect(notes.map((n: { body: string; system: boolean }) => [n.body, n.system])).toEqual([
      ['changed title from **Add dark mode** to **Add {+a +}dark mode**', true],
      ['changed the description', true],
      ['assigned to @dave', true],
      ['added ~1 label and removed ~3 label', true],
    ]);
  });
  it('PUT /projects/:id/issues/:issue_iid: milestone_id 0 or null and an empty due_date clear them', async () => {
    const fx = issuablesFx();
    expect(
      (await send(fx, 'PUT', `${WEB}/issues/1`, 'alice-api', { milestone_id: null, due_date: '' })).body,
    ).toMatchObject({
      milestone: null,
      due_date: null,
    });
    expect(
      (await send(fx, 'PUT', `${WEB}/issues/6`, 'alice-api', { milestone_id: 0 })).body.milestone,
    ).toBeNull();
  });
  it('PUT /projects/:id/issues/:issue_iid: add_labels and remove_labels', async () => {
    const fx = issuablesFx();
    expect(
      (await send(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { add_labels: 'bug', remove_labels: 'docs' }))
        .body.labels,
    ).toEqual(['bug', 'feature']);
  });
  it('PUT /projects/:id/issues/:issue_iid: state and milestone changes are resource events, not notes', async () => {
    const fx = issuablesFx();
    await send(fx, 'PUT', `${WEB}/issues/6`, 'alice-api', { state_event: 'close', milestone_id: 2 });
    expect(
      (await get(fx, `${WEB}/issues/6/notes`, 'alice-api')).body.filter((n: { system: boolean }) => n.system),
    ).toEqual([]);
    const events = tvalues(fx.state.issuables.events);
    // A change from one milestone to another is a single `add` (ChangeMilestoneService).
    expect(events.map((e) => [e.kind, e.state ?? e.action])).toEqual([
      ['milestone', 'add'],
      ['state', 'closed'],
    ]);
  });
  it('PUT /projects/:id/issues/:issue_iid: confidentiality, lock and due date make system notes', async () => {
    const fx = issuablesFx();
    await send(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', {
      confidential: true,
      discussion_locked: true,
      due_date: '2021-03-09',
    });
    const bodies = (await get(fx, `${WEB}/issues/2/notes?sort=asc`, 'alice-api')).body.map(
      (n: { body: string }) => n.body,
    );
    expect(bodies).toEqual([
      'made the issue confidential',
      'locked this issue',
      'changed due date to March  9, 2021',
    ]);
    expect((await get(fx, `${WEB}/issues/2`, 'alice-api')).body.discussion_locked).toBe(true);
  });
  it('PUT /projects/:id/issues/:issue_iid: the author may edit; a stranger may not (403)', async () => {
    const fx = issuablesFx();
    expect(
      (await send(fx, 'PUT', `${WEB}/issues/2`, 'carol-api', { title: 'Dark mode please' })).status,
    ).toBe(200);
    await refused(fx, 'PUT', `${WEB}/issues/2`, 'bob-api', { title: 'Mine now' }, 403, {
      message: '403 Forbidden',
    });
  });
  it('PUT /projects/:id/issues/:issue_iid: needs at least one attribute', async () => {
    const fx = issuablesFx();
    await refused(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { updated_at: '2021-01-01T00:00:00Z' }, 400, {
      error:
        'assignee_id, assignee_ids, confidential, created_at, description, discussion_locked, due_date, labels, add_labels, remove_labels, milestone_id, state_event, title are missing, at least one parameter must be provided',
    });
  });
  it('PUT /projects/:id/issues/:issue_iid: an unknown issue is 404 Not found; an invalid state_event a 400', async () => {
    const fx = issuablesFx();
    await refused(fx, 'PUT', `${WEB}/issues/77`, 'alice-api', { title: 'x' }, 404, {
      message: '404 Not found',
    });
    await refused(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { state_event: 'merge' }, 400, {
      error: 'state_event does not have a valid value',
    });
    await refused(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { title: '' }, 400, {
      message: { title: ["can't be blank"] },
    });
  });
});

describe('DELETE /projects/:id/issues/:issue_iid', () => {
  it('DELETE /projects/:id/issues/:issue_iid: owners only (403 otherwise); 204 then 404 Issue Not Found', async () => {
    const fx = issuablesFx();
    await refused(fx, 'DELETE', `${WEB}/issues/2`, 'erin-api', undefined, 403, { message: '403 Forbidden' });
    const r = await call(fx, 'DELETE', api(`${WEB}/issues/2`), { token: 'alice-api' });
    expect(r.status).toBe(204);
    expect(await r.text()).toBe('');
    await refused(fx, 'DELETE', `${WEB}/issues/2`, 'alice-api', undefined, 404, {
      message: '404 Issue Not Found',
    });
    expect((await get(fx, `${WEB}/issues/2`, 'alice-api')).status).toBe(404);
  });
  it('DELETE /projects/:id/issues/:issue_iid: If-Unmodified-Since older than the issue is 412', async () => {
    const fx = issuablesFx();
    const before = fx.state;
    const r = await call(fx, 'DELETE', api(`${WEB}/issues/1`), {
      token: 'alice-api',
      headers: { 'If-Unmodified-Since': 'Fri, 01 Jan 2021 00:00:00 GMT' },
    });
    expect(r.status).toBe(412);
    expect(await json(r)).toEqual({ message: '412 Precondition Failed' });
    expect(fx.state).toBe(before);
  });
  it('DELETE /projects/:project: deleting the project removes its issuables', async () => {
    const fx = issuablesFx();
    const r = await call(fx, 'DELETE', api('/projects/acme%2Fwebsite'), { token: 'root-api' });
    expect([202, 204]).toContain(r.status);
    const st = fx.state.issuables;
    expect(st.mergeRequests.size).toBe(0);
    expect(st.issues.size).toBe(3);
    expect(st.notes.size).toBe(0);
    expect(st.milestones.size).toBe(0);
  });
});

describe('issue actions', () => {
  it('POST /projects/:id/issues/:issue_iid/subscribe: 201 with the issue, then 304 when already subscribed', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues/2/subscribe`, 'bob-api');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ iid: 2, subscribed: true });
    const before = fx.state;
    const again = await call(fx, 'POST', api(`${WEB}/issues/2/subscribe`), { token: 'bob-api' });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(fx.state).toBe(before);
  });
  it('POST /projects/:id/issues/:issue_iid/subscribe: the author is subscribed already (304)', async () => {
    const fx = issuablesFx();
    expect((await call(fx, 'POST', api(`${WEB}/issues/2/subscribe`), { token: 'carol-api' })).status).toBe(
      304,
    );
  });
  it('POST /projects/:id/issues/:issue_iid/unsubscribe: 201, then 304 when not subscribed', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues/2/unsubscribe`, 'carol-api');
    expect(r.status).toBe(201);
    expect(r.body.subscribed).toBe(false);
    expect((await call(fx, 'POST', api(`${WEB}/issues/2/unsubscribe`), { token: 'carol-api' })).status).toBe(
      304,
    );
    expect((await call(fx, 'POST', api(`${WEB}/issues/2/unsubscribe`), { token: 'bob-api' })).status).toBe(
      304,
    );
  });
  it('POST /projects/:id/issues/:issue_iid/subscribe: a hidden or unknown issue is 404 Not found', async () => {
    const fx = issuablesFx();
    await refused(fx, 'POST', `${WEB}/issues/4/subscribe`, 'carol-api', undefined, 404, {
      message: '404 Not found',
    });
    await refused(fx, 'POST', `${WEB}/issues/99/subscribe`, 'carol-api', undefined, 404, {
      message: '404 Not found',
    });
    await refused(fx, 'POST', `${WEB}/issues/2/subscribe`, undefined, undefined, 401, {
      message: '401 Unauthorized',
    });
  });
  it('POST /projects/:id/issues/:issue_iid/todo: a todo (201), then 304 while it is pending', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues/2/todo`, 'bob-api');
    expect(r.status).toBe(201);
    expect(Object.keys(r.body)).toEqual([
      'id',
      'project',
      'author',
      'action_name',
      'target_type',
      'target',
      'target_url',
      'body',
      'state',
      'created_at',
      'updated_at',
    ]);
    expect(r.body).toMatchObject({
      id: 1,
      project: {
        id: 1,
        name: 'Website',
        name_with_namespace: 'Acme / Website',
        path: 'website',
        path_with_namespace: 'acme/website',
      },
      author: { username: 'bob' },
      action_name: 'marked',
      target_type: 'Issue',
      target: { iid: 2, title: 'Add dark mode', subscribed: false },
      target_url: 'http://localhost/acme/website/-/issues/2',
      body: 'Add dark mode',
      state: 'pending',
    });
    const before = fx.state;
    expect((await call(fx, 'POST', api(`${WEB}/issues/2/todo`), { token: 'bob-api' })).status).toBe(304);
    expect(fx.state).toBe(before);
    expect((await call(fx, 'POST', api(`${WEB}/issues/2/todo`), { token: 'carol-api' })).status).toBe(201);
  });
  it('GET /projects/:id/issues/:issue_iid/closed_by: merge requests that close the issue', async () => {
    const fx = issuablesFx();
    const r = await get(fx, `${WEB}/issues/1/closed_by`, 'alice-api');
    expect(r.body.map((m: { iid: number; title: string }) => [m.iid, m.title])).toEqual([
      [1, 'Fix login button'],
    ]);
    expect(r.body[0]).not.toHaveProperty('changes_count');
    expect((await get(fx, `${WEB}/issues/2/closed_by`, 'alice-api')).body).toEqual([]);
  });
  it('GET /projects/:id/issues/:issue_iid/closed_by: follows Closes #N as descriptions change', async () => {
    const fx = issuablesFx();
    await send(fx, 'PUT', `${WEB}/merge_requests/2`, 'alice-api', {
      description: 'Implements #2, fixes #6 and #1',
    });
    expect(
      (await get(fx, `${WEB}/issues/2/closed_by`, 'alice-api')).body.map((m: { iid: number }) => m.iid),
    ).toEqual([2]);
    expect(
      (await get(fx, `${WEB}/issues/1/closed_by`, 'alice-api')).body.map((m: { iid: number }) => m.iid),
    ).toEqual([2, 1]);
    expect((await get(fx, `${WEB}/issues/6`, 'alice-api')).body.merge_requests_count).toBe(1);
  });
  it('GET /projects/:id/issues/:issue_iid/participants: author, assignees, commenters', async () => {
    const fx = issuablesFx();
    expect(
      (await get(fx, `${WEB}/issues/1/participants`, 'alice-api')).body.map(
        (u: { username: string }) => u.username,
      ),
    ).toEqual(['bob', 'dave']);
    expect(
      (await get(fx, `${WEB}/issues/6/participants`, 'alice-api')).body.map(
        (u: { username: string }) => u.username,
      ),
    ).toEqual(['alice', 'dave']);
  });
  it('GET /projects/:id/issues/:issue_iid/related_merge_requests: merge requests mentioning the issue', async () => {
    const fx = issuablesFx();
    expect(
      (await get(fx, `${WEB}/issues/1/related_merge_requests`, 'alice-api')).body.map(
        (m: { iid: number }) => m.iid,
      ),
    ).toEqual([1]);
  });
});

describe('todos', () => {
  it('GET /todos: the pending todos of the caller; mark_as_done lets a new one be marked', async () => {
    const fx = issuablesFx();
    await send(fx, 'POST', `${WEB}/issues/2/todo`, 'bob-api');
    await send(fx, 'POST', `${WEB}/merge_requests/1/todo`, 'bob-api');
    await send(fx, 'POST', `${WEB}/issues/6/todo`, 'carol-api');
    const mine = (await get(fx, '/todos', 'bob-api')).body;
    expect(
      mine.map((t: { target_type: string; target: { iid: number } }) => [t.target_type, t.target.iid]),
    ).toEqual([
      ['MergeRequest', 1],
      ['Issue', 2],
    ]);
    expect((await get(fx, '/todos?type=Issue', 'bob-api')).body).toHaveLength(1);
    expect((await get(fx, '/todos')).status).toBe(401);
    const done = await send(fx, 'POST', `/todos/${mine[1].id}/mark_as_done`, 'bob-api');
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ id: mine[1].id, state: 'done' });
    expect((await send(fx, 'POST', `${WEB}/issues/2/todo`, 'bob-api')).status).toBe(201);
    expect((await send(fx, 'POST', `/todos/${mine[1].id}/mark_as_done`, 'carol-api')).body).toEqual({
      message: '404 Not found',
    });
    expect((await call(fx, 'POST', api('/todos/mark_as_done'), { token: 'bob-api' })).status).toBe(204);
    expect((await get(fx, '/todos', 'bob-api')).body).toEqual([]);
    expect((await get(fx, '/todos?state=done', 'bob-api')).body).toHaveLength(3);
  });
});
