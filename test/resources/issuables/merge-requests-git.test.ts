/**
 * Merge requests over the real repository of acme/website (see world.ts): branches that must exist,
 * diff versions made from the branches' commits, mergeability from content, merging that writes
 * commits, and issues closed by commits that reach the default branch.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { get, issuablesFx, refused, send, WEB } from './world.js';

type Fx = ReturnType<typeof createFauxlab>;

const head = async (f: Fx, branch: string): Promise<string> =>
  (await get(f, `${WEB}/repository/branches/${branch}`, 'alice-api')).body.commit.id as string;

/** A raw file's text. */
const raw = async (f: Fx, path: string): Promise<string> =>
  (await f.app.request(`/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': 'alice-api' } })).text();

async function branch(f: Fx, name: string, ref = 'master') {
  expect(
    (await send(f, 'POST', `${WEB}/repository/branches`, 'alice-api', { branch: name, ref })).status,
  ).toBe(201);
}

async function commit(
  f: Fx,
  branchName: string,
  message: string,
  actions: Record<string, unknown>[],
  token = 'alice-api',
): Promise<string> {
  const r = await send(f, 'POST', `${WEB}/repository/commits`, token, {
    branch: branchName,
    commit_message: message,
    actions,
  });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function open(f: Fx, source: string, title = 'Feature', extra: Record<string, unknown> = {}) {
  const r = await send(f, 'POST', `${WEB}/merge_requests`, 'alice-api', {
    title,
    source_branch: source,
    target_branch: 'master',
    ...extra,
  });
  expect(r.status).toBe(201);
  return r.body as { iid: number; sha: string; diff_refs: Record<string, string> };
}

/** A branch `feat` with two commits: a.txt created, then README.md appended to. */
async function feature(f: Fx) {
  await branch(f, 'feat');
  const first = await commit(f, 'feat', 'Add a', [
    { action: 'create', file_path: 'a.txt', content: 'hello\n' },
  ]);
  const readme = await raw(f, `${WEB}/repository/files/README.md/raw?ref=feat`);
  const second = await commit(f, 'feat', 'Touch README', [
    { action: 'update', file_path: 'README.md', content: `${readme}More\n` },
  ]);
  return { first, second };
}

describe('POST /projects/:id/merge_requests: branches that do not exist', () => {
  it('POST /projects/:id/merge_requests: 201 for a source branch that does not exist; the merge request is broken until it is pushed', async () => {
    const f = issuablesFx();
    const mr = await open(f, 'nope', 'Not yet');
    const changes = await get(f, `${WEB}/merge_requests/${mr.iid}/changes`, 'alice-api');
    expect(changes.status).toBe(200);
    expect(changes.body.changes).toEqual([]);
    // 13.12's merge: not mergeable (the source branch is missing) is 405.
    const merge = await send(f, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, 'alice-api', {});
    expect(merge.status).toBe(405);
    expect((await get(f, `${WEB}/merge_requests/${mr.iid}`, 'alice-api')).body.state).toBe('opened');
    // Pushing the branch mends it: a new version with the branch's commit, and the merge goes through.
    await branch(f, 'nope');
    await commit(f, 'nope', 'Add n', [{ action: 'create', file_path: 'n.txt', content: 'n\n' }]);
    const mended = await get(f, `${WEB}/merge_requests/${mr.iid}/changes`, 'alice-api');
    expect(mended.body.changes.map((c: { new_path: string }) => c.new_path)).toEqual(['n.txt']);
    const merged = await send(f, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, 'alice-api', {});
    expect(merged.status).toBe(200);
    expect(merged.body.state).toBe('merged');
  });
  it('PUT /projects/:id/merge_requests/:merge_request_iid: a target branch that does not exist is accepted, as 13.12 does', async () => {
    const f = issuablesFx();
    const r = await send(f, 'PUT', `${WEB}/merge_requests/1`, 'alice-api', { target_branch: 'gone' });
    expect(r.status).toBe(200);
    expect(r.body.target_branch).toBe('gone');
  });
  it('POST /projects/:id/merge_requests: a declared merge request has its source branch in the repository', async () => {
    const f = issuablesFx();
    const mr = (await get(f, `${WEB}/merge_requests/1`, 'alice-api')).body;
    expect(await head(f, 'fix-login')).toBe(mr.sha);
    expect(mr.diff_refs).toEqual({
      base_sha: await head(f, 'master'),
      head_sha: mr.sha,
      start_sha: await head(f, 'master'),
    });
  });
});

describe('merge request diffs from the repository', () => {
  it('GET /projects/:id/merge_requests/:merge_request_iid/changes: the files changed since the merge base', async () => {
    const f = issuablesFx();
    const { second } = await feature(f);
    const master = await head(f, 'master');
    const mr = await open(f, 'feat');
    expect(mr.sha).toBe(second);
    expect(mr.diff_refs).toEqual({ base_sha: master, head_sha: second, start_sha: master });
    const r = (await get(f, `${WEB}/merge_requests/${mr.iid}/changes`, 'alice-api')).body;
    expect(r.changes_count).toBe('2');
    expect(r.overflow).toBe(false);
    expect(r.changes).toEqual([
      {
        old_path: 'README.md',
        new_path: 'README.md',
        a_mode: '100644',
        b_mode: '100644',
        new_file: false,
        renamed_file: false,
        deleted_file: false,
        diff: expect.stringMatching(/^@@ -\d+(,\d+)? \+\d+,\d+ @@\n[\s\S]*\+More\n$/),
      },
      {
        old_path: 'a.txt',
        new_path: 'a.txt',
        a_mode: '0',
        b_mode: '100644',
        new_file: true,
        renamed_file: false,
        deleted_file: false,
        diff: '@@ -0,0 +1 @@\n+hello\n',
      },
    ]);
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid/commits: commits on the source only, newest first', async () => {
    const f = issuablesFx();
    const { first, second } = await feature(f);
    const mr = await open(f, 'feat');
    const commits = (await get(f, `${WEB}/merge_requests/${mr.iid}/commits`, 'alice-api')).body;
    expect(commits.map((c: { id: string }) => c.id)).toEqual([second, first]);
    expect(commits[0]).toMatchObject({
      title: 'Touch README',
      message: 'Touch README',
      parent_ids: [first],
      author_name: 'Alice Liddell',
    });
  });
  it('GET .../versions: a push to the source branch through the files API adds a version', async () => {
    const f = issuablesFx();
    const { second } = await feature(f);
    const mr = await open(f, 'feat');
    const put = await send(f, 'POST', `${WEB}/repository/files/b.txt`, 'alice-api', {
      branch: 'feat',
      content: 'b\n',
      commit_message: 'Add b',
    });
    expect(put.status).toBe(201);
    const third = await head(f, 'feat');
    const versions = (await get(f, `${WEB}/merge_requests/${mr.iid}/versions`, 'alice-api')).body;
    expect(versions.map((v: { head_commit_sha: string }) => v.head_commit_sha)).toEqual([third, second]);
    expect(versions[0]).toMatchObject({ real_size: '3', start_commit_sha: await head(f, 'master') });
    const one = (await get(f, `${WEB}/merge_requests/${mr.iid}/versions/${versions[0].id}`, 'alice-api'))
      .body;
    expect(one.commits.map((c: { title: string }) => c.title)).toEqual(['Add b', 'Touch README', 'Add a']);
    expect(one.diffs.map((d: { new_path: string }) => d.new_path)).toEqual(['README.md', 'a.txt', 'b.txt']);
    expect((await get(f, `${WEB}/merge_requests/${mr.iid}`, 'alice-api')).body.sha).toBe(third);
  });
  it('PUT /projects/:id/merge_requests/:merge_request_iid: reopening reloads the diff as a new version', async () => {
    const f = issuablesFx();
    await feature(f);
    const mr = await open(f, 'feat');
    await send(f, 'PUT', `${WEB}/merge_requests/${mr.iid}`, 'alice-api', { state_event: 'close' });
    await commit(f, 'feat', 'While closed', [{ action: 'create', file_path: 'w.txt', content: 'w\n' }]);
    const closed = (await get(f, `${WEB}/merge_requests/${mr.iid}/versions`, 'alice-api')).body;
    expect(closed).toHaveLength(1);
    await send(f, 'PUT', `${WEB}/merge_requests/${mr.iid}`, 'alice-api', { state_event: 'reopen' });
    const versions = (await get(f, `${WEB}/merge_requests/${mr.iid}/versions`, 'alice-api')).body;
    expect(versions.map((v: { head_commit_sha: string }) => v.head_commit_sha)).toEqual([
      await head(f, 'feat'),
      closed[0].head_commit_sha,
    ]);
  });
  it('GET /projects/:id/repository/commits/:sha/merge_requests: the merge requests holding the commit', async () => {
    const f = issuablesFx();
    const { first } = await feature(f);
    const mr = await open(f, 'feat');
    const r = await get(f, `${WEB}/repository/commits/${first}/merge_requests`, 'alice-api');
    expect(r.status).toBe(200);
    expect(r.body.map((m: { iid: number }) => m.iid)).toEqual([mr.iid]);
    expect(r.body[0]).not.toHaveProperty('changes_count');
    expect((await get(f, `${WEB}/repository/commits/master/merge_requests`, 'alice-api')).body).toEqual([]);
    expect(
      (await get(f, `${WEB}/repository/commits/${'0'.repeat(40)}/merge_requests`, 'alice-api')).body,
    ).toEqual({
      message: '404 Commit Not Found',
    });
  });
});

describe('mergeability from content', () => {
  it('GET /projects/:id/merge_requests/:merge_request_iid: both sides changing a file differently is a conflict', async () => {
    const f = issuablesFx();
    await branch(f, 'clash');
    await commit(f, 'clash', 'Mine', [{ action: 'create', file_path: 'c.txt', content: 'mine\n' }]);
    const mr = await open(f, 'clash');
    await commit(f, 'master', 'Theirs', [{ action: 'create', file_path: 'c.txt', content: 'theirs\n' }]);
    await get(f, `${WEB}/merge_requests/${mr.iid}`, 'alice-api');
    f.clock.advance(1000);
    expect((await get(f, `${WEB}/merge_requests/${mr.iid}`, 'alice-api')).body).toMatchObject({
      merge_status: 'cannot_be_merged',
      has_conflicts: true,
    });
    await refused(f, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, 'alice-api', undefined, 406, {
      message: 'Branch cannot be merged',
    });
    const shown = await get(
      f,
      `${WEB}/merge_requests/${mr.iid}?include_diverged_commits_count=true`,
      'alice-api',
    );
    expect(shown.body.diverged_commits_count).toBe(1);
  });
  it('GET /projects/:id/merge_requests/:merge_request_iid: changes to other files on the target are no conflict', async () => {
    const f = issuablesFx();
    await feature(f);
    const mr = await open(f, 'feat');
    await commit(f, 'master', 'Other', [{ action: 'create', file_path: 'other.txt', content: 'x\n' }]);
    await get(f, `${WEB}/merge_requests/${mr.iid}`, 'alice-api');
    f.clock.advance(1000);
    expect((await get(f, `${WEB}/merge_requests/${mr.iid}`, 'alice-api')).body).toMatchObject({
      merge_status: 'can_be_merged',
      has_conflicts: false,
    });
  });
});

describe('PUT /projects/:id/merge_requests/:merge_request_iid/merge: commits on the target branch', () => {
  it('PUT .../merge: a merge commit with the default message; the target branch moves to it', async () => {
    const f = issuablesFx();
    const issue = (await send(f, 'POST', `${WEB}/issues`, 'alice-api', { title: 'Broken' })).body;
    const { second } = await feature(f);
    const before = await head(f, 'master');
    const mr = await open(f, 'feat', 'Feature', { description: `Closes #${issue.iid}` });
    const r = await send(f, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, 'alice-api', {});
    expect(r.status).toBe(200);
    const after = await head(f, 'master');
    expect(r.body.merge_commit_sha).toBe(after);
    expect(r.body.squash_commit_sha).toBeNull();
    const c = (await get(f, `${WEB}/repository/commits/${after}`, 'alice-api')).body;
    expect(c.parent_ids).toEqual([before, second]);
    expect(c.message).toBe(
      `Merge branch 'feat' into 'master'\n\nFeature\n\nCloses #${issue.iid}\n\nSee merge request acme/website!${mr.iid}`,
    );
    expect(c.author_name).toBe('Alice Liddell');
    const tree = (await get(f, `${WEB}/repository/tree`, 'alice-api')).body.map(
      (e: { path: string }) => e.path,
    );
    expect(tree).toContain('a.txt');
    expect((await get(f, `${WEB}/issues/${issue.iid}`, 'alice-api')).body.state).toBe('closed');
  });
  it('PUT .../merge: merge_commit_message, squash with squash_commit_message, should_remove_source_branch', async () => {
    const f = issuablesFx();
    await feature(f);
    const before = await head(f, 'master');
    const mr = await open(f, 'feat');
    const r = await send(f, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, 'alice-api', {
      merge_commit_message: 'Merged',
      squash: true,
      squash_commit_message: 'All of it',
      should_remove_source_branch: true,
    });
    expect(r.status).toBe(200);
    const squash = (await get(f, `${WEB}/repository/commits/${r.body.squash_commit_sha}`, 'alice-api')).body;
    expect(squash).toMatchObject({ message: 'All of it', parent_ids: [before] });
    const merge = (await get(f, `${WEB}/repository/commits/master`, 'alice-api')).body;
    expect(merge).toMatchObject({
      id: r.body.merge_commit_sha,
      message: 'Merged',
      parent_ids: [before, squash.id],
    });
    expect((await get(f, `${WEB}/repository/branches/feat`, 'alice-api')).status).toBe(404);
    expect(r.body.should_remove_source_branch).toBe(true);
  });
  it('PUT .../merge: remove_source_branch at creation removes it; Closes #N in a commit closes the issue', async () => {
    const f = issuablesFx();
    const issue = (await send(f, 'POST', `${WEB}/issues`, 'alice-api', { title: 'Via commit' })).body;
    await branch(f, 'fix');
    await commit(f, 'fix', `Fix it\n\nFixes #${issue.iid}`, [
      { action: 'create', file_path: 'fix.txt', content: 'f\n' },
    ]);
    const mr = await open(f, 'fix', 'Fix', { remove_source_branch: true });
    const closes = (await get(f, `${WEB}/merge_requests/${mr.iid}/closes_issues`, 'alice-api')).body;
    expect(closes.map((i: { iid: number }) => i.iid)).toEqual([issue.iid]);
    expect((await send(f, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, 'alice-api', {})).status).toBe(200);
    expect((await get(f, `${WEB}/repository/branches/fix`, 'alice-api')).status).toBe(404);
    expect((await get(f, `${WEB}/issues/${issue.iid}`, 'alice-api')).body.state).toBe('closed');
  });
  it('PUT .../merge: should_remove_source_branch=false keeps a branch remove_source_branch marked (MergeService#delete_source_branch?)', async () => {
    const f = issuablesFx();
    await feature(f);
    const mr = await open(f, 'feat', 'Feature', { remove_source_branch: true });
    const r = await send(f, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, 'alice-api', {
      should_remove_source_branch: false,
    });
    expect(r.status).toBe(200);
    expect(r.body.force_remove_source_branch).toBe(true);
    expect(r.body.should_remove_source_branch).toBe(false);
    expect((await get(f, `${WEB}/repository/branches/feat`, 'alice-api')).status).toBe(200);
  });
  it('PUT .../merge: a push to the target branch marks open merge requests unchecked', async () => {
    const f = issuablesFx();
    await feature(f);
    const mr = await open(f, 'feat');
    await get(f, `${WEB}/merge_requests/${mr.iid}`, 'alice-api');
    f.clock.advance(1000);
    expect((await get(f, `${WEB}/merge_requests/${mr.iid}`, 'alice-api')).body.merge_status).toBe(
      'can_be_merged',
    );
    await commit(f, 'master', 'Elsewhere', [{ action: 'create', file_path: 'e.txt', content: 'e\n' }]);
    const list = (await get(f, `${WEB}/merge_requests?iids[]=${mr.iid}`, 'alice-api')).body;
    expect(list[0].merge_status).toBe('unchecked');
  });
  it('PUT .../merge: fast-forward when the project merges by ff; 406 once the target has moved on', async () => {
    const f = issuablesFx();
    await send(f, 'PUT', '/projects/acme%2Fwebsite', 'alice-api', { merge_method: 'ff' });
    const { second } = await feature(f);
    const mr = await open(f, 'feat');
    const r = await send(f, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, 'alice-api', {});
    expect(r.status).toBe(200);
    expect(await head(f, 'master')).toBe(second);
    expect(r.body.merge_commit_sha).toBeNull();
    await branch(f, 'late');
    await commit(f, 'late', 'Late', [{ action: 'create', file_path: 'late.txt', content: 'l\n' }]);
    const late = await open(f, 'late', 'Late');
    await commit(f, 'master', 'Moved on', [{ action: 'create', file_path: 'm.txt', content: 'm\n' }]);
    await refused(f, 'PUT', `${WEB}/merge_requests/${late.iid}/merge`, 'alice-api', undefined, 406, {
      message: 'Branch cannot be merged',
    });
  });
  it('PUT .../merge: a merge request whose source branch is gone is 405', async () => {
    const f = issuablesFx();
    await feature(f);
    const mr = await open(f, 'feat');
    expect((await send(f, 'DELETE', `${WEB}/repository/branches/feat`, 'alice-api')).status).toBe(204);
    await refused(f, 'PUT', `${WEB}/merge_requests/${mr.iid}/merge`, 'alice-api', undefined, 405, {
      message: '405 Method Not Allowed',
    });
  });
});

describe('closing issues from commits', () => {
  it('POST /projects/:id/repository/commits: Closes #N on the default branch closes the issue', async () => {
    const f = issuablesFx();
    const a = (await send(f, 'POST', `${WEB}/issues`, 'alice-api', { title: 'One' })).body;
    const b = (await send(f, 'POST', `${WEB}/issues`, 'alice-api', { title: 'Two' })).body;
    await branch(f, 'side');
    await commit(f, 'side', `Fixes #${b.iid}`, [{ action: 'create', file_path: 's.txt', content: 's\n' }]);
    expect((await get(f, `${WEB}/issues/${b.iid}`, 'alice-api')).body.state).toBe('opened');
    await commit(f, 'master', `Do it\n\nCloses #${a.iid}`, [
      { action: 'create', file_path: 'x.txt', content: 'x\n' },
    ]);
    expect((await get(f, `${WEB}/issues/${a.iid}`, 'alice-api')).body).toMatchObject({
      state: 'closed',
      closed_by: { username: 'alice' },
    });
    const events = (await get(f, `${WEB}/issues/${a.iid}/resource_state_events`, 'alice-api')).body;
    expect(events.map((e: { state: string }) => e.state)).toEqual(['closed']);
  });
  it('POST /projects/:id/repository/commits: with autoclose_referenced_issues off nothing is closed', async () => {
    const f = issuablesFx();
    const a = (await send(f, 'POST', `${WEB}/issues`, 'alice-api', { title: 'One' })).body;
    await send(f, 'PUT', '/projects/acme%2Fwebsite', 'alice-api', { autoclose_referenced_issues: false });
    await commit(f, 'master', `Closes #${a.iid}`, [{ action: 'create', file_path: 'x.txt', content: 'x\n' }]);
    expect((await get(f, `${WEB}/issues/${a.iid}`, 'alice-api')).body.state).toBe('opened');
  });
});

describe('POST /projects: initialize_with_readme', () => {
  it('POST /projects: initialize_with_readme commits README.md; without it the repository is empty', async () => {
    const f = issuablesFx();
    const withReadme = await send(f, 'POST', '/projects', 'alice-api', {
      name: 'Docs',
      description: 'All the docs',
      initialize_with_readme: true,
    });
    expect(withReadme.body).toMatchObject({ empty_repo: false, default_branch: 'master' });
    const c = (await get(f, `/projects/${withReadme.body.id}/repository/commits/master`, 'alice-api')).body;
    expect(c).toMatchObject({ message: 'Initial commit', parent_ids: [], author_name: 'Alice Liddell' });
    expect(await raw(f, `/projects/${withReadme.body.id}/repository/files/README.md/raw?ref=master`)).toBe(
      '# Docs\n\nAll the docs',
    );
    const bare = await send(f, 'POST', '/projects', 'alice-api', { name: 'Bare' });
    expect(bare.body).toMatchObject({ empty_repo: true, default_branch: null });
  });
});

describe('scenario merge requests', () => {
  it('projects[].merge_requests: a branch the declared repository holds is the source as written', async () => {
    const f = createFauxlab({
      scenario: {
        now: '2021-03-01T12:00:00Z',
        users: [{ username: 'alice', name: 'Alice Liddell', tokens: [{ token: 'alice-api' }] }],
        projects: [
          {
            path: 'alice/site',
            repository: {
              commits: [{ branch: 'master', message: 'Start', files: { 'index.html': '<p>hi</p>\n' } }],
              branches: [{ name: 'topic', files: { 'about.html': '<p>about</p>\n' } }],
            },
            merge_requests: [{ title: 'About page', source_branch: 'topic' }],
          },
        ],
      },
    });
    const site = '/projects/alice%2Fsite';
    const topic = (await get(f, `${site}/repository/branches/topic`, 'alice-api')).body.commit.id;
    const changes = (await get(f, `${site}/merge_requests/1/changes`, 'alice-api')).body;
    expect(changes.sha).toBe(topic);
    expect(changes.changes.map((c: { new_path: string; diff: string }) => [c.new_path, c.diff])).toEqual([
      ['about.html', '@@ -0,0 +1 @@\n+<p>about</p>\n'],
    ]);
    const branches = (await get(f, `${site}/repository/branches`, 'alice-api')).body;
    expect(branches.map((b: { name: string }) => b.name)).toEqual(['master', 'topic']);
  });
});
