/** Group epics (paid tiers): list, show, create, update, delete. */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { acmeWithReaders, get, issuablesWorld, send } from './world.js';

/**
 * acme (public) with erin as a group reporter and gus as a group guest, two epics in acme (one
 * confidential, one closed later by the tests) and one in acme/labs.
 */
const world = (tier: 'premium' | 'free' = 'premium') =>
  createFauxlab({
    tier,
    scenario: {
      ...issuablesWorld,
      groups: acmeWithReaders,
      epics: [
        {
          group: 'acme',
          title: 'Big redesign',
          description: 'New look',
          author: 'alice',
          created_at: '2021-01-01T00:00:00Z',
        },
        {
          group: 'acme',
          title: 'Secret plan',
          author: 'alice',
          confidential: true,
          created_at: '2021-01-02T00:00:00Z',
        },
        { group: 'acme/labs', title: 'Lab work', author: 'dave', created_at: '2021-01-03T00:00:00Z' },
      ],
    } as never,
  });

const titles = (body: unknown) => (body as { title: string }[]).map((e) => e.title);

describe('epics', () => {
  it('GET /groups/:id/epics: anonymous readers see the public epics of the group and its subgroups', async () => {
    const fx = world();
    const res = await get(fx, '/groups/acme/epics');
    expect(res.status).toBe(200);
    expect(titles(res.body)).toEqual(['Lab work', 'Big redesign']);
    expect(titles((await get(fx, '/groups/acme/epics?include_descendant_groups=false')).body)).toEqual([
      'Big redesign',
    ]);
  });

  it('GET /groups/:id/epics: confidential epics are listed for group reporters only', async () => {
    const fx = world();
    expect(titles((await get(fx, '/groups/acme/epics', 'gus-api')).body)).not.toContain('Secret plan');
    expect(titles((await get(fx, '/groups/acme/epics', 'erin-api')).body)).toEqual([
      'Lab work',
      'Secret plan',
      'Big redesign',
    ]);
  });

  it('GET /groups/:id/epics: order_by, sort, search, author_id and labels filter and order', async () => {
    const fx = world();
    expect(titles((await get(fx, '/groups/acme/epics?sort=asc', 'alice-api')).body)).toEqual([
      'Big redesign',
      'Secret plan',
      'Lab work',
    ]);
    expect(titles((await get(fx, '/groups/acme/epics?search=new%20LOOK', 'alice-api')).body)).toEqual([
      'Big redesign',
    ]);
    const dave = (await get(fx, '/users?username=dave', 'alice-api')).body as { id: number }[];
    expect(titles((await get(fx, `/groups/acme/epics?author_id=${dave[0]!.id}`, 'alice-api')).body)).toEqual([
      'Lab work',
    ]);
    await send(fx, 'PUT', '/groups/acme/epics/1', 'alice-api', { labels: 'ux,web' });
    expect(titles((await get(fx, '/groups/acme/epics?labels=ux', 'alice-api')).body)).toEqual([
      'Big redesign',
    ]);
    expect(titles((await get(fx, '/groups/acme/epics?order_by=updated_at', 'alice-api')).body)[0]).toBe(
      'Big redesign',
    );
    expect((await get(fx, '/groups/acme/epics?order_by=title', 'alice-api')).body).toEqual({
      error: 'order_by does not have a valid value',
    });
  });

  it('GET /groups/:id/epics/:epic_iid: the 13.12 epic entity, with subscribed', async () => {
    const fx = world();
    const res = await get(fx, '/groups/acme/epics/1', 'alice-api');
    expect(res.status).toBe(200);
    const base = 'http://localhost';
    expect(res.body).toEqual({
      id: 1,
      iid: 1,
      group_id: expect.any(Number),
      parent_id: null,
      title: 'Big redesign',
      description: 'New look',
      state: 'opened',
      confidential: false,
      web_url: `${base}/groups/acme/-/epics/1`,
      reference: '&1',
      references: { short: '&1', relative: '&1', full: 'acme&1' },
      author: expect.objectContaining({ username: 'alice' }),
      start_date: null,
      start_date_is_fixed: false,
      start_date_fixed: null,
      start_date_from_milestones: null,
      start_date_from_inherited_source: null,
      end_date: null,
      due_date: null,
      due_date_is_fixed: false,
      due_date_fixed: null,
      due_date_from_milestones: null,
      due_date_from_inherited_source: null,
      created_at: '2021-01-01T00:00:00.000Z',
      updated_at: '2021-01-01T00:00:00.000Z',
      closed_at: null,
      labels: [],
      upvotes: 0,
      downvotes: 0,
      subscribed: true,
      _links: {
        self: expect.stringMatching(/\/api\/v4\/groups\/\d+\/epics\/1$/),
        epic_issues: expect.stringMatching(/\/api\/v4\/groups\/\d+\/epics\/1\/issues$/),
        group: expect.stringMatching(/\/api\/v4\/groups\/\d+$/),
        parent: null,
      },
    });
  });

  it('GET /groups/:id/epics/:epic_iid: 403 for a missing epic and for a confidential one below reporter', async () => {
    const fx = world();
    expect(await get(fx, '/groups/acme/epics/99', 'alice-api')).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect((await get(fx, '/groups/acme/epics/2', 'gus-api')).status).toBe(403);
    expect((await get(fx, '/groups/acme/epics/2', 'erin-api')).status).toBe(200);
  });

  it('GET /groups/:id/epics: 404 on the free tier', async () => {
    const fx = world('free');
    expect((await get(fx, '/groups/acme/epics', 'alice-api')).status).toBe(404);
  });

  it('POST /groups/:id/epics: reporters create, with labels and fixed dates', async () => {
    const fx = world();
    const res = await send(fx, 'POST', '/groups/acme/epics', 'erin-api', {
      title: 'Q3 goals',
      labels: 'b,a',
      start_date_is_fixed: true,
      start_date_fixed: '2021-07-01',
      due_date_fixed: '2021-09-30',
      confidential: true,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      iid: 3,
      title: 'Q3 goals',
      labels: ['a', 'b'],
      start_date: '2021-07-01',
      start_date_fixed: '2021-07-01',
      due_date: null,
      due_date_fixed: '2021-09-30',
      confidential: true,
      created_at: '2021-03-03T12:00:00.000Z',
      author: expect.objectContaining({ username: 'erin' }),
    });
    expect(res.body).not.toHaveProperty('subscribed');
  });

  it('POST /groups/:id/epics: 403 for guests, 401 anonymous, 400 without a title or with a blank one', async () => {
    const fx = world();
    expect(await send(fx, 'POST', '/groups/acme/epics', 'gus-api', { title: 'x' })).toEqual({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect((await send(fx, 'POST', '/groups/acme/epics', undefined, { title: 'x' })).status).toBe(401);
    expect(await send(fx, 'POST', '/groups/acme/epics', 'alice-api', {})).toEqual({
      status: 400,
      body: { error: 'title is missing' },
    });
    expect(await send(fx, 'POST', '/groups/acme/epics', 'alice-api', { title: ' ' })).toEqual({
      status: 400,
      body: { message: { title: ["can't be blank"] } },
    });
    expect(titles((await get(fx, '/groups/acme/epics', 'alice-api')).body)).toHaveLength(3);
  });

  it('POST /groups/:id/epics: parent_id names an epic of the group or its ancestors', async () => {
    const fx = world();
    const child = await send(fx, 'POST', '/groups/acme%2Flabs/epics', 'alice-api', {
      title: 'Child',
      parent_id: 1,
    });
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({
      parent_id: 1,
      _links: { parent: expect.stringMatching(/\/epics\/1$/) },
    });
    expect(
      await send(fx, 'POST', '/groups/acme/epics', 'alice-api', { title: 'Orphan', parent_id: 3 }),
    ).toEqual({
      status: 400,
      body: { message: { parent: ['is invalid'] } },
    });
  });

  it('PUT /groups/:id/epics/:epic_iid: state_event closes and reopens; at least one field', async () => {
    const fx = world();
    fx.clock.advance(60_000);
    const closed = await send(fx, 'PUT', '/groups/acme/epics/1', 'erin-api', { state_event: 'close' });
    expect(closed.body).toMatchObject({
      state: 'closed',
      closed_at: '2021-03-03T12:01:00.000Z',
      updated_at: '2021-03-03T12:01:00.000Z',
    });
    expect(titles((await get(fx, '/groups/acme/epics?state=closed')).body)).toEqual(['Big redesign']);
    expect(titles((await get(fx, '/groups/acme/epics?state=opened')).body)).toEqual(['Lab work']);
    const reopened = await send(fx, 'PUT', '/groups/acme/epics/1', 'erin-api', { state_event: 'reopen' });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_at: null });
    expect(await send(fx, 'PUT', '/groups/acme/epics/1', 'erin-api', {})).toMatchObject({ status: 400 });
    expect((await send(fx, 'PUT', '/groups/acme/epics/1', 'gus-api', { title: 'x' })).status).toBe(403);
  });

  it('DELETE /groups/:id/epics/:epic_iid: owners only; the epic and its notes are gone', async () => {
    const fx = world();
    expect((await send(fx, 'DELETE', '/groups/acme/epics/1', 'erin-api')).status).toBe(403);
    expect((await send(fx, 'DELETE', '/groups/acme/epics/1', 'alice-api')).status).toBe(204);
    expect((await get(fx, '/groups/acme/epics/1', 'alice-api')).status).toBe(403);
    expect(titles((await get(fx, '/groups/acme/epics', 'alice-api')).body)).toEqual([
      'Lab work',
      'Secret plan',
    ]);
  });

  it('GET /groups/:id/epics/:epic_iid: state, labels and fixed dates from the scenario', async () => {
    const fx = createFauxlab({
      tier: 'premium',
      scenario: {
        ...issuablesWorld,
        epics: [
          {
            group: 'acme',
            title: 'Done',
            author: 'alice',
            created_at: '2021-01-01T00:00:00Z',
            updated_at: '2021-01-03T00:00:00Z',
            state: 'closed',
            labels: ['web', 'ux'],
            due_date_is_fixed: true,
            due_date_fixed: '2021-02-01',
          },
        ],
      } as never,
    });
    expect((await get(fx, '/groups/acme/epics/1', 'alice-api')).body).toMatchObject({
      state: 'closed',
      closed_at: '2021-01-03T00:00:00.000Z',
      updated_at: '2021-01-03T00:00:00.000Z',
      labels: ['ux', 'web'],
      due_date: '2021-02-01',
      due_date_is_fixed: true,
    });
  });

  it('GET /groups/:id/epics: with_labels_details renders the group labels of that name', async () => {
    const fx = world();
    await send(fx, 'POST', '/groups/acme/labels', 'alice-api', { name: 'ux', color: '#123456' });
    await send(fx, 'PUT', '/groups/acme/epics/1', 'alice-api', { labels: 'ux,adhoc' });
    const res = await get(fx, '/groups/acme/epics?with_labels_details=true&labels=ux', 'alice-api');
    expect((res.body as { labels: unknown[] }[])[0]!.labels).toEqual([
      { name: 'adhoc' },
      expect.objectContaining({ name: 'ux', color: '#123456' }),
    ]);
  });
});
