/**
 * Merge requests of acme/website (see world.ts): 1 "Fix login button" (dave, fix-login, bug, v1.0,
 * assignee alice, "Closes #1"), 2 "WIP: Dark mode" (alice, dark-mode, feature), 3 "Old change" (merged).
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { api, call, get, iids, issuablesFx, issuablesWorld, refused, send, WEB } from './world.js';

/** The world with extra merge requests in acme/website. */
function withMergeRequests(extra: Record<string, unknown>[], settings: Record<string, unknown> = {}) {
  return createFauxlab({
    scenario: {
      ...issuablesWorld,
      settings,
      projects: issuablesWorld.projects!.map((p) =>
        p.path === 'acme/website' ? { ...p, merge_requests: [...(p.merge_requests ?? []), ...extra] } : p,
      ) as never,
    },
  });
}

const fx = issuablesFx();

/** Creates a branch of acme/website from master (merge requests name existing branches). */
async function branch(f: ReturnType<typeof createFauxlab>, name: string, ref = 'master') {
  const r = await send(f, 'POST', `${WEB}/repository/branches`, 'alice-api', { branch: name, ref });
  expect(r.status).toBe(201);
}
const list = async (query: string, token = 'alice-api') =>
  iids((await get(fx, `${WEB}/merge_requests${query ? `?${query}` : ''}`, token)).body);

describe('GET /projects/:id/merge_requests', () => {
  it('GET /projects/:id/merge_requests: all states, newest first', async () => {
    expect(await list('')).toEqual([2, 1, 3]);
  });
  it('GET /projects/:id/merge_requests: state', async () => {
    expect(await list('state=opened')).toEqual([2, 1]);
    expect(await list('state=merged')).toEqual([3]);
    expect(await list('state=closed')).toEqual([]);
    expect(await list('state=locked')).toEqual([]);
    expect((await get(fx, `${WEB}/merge_requests?state=draft`, 'alice-api')).body).toEqual({
      error: 'state does not have a valid value',
    });
  });
  it('GET /projects/:id/merge_requests: labels, milestone, author, assignee', async () => {
    expect(await list('labels=bug')).toEqual([1]);
    expect(await list('labels=None')).toEqual([3]);
    expect(await list('milestone=v1.0')).toEqual([1]);
    expect(await list('milestone=None')).toEqual([2, 3]);
    expect(await list('author_username=dave')).toEqual([1, 3]);
    expect(await list('author_id=2')).toEqual([2]);
    expect(await list('assignee_id=2')).toEqual([1]);
    expect(await list('assignee_id=None')).toEqual([2, 3]);
    expect(await list('assignee_username=alice')).toEqual([1]);
  });
  it('GET /projects/:id/merge_requests: source_branch, target_branch, wip, search, iids', async () => {
    expect(await list('source_branch=dark-mode')).toEqual([2]);
    expect(await list('target_branch=master')).toEqual([2, 1, 3]);
    expect(await list('target_branch=main')).toEqual([]);
    expect(await list('wip=yes')).toEqual([2]);
    expect(await list('wip=no')).toEqual([1, 3]);
    expect(await list('search=login')).toEqual([1]);
    expect(await list('iids[]=1&iids[]=3')).toEqual([1, 3]);
  });
  it('GET /projects/:id/merge_requests: scope, my_reaction_emoji and not[...]', async () => {
    expect(await list('scope=created_by_me', 'dave-api')).toEqual([1, 3]);
    expect(await list('scope=assigned-to-me', 'alice-api')).toEqual([1]);
    expect(await list('not[labels]=bug')).toEqual([2, 3]);
    expect(await list('not[author_username]=dave')).toEqual([2]);
    expect(await list('my_reaction_emoji=None', 'bob-api')).toEqual([2, 1, 3]);
  });
  it('GET /projects/:id/merge_requests: order_by=updated_at and sort=asc', async () => {
    expect(await list('sort=asc')).toEqual([3, 1, 2]);
    expect(await list('order_by=updated_at')).toEqual([2, 1, 3]);
    expect((await get(fx, `${WEB}/merge_requests?order_by=popularity`, 'alice-api')).body).toEqual({
      error: 'order_by does not have a valid value',
    });
  });
  it('GET /projects/:id/merge_requests: view=simple', async () => {
    const body = (await get(fx, `${WEB}/merge_requests?view=simple&iids[]=1`, 'alice-api')).body;
    expect(body).toEqual([
      {
        id: 1,
        iid: 1,
        project_id: 1,
        title: 'Fix login button',
        description: 'Closes #1',
        state: 'opened',
        created_at: '2021-02-01T10:00:00.000Z',
        updated_at: '2021-02-01T10:00:00.000Z',
        web_url: 'http://localhost/acme/website/-/merge_requests/1',
      },
    ]);
  });
  it('GET /projects/:id/merge_requests: list items have the basic shape', async () => {
    const mr = (await get(fx, `${WEB}/merge_requests?iids[]=1`, 'alice-api')).body[0];
    expect(mr).not.toHaveProperty('changes_count');
    expect(mr).not.toHaveProperty('subscribed');
    expect(mr).toMatchObject({
      merge_status: 'unchecked',
      has_conflicts: false,
      work_in_progress: false,
      source_project_id: 1,
      target_project_id: 1,
      references: { short: '!1', relative: '!1', full: 'acme/website!1' },
      reference: '!1',
    });
    expect(mr).not.toHaveProperty('allow_collaboration');
  });
  it('GET /projects/:id/merge_requests: a project with merge requests off for the viewer is 403', async () => {
    const f = createFauxlab({
      scenario: {
        ...issuablesWorld,
        projects: issuablesWorld.projects!.map((p) =>
          p.path === 'acme/website' ? { ...p, merge_requests_access_level: 'private' } : p,
        ),
      },
    });
    expect((await get(f, `${WEB}/merge_requests`, 'bob-api')).body).toEqual({ message: '403 Forbidden' });
    expect((await get(f, `${WEB}/merge_requests`, 'erin-api')).status).toBe(200);
  });
});

describe('GET /merge_requests and GET /groups/:id/merge_requests', () => {
  it('GET /merge_requests: needs a user (scope defaults to created_by_me)', async () => {
    expect((await get(fx, '/merge_requests')).body).toEqual({ message: '401 Unauthorized' });
    expect(iids((await get(fx, '/merge_requests', 'dave-api')).body)).toEqual([1, 3]);
    expect(iids((await get(fx, '/merge_requests?scope=all', 'bob-api')).body)).toEqual([2, 1, 3]);
  });
  it('GET /groups/:id/merge_requests: references relative to the group', async () => {
    const body = (await get(fx, '/groups/acme/merge_requests?state=opened', 'alice-api')).body;
    expect(body.map((m: { references: { relative: string } }) => m.references.relative)).toEqual([
      'website!2',
      'website!1',
    ]);
  });
});

describe('GET /projects/:id/merge_requests/:merge_request_iid', () => {
  it('GET /projects/:id/merge_requests/:merge_request_iid: the single shape, changes_count a string', async () => {
    const f = issuablesFx();
    const r = await get(f, `${WEB}/merge_requests/1`, 'alice-api');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual([
      'id',
      'iid',
      'project_id',
      'title',
      'description',
      'state',
      'created_at',
      'updated_at',
      'merged_by',
      'merged_at',
      'closed_by',
      'closed_at',
      'target_branch',
      'source_branch',
      'user_notes_count',
      'upvotes',
      'downvotes',
      'author',
      'assignees',
      'assignee',
      'reviewers',
      'source_project_id',
      'target_project_id',
      'labels',
      'work_in_progress',
      'milestone',
      'merge_when_pipeline_succeeds',
      'merge_status',
      'sha',
      'merge_commit_sha',
      'squash_commit_sha',
      'discussion_locked',
      'should_remove_source_branch',
      'force_remove_source_branch',
      'reference',
      'references',
      'web_url',
      'time_stats',
      'squash',
      'task_completion_status',
      'has_conflicts',
      'blocking_discussions_resolved',
      'subscribed',
      'changes_count',
      'latest_build_started_at',
      'latest_build_finished_at',
      'first_deployed_to_production_at',
      'pipeline',
      'head_pipeline',
      'diff_refs',
      'merge_error',
      'first_contribution',
      'user',
    ]);
    expect(r.body).toMatchObject({
      changes_count: '2',
      merge_status: 'unchecked',
      has_conflicts: false,
      subscribed: true,
      user: { can_merge: true },
      author: { username: 'dave' },
      first_contribution: false,
    });
    expect(r.body.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(r.body.diff_refs.head_sha).toBe(r.body.sha);
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid: merge_status settles on the instance clock', async () => {
    const f = issuablesFx();
    expect((await get(f, `${WEB}/merge_requests/1`, 'alice-api')).body.merge_status).toBe('unchecked');
    expect((await get(f, `${WEB}/merge_requests/1`, 'alice-api')).body.merge_status).toBe('unchecked');
    f.clock.advance(1000);
    expect((await get(f, `${WEB}/merge_requests/1`, 'alice-api')).body.merge_status).toBe('can_be_merged');
    expect((await get(f, `${WEB}/merge_requests?iids[]=1`, 'alice-api')).body[0].merge_status).toBe(
      'can_be_merged',
    );
  });
  it('GET /projects/:id/merge_requests: with_merge_status_recheck=true asks for checks; lists alone do not', async () => {
    const f = issuablesFx();
    await get(f, `${WEB}/merge_requests`, 'alice-api');
    f.clock.advance(5000);
    expect((await get(f, `${WEB}/merge_requests?iids[]=2`, 'alice-api')).body[0].merge_status).toBe(
      'unchecked',
    );
    await get(f, `${WEB}/merge_requests?with_merge_status_recheck=true`, 'alice-api');
    f.clock.advance(1000);
    expect((await get(f, `${WEB}/merge_requests?iids[]=2`, 'alice-api')).body[0].merge_status).toBe(
      'can_be_merged',
    );
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid: conflicts give cannot_be_merged and has_conflicts', async () => {
    const f = withMergeRequests([
      { title: 'Clash', source_branch: 'clash', author: 'dave', conflicts: true },
    ]);
    await get(f, `${WEB}/merge_requests/4`, 'alice-api');
    f.clock.advance(1000);
    expect((await get(f, `${WEB}/merge_requests/4`, 'alice-api')).body).toMatchObject({
      merge_status: 'cannot_be_merged',
      has_conflicts: true,
    });
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid: can_merge follows the protected default branch', async () => {
    expect((await get(fx, `${WEB}/merge_requests/1`, 'dave-api')).body.user).toEqual({ can_merge: false });
    const open = withMergeRequests([], { default_branch_protection: 1 });
    expect((await get(open, `${WEB}/merge_requests/1`, 'dave-api')).body.user).toEqual({ can_merge: true });
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid: first_contribution for an outsider with nothing merged', async () => {
    const f = withMergeRequests([{ title: 'Outside help', source_branch: 'outside', author: 'bob' }]);
    expect((await get(f, `${WEB}/merge_requests/4`, 'alice-api')).body.first_contribution).toBe(true);
    expect((await get(f, `${WEB}/merge_requests/1`, 'alice-api')).body.first_contribution).toBe(false);
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid: unknown is 404 Not found', async () => {
    expect((await get(fx, `${WEB}/merge_requests/99`, 'alice-api')).body).toEqual({
      message: '404 Not found',
    });
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid: include_diverged_commits_count adds the count', async () => {
    expect(
      (await get(fx, `${WEB}/merge_requests/1?include_diverged_commits_count=true`, 'alice-api')).body
        .diverged_commits_count,
    ).toBe(0);
  });
});

describe('diff versions', () => {
  it('GET /projects/:id/merge_requests/:merge_request_iid/versions: the shape, real_size a string', async () => {
    const r = await get(fx, `${WEB}/merge_requests/1/versions`, 'alice-api');
    expect(r.body).toHaveLength(1);
    expect(Object.keys(r.body[0])).toEqual([
      'id',
      'head_commit_sha',
      'base_commit_sha',
      'start_commit_sha',
      'created_at',
      'merge_request_id',
      'state',
      'real_size',
    ]);
    expect(r.body[0]).toMatchObject({ id: 1, merge_request_id: 1, state: 'collected', real_size: '2' });
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid/versions: shas are the same in every instance', async () => {
    const a = (await get(issuablesFx(), `${WEB}/merge_requests/1/versions/1`, 'alice-api')).body;
    const b = (await get(issuablesFx(), `${WEB}/merge_requests/1/versions/1`, 'alice-api')).body;
    expect(a).toEqual(b);
    expect(a.head_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(a.commits[0]).toMatchObject({
      id: a.head_commit_sha,
      short_id: a.head_commit_sha.slice(0, 8),
      title: 'Fix login button',
    });
    expect(a.diffs).toHaveLength(2);
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid/versions/:version_id: unknown is 404 Not found', async () => {
    expect((await get(fx, `${WEB}/merge_requests/1/versions/2`, 'alice-api')).body).toEqual({
      message: '404 Not found',
    });
  });
  it('PUT /projects/:id/merge_requests/:merge_request_iid: a new target branch makes a new version', async () => {
    const f = issuablesFx();
    await branch(f, 'develop');
    await send(f, 'PUT', `${WEB}/merge_requests/1`, 'alice-api', { target_branch: 'develop' });
    const versions = (await get(f, `${WEB}/merge_requests/1/versions`, 'alice-api')).body;
    expect(versions.map((v: { id: number }) => v.id)).toEqual([4, 1]);
  });
});

describe('POST /projects/:id/merge_requests', () => {
  it('POST /projects/:id/merge_requests: 201 with the single shape', async () => {
    const f = issuablesFx();
    await branch(f, 'docs');
    const r = await send(f, 'POST', `${WEB}/merge_requests`, 'dave-api', {
      title: 'Add docs',
      source_branch: 'docs',
      target_branch: 'master',
      labels: 'docs',
      assignee_id: 2,
      remove_source_branch: true,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      iid: 4,
      title: 'Add docs',
      state: 'opened',
      labels: ['docs'],
      assignees: [{ username: 'alice' }],
      merge_status: 'unchecked',
      force_remove_source_branch: true,
      subscribed: true,
      created_at: '2021-03-03T12:00:00.000Z',
    });
    expect(typeof r.body.changes_count).toBe('string');
  });
  it('POST /projects/:id/merge_requests: another open merge request for the branches is 409', async () => {
    const f = issuablesFx();
    await refused(
      f,
      'POST',
      `${WEB}/merge_requests`,
      'dave-api',
      { title: 'Again', source_branch: 'fix-login', target_branch: 'master' },
      409,
      { message: ['Another open merge request already exists for this source branch: !1'] },
    );
    // A merged one does not block.
    await branch(f, 'old');
    expect(
      (
        await send(f, 'POST', `${WEB}/merge_requests`, 'dave-api', {
          title: 'Again',
          source_branch: 'old',
          target_branch: 'master',
        })
      ).status,
    ).toBe(201);
  });
  it('POST /projects/:id/merge_requests: the same source and target branch is 422', async () => {
    await refused(
      issuablesFx(),
      'POST',
      `${WEB}/merge_requests`,
      'dave-api',
      { title: 'Loop', source_branch: 'master', target_branch: 'master' },
      422,
      { message: ["You can't use same project/branch for source and target"] },
    );
  });
  it('POST /projects/:id/merge_requests: missing params, blank title, no permission', async () => {
    const f = issuablesFx();
    await refused(f, 'POST', `${WEB}/merge_requests`, 'dave-api', {}, 400, {
      error: 'title is missing, source_branch is missing, target_branch is missing',
    });
    await refused(
      f,
      'POST',
      `${WEB}/merge_requests`,
      'dave-api',
      { title: '', source_branch: 'a', target_branch: 'b' },
      400,
      {
        message: { title: ["can't be blank"] },
      },
    );
    for (const token of ['erin-api', 'gus-api', 'bob-api'])
      await refused(
        f,
        'POST',
        `${WEB}/merge_requests`,
        token,
        { title: 'x', source_branch: 'a', target_branch: 'b' },
        403,
        {
          message: '403 Forbidden',
        },
      );
    await refused(f, 'POST', `${WEB}/merge_requests`, undefined, {}, 401, { message: '401 Unauthorized' });
  });
});

describe('PUT /projects/:id/merge_requests/:merge_request_iid', () => {
  it('PUT /projects/:id/merge_requests/:merge_request_iid: close, reopen; a merged one is not reopened', async () => {
    const f = issuablesFx();
    expect(
      (await send(f, 'PUT', `${WEB}/merge_requests/1`, 'dave-api', { state_event: 'close' })).body,
    ).toMatchObject({
      state: 'closed',
      closed_by: { username: 'dave' },
      closed_at: '2021-03-03T12:00:00.000Z',
    });
    expect(
      (await send(f, 'PUT', `${WEB}/merge_requests/1`, 'dave-api', { state_event: 'reopen' })).body,
    ).toMatchObject({
      state: 'opened',
      closed_by: null,
    });
    const merged = await send(f, 'PUT', `${WEB}/merge_requests/3`, 'alice-api', { state_event: 'reopen' });
    expect(merged.status).toBe(200);
    expect(merged.body.state).toBe('merged');
  });
  it('PUT /projects/:id/merge_requests/:merge_request_iid: draft prefixes make system notes', async () => {
    const f = issuablesFx();
    await send(f, 'PUT', `${WEB}/merge_requests/2`, 'alice-api', { title: 'Dark mode' });
    const bodies = (await get(f, `${WEB}/merge_requests/2/notes?sort=asc`, 'alice-api')).body.map(
      (n: { body: string }) => n.body,
    );
    expect(bodies).toEqual([
      'unmarked as a **Work In Progress**',
      'changed title from **{-WIP: -}Dark mode** to **Dark mode**',
    ]);
    expect((await get(f, `${WEB}/merge_requests/2`, 'alice-api')).body.work_in_progress).toBe(false);
  });
  it('PUT /projects/:id/merge_requests/:merge_request_iid: refusals', async () => {
    const f = issuablesFx();
    await refused(f, 'PUT', `${WEB}/merge_requests/1`, 'bob-api', { title: 'Mine' }, 403, {
      message: '403 Forbidden',
    });
    await refused(f, 'PUT', `${WEB}/merge_requests/1`, 'dave-api', { title: '' }, 400, {
      error: 'title is empty',
    });
    await refused(f, 'PUT', `${WEB}/merge_requests/1`, 'dave-api', { target_branch: 'fix-login' }, 422, {
      message: ["You can't use same project/branch for source and target"],
    });
    await refused(f, 'PUT', `${WEB}/merge_requests/1`, 'dave-api', {}, 400, {
      error:
        'assignee_id, assignee_ids, reviewer_ids, description, labels, add_labels, remove_labels, milestone_id, remove_source_branch, allow_collaboration, allow_maintainer_to_push, squash, target_branch, title, state_event, discussion_locked are missing, at least one parameter must be provided',
    });
  });
});

describe('PUT /projects/:id/merge_requests/:merge_request_iid/merge', () => {
  it('PUT .../merge: merges, closes the issues it names, and answers 200', async () => {
    const f = issuablesFx();
    const r = await send(f, 'PUT', `${WEB}/merge_requests/1/merge`, 'alice-api', { squash: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      state: 'merged',
      merged_by: { username: 'alice' },
      merged_at: '2021-03-03T12:00:00.000Z',
      merge_status: 'can_be_merged',
      squash: true,
    });
    expect(r.body.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(r.body.squash_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect((await get(f, `${WEB}/issues/1`, 'alice-api')).body).toMatchObject({
      state: 'closed',
      closed_by: { username: 'alice' },
    });
  });
  it('PUT .../merge: without push rights to the target branch is 401', async () => {
    await refused(issuablesFx(), 'PUT', `${WEB}/merge_requests/1/merge`, 'dave-api', undefined, 401, {
      message: '401 Unauthorized',
    });
    await refused(issuablesFx(), 'PUT', `${WEB}/merge_requests/1/merge`, 'erin-api', undefined, 401, {
      message: '401 Unauthorized',
    });
  });
  it('PUT .../merge: not mergeable (merged, draft, waiting for a pipeline) is 405', async () => {
    const f = issuablesFx();
    const body = { message: '405 Method Not Allowed' };
    await refused(f, 'PUT', `${WEB}/merge_requests/3/merge`, 'alice-api', undefined, 405, body);
    await refused(f, 'PUT', `${WEB}/merge_requests/2/merge`, 'alice-api', undefined, 405, body);
    await refused(
      f,
      'PUT',
      `${WEB}/merge_requests/1/merge`,
      'alice-api',
      { merge_when_pipeline_succeeds: true },
      405,
      body,
    );
  });
  it('PUT .../merge: conflicts are 406 Branch cannot be merged', async () => {
    const f = withMergeRequests([
      { title: 'Clash', source_branch: 'clash', author: 'dave', conflicts: true },
    ]);
    await refused(f, 'PUT', `${WEB}/merge_requests/4/merge`, 'alice-api', undefined, 406, {
      message: 'Branch cannot be merged',
    });
  });
  it('PUT .../merge: a sha that is not the head is 409', async () => {
    const f = issuablesFx();
    const sha = (await get(f, `${WEB}/merge_requests/1/versions`, 'alice-api')).body[0].head_commit_sha;
    await refused(f, 'PUT', `${WEB}/merge_requests/1/merge`, 'alice-api', { sha: 'deadbeef' }, 409, {
      message: `SHA does not match HEAD of source branch: ${sha}`,
    });
    expect((await send(f, 'PUT', `${WEB}/merge_requests/1/merge`, 'alice-api', { sha })).status).toBe(200);
  });
});

describe('merge request actions', () => {
  it('POST .../subscribe and .../unsubscribe: 201, then 304', async () => {
    const f = issuablesFx();
    const r = await send(f, 'POST', `${WEB}/merge_requests/2/subscribe`, 'dave-api');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ iid: 2, subscribed: true, changes_count: expect.any(String) });
    expect(
      (await call(f, 'POST', api(`${WEB}/merge_requests/2/subscribe`), { token: 'dave-api' })).status,
    ).toBe(304);
    expect((await send(f, 'POST', `${WEB}/merge_requests/2/unsubscribe`, 'dave-api')).body.subscribed).toBe(
      false,
    );
    const before = f.state;
    expect(
      (await call(f, 'POST', api(`${WEB}/merge_requests/2/unsubscribe`), { token: 'dave-api' })).status,
    ).toBe(304);
    expect(f.state).toBe(before);
  });

  it('POST .../subscribe: a reader who may not update the merge request is refused (subscriptions.rb asks update_merge_request)', async () => {
    const f = issuablesFx();
    const before = f.state;
    const r = await send(f, 'POST', `${WEB}/merge_requests/2/subscribe`, 'bob-api');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ message: '403 Forbidden' });
    expect(f.state).toBe(before);
  });

  it('POST .../todo: the todo with the merge request as target (201), then 304', async () => {
    const f = issuablesFx();
    const r = await send(f, 'POST', `${WEB}/merge_requests/1/todo`, 'erin-api');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      project: { id: 1, path_with_namespace: 'acme/website', name_with_namespace: 'Acme / Website' },
      author: { username: 'erin' },
      action_name: 'marked',
      target_type: 'MergeRequest',
      target: { iid: 1, title: 'Fix login button', changes_count: '2' },
      target_url: 'http://localhost/acme/website/-/merge_requests/1',
      body: 'Fix login button',
      state: 'pending',
    });
    expect((await call(f, 'POST', api(`${WEB}/merge_requests/1/todo`), { token: 'erin-api' })).status).toBe(
      304,
    );
  });
  it('DELETE /projects/:id/merge_requests/:merge_request_iid: owners only; 204', async () => {
    const f = issuablesFx();
    await refused(f, 'DELETE', `${WEB}/merge_requests/1`, 'dave-api', undefined, 403, {
      message: '403 Forbidden',
    });
    expect((await call(f, 'DELETE', api(`${WEB}/merge_requests/1`), { token: 'alice-api' })).status).toBe(
      204,
    );
    expect((await get(f, `${WEB}/merge_requests/1`, 'alice-api')).status).toBe(404);
    expect((await get(f, `${WEB}/issues/1/closed_by`, 'alice-api')).body).toEqual([]);
    expect((await get(f, `${WEB}/issues/1`, 'alice-api')).body.merge_requests_count).toBe(0);
  });
  it('PUT .../rebase: 202 with rebase_in_progress; no push rights is 403', async () => {
    const f = issuablesFx();
    expect(await send(f, 'PUT', `${WEB}/merge_requests/1/rebase`, 'dave-api')).toEqual({
      status: 202,
      body: { rebase_in_progress: true },
    });
    await refused(f, 'PUT', `${WEB}/merge_requests/1/rebase`, 'erin-api', undefined, 403, {
      message: '403 Forbidden - Cannot push to source branch',
    });
  });
  it('PUT .../rebase: include_rebase_in_progress is true while the rebase runs on the clock, then false', async () => {
    const f = issuablesFx();
    const inProgress = async () =>
      (await get(f, `${WEB}/merge_requests/1?include_rebase_in_progress=true`, 'dave-api')).body
        .rebase_in_progress;
    expect(await inProgress()).toBe(false);
    await send(f, 'PUT', `${WEB}/merge_requests/1/rebase`, 'dave-api');
    expect(await inProgress()).toBe(true);
    f.clock.advance(999);
    expect(await inProgress()).toBe(true);
    f.clock.advance(1);
    expect(await inProgress()).toBe(false);
  });
  it('GET .../participants, .../commits, .../changes, .../closes_issues', async () => {
    expect(
      (await get(fx, `${WEB}/merge_requests/1/participants`, 'alice-api')).body.map(
        (u: { username: string }) => u.username,
      ),
    ).toEqual(['dave', 'alice']);
    const commits = (await get(fx, `${WEB}/merge_requests/1/commits`, 'alice-api')).body;
    expect(commits).toHaveLength(2);
    const changes = (await get(fx, `${WEB}/merge_requests/1/changes`, 'alice-api')).body;
    expect(changes.changes).toHaveLength(2);
    expect(changes.changes[0]).toMatchObject({
      old_path: 'README.md',
      new_path: 'README.md',
      new_file: false,
    });
    expect(
      (await get(fx, `${WEB}/merge_requests/1/closes_issues`, 'alice-api')).body.map(
        (i: { iid: number }) => i.iid,
      ),
    ).toEqual([1]);
  });
});
