/** Award emoji on notes: issue #6 of acme/website has dave's note "Fixed locally". */
import { describe, expect, it } from 'vitest';
import { get, issuablesFx, refused, send, WEB } from './world.js';

async function noteOf(fx: ReturnType<typeof issuablesFx>) {
  return (await get(fx, `${WEB}/issues/6/notes`, 'bob-api')).body[0].id as number;
}

describe('award emoji on notes', () => {
  it('POST /projects/:id/issues/:issue_iid/notes/:note_id/award_emoji: awards the note; list, get, delete', async () => {
    const fx = issuablesFx();
    const note = await noteOf(fx);
    const base = `${WEB}/issues/6/notes/${note}/award_emoji`;
    const made = await send(fx, 'POST', base, 'bob-api', { name: 'tada' });
    expect(made).toMatchObject({
      status: 201,
      body: { name: 'tada', user: { username: 'bob' }, awardable_id: note, awardable_type: 'Note' },
    });
    const list = await get(fx, base, 'carol-api');
    expect(list.body).toEqual([made.body]);
    expect(list.headers.get('X-Total')).toBe('1');
    expect((await get(fx, `${base}/${made.body.id}`, 'carol-api')).body).toEqual(made.body);
    // The note's award is not the issue's.
    expect((await get(fx, `${WEB}/issues/6/award_emoji`, 'bob-api')).body).toEqual([]);
    expect((await get(fx, `${WEB}/issues/6/award_emoji/${made.body.id}`, 'bob-api')).status).toBe(404);
    expect((await get(fx, `${WEB}/issues/6`, 'bob-api')).body.upvotes).toBe(0);
    await refused(fx, 'DELETE', `${base}/${made.body.id}`, 'carol-api', undefined, 401, {
      message: '401 Unauthorized',
    });
    expect((await send(fx, 'DELETE', `${base}/${made.body.id}`, 'bob-api')).status).toBe(204);
    expect((await get(fx, base, 'bob-api')).body).toEqual([]);
  });

  it("POST /projects/:id/issues/:issue_iid/notes/:note_id/award_emoji: 404s for another issue's note, a taken name", async () => {
    const fx = issuablesFx();
    const note = await noteOf(fx);
    await refused(fx, 'POST', `${WEB}/issues/1/notes/${note}/award_emoji`, 'bob-api', { name: 'tada' }, 404, {
      message: '404 Not found',
    });
    await send(fx, 'POST', `${WEB}/issues/6/notes/${note}/award_emoji`, 'bob-api', { name: 'tada' });
    await refused(fx, 'POST', `${WEB}/issues/6/notes/${note}/award_emoji`, 'bob-api', { name: 'tada' }, 404, {
      message: '404 Award Emoji ["Name has already been taken"] Not Found',
    });
  });

  it('DELETE /projects/:id/issues/:issue_iid/notes/:note_id: the note takes its awards with it', async () => {
    const fx = issuablesFx();
    const note = await noteOf(fx);
    await send(fx, 'POST', `${WEB}/issues/6/notes/${note}/award_emoji`, 'bob-api', { name: 'tada' });
    expect((await send(fx, 'DELETE', `${WEB}/issues/6/notes/${note}`, 'dave-api')).status).toBe(204);
    expect(fx.state.issuables.awards.size).toBe(3);
  });
});
