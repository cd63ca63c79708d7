/** Notes on issues, merge requests, snippets and epics. */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { api, call, get, issuablesFx, issuablesWorld, refused, send, WEB } from './world.js';

/** acme/website with a snippet, and (premium) an epic in acme. */
const world = () =>
  createFauxlab({
    tier: 'premium',
    scenario: {
      ...issuablesWorld,
      projects: issuablesWorld.projects!.map((p) =>
        p.path === 'acme/website'
          ? {
              ...p,
              snippets: [
                {
                  title: 'Deploy script',
                  file_name: 'deploy.sh',
                  content: 'echo hi',
                  visibility: 'public',
                  author: 'alice',
                  notes: [{ body: 'Nice script', author: 'dave', created_at: '2021-02-01T00:00:00Z' }],
                },
              ],
            }
          : p,
      ),
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

const bodies = (list: { body: string }[]) => list.map((n) => n.body);

describe('issue notes', () => {
  it('POST /projects/:id/issues/:noteable_id/notes: 201 with the note shape', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues/2/notes`, 'bob-api', { body: 'Me too' });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body)).toEqual([
      'id',
      'type',
      'body',
      'attachment',
      'author',
      'created_at',
      'updated_at',
      'system',
      'noteable_id',
      'noteable_type',
      'resolvable',
      'confidential',
      'noteable_iid',
    ]);
    expect(r.body).toMatchObject({
      type: null,
      body: 'Me too',
      attachment: null,
      author: { username: 'bob' },
      created_at: '2021-03-03T12:00:00.000Z',
      system: false,
      noteable_id: 2,
      noteable_type: 'Issue',
      resolvable: false,
      confidential: false,
      noteable_iid: 2,
    });
    const issue = (await get(fx, `${WEB}/issues/2`, 'bob-api')).body;
    expect(issue).toMatchObject({
      user_notes_count: 1,
      updated_at: '2021-03-03T12:00:00.000Z',
      subscribed: true,
    });
  });
  it('GET /projects/:id/issues/:noteable_id/notes: sort and order_by', async () => {
    const fx = issuablesFx();
    for (const body of ['one', 'two', 'three']) {
      fx.clock.advance(1000);
      await send(fx, 'POST', `${WEB}/issues/2/notes`, 'bob-api', { body });
    }
    fx.clock.advance(1000);
    await send(fx, 'PUT', `${WEB}/issues/2/notes/2`, 'bob-api', { body: 'one, edited' });
    expect(bodies((await get(fx, `${WEB}/issues/2/notes`, 'bob-api')).body)).toEqual([
      'three',
      'two',
      'one, edited',
    ]);
    expect(bodies((await get(fx, `${WEB}/issues/2/notes?sort=asc`, 'bob-api')).body)).toEqual([
      'one, edited',
      'two',
      'three',
    ]);
    expect(bodies((await get(fx, `${WEB}/issues/2/notes?order_by=updated_at`, 'bob-api')).body)).toEqual([
      'one, edited',
      'three',
      'two',
    ]);
    expect((await get(fx, `${WEB}/issues/2/notes?order_by=id`, 'bob-api')).body).toEqual({
      error: 'order_by does not have a valid value',
    });
  });
  it('GET /projects/:id/issues/:noteable_id/notes: needs a user, even on a public project', async () => {
    const fx = issuablesFx();
    expect((await get(fx, `${WEB}/issues/6/notes`)).body).toEqual({ message: '401 Unauthorized' });
    expect((await get(fx, `${WEB}/issues/6/notes?sort=sideways`)).status).toBe(401);
  });
  it('GET /projects/:id/issues/:noteable_id/notes: an unknown or hidden issue is 404 Not found (NotesFinder find_by!)', async () => {
    const fx = issuablesFx();
    expect((await get(fx, `${WEB}/issues/99/notes`, 'bob-api')).body).toEqual({
      message: '404 Not found',
    });
    expect((await get(fx, `${WEB}/issues/5/notes`, 'bob-api')).body).toEqual({
      message: '404 Not found',
    });
  });
  it('GET /projects/:id/issues/:noteable_id/notes/:note_id: one note; unknown is 404 Not found', async () => {
    const fx = issuablesFx();
    expect((await get(fx, `${WEB}/issues/6/notes/1`, 'bob-api')).body).toMatchObject({
      id: 1,
      body: 'Fixed locally',
    });
    expect((await get(fx, `${WEB}/issues/6/notes/2`, 'bob-api')).body).toEqual({ message: '404 Not found' });
    expect((await get(fx, `${WEB}/issues/2/notes/1`, 'bob-api')).body).toEqual({ message: '404 Not found' });
  });
  it('POST .../notes: the body limit is 1,000,000 characters', async () => {
    const fx = issuablesFx();
    expect(
      (await send(fx, 'POST', `${WEB}/issues/6/notes`, 'bob-api', { body: 'x'.repeat(1_000_000) })).status,
    ).toBe(201);
    await refused(fx, 'POST', `${WEB}/issues/6/notes`, 'bob-api', { body: 'x'.repeat(1_000_001) }, 400, {
      message: '400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}',
    });
    await refused(fx, 'POST', `${WEB}/issues/6/notes`, 'bob-api', { body: '  ' }, 400, {
      message: `400 Bad request - Note {:note=>["can't be blank"]}`,
    });
    await refused(fx, 'POST', `${WEB}/issues/6/notes`, 'bob-api', {}, 400, { error: 'body is missing' });
  });
  it('POST .../notes: a body that is only an award emoji awards it instead', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues/2/notes`, 'dave-api', { body: ':+1:' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: 4,
      name: 'thumbsup',
      user: expect.objectContaining({ username: 'dave' }),
      created_at: '2021-03-03T12:00:00.000Z',
      updated_at: '2021-03-03T12:00:00.000Z',
      awardable_id: 2,
      awardable_type: 'Issue',
    });
    expect((await get(fx, `${WEB}/issues/2/notes`, 'dave-api')).body).toEqual([]);
    expect((await get(fx, `${WEB}/issues/2`, 'dave-api')).body).toMatchObject({
      upvotes: 1,
      user_notes_count: 0,
    });
    expect(
      (await get(fx, `${WEB}/issues?my_reaction_emoji=thumbsup`, 'dave-api')).body.map(
        (i: { iid: number }) => i.iid,
      ),
    ).toEqual([2, 1]);
    await refused(fx, 'POST', `${WEB}/issues/2/notes`, 'dave-api', { body: ':thumbsup:' }, 400, {
      message: '400 Bad request - Note {:name=>["has already been taken"]}',
    });
    expect(
      (await send(fx, 'POST', `${WEB}/issues/2/notes`, 'dave-api', { body: ':not_an_emoji:' })).body.body,
    ).toBe(':not_an_emoji:');
  });
  it('POST .../notes: confidential comments are seen by reporters and their author only', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues/2/notes`, 'erin-api', {
      body: 'internal',
      confidential: true,
    });
    expect(r.body.confidential).toBe(true);
    expect(bodies((await get(fx, `${WEB}/issues/2/notes`, 'alice-api')).body)).toEqual(['internal']);
    expect(bodies((await get(fx, `${WEB}/issues/2/notes`, 'bob-api')).body)).toEqual([]);
    expect((await get(fx, `${WEB}/issues/2/notes/${r.body.id}`, 'bob-api')).body).toEqual({
      message: '404 Note Not Found',
    });
  });
  it('POST .../notes: created_at is kept for admins and owners only', async () => {
    const fx = issuablesFx();
    const own = await send(fx, 'POST', `${WEB}/issues/2/notes`, 'alice-api', {
      body: 'a',
      created_at: '2020-01-01T00:00:00Z',
    });
    expect(own.body.created_at).toBe('2020-01-01T00:00:00.000Z');
    const dev = await send(fx, 'POST', `${WEB}/issues/2/notes`, 'dave-api', {
      body: 'b',
      created_at: '2020-01-01T00:00:00Z',
    });
    expect(dev.body.created_at).toBe('2021-03-03T12:00:00.000Z');
  });
  it('POST .../notes: a locked discussion takes comments from project members only', async () => {
    const fx = issuablesFx();
    await send(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { discussion_locked: true });
    await refused(fx, 'POST', `${WEB}/issues/2/notes`, 'bob-api', { body: 'hey' }, 403, {
      message: '403 Forbidden',
    });
    expect((await send(fx, 'POST', `${WEB}/issues/2/notes`, 'gus-api', { body: 'member' })).status).toBe(201);
  });
  it('PUT and DELETE .../notes/:note_id: the author and maintainers; system notes are not editable', async () => {
    const fx = issuablesFx();
    await refused(fx, 'PUT', `${WEB}/issues/6/notes/1`, 'bob-api', { body: 'hijack' }, 403, {
      message: '403 Forbidden',
    });
    const r = await send(fx, 'PUT', `${WEB}/issues/6/notes/1`, 'dave-api', { body: 'Fixed for real' });
    expect(r.body).toMatchObject({ body: 'Fixed for real', updated_at: '2021-03-03T12:00:00.000Z' });
    await refused(fx, 'PUT', `${WEB}/issues/6/notes/1`, 'dave-api', { body: '' }, 400, {
      error: 'body is empty',
    });
    await send(fx, 'PUT', `${WEB}/issues/6`, 'alice-api', { title: 'Typo in the footer' });
    const system = (await get(fx, `${WEB}/issues/6/notes`, 'alice-api')).body.find(
      (n: { system: boolean }) => n.system,
    );
    await refused(fx, 'PUT', `${WEB}/issues/6/notes/${system.id}`, 'alice-api', { body: 'x' }, 403, {
      message: '403 Forbidden',
    });
    expect((await call(fx, 'DELETE', api(`${WEB}/issues/6/notes/1`), { token: 'alice-api' })).status).toBe(
      204,
    );
    expect((await get(fx, `${WEB}/issues/6`, 'alice-api')).body.user_notes_count).toBe(0);
    await refused(fx, 'DELETE', `${WEB}/issues/6/notes/1`, 'alice-api', undefined, 404, {
      message: '404 Not found',
    });
  });
  it('GET .../notes: system notes appear with system: true', async () => {
    const fx = issuablesFx();
    await send(fx, 'PUT', `${WEB}/issues/2`, 'alice-api', { assignee_ids: [5] });
    expect((await get(fx, `${WEB}/issues/2/notes`, 'alice-api')).body).toEqual([
      expect.objectContaining({
        body: 'assigned to @dave',
        system: true,
        author: expect.objectContaining({ username: 'alice' }),
      }),
    ]);
  });
});

describe('merge request notes', () => {
  it('POST and GET /projects/:id/merge_requests/:noteable_id/notes', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/merge_requests/1/notes`, 'bob-api', { body: 'LGTM' });
    expect(r.body).toMatchObject({
      noteable_type: 'MergeRequest',
      noteable_id: 1,
      noteable_iid: 1,
      confidential: false,
    });
    expect(bodies((await get(fx, `${WEB}/merge_requests/1/notes`, 'bob-api')).body)).toEqual(['LGTM']);
    expect((await get(fx, `${WEB}/merge_requests/1`, 'bob-api')).body.user_notes_count).toBe(1);
    expect((await get(fx, `${WEB}/merge_requests/9/notes`, 'bob-api')).body).toEqual({
      message: '404 Not found',
    });
  });
  it('PUT /projects/:id/merge_requests/:noteable_id/notes/:note_id: body is required there', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/merge_requests/1/notes`, 'bob-api', { body: 'LGTM' });
    await refused(fx, 'PUT', `${WEB}/merge_requests/1/notes/${r.body.id}`, 'bob-api', {}, 400, {
      error: 'body is missing',
    });
  });
  it('POST /projects/:id/merge_requests/:noteable_id/notes: :-1: is a downvote', async () => {
    const fx = issuablesFx();
    expect(
      (await send(fx, 'POST', `${WEB}/merge_requests/1/notes`, 'bob-api', { body: ':-1: ' })).body.name,
    ).toBe('thumbsdown');
    expect((await get(fx, `${WEB}/merge_requests/1`, 'bob-api')).body.downvotes).toBe(1);
  });
});

describe('snippet and epic notes', () => {
  it('GET /projects/:id/snippets/:noteable_id/notes: the spec shape of snippet notes', async () => {
    const fx = world();
    expect((await get(fx, `${WEB}/snippets/1/notes`, 'bob-api')).body).toEqual([
      {
        id: 2,
        title: 'Deploy script',
        file_name: 'deploy.sh',
        author: expect.objectContaining({ username: 'dave' }),
        expires_at: null,
        updated_at: '2021-02-01T00:00:00.000Z',
        created_at: '2021-02-01T00:00:00.000Z',
      },
    ]);
    const created = await send(fx, 'POST', `${WEB}/snippets/1/notes`, 'bob-api', { body: 'Thanks' });
    expect(created.body).toMatchObject({ body: 'Thanks', noteable_type: 'Snippet', noteable_iid: null });
    expect((await get(fx, `${WEB}/snippets/9/notes`, 'bob-api')).body).toEqual({
      message: '404 Not found',
    });
  });
  it('GET /groups/:id/epics/:noteable_id/notes: paid tiers, the epic shape with confidential', async () => {
    const fx = world();
    expect((await get(fx, '/groups/acme/epics/1/notes', 'bob-api')).body).toEqual([
      {
        id: 3,
        title: 'Big redesign',
        file_name: null,
        author: expect.objectContaining({ username: 'dave' }),
        expires_at: null,
        updated_at: '2021-02-02T00:00:00.000Z',
        created_at: '2021-02-02T00:00:00.000Z',
        confidential: false,
      },
    ]);
    expect(
      (await send(fx, 'POST', '/groups/acme/epics/1/notes', 'bob-api', { body: 'Count me in' })).body,
    ).toMatchObject({
      noteable_type: 'Epic',
      noteable_id: 1,
      noteable_iid: null,
    });
    const free = createFauxlab({ scenario: issuablesWorld });
    expect((await get(free, '/groups/acme/epics/1/notes', 'bob-api')).body).toEqual({
      error: '404 Not Found',
    });
  });
});

describe('award emoji', () => {
  it('GET/POST/DELETE /projects/:id/issues/:issue_iid/award_emoji', async () => {
    const fx = issuablesFx();
    // `before { authenticate! }`: even a public issue's awards need a user.
    expect((await get(fx, `${WEB}/issues/1/award_emoji`)).body).toEqual({ message: '401 Unauthorized' });
    const listed = (await get(fx, `${WEB}/issues/1/award_emoji`, 'carol-api')).body;
    expect(
      listed.map((a: { name: string; user: { username: string } }) => [a.name, a.user.username]),
    ).toEqual([
      ['thumbsup', 'carol'],
      ['thumbsup', 'dave'],
    ]);
    const r = await send(fx, 'POST', `${WEB}/issues/1/award_emoji`, 'bob-api', { name: 'tada' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'tada', awardable_type: 'Issue', awardable_id: 1 });
    await refused(fx, 'POST', `${WEB}/issues/1/award_emoji`, 'bob-api', { name: 'tada' }, 404, {
      message: '404 Award Emoji ["Name has already been taken"] Not Found',
    });
    await refused(fx, 'POST', `${WEB}/issues/1/award_emoji`, 'bob-api', { name: 'nope' }, 404, {
      message: '404 Award Emoji ["Name is not included in the list"] Not Found',
    });
    await refused(fx, 'DELETE', `${WEB}/issues/1/award_emoji/${r.body.id}`, 'carol-api', undefined, 401, {
      message: '401 Unauthorized',
    });
    expect(
      (await call(fx, 'DELETE', api(`${WEB}/issues/1/award_emoji/${r.body.id}`), { token: 'bob-api' }))
        .status,
    ).toBe(204);
    expect((await get(fx, `${WEB}/issues/4/award_emoji`, 'carol-api')).body).toEqual({
      message: '404 Award Emoji Not Found',
    });
    // The issue is looked up without the finder: an unknown iid is the plain record 404.
    expect((await get(fx, `${WEB}/issues/999/award_emoji`, 'carol-api')).body).toEqual({
      message: '404 Not found',
    });
  });
});
