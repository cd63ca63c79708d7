import { describe, expect, it } from 'vitest';
import { call, send, world } from './world.js';

describe('GET /version', () => {
  it('GET /version: the last 13.x release and a revision on the free tier', async () => {
    const r = await send(world(), 'GET', '/version', 'outsider');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ version: '13.12.15', revision: expect.stringMatching(/^[0-9a-f]{11}$/) });
    expect(Object.keys(r.body)).toEqual(['version', 'revision']);
  });

  it('GET /version: -ee on the paid tiers', async () => {
    expect((await send(world({ tier: 'premium' }), 'GET', '/version', 'dev')).body.version).toBe(
      '13.12.15-ee',
    );
    expect((await send(world({ tier: 'ultimate' }), 'GET', '/version', 'dev')).body.version).toBe(
      '13.12.15-ee',
    );
  });

  it('GET /version: the version option replaces the default, -ee still added once on paid tiers', async () => {
    expect((await send(world({ version: '13.12.3' }), 'GET', '/version', 'dev')).body.version).toBe(
      '13.12.3',
    );
    expect(
      (await send(world({ version: '13.12.3', tier: 'premium' }), 'GET', '/version', 'dev')).body.version,
    ).toBe('13.12.3-ee');
    expect(
      (await send(world({ version: '13.12.3-ee', tier: 'premium' }), 'GET', '/version', 'dev')).body.version,
    ).toBe('13.12.3-ee');
  });

  it('GET /version: 401 without a user; read_user and read_api tokens may read it', async () => {
    const fx = world();
    expect(await send(fx, 'GET', '/version')).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    expect((await send(fx, 'GET', '/version', 'root-user')).status).toBe(200);
    expect((await send(fx, 'GET', '/version', 'outsider-read')).status).toBe(200);
  });
});

describe('GET /metadata', () => {
  it('GET /metadata: version, revision, kas and whether the edition is enterprise', async () => {
    expect((await send(world(), 'GET', '/metadata', 'dev')).body).toEqual({
      version: '13.12.15',
      revision: expect.any(String),
      kas: { enabled: false, externalUrl: null, version: null },
      enterprise: false,
    });
    const paid = await send(world({ tier: 'premium' }), 'GET', '/metadata', 'dev');
    expect(paid.body).toMatchObject({ version: '13.12.15-ee', enterprise: true });
    expect((await send(world(), 'GET', '/metadata')).status).toBe(401);
  });
});

describe('GET /license', () => {
  it('GET /license: an unknown route on the free tier', async () => {
    expect(await send(world(), 'GET', '/license', 'root')).toMatchObject({
      status: 404,
      body: { error: '404 Not Found' },
    });
  });

  it('GET /license: the license of the tier, with the active users counted, for admins', async () => {
    const r = await send(world({ tier: 'ultimate' }), 'GET', '/license', 'root');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: 1,
      plan: 'ultimate',
      created_at: '2021-01-01T00:00:00.000Z',
      starts_at: '2021-01-01',
      expires_at: '2022-01-01',
      historical_max: 5,
      maximum_user_count: 5,
      licensee: { Name: 'fauxlab', Email: 'admin@example.com', Company: 'fauxlab' },
      add_ons: {},
      expired: false,
      overage: 0,
      user_limit: 0,
      active_users: 5,
    });
    expect((await send(world({ tier: 'premium' }), 'GET', '/license', 'root')).body.plan).toBe('premium');
  });

  it('GET /license: blocked users are not active users', async () => {
    const fx = world({ tier: 'premium' });
    expect((await call(fx, 'POST', '/users/5/block', 'root')).status).toBe(201);
    expect((await send(fx, 'GET', '/license', 'root')).body.active_users).toBe(4);
  });

  it('GET /license: 401 anonymous, 403 for other users', async () => {
    const fx = world({ tier: 'premium' });
    expect((await send(fx, 'GET', '/license')).status).toBe(401);
    expect(await send(fx, 'GET', '/license', 'owner')).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
  });
});

describe('HEAD', () => {
  it('HEAD /projects: the headers of GET, X-Total and Link included, without a body', async () => {
    const fx = world();
    const get = await call(fx, 'GET', '/projects?per_page=1', 'root');
    const head = await call(fx, 'HEAD', '/projects?per_page=1', 'root');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('X-Total')).toBe('3');
    for (const h of [
      'X-Total',
      'X-Total-Pages',
      'X-Per-Page',
      'X-Page',
      'X-Next-Page',
      'X-Prev-Page',
      'Link',
    ])
      expect(head.headers.get(h), h).toBe(get.headers.get(h));
    expect(head.headers.get('Link')).toContain('rel="next"');
  });

  it('HEAD: the same status as GET for errors and other lists', async () => {
    // At 14.5, whose Topics API gives a list of its own.
    const fx = world({ version: '14.5' });
    expect((await call(fx, 'HEAD', '/projects/acme%2Fapp')).status).toBe(404);
    expect((await call(fx, 'HEAD', '/version')).status).toBe(401);
    const topics = await call(fx, 'HEAD', '/topics');
    expect(topics.headers.get('X-Total')).toBe('4');
    expect(await topics.text()).toBe('');
    const vars = await call(fx, 'HEAD', '/admin/ci/variables', 'root');
    expect(vars.headers.get('X-Total')).toBe('3');
  });
});
