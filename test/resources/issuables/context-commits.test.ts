/**
 * A merge request's context commits (`GET/POST/DELETE .../merge_requests/:iid/context_commits`):
 * commits of the target project only, at most 20 a request, each once, shown as `CommitWithLink`.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { tget } from '../../../src/core/table.js';
import { get, issuablesFx, send, WEB } from './world.js';

type Fx = ReturnType<typeof createFauxlab>;

const PATH = `${WEB}/merge_requests/1/context_commits`;

async function commit(f: Fx, project: string, message: string, token = 'alice-api'): Promise<string> {
  const r = await send(f, 'POST', `${project}/repository/commits`, token, {
    branch: 'master',
    commit_message: message,
    actions: [{ action: 'create', file_path: `${message.length}-${Math.random()}.txt`, content: 'x\n' }],
  });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

describe('merge request context commits', () => {
  it('POST .../context_commits: 201 with the commits (Entities::Commit); GET lists them as CommitWithLink, in order', async () => {
    const f = issuablesFx();
    const a = await commit(f, WEB, 'First context\n\nWith <b>body</b>');
    const b = await commit(f, WEB, 'Second context');
    const r = await send(f, 'POST', PATH, 'dave-api', { commits: [a, b.slice(0, 10)] });
    expect(r.status).toBe(201);
    expect(r.body.map((c: { id: string }) => c.id)).toEqual([a, b]);
    expect(Object.keys(r.body[0])).toEqual([
      'id',
      'short_id',
      'created_at',
      'parent_ids',
      'title',
      'message',
      'author_name',
      'author_email',
      'authored_date',
      'committer_name',
      'committer_email',
      'committed_date',
      'trailers',
      'web_url',
    ]);
    const list = await get(f, PATH, 'bob-api');
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('2');
    const [first] = list.body;
    expect(first).toMatchObject({
      id: a,
      short_id: a.slice(0, 8),
      parent_ids: [],
      title: 'First context',
      author: { username: 'alice', path: '/alice', status_tooltip_html: null },
      commit_url: `http://localhost/acme/website/-/commit/${a}`,
      commit_path: `/acme/website/-/commit/${a}`,
      description_html: 'With &lt;b&gt;body&lt;/b&gt;',
      title_html: 'First context',
      signature_html: null,
      prev_commit_id: null,
      next_commit_id: null,
      pipeline_status_path: null,
    });
    expect(first.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(Object.keys(first).slice(13)).toEqual([
      'web_url',
      'author',
      'author_gravatar_url',
      'commit_url',
      'commit_path',
      'description_html',
      'title_html',
      'signature_html',
      'prev_commit_id',
      'next_commit_id',
      'pipeline_status_path',
    ]);
    // The merge request's own commits are the diff's: context commits are their own list.
    const own = await get(f, `${WEB}/merge_requests/1/commits`, 'bob-api');
    expect(own.body.map((c: { id: string }) => c.id)).not.toContain(a);
  });

  it('POST .../context_commits: a sha added already, one the project lacks, a blank list, more than 20', async () => {
    const f = issuablesFx();
    const a = await commit(f, WEB, 'Once');
    expect((await send(f, 'POST', PATH, 'dave-api', { commits: a })).status).toBe(201);
    const again = await send(f, 'POST', PATH, 'dave-api', { commits: [a.slice(0, 8)] });
    expect(again).toMatchObject({
      status: 400,
      body: { message: `Context commits: ["${a}"] are already created` },
    });
    const bogus = await send(f, 'POST', PATH, 'dave-api', {
      commits: ['0123456789abcdef0123456789abcdef01234567'],
    });
    expect(bogus).toMatchObject({
      status: 400,
      body: { message: "One or more context commits' sha is not valid." },
    });
    expect(await send(f, 'POST', PATH, 'dave-api', {})).toMatchObject({
      status: 400,
      body: { error: 'commits is missing' },
    });
    expect(await send(f, 'POST', PATH, 'dave-api', { commits: '' })).toMatchObject({
      status: 400,
      body: { error: 'commits is empty' },
    });
    const many = Array.from({ length: 21 }, (_, i) => `${i}`.padStart(40, 'a'));
    expect(await send(f, 'POST', PATH, 'dave-api', { commits: many })).toMatchObject({
      status: 400,
      body: { message: 'Context commits array size should not be more than 20' },
    });
    // A comma-separated string is a list, as CommaSeparatedToArray reads it.
    const b = await commit(f, WEB, 'Two');
    const c = await commit(f, WEB, 'Three');
    expect((await send(f, 'POST', PATH, 'dave-api', { commits: `${b}, ${c}` })).status).toBe(201);
    expect((await get(f, PATH, 'alice-api')).body).toHaveLength(3);
  });

  it("POST .../context_commits: another project's commit is not valid here (the object store is shared)", async () => {
    const f = issuablesFx();
    const foreign = await commit(f, '/projects/bob%2Fnotes', 'Bob private work', 'bob-api');
    const r = await send(f, 'POST', PATH, 'dave-api', { commits: [foreign] });
    expect(r).toMatchObject({
      status: 400,
      body: { message: "One or more context commits' sha is not valid." },
    });
    expect((await get(f, PATH, 'alice-api')).body).toEqual([]);
    const del = await send(f, 'DELETE', PATH, 'alice-api', { commits: [foreign] });
    expect(del.status).toBe(400);
  });

  it('context commits: who may read, add and remove', async () => {
    const f = issuablesFx();
    const a = await commit(f, WEB, 'Who');
    expect((await send(f, 'POST', PATH, undefined as unknown as string, { commits: [a] })).status).toBe(401);
    // update_merge_request: developers and up, or the author and assignees; a reporter is refused.
    expect((await send(f, 'POST', PATH, 'erin-api', { commits: [a] })).status).toBe(403);
    expect((await send(f, 'POST', PATH, 'bob-api', { commits: [a] })).status).toBe(403);
    expect(
      (await send(f, 'POST', `${WEB}/merge_requests/99/context_commits`, 'dave-api', { commits: [a] }))
        .status,
    ).toBe(404);
    expect((await send(f, 'POST', PATH, 'dave-api', { commits: [a] })).status).toBe(201);
    // destroy_merge_request: the owner; a developer is refused.
    expect((await send(f, 'DELETE', PATH, 'dave-api', { commits: [a] })).status).toBe(403);
    expect((await get(f, PATH, 'gus-api')).body).toHaveLength(1);
    expect(
      (await get(f, '/projects/acme%2Flabs%2Frocket/merge_requests/1/context_commits', 'bob-api')).status,
    ).toBe(404);
  });

  it('DELETE .../context_commits: 204, the commits gone from the list; a sha the project lacks is 400', async () => {
    const f = issuablesFx();
    const a = await commit(f, WEB, 'Keep');
    const b = await commit(f, WEB, 'Drop');
    await send(f, 'POST', PATH, 'dave-api', { commits: [a, b] });
    const bad = await send(f, 'DELETE', PATH, 'alice-api', { commits: [b, 'f'.repeat(40)] });
    expect(bad).toMatchObject({
      status: 400,
      body: { message: "One or more context commits' sha is not valid." },
    });
    const r = await send(f, 'DELETE', PATH, 'alice-api', { commits: [b] });
    expect(r.status).toBe(204);
    expect((await get(f, PATH, 'alice-api')).body.map((c: { id: string }) => c.id)).toEqual([a]);
    // A commit of the project that is no context commit: nothing to remove, still 204.
    expect((await send(f, 'DELETE', PATH, 'alice-api', { commits: [b] })).status).toBe(204);
  });

  it('context commits: names such as __proto__ are no sha, and the list survives export and load', async () => {
    const f = issuablesFx();
    const proto = await send(f, 'POST', PATH, 'dave-api', { commits: ['__proto__', 'constructor'] });
    expect(proto.status).toBe(400);
    const a = await commit(f, WEB, 'Exported');
    await send(f, 'POST', PATH, 'dave-api', { commits: [a] });
    const file = exportScenario(f.state, { now: f.clock.iso() });
    const again = createFauxlab({ scenario: file });
    expect((await get(again, PATH, 'alice-api')).body).toEqual((await get(f, PATH, 'alice-api')).body);
    // Deleting the merge request takes its context commits along.
    expect((await send(f, 'DELETE', `${WEB}/merge_requests/1`, 'alice-api', {})).status).toBe(204);
    const mrId = (await get(again, `${WEB}/merge_requests/1`, 'alice-api')).body.id as number;
    expect(tget(f.state.issuables.contextCommits!, mrId)).toBeUndefined();
    expect(tget(again.state.issuables.contextCommits!, mrId)).toBeDefined();
  });
});
