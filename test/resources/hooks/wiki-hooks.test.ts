import { describe, expect, it } from 'vitest';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { APP, body, call, world } from '../settings/world.js';
import { LOCAL_OK, listen } from './receivers.js';

describe('wiki page hook deliveries', () => {
  it('delivery: creating, updating and deleting a wiki page sends Wiki Page Hook with the page and the wiki', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await call(fx, 'POST', `${APP}/hooks`, 'maint', {
      url: r.url,
      wiki_page_events: true,
      push_events: false,
      token: 'wiki-secret',
    });
    expect(
      (await call(fx, 'POST', `${APP}/wikis`, 'dev', { title: 'Run Book', content: 'Step 1' })).status,
    ).toBe(201);
    await call(fx, 'PUT', `${APP}/wikis/Run-Book`, 'dev', { content: 'Step 2', format: 'rdoc' });
    await call(fx, 'DELETE', `${APP}/wikis/Run-Book`, 'maint');
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => [x.headers['x-gitlab-event'], x.headers['x-gitlab-token']])).toEqual([
      ['Wiki Page Hook', 'wiki-secret'],
      ['Wiki Page Hook', 'wiki-secret'],
      ['Wiki Page Hook', 'wiki-secret'],
    ]);
    expect(r.received[0]!.body).toEqual({
      object_kind: 'wiki_page',
      user: { name: 'Dev User', username: 'dev', avatar_url: null, email: 'dev@example.com' },
      project: expect.objectContaining({
        path_with_namespace: 'acme/app',
        web_url: 'http://localhost/acme/app',
      }),
      wiki: {
        web_url: 'http://localhost/acme/app/-/wikis/home',
        git_ssh_url: 'git@localhost:acme/app.wiki.git',
        git_http_url: 'http://localhost/acme/app.wiki.git',
        path_with_namespace: 'acme/app.wiki',
        default_branch: 'master',
      },
      object_attributes: {
        title: 'Run Book',
        content: 'Step 1',
        format: 'markdown',
        message: 'dev created page: Run Book',
        slug: 'Run-Book',
        url: 'http://localhost/acme/app/-/wikis/Run-Book',
        action: 'create',
      },
    });
    expect(r.received.map((x) => x.body.object_attributes)).toMatchObject([
      { action: 'create' },
      { action: 'update', content: 'Step 2', format: 'rdoc', message: 'dev updated page: Run Book' },
      { action: 'delete', message: 'maint deleted page: Run Book' },
    ]);
  });

  it('delivery: a hook without wiki_page_events, and a refused write, send nothing', async () => {
    const r = await listen();
    const fx = world({}, LOCAL_OK);
    await call(fx, 'POST', `${APP}/hooks`, 'maint', { url: r.url, issues_events: true });
    await call(fx, 'POST', `${APP}/wikis`, 'dev', { title: 'Quiet', content: 'x' });
    const refused = await call(fx, 'POST', `${APP}/wikis`, 'dev', { title: 'Quiet', content: 'again' });
    expect(refused.status).toBe(400);
    await deliveries(fx.clock).settled();
    expect(r.received).toEqual([]);
    const log = await body(await call(fx, 'GET', '/__fauxlab/deliveries'));
    expect(JSON.stringify(log)).not.toContain('wiki_page');
  });
});
