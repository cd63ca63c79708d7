/**
 * Discussions on commits: the commit's notes, the same notes the commit comments API lists. In the
 * repository world acme/app is private (guest and outsider may not read its code) and acme/site public.
 */
import { describe, expect, it } from 'vitest';
import { tvalues } from '../../../src/core/table.js';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { APP, call, commitFiles, repoWorld, SITE, world, type World } from './world.js';

const SHA = /^[0-9a-f]{40}$/;

/** A commit on acme/app adding `a.txt` (three lines), then one changing its second line. */
async function twoCommits(fx: World) {
  const first = await commitFiles(fx, { 'a.txt': 'one\ntwo\nthree\n' });
  const res = await call(fx, 'POST', `${APP}/repository/commits`, 'owner', {
    branch: 'master',
    commit_message: 'Change two',
    actions: [{ action: 'update', file_path: 'a.txt', content: 'one\nTWO\nthree\n' }],
  });
  return { first, second: res.body as { id: string; parent_ids: string[] } };
}

/** A text position on the second commit's own diff (its parent to it). */
const positionOn = (c: { id: string; parent_ids: string[] }, extra: Record<string, unknown> = {}) => ({
  base_sha: c.parent_ids[0],
  start_sha: c.parent_ids[0],
  head_sha: c.id,
  position_type: 'text',
  old_path: 'a.txt',
  new_path: 'a.txt',
  new_line: 2,
  ...extra,
});

describe('commit discussions', () => {
  it('GET /projects/:id/repository/commits/:sha/discussions: a comment through the comments API is an individual note discussion', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    await call(fx, 'POST', `${APP}/repository/commits/${c.id}/comments`, 'rep', { note: 'Nice' });
    const r = await call(fx, 'GET', `${APP}/repository/commits/${c.id}/discussions`, 'dev');
    expect(r.status).toBe(200);
    expect(r.headers.get('X-Total')).toBe('1');
    expect(r.headers.get('X-Page')).toBe('1');
    expect(r.body).toEqual([
      {
        id: expect.stringMatching(SHA),
        individual_note: true,
        notes: [
          {
            id: expect.any(Number),
            type: null,
            body: 'Nice',
            attachment: null,
            author: expect.objectContaining({ username: 'rep' }),
            created_at: '2021-03-01T12:00:00.000Z',
            updated_at: '2021-03-01T12:00:00.000Z',
            system: false,
            noteable_id: null,
            noteable_type: 'Commit',
            resolvable: false,
            confidential: false,
            noteable_iid: null,
          },
        ],
      },
    ]);
  });

  it('GET /projects/:id/repository/commits/:sha/comments: a line comment is a LegacyDiffNote thread in the discussions', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    await call(fx, 'POST', `${APP}/repository/commits/${c.id}/comments`, 'rep', {
      note: 'Here',
      path: 'a.txt',
      line: 1,
    });
    const d = (await call(fx, 'GET', `${APP}/repository/commits/${c.id}/discussions`, 'rep')).body[0];
    expect(d).toMatchObject({ individual_note: false, notes: [{ type: 'LegacyDiffNote', body: 'Here' }] });
    expect(d.notes[0]).not.toHaveProperty('position');
    const reply = await call(
      fx,
      'POST',
      `${APP}/repository/commits/${c.id}/discussions/${d.id}/notes`,
      'dev',
      {
        body: 'Agreed',
      },
    );
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ type: 'LegacyDiffNote', body: 'Agreed', noteable_type: 'Commit' });
    const comments = await call(fx, 'GET', `${APP}/repository/commits/${c.id}/comments`, 'rep');
    expect(comments.body.map((n: Record<string, unknown>) => [n.note, n.path, n.line, n.line_type])).toEqual([
      ['Here', 'a.txt', 1, 'new'],
      ['Agreed', 'a.txt', 1, 'new'],
    ]);
  });

  it('POST /projects/:id/repository/commits/:sha/discussions: a thread; replies; it shows in /comments without a line', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    const base = `${APP}/repository/commits/${c.id}/discussions`;
    const made = await call(fx, 'POST', base, 'rep', { body: 'Why?' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      id: expect.stringMatching(SHA),
      individual_note: false,
      notes: [{ type: 'DiscussionNote', body: 'Why?', noteable_id: null, noteable_type: 'Commit' }],
    });
    const reply = await call(fx, 'POST', `${base}/${made.body.id}/notes`, 'dev', { body: 'Because' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ type: 'DiscussionNote', body: 'Because', resolvable: false });
    const one = await call(fx, 'GET', `${base}/${made.body.id}`, 'rep');
    expect(one.body.notes.map((n: { body: string }) => n.body)).toEqual(['Why?', 'Because']);
    const notes = await call(fx, 'GET', `${base}/${made.body.id}/notes`, 'rep');
    expect(notes.headers.get('X-Total')).toBe('2');
    expect(notes.body[1]).toEqual(reply.body);
    const note = await call(fx, 'GET', `${base}/${made.body.id}/notes/${reply.body.id}`, 'rep');
    expect(note.body).toEqual(reply.body);
    const comments = await call(fx, 'GET', `${APP}/repository/commits/${c.id}/comments`, 'rep');
    expect(comments.body.map((n: Record<string, unknown>) => [n.note, n.path, n.line, n.line_type])).toEqual([
      ['Why?', null, null, null],
      ['Because', null, null, null],
    ]);
  });

  it('POST /projects/:id/repository/commits/:sha/discussions: diff note with position shows in /comments with path and line', async () => {
    const fx = world();
    const { second } = await twoCommits(fx);
    const base = `${APP}/repository/commits/${second.id}/discussions`;
    const added = await call(fx, 'POST', base, 'rep', { body: 'New two', position: positionOn(second) });
    expect(added.status).toBe(201);
    expect(added.body.notes[0]).toMatchObject({
      type: 'DiffNote',
      noteable_type: 'Commit',
      noteable_id: null,
      resolvable: false,
      position: {
        base_sha: second.parent_ids[0],
        start_sha: second.parent_ids[0],
        head_sha: second.id,
        old_path: 'a.txt',
        new_path: 'a.txt',
        position_type: 'text',
        old_line: null,
        new_line: 2,
        line_range: null,
      },
    });
    const removed = await call(fx, 'POST', base, 'rep', {
      body: 'Old two',
      position: positionOn(second, { new_line: undefined, old_line: 2 }),
    });
    expect(removed.status).toBe(201);
    const context = await call(fx, 'POST', base, 'rep', {
      body: 'Three',
      position: positionOn(second, { new_line: 3, old_line: 3 }),
    });
    expect(context.status).toBe(201);
    const reply = await call(fx, 'POST', `${base}/${added.body.id}/notes`, 'dev', { body: 'Yes' });
    expect(reply.body).toMatchObject({ type: 'DiffNote', position: added.body.notes[0].position });
    const comments = await call(fx, 'GET', `${APP}/repository/commits/${second.id}/comments`, 'rep');
    expect(comments.body.map((n: Record<string, unknown>) => [n.note, n.path, n.line, n.line_type])).toEqual([
      ['New two', 'a.txt', 2, 'new'],
      ['Old two', 'a.txt', 2, 'old'],
      ['Three', 'a.txt', 3, null],
      ['Yes', 'a.txt', 2, 'new'],
    ]);
  });

  it('POST /projects/:id/repository/commits/:sha/discussions: an unchanged line outside the hunks is a line of the unfolded diff', async () => {
    const fx = world();
    const text = (two: string) =>
      Array.from({ length: 20 }, (_, i) => (i === 1 ? two : `line ${i + 1}`)).join('\n') + '\n';
    await commitFiles(fx, { 'long.txt': text('two') });
    const res = await call(fx, 'POST', `${APP}/repository/commits`, 'owner', {
      branch: 'master',
      commit_message: 'Change two',
      actions: [{ action: 'update', file_path: 'long.txt', content: text('TWO') }],
    });
    const c = res.body as { id: string; parent_ids: string[] };
    const base = `${APP}/repository/commits/${c.id}/discussions`;
    const at = (old_line: number, new_line: number) =>
      positionOn(c, { old_path: 'long.txt', new_path: 'long.txt', old_line, new_line });
    expect((await call(fx, 'POST', base, 'rep', { body: 'Far', position: at(15, 15) })).status).toBe(201);
    expect((await call(fx, 'POST', base, 'rep', { body: 'Past the end', position: at(21, 21) })).status).toBe(
      400,
    );
    expect((await call(fx, 'POST', base, 'rep', { body: 'Skewed', position: at(15, 16) })).status).toBe(400);
    const comments = await call(fx, 'GET', `${APP}/repository/commits/${c.id}/comments`, 'rep');
    expect(comments.body.map((n: Record<string, unknown>) => [n.note, n.path, n.line, n.line_type])).toEqual([
      ['Far', 'long.txt', 15, null],
    ]);
  });

  it('POST /projects/:id/repository/commits/:sha/discussions: 400 for a position off the diff, an incomplete one, a missing body', async () => {
    const fx = world();
    const { second } = await twoCommits(fx);
    const base = `${APP}/repository/commits/${second.id}/discussions`;
    // Line 2 was changed: an unchanged line 2 on both sides is not a line of the diff.
    const off = await call(fx, 'POST', base, 'rep', {
      body: 'x',
      position: positionOn(second, { old_line: 2 }),
    });
    expect(off).toMatchObject({
      status: 400,
      body: {
        message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}',
      },
    });
    const other = await call(fx, 'POST', base, 'rep', {
      body: 'x',
      position: positionOn(second, { old_path: 'b.txt', new_path: 'b.txt' }),
    });
    expect(other.status).toBe(400);
    const incomplete = await call(fx, 'POST', base, 'rep', {
      body: ' ',
      position: positionOn(second, { new_line: undefined }),
    });
    expect(incomplete.body).toEqual({
      message:
        '400 Bad request - Note {:note=>["can\'t be blank"], :line_code=>["can\'t be blank", "must be a valid line code"], :position=>["is incomplete"]}',
    });
    expect(await call(fx, 'POST', base, 'rep', {})).toMatchObject({
      status: 400,
      body: { error: 'body is missing' },
    });
    const noType = await call(fx, 'POST', base, 'rep', {
      body: 'x',
      position: { base_sha: 'a', start_sha: 'a', head_sha: 'a' },
    });
    expect(noType.body).toEqual({ error: 'position[position_type] is missing' });
    expect((await call(fx, 'GET', base, 'rep')).body).toEqual([]);
  });

  it('POST /projects/:id/repository/commits/:sha/discussions/:discussion_id/notes: an individual note cannot be replied to', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    await call(fx, 'POST', `${APP}/repository/commits/${c.id}/comments`, 'rep', { note: 'Nice' });
    const base = `${APP}/repository/commits/${c.id}/discussions`;
    const d = (await call(fx, 'GET', base, 'rep')).body[0];
    expect(await call(fx, 'POST', `${base}/${d.id}/notes`, 'dev', { body: 'Reply' })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Discussion can not be replied to.' },
    });
    expect(await call(fx, 'POST', `${base}/${'0'.repeat(40)}/notes`, 'dev', { body: 'Reply' })).toMatchObject(
      {
        status: 404,
        body: { message: '404 Discussion Not Found' },
      },
    );
  });

  it('PUT /projects/:id/repository/commits/:sha/discussions/:discussion_id/notes/:note_id: the author edits; others 403; not resolvable', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    const base = `${APP}/repository/commits/${c.id}/discussions`;
    const d = (await call(fx, 'POST', base, 'rep', { body: 'Draft' })).body;
    const url = `${base}/${d.id}/notes/${d.notes[0].id}`;
    const edited = await call(fx, 'PUT', url, 'rep', { body: 'Final' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ body: 'Final', noteable_type: 'Commit' });
    expect((await call(fx, 'PUT', url, 'dev', { body: 'Mine' })).status).toBe(403);
    expect(await call(fx, 'PUT', url, 'rep', { resolved: true })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Note is not resolvable' },
    });
    expect((await call(fx, 'PUT', url, 'rep', {})).body).toEqual({
      error: 'body, resolved are missing, exactly one parameter must be provided',
    });
    expect((await call(fx, 'PUT', `${base}/${d.id}`, 'rep', { resolved: true })).status).toBe(404);
    const comments = await call(fx, 'GET', `${APP}/repository/commits/${c.id}/comments`, 'rep');
    expect(comments.body.map((n: { note: string }) => n.note)).toEqual(['Final']);
  });

  it('DELETE /projects/:id/repository/commits/:sha/discussions/:discussion_id/notes/:note_id: 204 for the author; gone from /comments', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    const posted = await call(fx, 'POST', `${APP}/repository/commits/${c.id}/comments`, 'rep', {
      note: 'Oops',
    });
    expect(posted.status).toBe(201);
    const base = `${APP}/repository/commits/${c.id}/discussions`;
    const d = (await call(fx, 'GET', base, 'rep')).body[0];
    const url = `${base}/${d.id}/notes/${d.notes[0].id}`;
    expect((await call(fx, 'DELETE', url, 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', url, 'rep')).status).toBe(204);
    expect((await call(fx, 'GET', `${APP}/repository/commits/${c.id}/comments`, 'rep')).body).toEqual([]);
    expect((await call(fx, 'DELETE', url, 'rep')).body).toEqual({ message: '404 Not found' });
  });

  it('GET /projects/:id/repository/commits/:sha/discussions: 404 for a private project of a non-member, a missing commit; 401 anonymous', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    const base = `${APP}/repository/commits/${c.id}/discussions`;
    expect((await call(fx, 'GET', base, 'outsider')).body).toEqual({ message: '404 Project Not Found' });
    // A guest of a private project may not read its code.
    expect((await call(fx, 'GET', base, 'guest')).body).toEqual({ message: '404 Commit Not Found' });
    expect(await call(fx, 'POST', base, 'guest', { body: 'x' })).toMatchObject({
      status: 404,
      body: { message: '404 Commit Not Found' },
    });
    expect(
      (await call(fx, 'GET', `${APP}/repository/commits/${'b'.repeat(40)}/discussions`, 'rep')).body,
    ).toEqual({
      message: '404 Commit Not Found',
    });
    expect((await call(fx, 'GET', base)).status).toBe(401);
    // A ref names its commit.
    const byRef = await call(fx, 'POST', `${APP}/repository/commits/master/discussions`, 'rep', {
      body: 'On master',
    });
    expect(byRef.status).toBe(201);
    expect((await call(fx, 'GET', base, 'rep')).body).toEqual([byRef.body]);
  });

  it('POST /projects/:id/repository/commits/:sha/discussions: a non-member comments on a public project', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' }, { project: SITE });
    const made = await call(fx, 'POST', `${SITE}/repository/commits/${c.id}/discussions`, 'outsider', {
      body: 'Hi',
    });
    expect(made.status).toBe(201);
    const closed = '/projects/acme%2Fclosed/repository/commits/master/discussions';
    expect((await call(fx, 'GET', closed, 'outsider')).body).toEqual({ message: '404 Commit Not Found' });
  });

  it('GET /projects/:id/repository/commits/:sha/discussions: pages of discussions with pagination headers', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    const base = `${APP}/repository/commits/${c.id}/discussions`;
    for (const body of ['1', '2', '3']) await call(fx, 'POST', base, 'rep', { body });
    const page = await call(fx, 'GET', `${base}?per_page=2&page=2`, 'rep');
    expect(page.headers.get('X-Total')).toBe('3');
    expect(page.headers.get('X-Total-Pages')).toBe('2');
    expect(page.body.map((d: { notes: { body: string }[] }) => d.notes[0]!.body)).toEqual(['3']);
  });
});

describe('commit notes elsewhere', () => {
  it('GET /projects/:id/events: a comment on a commit is a "commented on" event with the commit title', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' }, { message: 'Add a\n\nbody' });
    await call(fx, 'POST', `${APP}/repository/commits/${c.id}/comments`, 'rep', { note: 'Nice' });
    await call(fx, 'POST', `${APP}/repository/commits/${c.id}/discussions`, 'dev', { body: 'Thread' });
    const events = (await call(fx, 'GET', `${APP}/events?action=commented`, 'rep')).body;
    expect(
      events.map((e: Record<string, unknown>) => [e.action_name, e.target_type, e.target_title]),
    ).toEqual([
      ['commented on', 'DiscussionNote', 'Add a'],
      ['commented on', 'Note', 'Add a'],
    ]);
    expect(events[1].note).toMatchObject({ body: 'Nice', noteable_type: 'Commit', noteable_id: null });
    // A guest of the private project may not read its code, nor the comments on it.
    expect((await call(fx, 'GET', `${APP}/events?action=commented`, 'guest')).body).toEqual([]);
  });

  it('GET /projects/:id/search: scope notes finds comments on commits for readers of the code', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    await call(fx, 'POST', `${APP}/repository/commits/${c.id}/comments`, 'rep', { note: 'Needle here' });
    const found = await call(fx, 'GET', `${APP}/search?scope=notes&search=needle`, 'dev');
    expect(found.body).toMatchObject([{ body: 'Needle here', noteable_type: 'Commit', noteable_id: null }]);
    expect((await call(fx, 'GET', `${APP}/search?scope=notes&search=needle`, 'guest')).body).toEqual([]);
  });

  it('DELETE /projects/:id: the project goes with the notes on its commits', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'a.txt': 'a\n' });
    await call(fx, 'POST', `${APP}/repository/commits/${c.id}/comments`, 'rep', { note: 'Nice' });
    const commitNotes = () => tvalues(fx.state.issuables.notes).filter((n) => n.noteable_type === 'Commit');
    expect(commitNotes()).toHaveLength(1);
    expect((await call(fx, 'DELETE', APP, 'owner')).status).toBe(202);
    expect(commitNotes()).toEqual([]);
  });
});

describe('commit notes in scenarios', () => {
  it('projects[].commit_notes: loaded as the commit comments and discussions show them; exported as loaded', async () => {
    const scenario = {
      ...repoWorld,
      projects: [
        {
          ...repoWorld.projects![0]!,
          repository: { commits: [{ branch: 'master', message: 'Add a', files: { 'a.txt': 'a\n' } }] },
          commit_notes: [
            { commit: 'master', body: 'Nice', author: 'rep', created_at: '2021-02-01T00:00:00Z' },
            {
              commit: 'master',
              body: 'Here',
              author: 'dev',
              type: 'LegacyDiffNote' as const,
              discussion_id: 'c'.repeat(40),
              line: { path: 'a.txt', line: 1, line_type: 'new' as const },
            },
          ],
        },
        ...repoWorld.projects!.slice(1),
      ],
    };
    const fx = createFauxlab({ scenario });
    const sha = (await call(fx, 'GET', `${APP}/repository/commits/master`, 'rep')).body.id as string;
    const comments = await call(fx, 'GET', `${APP}/repository/commits/${sha}/comments`, 'rep');
    expect(comments.body.map((n: Record<string, unknown>) => [n.note, n.path, n.line, n.line_type])).toEqual([
      ['Nice', null, null, null],
      ['Here', 'a.txt', 1, 'new'],
    ]);
    const discussions = await call(fx, 'GET', `${APP}/repository/commits/${sha}/discussions`, 'rep');
    expect(
      discussions.body.map((d: { id: string; individual_note: boolean }) => [d.id, d.individual_note]),
    ).toEqual([
      [expect.stringMatching(SHA), true],
      ['c'.repeat(40), false],
    ]);
    const exported = exportScenario(fx.state, { now: fx.clock.iso() }).projects!.find(
      (p) => p.path === 'acme/app',
    ) as Record<string, unknown>;
    expect(exported.commit_notes).toEqual([
      { id: 1, commit: sha, body: 'Nice', author: 'rep', created_at: '2021-02-01T00:00:00.000Z' },
      {
        id: 2,
        commit: sha,
        body: 'Here',
        author: 'dev',
        created_at: '2021-03-01T12:00:00.000Z',
        type: 'LegacyDiffNote',
        discussion_id: 'c'.repeat(40),
        line: { path: 'a.txt', line: 1, line_type: 'new' },
      },
    ]);
  });

  it('projects[].commit_notes: an unknown author and a position on a note that is no DiffNote are problems', () => {
    const bad = {
      ...repoWorld,
      projects: [
        {
          ...repoWorld.projects![0]!,
          commit_notes: [{ commit: 'master', body: 'x', author: 'nobody', line: { path: 'a', line: 1 } }],
        },
      ],
    };
    expect(() => createFauxlab({ scenario: bad })).toThrow(/commit_notes\[0\]\.author: no user "nobody"/);
    expect(() => createFauxlab({ scenario: bad })).toThrow(
      /a LegacyDiffNote has a line, and only a LegacyDiffNote/,
    );
  });
});
