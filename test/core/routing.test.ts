import { describe, expect, it, vi } from 'vitest';
import { findProject } from '../../src/core/access.js';
import { write } from '../../src/core/context.js';
import { conflict, notModified } from '../../src/core/errors.js';
import { nextId } from '../../src/core/state.js';
import { json, world } from '../helpers.js';

const fx = world({
  routes: (r) => {
    r.get('/probe/:id', (c) => {
      const project = findProject(c, c.req.param('id')!);
      return c.json({ id: project.id, path_with_namespace: project.path_with_namespace });
    });
    r.get('/probe/:id/crash', () => {
      throw new Error('boom');
    });
    r.post('/probe/:id/star', (c) => {
      findProject(c, c.req.param('id')!);
      throw notModified();
    });
    r.post('/counter', (c) =>
      write(c, (d) => {
        nextId(d, 'counter');
        throw conflict('nope');
      }),
    );
    r.post('/twice', (c) => {
      write(c, (d) => void nextId(d, 'twice'));
      write(c, (d) => void nextId(d, 'twice'));
      return c.json({});
    });
  },
  logger: () => {},
});
const get = (path: string, headers: Record<string, string> = {}) => fx.app.request(path, { headers });

describe('routing', () => {
  it('GET /probe/:id (findProject): a numeric id and a URL-encoded full path find the same project', async () => {
    const a = await json(await get('/api/v4/probe/1'));
    const b = await json(await get('/api/v4/probe/acme%2Fwebsite'));
    expect(a).toEqual({ id: 1, path_with_namespace: 'acme/website' });
    expect(b).toEqual(a);
  });

  it('GET /probe/:id (findProject): an unencoded path is an unknown route', async () => {
    const res = await get('/api/v4/probe/acme/website');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
  });

  it('GET /probe/:id (findProject): a .json suffix, a trailing slash and an empty segment resolve to the route', async () => {
    for (const path of ['/api/v4/probe/1.json', '/api/v4/probe/1/', '/api/v4//probe/1']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
    }
  });

  it('unknown route: 404 {"error":"404 Not Found"} with the security headers', async () => {
    const res = await get('/api/v4/nothing/here');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("a known path with another method answers as an unknown route, as the platform's catch-all does", async () => {
    const res = await fx.app.request('/api/v4/probe/1/star', {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'alice-api' },
    });
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
  });

  it('OPTIONS on a known path: 204 with the Allow header', async () => {
    const res = await fx.app.request('/api/v4/user', { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('OPTIONS, GET, HEAD');
    expect(await res.text()).toBe('');
  });

  it('HEAD on a GET route: same status and headers, no body', async () => {
    const res = await fx.app.request('/api/v4/probe/1', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.text()).toBe('');
  });

  it('/api/v3: 410 with the platform message', async () => {
    const res = await get('/api/v3/projects');
    expect(res.status).toBe(410);
    expect(await json(res)).toEqual({ error: 'API V3 is no longer supported. Use API V4 instead.' });
  });

  it('a crash is a 500 {"message":"500 Internal Server Error"} and is logged', async () => {
    const logger = vi.fn();
    const local = world({ logger, routes: (r) => r.get('/crash', () => Promise.reject(new Error('boom'))) });
    const res = await local.app.request('/api/v4/crash');
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({ message: '500 Internal Server Error' });
    expect(logger).toHaveBeenCalledOnce();
  });

  it('304 helper: an empty 304 response', async () => {
    const res = await fx.app.request('/api/v4/probe/1/star', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'alice-api' },
    });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
  });
});

describe('visibility', () => {
  const cases: [string, string, number][] = [
    ['anonymous', 'acme%2Fwebsite', 200],
    ['anonymous', 'acme%2Fintranet', 404],
    ['anonymous', 'acme%2Fsecret%2Fvault', 404],
    ['bob-api', 'acme%2Fintranet', 200],
    ['bob-api', 'acme%2Fsecret%2Fvault', 404],
    ['alice-api', 'acme%2Fsecret%2Fvault', 200],
    ['alice-api', 'bob%2Fnotes', 404],
    ['bob-api', 'bob%2Fnotes', 200],
    ['root-api', 'bob%2Fnotes', 200],
  ];
  for (const [who, path, status] of cases) {
    it(`GET /probe/:id (findProject): ${status} for ${decodeURIComponent(path)} as ${who}`, async () => {
      const res = await get(`/api/v4/probe/${path}`, who === 'anonymous' ? {} : { 'PRIVATE-TOKEN': who });
      expect(res.status).toBe(status);
      if (status === 404) expect(await json(res)).toEqual({ message: '404 Project Not Found' });
    });
  }

  it('GET /probe/:id (findProject): a missing project and a hidden one answer byte-identically', async () => {
    const hidden = await (await get('/api/v4/probe/acme%2Fsecret%2Fvault')).text();
    const missing = await (await get('/api/v4/probe/999')).text();
    expect(hidden).toBe(missing);
  });

  it('GET /probe/:id (findProject): an internal project is hidden from external users, shown to internal ones', async () => {
    const local = world({
      routes: (r) => r.get('/probe/:id', (c) => c.json({ id: findProject(c, c.req.param('id')!).id })),
    });
    local.load({
      users: [
        { username: 'ext', external: true, tokens: [{ token: 'ext-api' }] },
        { username: 'int', tokens: [{ token: 'int-api' }] },
      ],
      groups: [{ path: 'g', visibility: 'public' }],
      projects: [{ path: 'g/inside', visibility: 'internal' }],
    });
    const as = (token: string) =>
      local.app.request('/api/v4/probe/g%2Finside', { headers: { 'PRIVATE-TOKEN': token } });
    expect((await as('ext-api')).status).toBe(404);
    expect((await as('int-api')).status).toBe(200);
  });
});

describe('the store', () => {
  it('a request that fails inside its write changes nothing', async () => {
    const before = fx.state;
    const res = await fx.app.request('/api/v4/counter', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'alice-api' },
    });
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({ message: 'nope' });
    expect(fx.state).toBe(before);
  });

  it('a second write in one request fails loudly instead of splitting the request', async () => {
    const res = await fx.app.request('/api/v4/twice', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'alice-api' },
    });
    expect(res.status).toBe(500);
  });

  it('two instances in one process never share state', async () => {
    const a = world();
    const b = world();
    a.load({ users: [{ username: 'only-in-a', tokens: [{ token: 't' }] }] });
    expect((await a.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 't' } })).status).toBe(200);
    expect((await b.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 't' } })).status).toBe(401);
  });

  it('snapshot and restore are O(1) references to immutable roots', () => {
    const s = fx.snapshot();
    expect(s.state).toBe(fx.state);
    expect(Object.isFrozen(fx.state.users)).toBe(true);
  });
});
