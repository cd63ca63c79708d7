/**
 * Discussions on issues, merge requests and project snippets. In acme/website issue #6 has dave's note
 * "Fixed locally"; dave is a developer and the author of !1; erin a reporter; bob and carol outsiders.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { get, issuablesWorld, refused, scenarioProblems, send, WEB } from './world.js';

const world: ScenarioFile = {
  ...issuablesWorld,
  projects: issuablesWorld.projects!.map((p) =>
    p.path === 'acme/website'
      ? {
          ...p,
          snippets: [
            {
              title: 'Snip',
              content: 'x',
              visibility: 'public',
              notes: [{ body: 'On the snippet', author: 'dave' }],
            },
          ],
        }
      : p,
  ),
};
const fx0 = () => createFauxlab({ scenario: world });
const SHA = /^[0-9a-f]{40}$/;
const NOW = '2021-03-03T12:00:00.000Z';

/** A text position on !1's diff refs. */
async function position(fx: ReturnType<typeof fx0>, extra: Record<string, unknown> = {}) {
  const refs = (await get(fx, `${WEB}/merge_requests/1`, 'dave-api')).body.diff_refs;
  return { ...refs, position_type: 'text', new_path: 'app.rb', old_path: 'app.rb', new_line: 3, ...extra };
}

describe('discussions on issues', () => {
  it('GET /projects/:id/issues/:noteable_id/discussions: each individual note is a discussion of its own', async () => {
    const fx = fx0();
    const r = await get(fx, `${WEB}/issues/6/discussions`, 'bob-api');
    expect(r.status).toBe(200);
    expect(r.headers.get('X-Total')).toBe('1');
    const note = (await get(fx, `${WEB}/issues/6/notes`, 'bob-api')).body[0];
    expect(r.body).toEqual([{ id: expect.stringMatching(SHA), individual_note: true, notes: [note] }]);
    expect(note).toMatchObject({ type: null, body: 'Fixed locally', resolvable: false });
    expect(await get(fx, `${WEB}/issues/6/discussions`)).toMatchObject({ status: 401 });
  });

  it('POST /projects/:id/issues/:noteable_id/discussions: a thread; get it, list its notes, reply', async () => {
    const fx = fx0();
    const made = await send(fx, 'POST', `${WEB}/issues/6/discussions`, 'bob-api', { body: 'Start' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      id: expect.stringMatching(SHA),
      individual_note: false,
      notes: [{ type: 'DiscussionNote', body: 'Start', author: { username: 'bob' }, resolvable: false }],
    });
    expect(made.body.notes[0]).not.toHaveProperty('resolved');
    const d = `${WEB}/issues/6/discussions/${made.body.id}`;
    expect((await get(fx, d, 'carol-api')).body).toEqual(made.body);
    const reply = await send(fx, 'POST', `${d}/notes`, 'carol-api', { body: 'Reply' });
    expect(reply).toMatchObject({ status: 201, body: { type: 'DiscussionNote', body: 'Reply' } });
    const notes = await get(fx, `${d}/notes`, 'bob-api');
    expect(notes.body.map((n: any) => n.body)).toEqual(['Start', 'Reply']);
    expect(notes.headers.get('X-Total')).toBe('2');
    expect((await get(fx, `${d}/notes/${reply.body.id}`, 'bob-api')).body).toEqual(reply.body);
    // The notes API shows the same notes.
    expect((await get(fx, `${WEB}/issues/6/notes?sort=asc`, 'bob-api')).body.map((n: any) => n.body)).toEqual(
      ['Fixed locally', 'Start', 'Reply'],
    );
    expect((await get(fx, `${WEB}/issues/6/discussions`, 'bob-api')).body).toHaveLength(2);
  });

  it('POST /projects/:id/issues/:noteable_id/discussions/:discussion_id/notes: a reply turns an individual note into a thread', async () => {
    const fx = fx0();
    const [d] = (await get(fx, `${WEB}/issues/6/discussions`, 'bob-api')).body;
    await send(fx, 'POST', `${WEB}/issues/6/discussions/${d.id}/notes`, 'bob-api', { body: 'Really?' });
    const after = (await get(fx, `${WEB}/issues/6/discussions/${d.id}`, 'bob-api')).body;
    expect(after).toMatchObject({
      id: d.id,
      individual_note: false,
      notes: [
        { body: 'Fixed locally', type: 'DiscussionNote' },
        { body: 'Really?', type: 'DiscussionNote' },
      ],
    });
  });

  it('GET /projects/:id/issues/:noteable_id/discussions/:discussion_id: 404 Discussion Not Found; replies too', async () => {
    const fx = fx0();
    const missing = { message: '404 Discussion Not Found' };
    expect(await get(fx, `${WEB}/issues/6/discussions/${'a'.repeat(40)}`, 'bob-api')).toMatchObject({
      status: 404,
      body: missing,
    });
    await refused(
      fx,
      'POST',
      `${WEB}/issues/6/discussions/nope/notes`,
      'bob-api',
      { body: 'x' },
      404,
      missing,
    );
    expect(await get(fx, `${WEB}/issues/6/discussions/nope/notes`, 'bob-api')).toMatchObject({
      status: 404,
      body: { message: '404 Notes Not Found' },
    });
  });

  it('POST /projects/:id/issues/:noteable_id/discussions: 400 for a blank body or a position; confidential notes stay hidden', async () => {
    const fx = fx0();
    await refused(fx, 'POST', `${WEB}/issues/6/discussions`, 'bob-api', { body: ' ' }, 400, {
      message: `400 Bad request - Note {:note=>["can't be blank"]}`,
    });
    await refused(
      fx,
      'POST',
      `${WEB}/issues/6/discussions`,
      'bob-api',
      { body: 'x', position: await position(fx) },
      400,
      {
        message: '400 Bad request - Note {:noteable_type=>["is not included in the list"]}',
      },
    );
    await send(fx, 'POST', `${WEB}/issues/6/notes`, 'erin-api', { body: 'Secret', confidential: true });
    expect((await get(fx, `${WEB}/issues/6/discussions`, 'erin-api')).body).toHaveLength(2);
    expect((await get(fx, `${WEB}/issues/6/discussions`, 'bob-api')).body).toHaveLength(1);
  });

  it('PUT /projects/:id/issues/:noteable_id/discussions/:discussion_id/notes/:note_id: edits the body; issue notes are not resolvable', async () => {
    const fx = fx0();
    const made = (await send(fx, 'POST', `${WEB}/issues/6/discussions`, 'bob-api', { body: 'Start' })).body;
    const path = `${WEB}/issues/6/discussions/${made.id}/notes/${made.notes[0].id}`;
    expect((await send(fx, 'PUT', path, 'bob-api', { body: 'Edited' })).body).toMatchObject({
      body: 'Edited',
    });
    await refused(fx, 'PUT', path, 'bob-api', { resolved: true }, 400, {
      message: '400 Bad request - Note is not resolvable',
    });
    await refused(fx, 'PUT', path, 'bob-api', { body: 'x', resolved: true }, 400, {
      error: 'body, resolved are mutually exclusive',
    });
    await refused(fx, 'PUT', path, 'carol-api', { body: 'Mine now' }, 403, { message: '403 Forbidden' });
    expect((await send(fx, 'DELETE', path, 'bob-api')).status).toBe(204);
    expect((await get(fx, `${WEB}/issues/6/discussions/${made.id}`, 'bob-api')).status).toBe(404);
  });
});

describe('discussions on merge requests', () => {
  it('POST /projects/:id/merge_requests/:noteable_id/discussions: a diff note with its position, resolvable', async () => {
    const fx = fx0();
    const pos = await position(fx);
    const r = await send(fx, 'POST', `${WEB}/merge_requests/1/discussions`, 'bob-api', {
      body: 'Off by one',
      position: pos,
    });
    expect(r.status).toBe(201);
    expect(r.body.individual_note).toBe(false);
    expect(Object.keys(r.body.notes[0])).toEqual([
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
      'position',
      'resolvable',
      'resolved',
      'resolved_by',
      'resolved_at',
      'confidential',
      'noteable_iid',
    ]);
    expect(r.body.notes[0]).toMatchObject({
      type: 'DiffNote',
      position: { ...pos, old_line: null, line_range: null },
      resolvable: true,
      resolved: false,
      resolved_by: null,
      resolved_at: null,
      noteable_iid: 1,
    });
  });

  it('POST /projects/:id/merge_requests/:noteable_id/discussions: position params as Grape checks them; an incomplete one is a 400', async () => {
    const fx = fx0();
    const path = `${WEB}/merge_requests/1/discussions`;
    await refused(fx, 'POST', path, 'bob-api', { body: 'x', position: { position_type: 'text' } }, 400, {
      error: 'position[base_sha] is missing, position[start_sha] is missing, position[head_sha] is missing',
    });
    await refused(
      fx,
      'POST',
      path,
      'bob-api',
      { body: 'x', position: await position(fx, { position_type: 'pdf' }) },
      400,
      {
        error: 'position[position_type] does not have a valid value',
      },
    );
    await refused(
      fx,
      'POST',
      path,
      'bob-api',
      { body: 'x', position: await position(fx, { new_line: null }) },
      400,
      {
        message: '400 Bad request - Note {:position=>["is incomplete"]}',
      },
    );
  });

  it('PUT /projects/:id/merge_requests/:noteable_id/discussions/:discussion_id: resolve and unresolve; 403 for a reporter', async () => {
    const fx = fx0();
    const d = (await send(fx, 'POST', `${WEB}/merge_requests/1/discussions`, 'bob-api', { body: 'Why?' }))
      .body;
    await send(fx, 'POST', `${WEB}/merge_requests/1/discussions/${d.id}/notes`, 'carol-api', {
      body: 'Because',
    });
    const path = `${WEB}/merge_requests/1/discussions/${d.id}`;
    await refused(fx, 'PUT', path, 'erin-api', { resolved: true }, 403, { message: '403 Forbidden' });
    const r = await send(fx, 'PUT', path, 'dave-api', { resolved: true });
    expect(r.status).toBe(200);
    expect(r.body.notes).toHaveLength(2);
    for (const n of r.body.notes)
      expect(n).toMatchObject({ resolved: true, resolved_by: { username: 'dave' }, resolved_at: NOW });
    const back = await send(fx, 'PUT', path, 'dave-api', { resolved: false });
    expect(back.body.notes[0]).toMatchObject({ resolved: false, resolved_by: null, resolved_at: null });
    await refused(fx, 'PUT', path, 'dave-api', {}, 400, { error: 'resolved is missing' });
  });

  it('PUT /projects/:id/merge_requests/:noteable_id/discussions/:discussion_id: 403 for an individual note, 404 for none', async () => {
    const fx = fx0();
    await send(fx, 'POST', `${WEB}/merge_requests/1/notes`, 'bob-api', { body: 'Plain' });
    const [d] = (await get(fx, `${WEB}/merge_requests/1/discussions`, 'bob-api')).body;
    expect(d.notes[0]).toMatchObject({ resolvable: false });
    const base = `${WEB}/merge_requests/1/discussions`;
    await refused(fx, 'PUT', `${base}/${d.id}`, 'dave-api', { resolved: true }, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'PUT', `${base}/${'b'.repeat(40)}`, 'dave-api', { resolved: true }, 404, {
      message: '404 Discussion Not Found',
    });
  });

  it('PUT /projects/:id/merge_requests/:noteable_id/discussions/:discussion_id/notes/:note_id: resolves one note', async () => {
    const fx = fx0();
    const d = (await send(fx, 'POST', `${WEB}/merge_requests/1/discussions`, 'bob-api', { body: 'Why?' }))
      .body;
    const path = `${WEB}/merge_requests/1/discussions/${d.id}/notes/${d.notes[0].id}`;
    await refused(fx, 'PUT', path, 'carol-api', { resolved: true }, 403, { message: '403 Forbidden' });
    // The note's author may resolve it.
    const r = await send(fx, 'PUT', path, 'bob-api', { resolved: true });
    expect(r.body).toMatchObject({ resolved: true, resolved_by: { username: 'bob' } });
  });
});

describe('discussions on snippets', () => {
  it('POST /projects/:id/snippets/:noteable_id/discussions/:discussion_id/notes: an individual snippet note cannot be replied to', async () => {
    const fx = fx0();
    const [d] = (await get(fx, `${WEB}/snippets/1/discussions`, 'bob-api')).body;
    expect(d).toMatchObject({
      individual_note: true,
      notes: [{ body: 'On the snippet', noteable_type: 'Snippet' }],
    });
    await refused(fx, 'POST', `${WEB}/snippets/1/discussions/${d.id}/notes`, 'bob-api', { body: 'x' }, 400, {
      message: '400 Bad request - Discussion can not be replied to.',
    });
    const made = await send(fx, 'POST', `${WEB}/snippets/1/discussions`, 'bob-api', { body: 'Thread' });
    const reply = await send(fx, 'POST', `${WEB}/snippets/1/discussions/${made.body.id}/notes`, 'carol-api', {
      body: 'Yes',
    });
    expect(reply).toMatchObject({ status: 201, body: { type: 'DiscussionNote', noteable_type: 'Snippet' } });
  });
});

describe('discussions in scenarios', () => {
  const thread = 'f'.repeat(40);
  const scenario: ScenarioFile = {
    ...world,
    projects: world.projects!.map((p) =>
      p.path === 'acme/website'
        ? {
            ...p,
            merge_requests: p.merge_requests!.map((m, i) =>
              i === 0
                ? {
                    ...m,
                    notes: [
                      {
                        body: 'Why?',
                        author: 'bob',
                        type: 'DiscussionNote' as const,
                        discussion_id: thread,
                        resolved_by: 'dave',
                        created_at: '2021-03-01T00:00:00Z',
                      },
                      {
                        body: 'Because',
                        author: 'dave',
                        type: 'DiscussionNote' as const,
                        discussion_id: thread,
                        created_at: '2021-03-02T00:00:00Z',
                      },
                    ],
                  }
                : m,
            ),
          }
        : p,
    ),
  };

  it('projects[].merge_requests[].notes[]: notes of one discussion_id form a thread, resolved by a user; export keeps them', async () => {
    const fx = createFauxlab({ scenario });
    const d = (await get(fx, `${WEB}/merge_requests/1/discussions/${thread}`, 'bob-api')).body;
    expect(d).toMatchObject({
      id: thread,
      individual_note: false,
      notes: [
        { body: 'Why?', resolvable: true, resolved: true, resolved_by: { username: 'dave' } },
        { body: 'Because', resolvable: true, resolved: false },
      ],
    });
    const file = exportScenario(fx.state, { now: fx.clock.iso() });
    const mr = file.projects!.find((p) => p.path === 'acme/website')!.merge_requests![0]!;
    expect(mr.notes![0]).toMatchObject({
      type: 'DiscussionNote',
      discussion_id: thread,
      resolved_by: 'dave',
    });
    const again = createFauxlab({ scenario: file });
    expect((await get(again, `${WEB}/merge_requests/1/discussions`, 'bob-api')).body).toEqual(
      (await get(fx, `${WEB}/merge_requests/1/discussions`, 'bob-api')).body,
    );
  });

  it('scenario: a note resolved by an unknown user is named', () => {
    expect(
      scenarioProblems({
        users: [{ username: 'a' }],
        projects: [
          {
            path: 'a/p',
            issues: [{ title: 'i', notes: [{ body: 'x', type: 'DiscussionNote', resolved_by: 'ghost' }] }],
          },
        ],
      }),
    ).toEqual(['projects[0].issues[0].notes[0].resolved_by: no user "ghost"']);
  });
});
