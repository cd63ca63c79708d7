/**
 * Award emoji on project snippets and on their notes (`award_emoji.rb`'s third awardable, found by id):
 * acme/website is public; bob and carol are not members, gus is a guest.
 */
import { describe, expect, it } from 'vitest';
import { tvalues } from '../../../src/core/table.js';
import { get, issuablesFx, refused, send, WEB } from './world.js';

async function snippet(fx: ReturnType<typeof issuablesFx>, visibility: string): Promise<number> {
  const r = await send(fx, 'POST', `${WEB}/snippets`, 'alice-api', {
    title: `A ${visibility} snippet`,
    visibility,
    file_name: 'a.txt',
    content: 'hello',
  });
  expect(r.status).toBe(201);
  return r.body.id;
}

describe('award emoji on project snippets', () => {
  it('POST /projects/:id/snippets/:snippet_id/award_emoji: awards the snippet; list, get, delete', async () => {
    const fx = issuablesFx();
    const id = await snippet(fx, 'public');
    const base = `${WEB}/snippets/${id}/award_emoji`;
    const made = await send(fx, 'POST', base, 'bob-api', { name: 'thumbsup' });
    expect(made).toMatchObject({
      status: 201,
      body: { name: 'thumbsup', user: { username: 'bob' }, awardable_id: id, awardable_type: 'Snippet' },
    });
    expect(Object.keys(made.body)).toEqual([
      'id',
      'name',
      'user',
      'created_at',
      'updated_at',
      'awardable_id',
      'awardable_type',
    ]);
    const list = await get(fx, base, 'carol-api');
    expect(list.body).toEqual([made.body]);
    expect([list.headers.get('X-Total'), list.headers.get('X-Page')]).toEqual(['1', '1']);
    expect((await get(fx, `${base}/${made.body.id}`, 'carol-api')).body).toEqual(made.body);
    await refused(fx, 'POST', base, 'bob-api', { name: 'thumbsup' }, 404, {
      message: '404 Award Emoji ["Name has already been taken"] Not Found',
    });
    await refused(fx, 'DELETE', `${base}/${made.body.id}`, 'carol-api', undefined, 401, {
      message: '401 Unauthorized',
    });
    expect((await send(fx, 'DELETE', `${base}/${made.body.id}`, 'bob-api')).status).toBe(204);
    expect((await get(fx, base, 'bob-api')).body).toEqual([]);
  });

  it('GET /projects/:id/snippets/:snippet_id/award_emoji: 404 Award Emoji for a private snippet a non-member cannot read, a guest can', async () => {
    const fx = issuablesFx();
    const id = await snippet(fx, 'private');
    const base = `${WEB}/snippets/${id}/award_emoji`;
    expect(await get(fx, base, 'bob-api')).toMatchObject({
      status: 404,
      body: { message: '404 Award Emoji Not Found' },
    });
    await refused(fx, 'POST', base, 'bob-api', { name: 'tada' }, 404, {
      message: '404 Award Emoji Not Found',
    });
    expect((await send(fx, 'POST', base, 'gus-api', { name: 'tada' })).status).toBe(201);
    expect((await get(fx, base, 'gus-api')).body.map((a: { name: string }) => a.name)).toEqual(['tada']);
  });

  it("GET /projects/:id/snippets/:snippet_id/award_emoji: 404 for an unknown snippet or another project's, 401 anonymously", async () => {
    const fx = issuablesFx();
    const id = await snippet(fx, 'public');
    expect(await get(fx, `${WEB}/snippets/99999/award_emoji`, 'bob-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect(
      (await get(fx, `/projects/acme%2Flabs%2Frocket/snippets/${id}/award_emoji`, 'root-api')).status,
    ).toBe(404);
    expect(await get(fx, `${WEB}/snippets/${id}/award_emoji`)).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    await refused(fx, 'POST', `${WEB}/snippets/${id}/award_emoji`, 'bob-api', {}, 400, {
      error: 'name is missing',
    });
    await refused(fx, 'POST', `${WEB}/snippets/${id}/award_emoji`, 'bob-api', { name: 'nope-nope' }, 404, {
      message: '404 Award Emoji ["Name is not included in the list"] Not Found',
    });
  });

  it('POST /projects/:id/snippets/:snippet_id/notes/:note_id/award_emoji: awards a snippet note, not the snippet', async () => {
    const fx = issuablesFx();
    const id = await snippet(fx, 'public');
    const note = await send(fx, 'POST', `${WEB}/snippets/${id}/notes`, 'alice-api', { body: 'Nice' });
    expect(note.status).toBe(201);
    const base = `${WEB}/snippets/${id}/notes/${note.body.id}/award_emoji`;
    const made = await send(fx, 'POST', base, 'carol-api', { name: 'heart' });
    expect(made).toMatchObject({ status: 201, body: { awardable_id: note.body.id, awardable_type: 'Note' } });
    expect((await get(fx, base, 'bob-api')).body).toEqual([made.body]);
    expect((await get(fx, `${base}/${made.body.id}`, 'bob-api')).body).toEqual(made.body);
    expect((await get(fx, `${WEB}/snippets/${id}/award_emoji`, 'bob-api')).body).toEqual([]);
    // A note of another snippet is not found under this one.
    const other = await snippet(fx, 'public');
    expect(
      (await get(fx, `${WEB}/snippets/${other}/notes/${note.body.id}/award_emoji`, 'bob-api')).status,
    ).toBe(404);
    expect((await send(fx, 'DELETE', `${base}/${made.body.id}`, 'carol-api')).status).toBe(204);
    expect((await get(fx, base, 'bob-api')).body).toEqual([]);
  });

  it('DELETE /projects/:id/snippets/:snippet_id: the award emoji of the snippet and of its notes go with it', async () => {
    const fx = issuablesFx();
    const id = await snippet(fx, 'public');
    const note = await send(fx, 'POST', `${WEB}/snippets/${id}/notes`, 'alice-api', { body: 'Nice' });
    await send(fx, 'POST', `${WEB}/snippets/${id}/award_emoji`, 'bob-api', { name: 'tada' });
    await send(fx, 'POST', `${WEB}/snippets/${id}/notes/${note.body.id}/award_emoji`, 'bob-api', {
      name: 'tada',
    });
    const count = () => tvalues(fx.state.issuables.awards).length;
    const before = count();
    expect((await send(fx, 'DELETE', `${WEB}/snippets/${id}`, 'alice-api')).status).toBe(204);
    expect(count()).toBe(before - 2);
  });
});
