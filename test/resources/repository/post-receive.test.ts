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
});
