import { describe, expect, it } from 'vitest';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { APP, NOW, body, call, world } from '../settings/world.js';
import { LOCAL_OK, listen } from './receivers.js';

describe('group hooks API', () => {
  it('GET /groups/:id/hooks: no such route on the free tier (the catch-all 404)', async () => {
    const fx = world();
    const res = await call(fx, 'GET', '/groups/acme/hooks', 'alice');
    expect([res.status, await body(res)]).toEqual([404, { error: '404 Not Found' }]);
  });

  it('POST /groups/:id/hooks: 201 with the GroupHook entity for an owner', async () => {
    const fx = world({ tier: 'premium' });
    const res = await call(fx, 'POST', '/groups/acme/hooks', 'alice', {
      url: 'https://example.com/g',
      issues_events: true,
      token: 'x',
    });
    expect(res.status).toBe(201);
    const acme = await body(await call(fx, 'GET', '/groups/acme', 'alice'));
    expect(await body(res)).toEqual({
      id: 1,
      url: 'https://example.com/g',
      created_at: NOW,
      push_events: true,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: false,
      enable_ssl_verification: true,
      group_id: acme.id,
      issues_events: true,
      confidential_issues_events: false,
      note_events: false,
      confidential_note_events: null,
      pipeline_events: false,
      wiki_page_events: false,
      job_events: false,
      deployment_events: false,
      releases_events: false,
      subgroup_events: false,
    });
    const list = await call(fx, 'GET', '/groups/acme/hooks', 'alice');
    expect(list.headers.get('X-Total')).toBe('1');
  });

  it('group hooks: 401 anonymous, 403 below owner, 422 for a bad URL, 422 with the errors otherwise', async () => {
    const fx = world({ tier: 'premium' });
    expect((await call(fx, 'GET', '/groups/acme/hooks')).status).toBe(401);
    const maint = await call(fx, 'POST', '/groups/acme/hooks', 'maint', {});
    expect([maint.status, await body(maint)]).toEqual([403, { message: '403 Forbidden' }]);
    const bad = await call(fx, 'POST', '/groups/acme/hooks', 'alice', { url: 'http://192.168.1.1/x' });
    expect([bad.status, await body(bad)]).toEqual([422, { message: 'Invalid url given' }]);
    const token = await call(fx, 'POST', '/groups/acme/hooks', 'alice', {
      url: 'https://example.com',
      token: 'a\nb',
    });
    expect([token.status, await body(token)]).toEqual([
      422,
      { message: 'Group hook {:token=>["is invalid"]}' },
    ]);
  });

  it('PUT and DELETE /groups/:id/hooks/:hook_id; a project hook id is not a group hook', async () => {
    const fx = world({ tier: 'premium' });
    const hook = await body(
      await call(fx, 'POST', '/groups/acme/hooks', 'alice', { url: 'https://example.com/g' }),
    );
    await call(fx, 'POST', `${APP}/hooks`, 'alice', { url: 'https://example.com/p' });
    const put = await call(fx, 'PUT', `/groups/acme/hooks/${hook.id}`, 'alice', {
      url: 'https://example.com/g2',
      note_events: true,
    });
    expect(await body(put)).toMatchObject({ url: 'https://example.com/g2', note_events: true });
    expect((await call(fx, 'GET', '/groups/acme/hooks/2', 'alice')).status).toBe(404);
    expect((await call(fx, 'DELETE', `/groups/acme/hooks/${hook.id}`, 'alice')).status).toBe(204);
    expect(await body(await call(fx, 'GET', '/groups/acme/hooks', 'alice'))).toEqual([]);
  });
});

describe('group hook deliveries', () => {
  it("delivery: the group's hooks hear its projects' events, and those of its subgroups' projects", async () => {
    const r = await listen();
    const fx = world({ tier: 'premium' }, LOCAL_OK);
    await call(fx, 'POST', '/groups/acme/hooks', 'alice', { url: r.url, issues_events: true, token: 'g' });
    const acme = await body(await call(fx, 'GET', '/groups/acme', 'alice'));
    const sub = await body(
      await call(fx, 'POST', '/groups', 'alice', { name: 'Sub', path: 'sub', parent_id: acme.id }),
    );
    const proj = await body(
      await call(fx, 'POST', '/projects', 'alice', { name: 'deep', namespace_id: sub.id }),
    );
    await call(fx, 'POST', `${APP}/issues`, 'dev', { title: 'in app' });
    await call(fx, 'POST', `/projects/${proj.id}/issues`, 'alice', { title: 'in sub' });
    await deliveries(fx.clock).settled();
    expect(
      r.received.map((x) => [
        x.headers['x-gitlab-event'],
        x.headers['x-gitlab-token'],
        x.body.project.path_with_namespace,
      ]),
    ).toEqual([
      ['Issue Hook', 'g', 'acme/app'],
      ['Issue Hook', 'g', 'acme/sub/deep'],
    ]);
    expect(deliveries(fx.clock).list()[0]).toMatchObject({ integration: 'group_hook', status: 'delivered' });
  });
});

describe('pipeline hook deliveries', () => {
  it('delivery: a new pipeline is sent with its status, and again when it finishes on the instance clock', async () => {
    const r = await listen();
    // About delivery, not the runner queue: the pipeline runs at once.
    const fx = world({}, { ...LOCAL_OK, ci: { queue_time: 0 } });
    await call(fx, 'POST', `${APP}/hooks`, 'maint', {
      url: r.url,
      pipeline_events: true,
      push_events: false,
    });
    const pl = await body(await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref: 'master' }));
    await deliveries(fx.clock).settled();
    fx.clock.advance(61_000);
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => x.headers['x-gitlab-event'])).toEqual(['Pipeline Hook', 'Pipeline Hook']);
    expect(r.received.map((x) => x.body.object_attributes.status)).toEqual([pl.status, 'success']);
    expect(r.received[1]!.body).toMatchObject({
      object_kind: 'pipeline',
      object_attributes: { id: pl.id, ref: 'master', tag: false, sha: pl.sha, duration: 60 },
      user: { username: 'dev' },
      project: { path_with_namespace: 'acme/app' },
      commit: { id: pl.sha },
    });
  });
});
