/**
 * @gitbeaker/rest, a real client, managing webhooks and reading events as an integration would: through
 * MSW (the receiver is an MSW handler too), and over loopback HTTP with a receiver on 127.0.0.1.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GitbeakerRequestError, Gitlab } from '@gitbeaker/rest';
import { serve } from '@hono/node-server';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { fauxlabHandlers } from '../../../src/msw/index.js';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { receiver, world } from '../settings/world.js';

const HOST = 'http://gitlab.hooks.test';
const RECEIVER = 'http://receiver.hooks.test/hook';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('gitbeaker through MSW', () => {
  it('ProjectHooks and SystemHooks: add, list, edit, test, remove; deliveries reach the receiver', async () => {
    // The receiver's name resolves nowhere: with DNS rebinding protection off, as the platform does,
    // the URL blocker lets an unresolved name through to the request (which MSW answers).
    const fx = world({}, { settings: { dns_rebinding_protection_enabled: false } });
    const got: { event: string | null; token: string | null; body: any }[] = [];
    const server = setupServer(
      ...fauxlabHandlers(fx, { baseUrl: HOST }),
      http.post(RECEIVER, async ({ request }) => {
        got.push({
          event: request.headers.get('x-gitlab-event'),
          token: request.headers.get('x-gitlab-token'),
          body: await request.json(),
        });
        return HttpResponse.text('ok');
      }),
    );
    server.listen({ onUnhandledRequest: 'error' });
    closers.push(() => server.close());
    const maint = new Gitlab({ host: HOST, token: 'maint' });
    const root = new Gitlab({ host: HOST, token: 'root' });

    const hook = await maint.ProjectHooks.add('acme/app', RECEIVER, {
      issuesEvents: true,
      noteEvents: true,
      token: 'secret',
    });
    expect(hook).toMatchObject({ url: RECEIVER, issues_events: true, note_events: true, push_events: true });
    expect(hook).not.toHaveProperty('token');
    expect(await maint.ProjectHooks.all('acme/app')).toEqual([hook]);
    const edited = await maint.ProjectHooks.edit('acme/app', hook.id as number, RECEIVER, {
      pushEvents: false,
    });
    expect(edited.push_events).toBe(false);
    await expect(maint.ProjectHooks.add('acme/app', 'http://127.0.0.1/x')).rejects.toBeInstanceOf(
      GitbeakerRequestError,
    );

    const issue = await new Gitlab({ host: HOST, token: 'dev' }).Issues.create('acme/app', 'From a client');
    await new Gitlab({ host: HOST, token: 'dev' }).IssueNotes.create('acme/app', issue.iid, 'A comment');

    const sys = await root.SystemHooks.add(RECEIVER, { token: 'sys' });
    expect(await root.SystemHooks.all()).toEqual([sys]);
    // gitbeaker's `SystemHooks.test` POSTs, as later versions route it; 13.12 tests a hook with a GET.
    const tested = await fetch(`${HOST}/api/v4/hooks/${sys.id}`, { headers: { 'PRIVATE-TOKEN': 'root' } });
    expect(await tested.json()).toMatchObject({ event_name: 'project_create' });

    await deliveries(fx.clock).settled();
    expect(got.map((g) => [g.event, g.token])).toEqual([
      ['Issue Hook', 'secret'],
      ['Note Hook', 'secret'],
      ['System Hook', 'sys'],
    ]);
    expect(got[0]!.body.object_attributes).toMatchObject({ title: 'From a client', action: 'open' });
    expect(got[1]!.body.object_attributes.note).toBe('A comment');

    const events = await maint.Events.all({ projectId: 'acme/app', action: 'commented' });
    expect(events.map((e) => [e.action_name, e.author_username])).toEqual([['commented on', 'dev']]);
    await maint.ProjectHooks.remove('acme/app', hook.id as number);
    await root.SystemHooks.remove(sys.id as number);
    expect(await maint.ProjectHooks.all('acme/app')).toEqual([]);
    expect(await root.SystemHooks.all()).toEqual([]);
  });
});

describe('gitbeaker over HTTP with a receiver on 127.0.0.1', () => {
  it('a project hook on a local receiver gets Push Hook and Merge Request Hook with their headers', async () => {
    const fx = world({}, { settings: { allow_local_requests_from_web_hooks_and_services: true } });
    const { server, port } = await new Promise<{ server: Server; port: number }>((resolve) => {
      const s = serve({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
        resolve({ server: s as Server, port: info.port }),
      );
    });
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const r = await receiver();
    closers.push(r.close);
    const host = `http://127.0.0.1:${port}`;
    const maint = new Gitlab({ host, token: 'maint' });
    await maint.ProjectHooks.add('acme/app', r.url, { mergeRequestsEvents: true, token: 'over-http' });
    await fetch(`${host}/__fauxlab/push`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ project: 'acme/app', ref: 'feature-x', user: 'dev' }),
    });
    const mr = await new Gitlab({ host, token: 'dev' }).MergeRequests.create(
      'acme/app',
      'feature-x',
      'master',
      'Feature X',
    );
    await deliveries(fx.clock).settled();
    expect(
      r.received.map((x) => [x.method, x.path, x.headers['x-gitlab-event'], x.headers['x-gitlab-token']]),
    ).toEqual([
      ['POST', '/hook', 'Push Hook', 'over-http'],
      ['POST', '/hook', 'Merge Request Hook', 'over-http'],
    ]);
    for (const x of r.received) {
      expect(x.headers['content-type']).toBe('application/json');
      expect(x.headers['user-agent']).toBe('GitLab/13.12.0');
    }
    expect(r.received[0]!.body).toMatchObject({
      object_kind: 'push',
      ref: 'refs/heads/feature-x',
      user_username: 'dev',
      project: { web_url: `${host}/acme/app`, git_http_url: `${host}/acme/app.git` },
    });
    expect(r.received[1]!.body).toMatchObject({
      object_kind: 'merge_request',
      user: { username: 'dev' },
      object_attributes: {
        iid: mr.iid,
        action: 'open',
        source_branch: 'feature-x',
        url: `${host}/acme/app/-/merge_requests/${mr.iid}`,
      },
    });
    const pushes = await maint.Events.all({ projectId: 'acme/app', action: 'pushed' });
    expect(pushes.map((e) => [e.action_name, (e as { push_data?: { ref: string } }).push_data?.ref])).toEqual(
      [['pushed new', 'feature-x']],
    );
  });
});
