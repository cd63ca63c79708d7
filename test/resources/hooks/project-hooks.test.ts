import { describe, expect, it } from 'vitest';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { APP, NOW, body, call, world, type World } from '../settings/world.js';
import { LOCAL_OK, listen } from './receivers.js';

async function addHook(fx: World, params: Record<string, unknown>) {
  const res = await call(fx, 'POST', `${APP}/hooks`, 'maint', params);
  expect(res.status).toBe(201);
  return body(res);
}

const projectJson = {
  id: 1,
  name: 'App',
  description: '',
  web_url: 'http://localhost/acme/app',
  avatar_url: null,
  git_ssh_url: 'git@localhost:acme/app.git',
  git_http_url: 'http://localhost/acme/app.git',
  namespace: 'Acme',
  visibility_level: 0,
  path_with_namespace: 'acme/app',
  default_branch: 'master',
  ci_config_path: null,
  homepage: 'http://localhost/acme/app',
  url: 'git@localhost:acme/app.git',
  ssh_url: 'git@localhost:acme/app.git',
  http_url: 'http://localhost/acme/app.git',
};

describe('project hooks API', () => {
  it('POST /projects/:id/hooks: 201 with the ProjectHook entity; the token is never shown', async () => {
    const fx = world();
    const res = await call(fx, 'POST', `${APP}/hooks`, 'maint', {
      url: 'https://example.com/hook',
      issues_events: true,
      token: 's3cret',
      push_events_branch_filter: 'release/*',
    });
    expect(res.status).toBe(201);
    const hook = await body(res);
    expect(Object.keys(hook)).toEqual([
      'id',
      'url',
      'created_at',
      'push_events',
      'tag_push_events',
      'merge_requests_events',
      'repository_update_events',
      'enable_ssl_verification',
      'project_id',
      'issues_events',
      'confidential_issues_events',
      'note_events',
      'confidential_note_events',
      'pipeline_events',
      'wiki_page_events',
      'deployment_events',
      'job_events',
      'releases_events',
      'push_events_branch_filter',
    ]);
    expect(hook).toEqual({
      id: 1,
      url: 'https://example.com/hook',
      created_at: NOW,
      push_events: true,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: false,
      enable_ssl_verification: true,
      project_id: 1,
      issues_events: true,
      confidential_issues_events: false,
      note_events: false,
      confidential_note_events: null,
      pipeline_events: false,
      wiki_page_events: false,
      deployment_events: false,
      job_events: false,
      releases_events: false,
      push_events_branch_filter: 'release/*',
    });
  });

  it('POST /projects/:id/hooks: url is missing (400), local or invalid URLs are 422 Invalid url given', async () => {
    const fx = world();
    const missing = await call(fx, 'POST', `${APP}/hooks`, 'maint', { push_events: true });
    expect([missing.status, await body(missing)]).toEqual([400, { error: 'url is missing' }]);
    for (const url of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'ftp://example.com/x', 'not a url', '']) {
      const res = await call(fx, 'POST', `${APP}/hooks`, 'maint', { url });
      expect([res.status, await body(res)]).toEqual([422, { message: 'Invalid url given' }]);
    }
    const badFilter = await call(fx, 'POST', `${APP}/hooks`, 'maint', {
      url: 'https://example.com',
      push_events_branch_filter: 'a..b',
    });
    expect([badFilter.status, await body(badFilter)]).toEqual([
      422,
      { message: 'Invalid branch filter given' },
    ]);
    const badToken = await call(fx, 'POST', `${APP}/hooks`, 'maint', {
      url: 'https://example.com',
      token: 'a\nb',
    });
    expect([badToken.status, await body(badToken)]).toEqual([
      404,
      { message: '404 Project hook {:token=>["is invalid"]} Not Found' },
    ]);
    const bad = await call(fx, 'POST', `${APP}/hooks`, 'maint', {
      url: 'https://example.com',
      push_events: 'x',
    });
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'push_events is invalid' }]);
    expect(await body(await call(fx, 'GET', `${APP}/hooks`, 'maint'))).toEqual([]);
  });

  it('POST /projects/:id/hooks: a local URL is accepted when the instance allows local requests', async () => {
    const fx = world({}, LOCAL_OK);
    expect((await addHook(fx, { url: 'http://127.0.0.1:9/x' })).url).toBe('http://127.0.0.1:9/x');
  });

  it('project hooks: 401 anonymous, 404 hidden project, 403 below maintainer, before param checks', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/hooks`)).status).toBe(401);
    const hidden = await call(fx, 'POST', `${APP}/hooks`, 'outsider', {});
    expect([hidden.status, await body(hidden)]).toEqual([404, { message: '404 Project Not Found' }]);
    const dev = await call(fx, 'POST', `${APP}/hooks`, 'dev', {});
    expect([dev.status, await body(dev)]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await call(fx, 'GET', `${APP}/hooks`, 'root')).status).toBe(200);
  });

  it("GET /projects/:id/hooks/:hook_id: the hook; 404 Not found for another project's; 400 for a bad id", async () => {
    const fx = world();
    const hook = await addHook(fx, { url: 'https://example.com/a' });
    expect(await body(await call(fx, 'GET', `${APP}/hooks/${hook.id}`, 'maint'))).toEqual(hook);
    const other = await call(fx, 'GET', `/projects/acme%2Fsite/hooks/${hook.id}`, 'alice');
    expect([other.status, await body(other)]).toEqual([404, { message: '404 Not found' }]);
    const bad = await call(fx, 'GET', `${APP}/hooks/x`, 'maint');
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'hook_id is invalid' }]);
    const list = await call(fx, 'GET', `${APP}/hooks`, 'maint');
    expect(list.headers.get('X-Total')).toBe('1');
  });

  it('PUT /projects/:id/hooks/:hook_id: url is required; changes what is given; a bad url changes nothing', async () => {
    const fx = world();
    const hook = await addHook(fx, { url: 'https://example.com/a', note_events: true });
    const missing = await call(fx, 'PUT', `${APP}/hooks/${hook.id}`, 'maint', { push_events: false });
    expect([missing.status, await body(missing)]).toEqual([400, { error: 'url is missing' }]);
    const res = await call(fx, 'PUT', `${APP}/hooks/${hook.id}`, 'maint', {
      url: 'https://example.com/b',
      push_events: false,
      enable_ssl_verification: false,
    });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({
      url: 'https://example.com/b',
      push_events: false,
      note_events: true,
      enable_ssl_verification: false,
    });
    const bad = await call(fx, 'PUT', `${APP}/hooks/${hook.id}`, 'maint', { url: 'http://localhost/x' });
    expect(bad.status).toBe(422);
    expect((await body(await call(fx, 'GET', `${APP}/hooks/${hook.id}`, 'maint'))).url).toBe(
      'https://example.com/b',
    );
  });

  it('DELETE /projects/:id/hooks/:hook_id: 204, then 404', async () => {
    const fx = world();
    const hook = await addHook(fx, { url: 'https://example.com/a' });
    expect((await call(fx, 'DELETE', `${APP}/hooks/${hook.id}`, 'maint')).status).toBe(204);
    expect((await call(fx, 'DELETE', `${APP}/hooks/${hook.id}`, 'maint')).status).toBe(404);
    expect((await call(fx, 'GET', `${APP}/hooks/${hook.id}`, 'maint')).status).toBe(404);
  });

  it('project hooks: deleting the project removes its hooks', async () => {
    const fx = world();
    await addHook(fx, { url: 'https://example.com/a' });
    expect(fx.state.hooks.count).toBe(1);
    expect((await call(fx, 'DELETE', APP, 'alice')).status).toBe(202);
    await call(fx, 'GET', '/projects', 'alice');
    expect(fx.state.hooks.count).toBe(0);
  });
});

describe('project hook deliveries', () => {
  it('delivery: an opened issue posts the Issue Hook payload with the token header', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await addHook(fx, { url: r.url, issues_events: true, push_events: false, token: 'tok-1' });
    const res = await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Crash', description: 'Steps' });
    expect(res.status).toBe(201);
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.headers['x-gitlab-event']).toBe('Issue Hook');
    expect(got.headers['x-gitlab-token']).toBe('tok-1');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.body).toMatchObject({
      object_kind: 'issue',
      event_type: 'issue',
      user: { name: 'Dev User', username: 'dev', email: expect.any(String) },
      project: projectJson,
      object_attributes: {
        iid: 2,
        title: 'Crash',
        description: 'Steps',
        state: 'opened',
        state_id: 1,
        action: 'open',
        created_at: '2021-03-01 12:00:00 UTC',
        url: 'http://localhost/acme/app/-/issues/2',
        labels: [],
      },
      repository: {
        name: 'App',
        url: 'git@localhost:acme/app.git',
        description: '',
        homepage: 'http://localhost/acme/app',
      },
      changes: { title: { previous: null, current: 'Crash' } },
    });
    const log = await body(await call(fx, 'GET', '/__fauxlab/deliveries'));
    expect(log[0]).toMatchObject({
      integration: 'project_hook',
      integration_id: 1,
      event: 'issue',
      action: 'open',
      status: 'delivered',
    });
  });

  it('delivery: closing an issue sends action close with the state change; an edit sends update', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await addHook(fx, { url: r.url, issues_events: true });
    await call(fx, 'PUT', `${APP}/issues/1`, 'alice', { state_event: 'close' });
    await call(fx, 'PUT', `${APP}/issues/1`, 'alice', { title: 'Renamed' });
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => x.body.object_attributes.action)).toEqual(['close', 'update']);
    expect(r.received[0]!.body.changes.state_id).toEqual({ previous: 1, current: 2 });
    expect(r.received[1]!.body.changes.title).toEqual({ previous: 'First bug', current: 'Renamed' });
  });

  it('delivery: a confidential issue goes only to hooks with confidential_issues_events', async () => {
    const a = await listen();
    const b = await listen();
    const fx = world({}, LOCAL_OK);
    await addHook(fx, { url: a.url, issues_events: true });
    await addHook(fx, { url: b.url, confidential_issues_events: true });
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Secret', confidential: true });
    await deliveries(fx.clock).settled();
    expect(a.received).toHaveLength(0);
    expect(b.received).toHaveLength(1);
    expect(b.received[0]!.headers['x-gitlab-event']).toBe('Confidential Issue Hook');
    expect(b.received[0]!.body.event_type).toBe('confidential_issue');
  });

  it('delivery: a comment on an issue is a Note Hook with the issue', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await addHook(fx, { url: r.url, note_events: true });
    await call(fx, 'POST', `${APP}/issues/1/notes`, 'dev', { body: 'Me too' });
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.headers['x-gitlab-event']).toBe('Note Hook');
    expect(r.received[0]!.body).toMatchObject({
      object_kind: 'note',
      project_id: 1,
      object_attributes: {
        note: 'Me too',
        noteable_type: 'Issue',
        url: expect.stringMatching(/issues\/1#note_\d+$/),
      },
      issue: { iid: 1, title: 'First bug' },
    });
  });

  it('delivery: a comment on a commit is a Note Hook with the commit', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await addHook(fx, { url: r.url, note_events: true });
    const head = await body(await call(fx, 'GET', `${APP}/repository/commits/master`, 'dev'));
    const sha = head.id as string;
    const res = await call(fx, 'POST', `${APP}/repository/commits/${sha}/discussions`, 'dev', {
      body: 'Why?',
    });
    expect(res.status).toBe(201);
    const noteId = (await body(res)).notes[0].id as number;
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.headers['x-gitlab-event']).toBe('Note Hook');
    expect(r.received[0]!.body).toMatchObject({
      object_kind: 'note',
      event_type: 'note',
      project_id: 1,
      object_attributes: {
        note: 'Why?',
        noteable_type: 'Commit',
        noteable_id: null,
        commit_id: sha,
        type: 'DiscussionNote',
        url: `http://localhost/acme/app/-/commit/${sha}#note_${noteId}`,
      },
      commit: { id: sha, title: head.title, url: `http://localhost/acme/app/-/commit/${sha}` },
    });
    expect(r.received[0]!.body.commit).not.toHaveProperty('added');
  });

  it('delivery: opening and merging a merge request', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await addHook(fx, { url: r.url, merge_requests_events: true, push_events: false });
    // A merge request names an existing branch.
    await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'feat', ref: 'master' });
    const res = await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
      title: 'Feature',
      source_branch: 'feat',
      target_branch: 'master',
    });
    expect(res.status).toBe(201);
    const mr = await body(res);
    await call(fx, 'PUT', `${APP}/merge_requests/${mr.iid}/merge`, 'alice');
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => x.headers['x-gitlab-event'])).toEqual([
      'Merge Request Hook',
      'Merge Request Hook',
    ]);
    expect(r.received.map((x) => x.body.object_attributes.action)).toEqual(['open', 'merge']);
    expect(r.received[1]!.body.object_attributes).toMatchObject({
      state: 'merged',
      source_branch: 'feat',
      target_branch: 'master',
      target: projectJson,
    });
  });

  it('delivery: a push honours push_events_branch_filter; a tag push goes by tag_push_events', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await addHook(fx, { url: r.url, push_events_branch_filter: 'release/*', tag_push_events: true });
    for (const ref of ['main-work', 'release/1.0'])
      await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ref, user: 'dev' });
    await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ref: 'v1', tag: true });
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => [x.headers['x-gitlab-event'], x.body.ref])).toEqual([
      ['Push Hook', 'refs/heads/release/1.0'],
      ['Tag Push Hook', 'refs/tags/v1'],
    ]);
    expect(r.received[0]!.body).toMatchObject({
      object_kind: 'push',
      event_name: 'push',
      before: '0000000000000000000000000000000000000000',
      after: expect.stringMatching(/^[0-9a-f]{40}$/),
      user_username: 'dev',
      project_id: 1,
      project: projectJson,
      commits: [],
      total_commits_count: 0,
      repository: { name: 'App', git_http_url: 'http://localhost/acme/app.git', visibility_level: 0 },
    });
  });

  it('delivery: a hook whose URL became local is logged as blocked, not sent', async () => {
    const fx = world({}, LOCAL_OK);
    await addHook(fx, { url: 'http://127.0.0.1:9/never', issues_events: true });
    await call(fx, 'PUT', '/application/settings', 'root', {
      allow_local_requests_from_web_hooks_and_services: false,
    });
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'x' });
    await deliveries(fx.clock).settled();
    const [d] = deliveries(fx.clock).list();
    expect(d).toMatchObject({ status: 'failed', integration: 'project_hook' });
    // `WebHookService`'s log: the `Gitlab::HTTP::BlockedUrlError` message; not retried.
    expect(d!.attempts.map((a) => a.error)).toEqual([
      "URL 'http://127.0.0.1:9/never' is blocked: Requests to localhost are not allowed",
    ]);
  });

  it('delivery: retried up to three times on 5xx, then failed', async () => {
    const r = await listen(() => 503);
    const fx = world({}, LOCAL_OK);
    await addHook(fx, { url: r.url, issues_events: true });
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'x' });
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(3);
    expect(deliveries(fx.clock).list()[0]).toMatchObject({ status: 'failed', response_status: 503 });
  });
});
