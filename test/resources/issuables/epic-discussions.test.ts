/** Discussions on epics (paid tiers, by epic id), through the discussions API. */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { get, issuablesWorld, send } from './world.js';

const world = (tier: 'premium' | 'free' = 'premium') =>
  createFauxlab({
    tier,
    scenario: {
      ...issuablesWorld,
      epics: [
        {
          group: 'acme',
          title: 'Big redesign',
          author: 'alice',
          notes: [{ body: 'Kick-off', author: 'dave', created_at: '2021-02-02T00:00:00Z' }],
        },
      ],
    } as never,
  });

type Discussion = { id: string; individual_note: boolean; notes: { id: number; body: string }[] };

describe('epic discussions', () => {
  it('GET /groups/:id/epics/:noteable_id/discussions: the epic note as an individual discussion', async () => {
    const fx = world();
    const res = await get(fx, '/groups/acme/epics/1/discussions', 'bob-api');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject([
      { individual_note: true, notes: [{ body: 'Kick-off', noteable_type: 'Epic', noteable_id: 1 }] },
    ]);
    const id = (res.body as Discussion[])[0]!.id;
    expect((await get(fx, `/groups/acme/epics/1/discussions/${id}`, 'bob-api')).body).toMatchObject({ id });
  });

  it('POST /groups/:id/epics/:noteable_id/discussions: starts a thread, replies go into it', async () => {
    const fx = world();
    const started = await send(fx, 'POST', '/groups/acme/epics/1/discussions', 'bob-api', {
      body: 'Question',
    });
    expect(started.status).toBe(201);
    const d = started.body as Discussion;
    expect(d).toMatchObject({
      individual_note: false,
      notes: [{ body: 'Question', type: 'DiscussionNote' }],
    });
    const reply = await send(fx, 'POST', `/groups/acme/epics/1/discussions/${d.id}/notes`, 'dave-api', {
      body: 'Answer',
    });
    expect(reply).toMatchObject({ status: 201, body: { body: 'Answer', noteable_type: 'Epic' } });
    const notes = (await get(fx, `/groups/acme/epics/1/discussions/${d.id}/notes`, 'bob-api')).body as {
      body: string;
    }[];
    expect(notes.map((n) => n.body)).toEqual(['Question', 'Answer']);
    expect(((await get(fx, '/groups/acme/epics/1/notes', 'bob-api')).body as unknown[]).length).toBe(3);
  });

  it('POST /groups/:id/epics/:noteable_id/discussions/:discussion_id/notes: an individual note becomes a thread', async () => {
    const fx = world();
    const id = ((await get(fx, '/groups/acme/epics/1/discussions', 'bob-api')).body as Discussion[])[0]!.id;
    expect(
      (await send(fx, 'POST', `/groups/acme/epics/1/discussions/${id}/notes`, 'bob-api', { body: 'Agreed' }))
        .status,
    ).toBe(201);
    expect((await get(fx, `/groups/acme/epics/1/discussions/${id}`, 'bob-api')).body).toMatchObject({
      individual_note: false,
      notes: [{ body: 'Kick-off' }, { body: 'Agreed' }],
    });
  });

  it('GET /groups/:id/epics/:noteable_id/discussions: 401 anonymous, 404 for a missing epic and on the free tier', async () => {
    expect((await get(world(), '/groups/acme/epics/1/discussions')).status).toBe(401);
    expect(await get(world(), '/groups/acme/epics/99/discussions', 'bob-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await get(world('free'), '/groups/acme/epics/1/discussions', 'bob-api')).status).toBe(404);
  });
});
