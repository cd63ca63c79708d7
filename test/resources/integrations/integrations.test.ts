import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { tvalues } from '../../../src/core/table.js';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { APP, body, call, receiver, world, type World } from '../settings/world.js';

const LOCAL_OK = { settings: { allow_local_requests_from_web_hooks_and_services: true } };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function hook(status?: (n: number) => number) {
  const r = await receiver(status);
  closers.push(r.close);
  return r;
}

/** A Slack integration on acme/app posting to `url`, with extra params. */
async function slack(fx: World, url: string, extra: Record<string, unknown> = {}) {
  const res = await call(fx, 'PUT', `${APP}/services/slack`, 'maint', { webhook: url, ...extra });
  expect(res.status).toBe(200);
  return body(res);
}

describe('integrations API', () => {
  it('PUT /projects/:id/services/slack: creates the integration, active, with its properties', async () => {
    const fx = world();
    const res = await call(fx, 'PUT', `${APP}/services/slack`, 'maint', {
      webhook: 'https://hooks.slack.example/T1',
      username: 'bot',
      push_events: false,
    });
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({
      id: 1,
      title: 'Slack notifications',
      slug: 'slack',
      created_at: '2021-03-01T12:00:00.000Z',
      updated_at: '2021-03-01T12:00:00.000Z',
      active: true,
      commit_events: true,
      push_events: false,
      issues_events: true,
      confidential_issues_events: true,
      merge_requests_events: true,
      tag_push_events: true,
      note_events: true,
      confidential_note_events: true,
      pipeline_events: false,
      wiki_page_events: true,
      job_events: false,
      comment_on_event_enabled: true,
      properties: {
        webhook: 'https://hooks.slack.example/T1',
        username: 'bot',
        notify_only_broken_pipelines: true,
        branches_to_be_notified: 'default',
      },
    });
  });

  it('PUT /projects/:id/services/slack: webhook is required (Grape message)', async () => {
    const fx = world();
    const res = await call(fx, 'PUT', `${APP}/services/slack`, 'maint', { username: 'x' });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ error: 'webhook is missing' });
  });

  it('PUT /projects/:id/services/custom-issue-tracker: all three URLs are required', async () => {
    const fx = world();
    const res = await call(fx, 'PUT', `${APP}/services/custom-issue-tracker`, 'maint', {
      issues_url: 'https://x',
    });
    expect(await body(res)).toEqual({ error: 'new_issue_url is missing, project_url is missing' });
    const ok = await call(fx, 'PUT', `${APP}/services/custom-issue-tracker`, 'maint', {
      new_issue_url: 'https://bugs.example.com/new',
      issues_url: 'https://bugs.example.com/:id',
      project_url: 'https://bugs.example.com',
      title: 'Our tracker',
    });
    const b = await body(ok);
    expect(b.title).toBe('Our tracker');
    expect(b.properties).toEqual({
      project_url: 'https://bugs.example.com',
      issues_url: 'https://bugs.example.com/:id',
      new_issue_url: 'https://bugs.example.com/new',
    });
    expect(Object.keys(b.properties)).toEqual(['project_url', 'issues_url', 'new_issue_url']);
  });

  it('PUT /projects/:id/services/emails-on-push and external-wiki: their required params', async () => {
    const fx = world();
    expect(await body(await call(fx, 'PUT', `${APP}/services/emails-on-push`, 'maint', {}))).toEqual({
      error: 'recipients is missing',
    });
    expect(await body(await call(fx, 'PUT', `${APP}/services/external-wiki`, 'maint', {}))).toEqual({
      error: 'external_wiki_url is missing',
    });
    const push = await body(
      await call(fx, 'PUT', `${APP}/services/emails-on-push`, 'maint', {
        recipients: 'a@example.com b@example.com',
      }),
    );
    expect(push.properties).toEqual({
      recipients: 'a@example.com b@example.com',
      branches_to_be_notified: 'all',
    });
  });

  it('PUT /projects/:id/services/:slug: a blank or local URL fails the model with 400 Bad Request', async () => {
    const fx = world();
    expect(await body(await call(fx, 'PUT', `${APP}/services/slack`, 'maint', { webhook: '' }))).toEqual({
      message: '400 Bad Request',
    });
    const local = await call(fx, 'PUT', `${APP}/services/slack`, 'maint', {
      webhook: 'http://127.0.0.1:9/x',
    });
    expect(local.status).toBe(400);
    expect(await body(local)).toEqual({ message: '400 Bad Request' });
  });

  it('PUT /projects/:id/services/:slug: allow_local_requests_from_web_hooks_and_services admits local webhooks', async () => {
    const fx = world({}, LOCAL_OK);
    const res = await call(fx, 'PUT', `${APP}/services/slack`, 'maint', { webhook: 'http://127.0.0.1:9/x' });
    expect(res.status).toBe(200);
  });

  it('PUT /projects/:id/services/:slug: an unknown slug reaches no route', async () => {
    const fx = world();
    const res = await call(fx, 'PUT', `${APP}/services/nope`, 'maint', { webhook: 'https://x' });
    expect(res.status).toBe(404);
    expect(await body(res)).toEqual({ error: '404 Not Found' });
  });

  it('integrations: 401 anonymous, 404 hidden project, 403 below maintainer', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/services`)).status).toBe(401);
    expect(await body(await call(fx, 'GET', `${APP}/services`, 'outsider'))).toEqual({
      message: '404 Project Not Found',
    });
    expect(await body(await call(fx, 'GET', `${APP}/services/slack`, 'dev'))).toEqual({
      message: '403 Forbidden',
    });
    // The `before` filters run before the params: a developer gets 403 even with bad params.
    expect((await call(fx, 'PUT', `${APP}/services/slack`, 'dev', {})).status).toBe(403);
  });

  it('GET /projects/:id/services: the active integrations only, without properties', async () => {
    const fx = world();
    await slack(fx, 'https://hooks.slack.example/T1');
    await call(fx, 'PUT', `${APP}/services/external-wiki`, 'maint', {
      external_wiki_url: 'https://wiki.example.com',
    });
    await call(fx, 'DELETE', `${APP}/services/external-wiki`, 'maint');
    const list = await body(await call(fx, 'GET', `${APP}/services`, 'maint'));
    expect(list.map((x: any) => x.slug)).toEqual(['slack']);
    expect(list[0].properties).toBeUndefined();
    const res = await call(fx, 'GET', `${APP}/integrations?per_page=1`, 'maint');
    expect([res.headers.get('X-Total'), res.headers.get('X-Per-Page')]).toEqual(['1', '1']);
  });

  it('GET /projects/:id/integrations/:slug: the same integration under the newer path', async () => {
    const fx = world();
    await slack(fx, 'https://hooks.slack.example/T1');
    const res = await call(fx, 'GET', `${APP}/integrations/slack`, 'maint');
    expect(res.status).toBe(200);
    expect((await body(res)).properties.webhook).toBe('https://hooks.slack.example/T1');
  });

  it('GET /projects/:id/services/:slug: 404 Service Not Found when never set up; 400 for an unknown slug', async () => {
    const fx = world();
    expect(await body(await call(fx, 'GET', `${APP}/services/slack`, 'maint'))).toEqual({
      message: '404 Service Not Found',
    });
    expect(await body(await call(fx, 'GET', `${APP}/services/nope`, 'maint'))).toEqual({
      error: 'slug does not have a valid value',
    });
  });

  it('DELETE /projects/:id/services/:slug: 204; the record stays, inactive, with its fields cleared', async () => {
    const fx = world();
    await slack(fx, 'https://hooks.slack.example/T1', { username: 'bot' });
    const del = await call(fx, 'DELETE', `${APP}/services/slack`, 'maint');
    expect(del.status).toBe(204);
    const after = await body(await call(fx, 'GET', `${APP}/services/slack`, 'maint'));
    expect(after.active).toBe(false);
    expect(after.properties.webhook).toBeNull();
    expect(after.properties.username).toBeNull();
  });

  it('PUT /projects/:id/services/slack: the deprecated notify_only_default_branch sets branches_to_be_notified', async () => {
    const fx = world();
    const b = await slack(fx, 'https://hooks.slack.example/T1', { notify_only_default_branch: false });
    expect(b.properties.branches_to_be_notified).toBe('all');
  });
});

describe('notification delivery', () => {
  it('delivery: an opened issue reaches the webhook with the Slack message', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url, { channel: '#dev' });
    const res = await call(fx, 'POST', `${APP}/issues`, 'dev', {
      title: 'Crash on save',
      description: 'Steps...',
    });
    expect(res.status).toBe(201);
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.method).toBe('POST');
    // The Slack notifier's form post: the message as JSON in the `payload` field.
    expect(r.received[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const text =
      '[<http://localhost/acme/app|Acme / App>] Issue <http://localhost/acme/app/-/issues/2|#2 Crash on save> ' +
      'opened by Dev User (dev)';
    expect(Object.keys(r.received[0]!.body)).toEqual(['channel', 'attachments', 'fallback', 'text']);
    expect(r.received[0]!.body).toEqual({
      text,
      fallback: text,
      attachments: [
        {
          title: '#2 Crash on save',
          title_link: 'http://localhost/acme/app/-/issues/2',
          text: 'Steps...',
          color: '#C95823',
        },
      ],
      channel: '#dev',
    });
    const log = await body(await call(fx, 'GET', '/__fauxlab/deliveries'));
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      integration: 'slack',
      event: 'issue',
      action: 'open',
      status: 'delivered',
    });
  });

  it('delivery: Slack with several channels posts once per channel, as its notifier splits them', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url, { channel: '#dev, #ops', username: 'bot' });
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Twice' });
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => [x.body.channel, x.body.username])).toEqual([
      ['#dev', 'bot'],
      ['#ops', 'bot'],
    ]);
    expect(r.received.map((x) => x.body.attachments[0].title)).toEqual(['#2 Twice', '#2 Twice']);
  });

  it('delivery: nothing is sent when the event flag is off', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url, { issues_events: false });
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Quiet' });
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(0);
    expect(deliveries(fx.clock).list()).toHaveLength(0);
  });

  it('delivery: closing an issue notifies, editing it does not', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url);
    await call(fx, 'PUT', `${APP}/issues/1`, 'alice', { title: 'Renamed' });
    await call(fx, 'PUT', `${APP}/issues/1`, 'alice', { state_event: 'close' });
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => x.body.text)).toEqual([
      '[<http://localhost/acme/app|Acme / App>] Issue <http://localhost/acme/app/-/issues/1|#1 Renamed> ' +
        'closed by Alice Owner (alice)',
    ]);
  });

  it('delivery: a confidential issue goes by confidential_issues_events', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url, { confidential_issues_events: false });
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Secret', confidential: true });
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Open' });
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => x.body.attachments[0].title)).toEqual(['#3 Open']);
  });

  it('delivery: a comment on an issue is a note event', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url);
    const res = await call(fx, 'POST', `${APP}/issues/1/notes`, 'dev', { body: 'Looking into it' });
    const note = await body(res);
    await deliveries(fx.clock).settled();
    const text =
      `Dev User (dev) <http://localhost/acme/app/-/issues/1#note_${note.id}|commented on issue #1> in ` +
      '<http://localhost/acme/app|Acme / App>: *First bug*';
    expect(r.received[0]!.body).toEqual({
      text,
      fallback: text,
      attachments: [{ text: 'Looking into it', color: '#345' }],
    });
  });

  it('delivery: a comment on a commit is a note event naming the commit', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url);
    const head = await body(await call(fx, 'GET', `${APP}/repository/commits/master`, 'dev'));
    const sha = head.id as string;
    const res = await call(fx, 'POST', `${APP}/repository/commits/${sha}/comments`, 'dev', { note: 'Neat' });
    expect(res.status).toBe(201);
    await deliveries(fx.clock).settled();
    const note = tvalues(fx.state.issuables.notes).find((n) => n.noteable_type === 'Commit')!;
    const text =
      `Dev User (dev) <http://localhost/acme/app/-/commit/${sha}#note_${note.id}|commented on commit ${sha.slice(0, 8)}> in ` +
      `<http://localhost/acme/app|Acme / App>: *${head.title as string}*`;
    expect(r.received[0]!.body).toEqual({
      text,
      fallback: text,
      attachments: [{ text: 'Neat', color: '#345' }],
    });
  });

  it('delivery: opening and merging a merge request', async () => {
    const r = await hook();
    const fx = world({}, { ...LOCAL_OK });
    await slack(fx, r.url);
    // A merge request names an existing branch.
    await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'fix2', ref: 'master' });
    const created = await body(
      await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
        source_branch: 'fix2',
        target_branch: 'master',
        title: 'Second fix',
      }),
    );
    expect(created.iid).toBe(2);
    expect((await call(fx, 'PUT', `${APP}/merge_requests/1/merge`, 'maint', {})).status).toBe(200);
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => x.body.text)).toEqual([
      'Dev User (dev) opened merge request <http://localhost/acme/app/-/merge_requests/2|!2 Second fix> in ' +
        '<http://localhost/acme/app|Acme / App>',
      // The merge moves master as a push does (Gitaly's UserMergeBranch runs the hooks): a push notification.
      'Max Maintainer (maint) pushed to branch <http://localhost/acme/app/-/commits/master|master> of ' +
        '<http://localhost/acme/app|Acme / App> (<http://localhost/acme/app/-/compare/52244254...419aa8b0|Compare changes>)',
      'Max Maintainer (maint) merged merge request <http://localhost/acme/app/-/merge_requests/1|!1 Fix the bug> in ' +
        '<http://localhost/acme/app|Acme / App>',
    ]);
  });

  it('delivery: a tag push from the control plane always notifies; a branch push honours branches_to_be_notified', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url);
    const tag = await call(fx, 'POST', '/__fauxlab/push', undefined, {
      project: 'acme/app',
      ref: 'v2.0',
      tag: true,
      user: 'dev',
    });
    expect(tag.status).toBe(201);
    await call(fx, 'POST', '/__fauxlab/push', undefined, {
      project: 'acme/app',
      ref: 'feature',
      user: 'dev',
    });
    await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ref: 'master', user: 'dev' });
    await deliveries(fx.clock).settled();
    const texts = r.received.map((x) => x.body.text as string);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe(
      'Dev User (dev) pushed new tag <http://localhost/acme/app/-/tags/v2.0|v2.0> to <http://localhost/acme/app|Acme / App>',
    );
    expect(texts[1]).toMatch(
      /^Dev User \(dev\) pushed to branch <http:\/\/localhost\/acme\/app\/-\/commits\/master\|master> of /,
    );
  });

  it('delivery: tag pushes follow tag_push_events', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url, { tag_push_events: false });
    await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ref: 'v2.0', tag: true });
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(0);
  });

  it('delivery: a finished pipeline notifies on the instance clock; notify_only_broken_pipelines mutes successes', async () => {
    const r = await hook();
    // About notifications, not the runner queue: the pipeline runs at once.
    const fx = world({}, { ...LOCAL_OK, ci: { queue_time: 0 } });
    await slack(fx, r.url, { pipeline_events: true, notify_only_broken_pipelines: false });
    const pl = await body(await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref: 'master' }));
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(0);
    fx.clock.advance(61_000);
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => x.body.text)).toEqual([
      `<http://localhost/acme/app|Acme / App>: Pipeline <http://localhost/acme/app/-/pipelines/${pl.id}|#${pl.id}> ` +
        'of branch <http://localhost/acme/app/-/commits/master|master> by Dev User (dev) passed in 01:00',
    ]);

    await slack(fx, r.url, { pipeline_events: true, notify_only_broken_pipelines: true });
    await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref: 'master' });
    fx.clock.advance(61_000);
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(1);
  });

  it('delivery: retried up to three times on 5xx, then logged as failed', async () => {
    const r = await hook(() => 503);
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url);
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Flaky' });
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(3);
    const [d] = deliveries(fx.clock).list();
    expect(d).toMatchObject({ status: 'failed', response_status: 503 });
    expect(d!.attempts.map((a) => a.status)).toEqual([503, 503, 503]);
  });

  it('delivery: a 5xx then a 200 is delivered on the second attempt', async () => {
    const r = await hook((n) => (n === 1 ? 500 : 200));
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url);
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Flaky once' });
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(2);
    expect(deliveries(fx.clock).list()[0]).toMatchObject({ status: 'delivered', response_status: 200 });
  });

  it('delivery: the request that causes an event does not wait for the webhook', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // A receiver that answers only when released.
    const server = createServer((req, res) => {
      req.resume();
      void held.then(() => res.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const fx = world({}, LOCAL_OK);
    await slack(fx, `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`);
    const res = await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Fast' });
    expect(res.status).toBe(201);
    expect(deliveries(fx.clock).list()[0]!.status).toBe('pending');
    release();
    await deliveries(fx.clock).settled();
    expect(deliveries(fx.clock).list()[0]!.status).toBe('delivered');
  });

  it('delivery: a local webhook the settings no longer allow is logged as blocked, not sent', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url);
    await call(fx, 'PUT', '/application/settings', 'root', {
      allow_local_requests_from_web_hooks_and_services: false,
    });
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'Blocked' });
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(0);
    expect(deliveries(fx.clock).list()[0]).toMatchObject({ status: 'failed' });
  });

  it('delivery: Microsoft Teams gets a MessageCard', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await call(fx, 'PUT', `${APP}/services/microsoft-teams`, 'maint', { webhook: r.url });
    await call(fx, 'PUT', `${APP}/issues/1`, 'alice', { state_event: 'close' });
    await deliveries(fx.clock).settled();
    expect(r.received[0]!.body).toMatchObject({
      '@type': 'MessageCard',
      title: 'Acme / App',
      summary:
        '[[Acme / App](http://localhost/acme/app)] Issue [#1 First bug](http://localhost/acme/app/-/issues/1) closed by Alice Owner (alice)',
    });
  });

  it('GET /__fauxlab/deliveries?wait=true: waits for deliveries under way; filters; DELETE clears', async () => {
    const r = await hook();
    const fx = world({}, LOCAL_OK);
    await slack(fx, r.url);
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'One' });
    await call(fx, 'POST', `${APP}/issues/1/notes`, 'dev', { body: 'Two' });
    const res = await call(fx, 'GET', '/__fauxlab/deliveries?wait=true');
    expect(res.headers.get('X-Total')).toBe('2');
    const list = await body(res);
    expect(list.map((d: any) => [d.event, d.status])).toEqual([
      ['issue', 'delivered'],
      ['note', 'delivered'],
    ]);
    expect(list[0]).toMatchObject({
      id: 1,
      at: '2021-03-01T12:00:00.000Z',
      integration: 'slack',
      project: 'acme/app',
      url: r.url,
      response_status: 200,
      request: { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
    });
    expect((await body(await call(fx, 'GET', '/__fauxlab/deliveries?event=note'))).length).toBe(1);
    expect((await call(fx, 'DELETE', '/__fauxlab/deliveries')).status).toBe(204);
    expect(await body(await call(fx, 'GET', '/__fauxlab/deliveries'))).toEqual([]);
  });

  it('POST /__fauxlab/push: checks its body and moves the ref', async () => {
    const fx = world();
    expect(await body(await call(fx, 'POST', '/__fauxlab/push', undefined, { ref: '' }))).toEqual({
      message: { push: ['project: give the project path', 'ref: give a branch or tag name'] },
    });
    expect(
      (await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/none', ref: 'x' })).status,
    ).toBe(404);
    const res = await body(
      await call(fx, 'POST', '/__fauxlab/push', undefined, { project: 'acme/app', ref: 'v9', tag: true }),
    );
    expect(res).toMatchObject({ project: 'acme/app', ref: 'v9', tag: true, before: '0'.repeat(40) });
    const pl = await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref: 'v9' });
    expect((await body(pl)).sha).toBe(res.after);
  });

  it('emitting is free without active integrations: nothing is logged', async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'No one listens' });
    expect(fx.state.integrations.active).toBe(0);
    expect(deliveries(fx.clock).list()).toEqual([]);
  });

  it('scenario: integrations set up in a scenario deliver', async () => {
    const r = await hook();
    const fx = world(
      {},
      {
        ...LOCAL_OK,
        projects: [
          {
            path: 'acme/app',
            creator: 'alice',
            integrations: [{ slug: 'mattermost', webhook: r.url, issues_events: true }],
          },
        ],
      },
    );
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'From scenario' });
    await deliveries(fx.clock).settled();
    expect(r.received).toHaveLength(1);
    expect((await body(await call(fx, 'GET', `${APP}/services`, 'alice')))[0].slug).toBe('mattermost');
  });
});
