import { describe, expect, it } from 'vitest';
import type { ApiRouter } from '../../src/core/router.js';
import { createFauxlab } from '../../src/index.js';
import { Journal } from '../../src/testing/journal.js';
import { json, smallWorld, world } from '../helpers.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-sudo' };

/** A route that answers secrets, as token-creating endpoints do. */
const secretRoute = (r: ApiRouter) =>
  r.post('/test/secret', { auth: 'optional' }, (c) =>
    c.json(
      { id: 1, token: 'glpat-very-secret', token_expires_at: '2030-01-01', nested: { password: 'pw' } },
      201,
    ),
  );

describe('request journal', () => {
  it('records method, path, query, headers, body, status, response, route, user and duration', async () => {
    const fx = world({ journal: { responseBodies: 'all' } });
    const res = await fx.app.request('/api/v4/users?per_page=2&labels[]=a&labels[]=b', {
      headers: { ...ROOT, 'X-Custom': 'yes' },
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    const [e] = fx.requests();
    expect(e).toMatchObject({
      id: 1,
      at: '2021-03-01T12:00:00.000Z',
      method: 'GET',
      path: '/api/v4/users',
      query: { per_page: '2', labels: ['a', 'b'] },
      status: 200,
      route: 'GET /api/v4/users',
      user: 'root',
    });
    expect(e!.headers['x-custom']).toBe('yes');
    expect(e!.responseHeaders['x-total']).toBe('4');
    expect(e!.responseBody).toBe(body);
    expect(e!.durationMs).toBeGreaterThanOrEqual(0);
    expect(e!.body).toBeUndefined();
  });

  it('the response a client gets is unchanged by the recording', async () => {
    const on = world();
    const off = world({ journal: false });
    const get = (fx: typeof on) => fx.app.request('/api/v4/users/2', { headers: ROOT });
    const [a, b] = [await get(on), await get(off)];
    expect(a.status).toBe(b.status);
    expect([...a.headers]).toEqual([...b.headers]);
    expect(await a.text()).toBe(await b.text());
  });

  it('never records credentials: headers, token params, and password/secret/token fields', async () => {
    const fx = createFauxlab({
      scenario: smallWorld,
      routes: secretRoute,
      journal: { responseBodies: 'all' },
    });
    await fx.app.request('/api/v4/user?private_token=root-api&access_token=x&job_token=y', {
      headers: { Authorization: 'Bearer root-api', 'JOB-TOKEN': 'j', Cookie: 'session=abc', Sudo: 'alice' },
    });
    await fx.app.request('/api/v4/users', {
      method: 'POST',
      headers: { ...ROOT, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        username: 'newbie',
        name: 'New',
        email: 'new@example.com',
        password: 'hunter2hunter2',
        reset_password: false,
        token_expires_at: '2030-01-01',
      }),
    });
    await fx.app.request('/api/v4/test/secret', { method: 'POST' });
    const text = JSON.stringify(fx.requests());
    for (const secret of [
      'root-api',
      'root-sudo',
      'hunter2hunter2',
      'session=abc',
      'glpat-very-secret',
      '"pw"',
    ])
      expect(text).not.toContain(secret);
    const [get, post, secret] = fx.requests();
    expect(get!.headers).toMatchObject({
      authorization: '[FILTERED]',
      'job-token': '[FILTERED]',
      cookie: '[FILTERED]',
      sudo: 'alice',
    });
    expect(get!.query).toEqual({
      private_token: '[FILTERED]',
      access_token: '[FILTERED]',
      job_token: '[FILTERED]',
    });
    expect(post!.body).toMatchObject({
      password: '[FILTERED]',
      reset_password: false,
      token_expires_at: '2030-01-01',
    });
    expect(post!.headers['private-token']).toBe('[FILTERED]');
    expect(JSON.parse(secret!.responseBody!)).toEqual({
      id: 1,
      token: '[FILTERED]',
      token_expires_at: '2030-01-01',
      nested: { password: '[FILTERED]' },
    });
  });

  it('records form and multipart bodies parsed, files as name, type and size', async () => {
    const fx = world();
    await fx.app.request('/api/v4/users/2', {
      method: 'PUT',
      headers: { ...ROOT, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'bio=hello&password=secret123&skills[]=a',
    });
    const form = new FormData();
    form.set('bio', 'from a form');
    form.set('avatar', new File(['x'.repeat(10)], 'me.png', { type: 'image/png' }));
    await fx.app.request('/api/v4/users/2', { method: 'PUT', headers: ROOT, body: form });
    const [a, b] = fx.requests();
    expect(a!.body).toEqual({ bio: 'hello', password: '[FILTERED]', skills: ['a'] });
    expect(b!.body).toEqual({ bio: 'from a form', avatar: { file: 'me.png', type: 'image/png', size: 10 } });
  });

  it('the handler still sees the whole body the journal read', async () => {
    const fx = world();
    const res = await fx.app.request('/api/v4/users', {
      method: 'POST',
      headers: { ...ROOT, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        username: 'zed',
        name: 'Zed',
        email: 'zed@example.com',
        password: 'password123',
      }),
    });
    expect(res.status).toBe(201);
    expect((await json(res)).username).toBe('zed');
    expect(fx.requests.last()!.body).toMatchObject({ username: 'zed' });
  });

  it('records error bodies by default and success bodies only when asked', async () => {
    const fx = world();
    await fx.app.request('/api/v4/users', { headers: ROOT });
    await fx.app.request('/api/v4/users/999', { headers: ROOT });
    const [ok, missing] = fx.requests();
    expect(ok!.status).toBe(200);
    expect(ok!.responseBody).toBeUndefined();
    expect(missing!.status).toBe(404);
    expect(JSON.parse(missing!.responseBody!)).toEqual({ message: '404 User Not Found' });
    const none = world({ journal: { responseBodies: 'none' } });
    await none.app.request('/api/v4/users/999', { headers: ROOT });
    expect(none.requests.last()!.responseBody).toBeUndefined();
  });

  it('caps bodies at bodyLimit and says which were cut', async () => {
    const fx = world({ journal: { bodyLimit: 50, responseBodies: 'all' } });
    await fx.app.request('/api/v4/users/2', {
      method: 'PUT',
      headers: { ...ROOT, 'Content-Type': 'application/json' },
      body: JSON.stringify({ bio: 'b'.repeat(500), password: 'p'.repeat(500) }),
    });
    const e = fx.requests.last()!;
    expect(e.truncated).toEqual(['body', 'responseBody']);
    expect(e.body).toBe(JSON.stringify({ bio: 'b'.repeat(500), password: '[FILTERED]' }).slice(0, 50));
    expect(e.responseBody).toHaveLength(50);
  });

  it('HEAD and 204 responses have no response body; unknown routes have no route', async () => {
    const fx = world();
    await fx.app.request('/api/v4/users/2', { method: 'HEAD', headers: ROOT });
    await fx.app.request('/api/v4/nothing/here');
    const [head, none] = fx.requests();
    expect(head).toMatchObject({ method: 'HEAD', status: 200, route: 'GET /api/v4/users/:id' });
    expect(head!.responseBody).toBeUndefined();
    expect(none).toMatchObject({ status: 404, route: null, user: null, explain: 'no such route' });
  });

  it('records the acting user after sudo, and who used sudo', async () => {
    const fx = world();
    await fx.app.request('/api/v4/user', { headers: { ...ROOT, Sudo: 'alice' } });
    expect(fx.requests.last()).toMatchObject({ user: 'alice', sudoFrom: 'root' });
  });

  it('keeps the last `size` entries: a ring buffer', async () => {
    const fx = world({ journal: 5 });
    for (let i = 0; i < 23; i++) await fx.app.request(`/api/v4/users/${(i % 4) + 1}`, { headers: ROOT });
    const entries = fx.requests();
    expect(entries.map((e) => e.id)).toEqual([19, 20, 21, 22, 23]);
    expect(fx.requests.size).toBe(5);
    expect(fx.requests.capacity).toBe(5);
  });

  it('stays at its cap (1,000 by default) after many requests', async () => {
    const fx = world();
    for (let i = 0; i < 2500; i++) await fx.fetch(new Request('http://x/api/v4/version'));
    expect(fx.requests.size).toBe(1000);
    expect(fx.requests()[0]!.id).toBe(1501);
    expect(fx.requests.last()!.id).toBe(2500);
  });

  it('filters by method, path pattern, status, since and limit', async () => {
    const fx = world();
    await fx.app.request('/api/v4/users/1', { headers: ROOT });
    await fx.app.request('/api/v4/users/999', { headers: ROOT });
    fx.clock.advance(60_000);
    await fx.app.request('/api/v4/users/2/block', { method: 'POST', headers: ROOT });
    await fx.app.request('/api/v4/users', { headers: ROOT });
    const ids = (f: Parameters<typeof fx.requests>[0]) => fx.requests(f).map((e) => e.id);
    expect(ids({ method: 'post' })).toEqual([3]);
    expect(ids({ method: ['GET', 'POST'] })).toEqual([1, 2, 3, 4]);
    expect(ids({ path: '/api/v4/users/:id' })).toEqual([1, 2]);
    expect(ids({ path: '/api/v4/users/**' })).toEqual([1, 2, 3, 4]);
    expect(ids({ path: '/api/v4/users/*/block' })).toEqual([3]);
    expect(ids({ path: /block$/ })).toEqual([3]);
    expect(ids({ status: 404 })).toEqual([2]);
    expect(ids({ status: '2xx' })).toEqual([1, 3, 4]);
    expect(ids({ status: [404, 201] })).toEqual([2, 3]);
    expect(ids({ since: 2 })).toEqual([3, 4]);
    expect(ids({ since: '2021-03-01T12:01:00Z' })).toEqual([3, 4]);
    expect(ids({ limit: 2 })).toEqual([3, 4]);
    expect(ids({ method: 'GET', limit: 1 })).toEqual([4]);
    expect(fx.requests.last({ status: 404 })!.id).toBe(2);
  });

  it('clear() empties it and ids go on; reset() starts again from 1', async () => {
    const fx = world();
    await fx.app.request('/api/v4/version');
    await fx.app.request('/api/v4/version');
    fx.requests.clear();
    expect(fx.requests()).toEqual([]);
    await fx.app.request('/api/v4/version');
    expect(fx.requests()[0]!.id).toBe(3);
    fx.reset();
    expect(fx.requests()).toEqual([]);
    await fx.app.request('/api/v4/version');
    expect(fx.requests()[0]!.id).toBe(1);
  });

  it('can be switched off', async () => {
    const fx = world({ journal: false });
    await fx.app.request('/api/v4/users', { headers: ROOT });
    expect(fx.requests()).toEqual([]);
    expect(fx.requests.capacity).toBe(0);
  });

  it('entries are frozen', async () => {
    const fx = world();
    await fx.app.request('/api/v4/version');
    expect(Object.isFrozen(fx.requests()[0])).toBe(true);
  });
});

describe('Journal (ring buffer)', () => {
  const entry = { at: '2021-01-01T00:00:00Z', method: 'GET', path: '/', query: {}, headers: {} };
  const add = (j: Journal) =>
    j.add({ ...entry, status: 200, responseHeaders: {}, durationMs: 0, route: null, user: null });

  it('holds at most its capacity, oldest first', () => {
    const j = new Journal({ size: 3 });
    for (let i = 0; i < 10; i++) add(j);
    expect(j.list().map((e) => e.id)).toEqual([8, 9, 10]);
  });

  it('refuses a negative or fractional size', () => {
    expect(() => new Journal({ size: -1 })).toThrow(RangeError);
    expect(() => new Journal({ size: 1.5 })).toThrow(RangeError);
  });

  it('a bad since is an error, not an empty list', () => {
    const j = new Journal();
    expect(() => j.list({ since: 'yesterday' })).toThrow(/since/);
  });
});

describe('request journal: refused bodies', () => {
  it('a body the cap refuses (413) is recorded, its body marked truncated and never read', async () => {
    const fx = world({ maxBodySize: 100, journal: { responseBodies: 'all' } });
    const body = JSON.stringify({ username: 'x'.repeat(500) });
    const res = await fx.app.request('/api/v4/users', {
      method: 'POST',
      headers: { ...ROOT, 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
      body,
    });
    expect(res.status).toBe(413);
    const [e] = fx.requests();
    expect(e).toMatchObject({ method: 'POST', path: '/api/v4/users', status: 413, truncated: ['body'] });
    expect(e!.body).toBeUndefined();
    expect(e!.responseBody).toBe('{"message":"413 Request Entity Too Large"}');
  });
});

describe('GET /__fauxlab/requests, DELETE /__fauxlab/requests', () => {
  it('lists entries with the same filters, as query params, and leaves itself out', async () => {
    const fx = world();
    await fx.app.request('/api/v4/users/1', { headers: ROOT });
    await fx.app.request('/api/v4/users/999', { headers: ROOT });
    await fx.app.request('/api/v4/users', { method: 'POST', headers: ROOT });
    let res = await fx.app.request('/__fauxlab/requests');
    expect(res.status).toBe(200);
    expect((await json(res)).map((e: { id: number }) => e.id)).toEqual([1, 2, 3]);
    res = await fx.app.request('/__fauxlab/requests?method=GET&path=/api/v4/users/:id&status=4xx');
    const list = await json(res);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: 2, status: 404, explain: 'no user 999' });
    expect(res.headers.get('X-Total')).toBe('1');
    res = await fx.app.request('/__fauxlab/requests?since=1&limit=1');
    expect((await json(res)).map((e: { id: number }) => e.id)).toEqual([3]);
    expect(fx.requests()).toHaveLength(3);
  });

  it('a bad filter is a 400 naming it', async () => {
    const fx = world();
    for (const q of ['since=yesterday', 'status=4x', 'limit=-1']) {
      const res = await fx.app.request(`/__fauxlab/requests?${q}`);
      expect(res.status, q).toBe(400);
      expect((await json(res)).message).toMatch(new RegExp(`^${q.split('=')[0]}`));
    }
  });

  it('DELETE empties the journal', async () => {
    const fx = world();
    await fx.app.request('/api/v4/version');
    const res = await fx.app.request('/__fauxlab/requests', { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(fx.requests()).toEqual([]);
  });

  it('with the control plane off, /__fauxlab requests are ordinary unknown routes and are recorded', async () => {
    const fx = world({ controlPlane: false });
    const res = await fx.app.request('/__fauxlab/requests');
    expect(res.status).toBe(404);
    expect(fx.requests()).toHaveLength(1);
  });
});
