/** Resource label, milestone and state events of acme/website's issues and merge requests. */
import { describe, expect, it } from 'vitest';
import { get, issuablesFx, send, WEB } from './world.js';

const NOW = '2021-03-03T12:00:00.000Z';

describe('resource label events', () => {
  it('GET /projects/:id/issues/:eventable_id/resource_label_events: one event per label added or removed', async () => {
    const fx = issuablesFx();
    // Issue #2 has feature and docs.
    await send(fx, 'PUT', `${WEB}/issues/2`, 'erin-api', { labels: 'bug,docs' });
    const r = await get(fx, `${WEB}/issues/2/resource_label_events`, 'bob-api');
    expect(r.status).toBe(200);
    expect(r.headers.get('X-Total')).toBe('2');
    const issueId = (await get(fx, `${WEB}/issues/2`, 'bob-api')).body.id;
    expect(r.body[0]).toEqual({
      id: expect.any(Number),
      user: expect.objectContaining({ username: 'erin' }),
      created_at: NOW,
      resource_type: 'Issue',
      resource_id: issueId,
      label: {
        id: 1,
        name: 'bug',
        color: '#FF0000',
        description: null,
        description_html: '',
        text_color: '#FFFFFF',
      },
      action: 'add',
    });
    expect(r.body[1]).toMatchObject({ label: { name: 'feature' }, action: 'remove' });
    const one = await get(fx, `${WEB}/issues/2/resource_label_events/${r.body[1].id}`, 'bob-api');
    expect(one.body).toEqual(r.body[1]);
  });

  it('GET /projects/:id/merge_requests/:eventable_id/resource_label_events: a deleted label shows as null', async () => {
    const fx = issuablesFx();
    await send(fx, 'PUT', `${WEB}/merge_requests/1`, 'dave-api', { add_labels: 'docs' });
    await send(fx, 'DELETE', `${WEB}/labels/docs`, 'erin-api');
    const r = await get(fx, `${WEB}/merge_requests/1/resource_label_events`, 'bob-api');
    expect(r.body).toMatchObject([{ resource_type: 'MergeRequest', label: null, action: 'add' }]);
  });

  it('GET /projects/:id/issues/:eventable_id/resource_label_events/:event_id: 404s; 401 anonymous', async () => {
    const fx = issuablesFx();
    expect(await get(fx, `${WEB}/issues/2/resource_label_events/999`, 'bob-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    // The confidential issue #4 is hidden from an outsider.
    expect((await get(fx, `${WEB}/issues/4/resource_label_events`, 'carol-api')).status).toBe(404);
    expect((await get(fx, `${WEB}/issues/2/resource_label_events`)).status).toBe(401);
  });
});

describe('resource milestone and state events', () => {
  it('GET /projects/:id/issues/:eventable_id/resource_milestone_events: add and remove, with the milestone and the issue state', async () => {
    const fx = issuablesFx();
    // Issue #1 is on v1.0: a change to v2.0 is one `add` (ChangeMilestoneService), a removal one `remove`.
    await send(fx, 'PUT', `${WEB}/issues/1`, 'erin-api', { milestone_id: 2 });
    await send(fx, 'PUT', `${WEB}/issues/1`, 'erin-api', { milestone_id: 0 });
    const r = await get(fx, `${WEB}/issues/1/resource_milestone_events`, 'bob-api');
    expect(r.body.map((e: any) => [e.milestone.title, e.action, e.state])).toEqual([
      ['v2.0', 'add', 'opened'],
      ['v2.0', 'remove', 'opened'],
    ]);
    expect(Object.keys(r.body[0])).toEqual([
      'id',
      'user',
      'created_at',
      'resource_type',
      'resource_id',
      'milestone',
      'action',
      'state',
    ]);
    expect(r.body[0].milestone).toEqual((await get(fx, `${WEB}/milestones/2`, 'bob-api')).body);
  });

  it('GET /projects/:id/merge_requests/:eventable_id/resource_state_events: closed and reopened', async () => {
    const fx = issuablesFx();
    await send(fx, 'PUT', `${WEB}/merge_requests/1`, 'dave-api', { state_event: 'close' });
    await send(fx, 'PUT', `${WEB}/merge_requests/1`, 'dave-api', { state_event: 'reopen' });
    const r = await get(fx, `${WEB}/merge_requests/1/resource_state_events`, 'bob-api');
    expect(r.body.map((e: any) => e.state)).toEqual(['closed', 'reopened']);
    expect(Object.keys(r.body[0])).toEqual([
      'id',
      'user',
      'created_at',
      'resource_type',
      'resource_id',
      'state',
    ]);
    const one = await get(fx, `${WEB}/merge_requests/1/resource_state_events/${r.body[0].id}`, 'bob-api');
    expect(one.body).toEqual(r.body[0]);
    // An event of another kind is not found under this one.
    const label = await get(fx, `${WEB}/merge_requests/1/resource_label_events/${r.body[0].id}`, 'bob-api');
    expect(label.status).toBe(404);
  });

  it('PUT /projects/:id/issues/:issue_iid: a refused change records no event', async () => {
    const fx = issuablesFx();
    const before = fx.state;
    const r = await send(fx, 'PUT', `${WEB}/issues/1`, 'erin-api', {
      labels: 'docs',
      milestone_id: 2,
      title: '',
    });
    expect(r.status).toBe(400);
    expect(fx.state).toBe(before);
    expect((await get(fx, `${WEB}/issues/1/resource_label_events`, 'bob-api')).body).toEqual([]);
  });
});

describe('resource weight events (paid tiers)', () => {
  it('GET /projects/:id/issues/:eventable_id/resource_weight_events: one event per weight set, with the issue id', async () => {
    const fx = issuablesFx({ tier: 'premium' });
    fx.clock.advance(60_000);
    expect((await send(fx, 'PUT', `${WEB}/issues/2`, 'erin-api', { weight: 5 })).status).toBe(200);
    fx.clock.advance(60_000);
    expect((await send(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { weight: 2 })).status).toBe(200);
    const issueId = (await get(fx, `${WEB}/issues/2`, 'bob-api')).body.id;
    const r = await get(fx, `${WEB}/issues/2/resource_weight_events`, 'bob-api');
    expect(r.status).toBe(200);
    expect(r.headers.get('X-Total')).toBe('2');
    expect(r.body.map((e: any) => [e.user.username, e.weight, e.issue_id, e.created_at])).toEqual([
      ['erin', 5, issueId, '2021-03-03T12:01:00.000Z'],
      ['alice', 2, issueId, '2021-03-03T12:02:00.000Z'],
    ]);
    expect(Object.keys(r.body[0])).toEqual(['id', 'user', 'created_at', 'issue_id', 'weight']);
    const one = await get(fx, `${WEB}/issues/2/resource_weight_events/${r.body[1].id}`, 'bob-api');
    expect(one.body).toEqual(r.body[1]);
    // Other kinds of events are not weight events.
    expect((await get(fx, `${WEB}/issues/2/resource_state_events`, 'bob-api')).body).toEqual([]);
  });

  it('GET /projects/:id/issues/:eventable_id/resource_weight_events/:event_id: 404s, 401 anonymous, no route on the free tier', async () => {
    const fx = issuablesFx({ tier: 'premium' });
    await send(fx, 'PUT', `${WEB}/issues/2`, 'erin-api', { weight: 5 });
    const id = (await get(fx, `${WEB}/issues/2/resource_weight_events`, 'bob-api')).body[0].id;
    // Another issue's event is not found under this one.
    expect(await get(fx, `${WEB}/issues/1/resource_weight_events/${id}`, 'bob-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await get(fx, `${WEB}/issues/4/resource_weight_events`, 'carol-api')).status).toBe(404);
    expect((await get(fx, `${WEB}/issues/2/resource_weight_events`)).status).toBe(401);
    const free = issuablesFx();
    expect(await get(free, `${WEB}/issues/2/resource_weight_events`, 'bob-api')).toMatchObject({
      status: 404,
      body: { error: '404 Not Found' },
    });
  });
});
