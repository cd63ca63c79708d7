/**
 * The API's writes to a repository run the post-receive step a push runs (Gitaly's operations call the
 * same hooks): push events, push hooks, pipelines, the default branch's protection on the first push.
 */
import { describe, expect, it } from 'vitest';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { APP, body, call, world } from '../settings/world.js';
import { LOCAL_OK, listen } from '../hooks/receivers.js';

const CI = 'build:\n  script: make\n';

const acmeId = async (fx: ReturnType<typeof world>) =>
  (await body(await call(fx, 'GET', '/groups/acme', 'maint'))).id as number;

async function commit(
  fx: ReturnType<typeof world>,
  branch: string,
  files: Record<string, string>,
  project = APP,
) {
  const res = await call(fx, 'POST', `${project}/repository/commits`, 'maint', {
    branch,
    commit_message: 'Change',
    actions: Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content })),
  });
  expect(res.status).toBe(201);
  return body(res);
}

describe('post-receive after API writes', () => {
  it('POST/DELETE branches, POST commits, the files API: push hooks and push events as a git push makes them', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await call(fx, 'POST', `${APP}/hooks`, 'maint', { url: r.url, push_events: true });
    const made = await call(fx, 'POST', `${APP}/repository/branches`, 'maint', {
      branch: 'topic',
      ref: 'master',
    });
    expect(made.status).toBe(201);
    const c1 = await commit(fx, 'topic', { 'a.txt': 'a' });
    const file = await call(fx, 'POST', `${APP}/repository/files/b.txt`, 'maint', {
      branch: 'topic',
      content: 'b',
      commit_message: 'Add b',
    });
    expect(file.status).toBe(201);
    expect((await call(fx, 'DELETE', `${APP}/repository/branches/topic`, 'maint')).status).toBe(204);
    await deliveries(fx.clock).settled();
    const pushes = r.received.map((x) => [
      x.headers['x-gitlab-event'],
      x.body.ref,
      x.body.total_commits_count,
    ]);
    expect(pushes).toEqual([
      ['Push Hook', 'refs/heads/topic', 0],
      ['Push Hook', 'refs/heads/topic', 1],
      ['Push Hook', 'refs/heads/topic', 1],
      ['Push Hook', 'refs/heads/topic', 0],
    ]);
    expect(r.received[1]!.body).toMatchObject({
      after: c1.id,
      user_username: 'maint',
      commits: [{ id: c1.id }],
    });
    expect(r.received[3]!.body.after).toBe('0000000000000000000000000000000000000000');
    const events = await body(await call(fx, 'GET', `${APP}/events?action=pushed`, 'maint'));
    expect(events.map((e: any) => [e.action_name, e.push_data.action, e.push_data.ref])).toEqual([
      ['deleted', 'removed', 'topic'],
      ['pushed to', 'pushed', 'topic'],
      ['pushed to', 'pushed', 'topic'],
      ['pushed new', 'created', 'topic'],
    ]);
  });

  it('POST commits and POST branches: the CI file makes the push pipeline of the branch', async () => {
    const fx = world();
    const c1 = await commit(fx, 'master', { '.gitlab-ci.yml': CI });
    await call(fx, 'POST', `${APP}/repository/branches`, 'maint', { branch: 'feature', ref: 'master' });
    const list = await body(await call(fx, 'GET', `${APP}/pipelines`, 'maint'));
    expect(list.map((p: any) => [p.ref, p.sha])).toEqual([
      ['feature', c1.id],
      ['master', c1.id],
    ]);
    // Deleting a branch makes no pipeline.
    await call(fx, 'DELETE', `${APP}/repository/branches/feature`, 'maint');
    expect(await body(await call(fx, 'GET', `${APP}/pipelines`, 'maint'))).toHaveLength(2);
  });

  it('[ci skip] / [skip ci] in the head commit (Chain::Skip::SKIP_PATTERN): a skipped pipeline without jobs, the merge request pipeline too; POST /pipeline ignores it', async () => {
    const fx = world();
    const mrOnly =
      'build:\n  script: make\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "merge_request_event"\n';
    await commit(fx, 'master', { '.gitlab-ci.yml': CI });
    const change = async (branch: string, message: string, file: string) => {
      const res = await call(fx, 'POST', `${APP}/repository/commits`, 'maint', {
        branch,
        commit_message: message,
        actions: [{ action: 'create', file_path: file, content: file }],
      });
      expect(res.status).toBe(201);
      return body(res);
    };
    const statuses = async (ref: string) =>
      (await body(await call(fx, 'GET', `${APP}/pipelines?ref=${ref}`, 'maint'))).map((p: any) => p.status);
    // Any case, a space, `_` or `-` inside the brackets; not without them.
    await change('master', 'One [ci skip]', 'a');
    await change('master', 'Two\n\nbody [SKIP_CI]', 'b');
    await change('master', 'Three [Ci-Skip]', 'c');
    await change('master', 'Four: ci skip, skip ci', 'd');
    expect(await statuses('master')).toEqual(['pending', 'skipped', 'skipped', 'skipped', 'pending']);
    const skipped = (await body(await call(fx, 'GET', `${APP}/pipelines?ref=master`, 'maint')))[1];
    const one = await body(await call(fx, 'GET', `${APP}/pipelines/${skipped.id}`, 'maint'));
    expect(one).toMatchObject({ status: 'skipped', started_at: null, finished_at: null, duration: null });
    expect(await body(await call(fx, 'GET', `${APP}/pipelines/${skipped.id}/jobs`, 'maint'))).toEqual([]);
    // Before the workflow rules and the jobs: a file selecting no job for the push still skips it; an
    // open merge request from the branch gets a skipped pipeline of its own.
    await call(fx, 'POST', `${APP}/repository/branches`, 'maint', { branch: 'feature', ref: 'master' });
    const edit = await call(fx, 'PUT', `${APP}/repository/files/.gitlab-ci.yml`, 'maint', {
      branch: 'feature',
      content: mrOnly,
      commit_message: 'Only MR jobs',
    });
    expect(edit.status).toBe(200);
    const mr = await body(
      await call(fx, 'POST', `${APP}/merge_requests`, 'maint', {
        source_branch: 'feature',
        target_branch: 'master',
        title: 'MR',
      }),
    );
    const before = (await body(await call(fx, 'GET', `${APP}/pipelines`, 'maint'))).length;
    const head = await change('feature', 'Docs only [skip ci]', 'f');
    const after = await body(await call(fx, 'GET', `${APP}/pipelines`, 'maint'));
    expect(after.length - before).toBe(2);
    expect(after.slice(0, 2).map((p: any) => [p.ref, p.sha, p.status])).toEqual([
      [`refs/merge-requests/${mr.iid}/head`, head.id, 'skipped'],
      ['feature', head.id, 'skipped'],
    ]);
    // `POST /projects/:id/pipeline` runs with `ignore_skip_ci`.
    const run = await call(fx, 'POST', `${APP}/pipeline`, 'maint', { ref: 'master' });
    expect([run.status, (await body(run)).status]).toEqual([201, 'pending']);
  });

  it('the first commit of an empty project protects its default branch as default_branch_protection says', async () => {
    // A group's own level decides for its projects; a personal project follows the instance's setting.
    const cases: [number | undefined, number | undefined, boolean, [number, number] | null][] = [
      [undefined, undefined, false, [40, 40]],
      [0, undefined, true, null],
      [0, undefined, false, [40, 40]],
      [1, undefined, true, [30, 40]],
      [2, 1, false, [30, 40]],
      [2, 3, false, [40, 30]],
      [2, 0, false, null],
    ];
    for (const [instance, group, personal, want] of cases) {
      const fx = world();
      if (instance !== undefined)
        await call(fx, 'PUT', '/application/settings', 'root', { default_branch_protection: instance });
      if (group !== undefined)
        await call(fx, 'PUT', '/groups/acme', 'alice', { default_branch_protection: group });
      const created = await call(fx, 'POST', '/projects', 'maint', {
        name: 'Empty',
        ...(!personal && { namespace_id: await acmeId(fx) }),
      });
      expect(created.status).toBe(201);
      const id = (await body(created)).id as number;
      expect(await body(await call(fx, 'GET', `/projects/${id}/protected_branches`, 'maint'))).toEqual([]);
      await commit(fx, 'main', { 'README.md': 'hi' }, `/projects/${id}`);
      const list = await body(await call(fx, 'GET', `/projects/${id}/protected_branches`, 'maint'));
      const got = list.map((b: any) => [
        b.name,
        b.push_access_levels[0].access_level,
        b.merge_access_levels[0].access_level,
      ]);
      expect([instance, group, personal, got]).toEqual([
        instance,
        group,
        personal,
        want ? [['main', ...want]] : [],
      ]);
      // Later pushes leave the rules as they are.
      await commit(fx, 'main', { 'x.txt': 'x' }, `/projects/${id}`);
      expect(await body(await call(fx, 'GET', `/projects/${id}/protected_branches`, 'maint'))).toHaveLength(
        want ? 1 : 0,
      );
    }
  });

  it('POST /projects with initialize_with_readme: the default branch is protected and the push is an event', async () => {
    const fx = world();
    const created = await body(
      await call(fx, 'POST', '/projects', 'maint', {
        name: 'Readme',
        namespace_id: await acmeId(fx),
        initialize_with_readme: true,
      }),
    );
    const list = await body(await call(fx, 'GET', `/projects/${created.id}/protected_branches`, 'maint'));
    expect(list.map((b: any) => [b.name, b.push_access_levels[0].access_level])).toEqual([['master', 40]]);
    const events = await body(await call(fx, 'GET', `/projects/${created.id}/events`, 'maint'));
    expect(events.map((e: any) => e.action_name)).toContain('pushed new');
  });

  it('POST and DELETE /repository/tags: tag push hooks, push events and the tag pipeline, as a git push of the tag (Tags::CreateService through UserCreateTag)', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await call(fx, 'POST', `${APP}/hooks`, 'maint', { url: r.url, push_events: true, tag_push_events: true });
    const c1 = await commit(fx, 'master', { '.gitlab-ci.yml': CI });
    const made = await call(fx, 'POST', `${APP}/repository/tags`, 'maint', {
      tag_name: 'v1.0.0',
      ref: 'master',
      message: 'Release',
    });
    expect(made.status).toBe(201);
    const tagId = (await body(made)).target as string;
    expect((await call(fx, 'DELETE', `${APP}/repository/tags/v1.0.0`, 'maint')).status).toBe(204);
    await deliveries(fx.clock).settled();
    const got = r.received.map((x) => [x.headers['x-gitlab-event'], x.body.ref, x.body.before, x.body.after]);
    const BLANK = '0000000000000000000000000000000000000000';
    expect(got.slice(1)).toEqual([
      ['Tag Push Hook', 'refs/tags/v1.0.0', BLANK, tagId],
      ['Tag Push Hook', 'refs/tags/v1.0.0', tagId, BLANK],
    ]);
    expect(r.received[1]!.body).toMatchObject({ object_kind: 'tag_push', checkout_sha: c1.id });
    const events = await body(await call(fx, 'GET', `${APP}/events?action=pushed`, 'maint'));
    expect(
      events.slice(0, 2).map((e: any) => [e.push_data.action, e.push_data.ref_type, e.push_data.ref]),
    ).toEqual([
      ['removed', 'tag', 'v1.0.0'],
      ['created', 'tag', 'v1.0.0'],
    ]);
    const pipelines = await body(await call(fx, 'GET', `${APP}/pipelines`, 'maint'));
    expect(pipelines.map((p: any) => [p.ref, p.sha])).toEqual([
      ['v1.0.0', c1.id],
      ['master', c1.id],
    ]);
  });

  it('PUT .../merge: the target branch moves as a push (push hook, event, branch pipeline), the removed source branch too, then the merge hook', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    const c1 = await commit(fx, 'master', { '.gitlab-ci.yml': CI });
    await call(fx, 'POST', `${APP}/repository/branches`, 'maint', { branch: 'topic', ref: 'master' });
    const c2 = await commit(fx, 'topic', { 'a.txt': 'a' });
    const mr = await body(
      await call(fx, 'POST', `${APP}/merge_requests`, 'maint', {
        source_branch: 'topic',
        target_branch: 'master',
        title: 'Topic',
        description: 'Closes #1',
      }),
    );
    await call(fx, 'POST', `${APP}/hooks`, 'maint', {
      url: r.url,
      push_events: true,
      merge_requests_events: true,
    });
    const merged = await call(fx, 'PUT', `${APP}/merge_requests/${mr.iid}/merge`, 'maint', {
      should_remove_source_branch: true,
    });
    expect(merged.status).toBe(200);
    const sha = (await body(merged)).merge_commit_sha as string;
    await deliveries(fx.clock).settled();
    const BLANK = '0000000000000000000000000000000000000000';
    expect(
      r.received.map((x) => [x.headers['x-gitlab-event'], x.body.ref ?? x.body.object_attributes?.action]),
    ).toEqual([
      ['Push Hook', 'refs/heads/master'],
      ['Push Hook', 'refs/heads/topic'],
      ['Merge Request Hook', 'merge'],
    ]);
    expect(r.received[0]!.body).toMatchObject({
      before: c1.id,
      after: sha,
      user_username: 'maint',
      total_commits_count: 2,
    });
    expect(r.received[0]!.body.commits.map((cm: any) => cm.id)).toEqual([c2.id, sha]);
    expect([r.received[1]!.body.before, r.received[1]!.body.after]).toEqual([c2.id, BLANK]);
    const events = await body(await call(fx, 'GET', `${APP}/events?action=pushed`, 'maint'));
    expect(
      events.slice(0, 2).map((e: any) => [e.push_data.action, e.push_data.ref, e.push_data.commit_to]),
    ).toEqual([
      ['removed', 'topic', null],
      ['pushed', 'master', sha],
    ]);
    const pipelines = await body(await call(fx, 'GET', `${APP}/pipelines?ref=master`, 'maint'));
    expect(pipelines.map((p: any) => [p.ref, p.sha])).toEqual([
      ['master', sha],
      ['master', c1.id],
    ]);
    // `Closes #1` in the description (and so in the merge commit) closes the issue.
    expect((await body(await call(fx, 'GET', `${APP}/issues/1`, 'maint'))).state).toBe('closed');
  });
});
