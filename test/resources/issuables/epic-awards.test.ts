/**
 * Award emoji on group epics and their notes (paid tiers; EE's awardable, found by iid): acme is public,
 * erin is a group reporter, gus a group guest, bob an outsider; &2 is confidential.
 */
import { describe, expect, it } from 'vitest';
import { tvalues } from '../../../src/core/table.js';
import { createFauxlab } from '../../../src/index.js';
import { acmeWithReaders, get, issuablesWorld, refused, send } from './world.js';

const world = (tier: 'premium' | 'free' = 'premium') =>
  createFauxlab({
    tier,
    scenario: {
      ...issuablesWorld,
      groups: acmeWithReaders,
      epics: [
        { group: 'acme', title: 'Big redesign', author: 'alice', created_at: '2021-01-01T00:00:00Z' },
        {
          group: 'acme',
          title: 'Secret plan',
          author: 'alice',
          confidential: true,
          created_at: '2021-01-02T00:00:00Z',
        },
      ],
    } as never,
  });

const BASE = '/groups/acme/epics/1/award_emoji';

describe('award emoji on epics', () => {
  it('POST /groups/:id/epics/:epic_iid/award_emoji: awards the epic, counted in its upvotes; list, get, delete', async () => {
    const fx = world();
    const made = await send(fx, 'POST', BASE, 'bob-api', { name: 'thumbsup' });
    expect(made).toMatchObject({
      status: 201,
      body: { name: 'thumbsup', user: { username: 'bob' }, awardable_type: 'Epic' },
    });
    const epic = (await get(fx, '/groups/acme/epics/1', 'bob-api')).body;
    expect(made.body.awardable_id).toBe(epic.id);
    expect([epic.upvotes, epic.downvotes]).toEqual([1, 0]);
    const list = await get(fx, BASE, 'carol-api');
    expect(list.body).toEqual([made.body]);
    expect(list.headers.get('X-Total')).toBe('1');
    expect((await get(fx, `${BASE}/${made.body.id}`, 'carol-api')).body).toEqual(made.body);
    expect((await get(fx, '/groups/acme/epics?my_reaction_emoji=thumbsup', 'bob-api')).body).toHaveLength(1);
    await refused(fx, 'DELETE', `${BASE}/${made.body.id}`, 'carol-api', undefined, 401, {
      message: '401 Unauthorized',
    });
    expect((await send(fx, 'DELETE', `${BASE}/${made.body.id}`, 'bob-api')).status).toBe(204);
    expect((await get(fx, '/groups/acme/epics/1', 'bob-api')).body.upvotes).toBe(0);
  });

  it('GET /groups/:id/epics/:epic_iid/award_emoji: a confidential epic is 404 Award Emoji below reporter; 404 for an unknown epic', async () => {
    const fx = world();
    const secret = '/groups/acme/epics/2/award_emoji';
    expect(await get(fx, secret, 'gus-api')).toMatchObject({
      status: 404,
      body: { message: '404 Award Emoji Not Found' },
    });
    await refused(fx, 'POST', secret, 'gus-api', { name: 'tada' }, 404, {
      message: '404 Award Emoji Not Found',
    });
    expect((await send(fx, 'POST', secret, 'erin-api', { name: 'tada' })).status).toBe(201);
    expect(await get(fx, '/groups/acme/epics/99/award_emoji', 'erin-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect(await get(fx, BASE)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
  });

  it('POST /groups/:id/epics/:epic_iid/notes/:note_id/award_emoji: awards an epic note; the epic keeps its own', async () => {
    const fx = world();
    const epicId = (await get(fx, '/groups/acme/epics/1', 'bob-api')).body.id;
    const note = await send(fx, 'POST', `/groups/acme/epics/${epicId}/notes`, 'alice-api', { body: 'Go' });
    expect(note.status).toBe(201);
    const base = `/groups/acme/epics/1/notes/${note.body.id}/award_emoji`;
    const made = await send(fx, 'POST', base, 'bob-api', { name: 'rocket' });
    expect(made).toMatchObject({ status: 201, body: { awardable_id: note.body.id, awardable_type: 'Note' } });
    expect((await get(fx, base, 'carol-api')).body).toEqual([made.body]);
    expect((await get(fx, BASE, 'carol-api')).body).toEqual([]);
    // The note is not found under another epic.
    expect((await get(fx, `/groups/acme/epics/2/notes/${note.body.id}/award_emoji`, 'erin-api')).status).toBe(
      404,
    );
  });

  it('DELETE /groups/:id/epics/:epic_iid: the epic takes its award emoji along; no route on the free tier', async () => {
    const fx = world();
    await send(fx, 'POST', BASE, 'bob-api', { name: 'tada' });
    const count = () => tvalues(fx.state.issuables.awards).length;
    const before = count();
    expect((await send(fx, 'DELETE', '/groups/acme/epics/1', 'alice-api')).status).toBe(204);
    expect(count()).toBe(before - 1);
    expect(await get(world('free'), BASE, 'bob-api')).toMatchObject({
      status: 404,
      body: { error: '404 Not Found' },
    });
  });
});
