import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/core/context.js';
import { paginate, paginationParams } from '../../src/core/pagination.js';
import type { ParamValue } from '../../src/core/params.js';
import { parse, type ApiRouter } from '../../src/core/router.js';
import { createFauxlab } from '../../src/index.js';
import { fauxlabHandlers } from '../../src/msw/index.js';

const BASE = 'http://gitlab.test';
const OTHER = 'http://other.test:8080';

/** Files become a readable marker, so that the echo can be compared as JSON. */
async function plain(v: ParamValue): Promise<unknown> {
  if (v instanceof File) return `file:${v.name}:${await v.text()}`;
  if (Array.isArray(v)) return Promise.all(v.map(plain));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      await Promise.all(Object.entries(v).map(async ([k, x]) => [k, await plain(x)])),
    );
  return v;
}

async function echo(c: Ctx) {
  return c.json({
    method: c.req.method,
    path: new URL(c.req.url).pathname,
    id: c.req.param('id') ?? null,
    params: await plain(c.var.params),
    contentType: c.req.header('content-type') ?? null,
    custom: c.req.header('x-custom') ?? null,
    viewer: c.var.viewer.user?.username ?? null,
  });
}

/** Test-only routes: an echo of what the app received, and a paginated list. */
function testRoutes(r: ApiRouter) {
  for (const m of ['get', 'post', 'put', 'patch', 'delete'] as const)
    r[m]('/echo', { auth: 'optional' }, echo);
  r.get('/projects/:id/echo', echo);
  r.get('/things', (c) => {
    parse(c, { ...paginationParams });
    return paginate(c, [1, 2, 3, 4, 5], (n) => ({ n }));
  });
}

const scenario = (token: string) => ({ users: [{ username: 'root', admin: true, tokens: [{ token }] }] });
const fx = createFauxlab({ scenario: scenario('tok-a'), routes: testRoutes });
const other = createFauxlab({ scenario: scenario('tok-b'), routes: testRoutes });

const server = setupServer(
  ...fauxlabHandlers(fx, { baseUrl: BASE }),
  ...fauxlabHandlers(other, { baseUrl: OTHER }),
  // Whatever fauxlab does not take lands here, so that "not intercepted" is observable without a network.
  http.all('*', ({ request }) => HttpResponse.text(`fallback ${request.url}`, { status: 418 })),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  fx.reset();
  other.reset();
});
afterAll(() => server.close());

/** The same request straight into the app, for comparison. */
const direct = (url: string, init?: RequestInit) => fx.app.fetch(new Request(url, init));

async function snapshot(res: Response) {
  return { status: res.status, headers: [...res.headers.entries()], body: await res.text() };
}

describe('fauxlabHandlers: responses', () => {
  it('GET through MSW: status, headers (pagination included) and body are exactly the app’s', async () => {
    const url = `${BASE}/api/v4/things?per_page=2&page=2`;
    const viaMsw = await snapshot(await fetch(url, { headers: { 'PRIVATE-TOKEN': 'tok-a' } }));
    const viaApp = await snapshot(await direct(url, { headers: { 'PRIVATE-TOKEN': 'tok-a' } }));
    expect(viaMsw).toEqual(viaApp);
    const headers = new Headers(viaMsw.headers);
    expect(viaMsw.status).toBe(200);
    expect(headers.get('x-total')).toBe('5');
    expect(headers.get('x-page')).toBe('2');
    expect(headers.get('x-next-page')).toBe('3');
    expect(headers.get('link')).toContain(`<${BASE}/api/v4/things?page=3&per_page=2>; rel="next"`);
    expect(JSON.parse(viaMsw.body)).toEqual([{ n: 3 }, { n: 4 }]);
  });

  it('GET through MSW: an error keeps its status and byte-exact body', async () => {
    const res = await fetch(`${BASE}/api/v4/user`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe('{"message":"401 Unauthorized"}');
    const ok = await fetch(`${BASE}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'tok-a' } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).username).toBe('root');
  });

  it('GET through MSW: /oauth, /__fauxlab and the bare origin reach the app, not other handlers', async () => {
    for (const path of [
      '/oauth/token/info',
      '/oauth/authorize?client_id=x',
      '/__fauxlab/clock',
      '/',
      '',
      '/api/v3/user',
    ]) {
      // Not followed: the signed-out authorize request redirects to the sign-in page.
      const viaMsw = await snapshot(await fetch(`${BASE}${path}`, { redirect: 'manual' }));
      expect(viaMsw.status, path).not.toBe(418);
      expect(viaMsw, path).toEqual(await snapshot(await direct(`${BASE}${path}`)));
    }
    const clock = await fetch(`${BASE}/__fauxlab/clock`);
    expect(await clock.json()).toEqual({ now: fx.clock.iso() });
  });
});

describe('fauxlabHandlers: requests arrive intact', () => {
  it('POST JSON: method, headers and nested body arrive', async () => {
    const res = await fetch(`${BASE}/api/v4/echo?q=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Custom': 'yes', 'PRIVATE-TOKEN': 'tok-a' },
      body: JSON.stringify({ name: 'x', nested: { list: [1, 2], flag: true } }),
    });
    expect(await res.json()).toEqual({
      method: 'POST',
      path: '/api/v4/echo',
      id: null,
      params: { q: '1', name: 'x', nested: { list: [1, 2], flag: true } },
      contentType: 'application/json',
      custom: 'yes',
      viewer: 'root',
    });
  });

  it('POST form-urlencoded: Rack-style nested names arrive', async () => {
    const res = await fetch(`${BASE}/api/v4/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'variables[][key]=K&variables[][value]=V&name=a+b%26c',
    });
    const body = await res.json();
    expect(body.contentType).toBe('application/x-www-form-urlencoded');
    expect(body.params).toEqual({ variables: [{ key: 'K', value: 'V' }], name: 'a b&c' });
  });

  it('PUT multipart: fields and a file arrive', async () => {
    const form = new FormData();
    form.append('bio', 'hello');
    form.append('avatar', new File(['PNGDATA'], 'a.png', { type: 'image/png' }));
    const res = await fetch(`${BASE}/api/v4/echo`, { method: 'PUT', body: form });
    const body = await res.json();
    expect(body.method).toBe('PUT');
    expect(body.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(body.params).toEqual({ bio: 'hello', avatar: 'file:a.png:PNGDATA' });
  });

  it('PATCH and DELETE with a JSON body (as gitbeaker sends `{}` on DELETE) arrive', async () => {
    for (const method of ['PATCH', 'DELETE']) {
      const res = await fetch(`${BASE}/api/v4/echo`, {
        method,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ k: method }),
      });
      expect(await res.json()).toMatchObject({ method, params: { k: method } });
    }
  });

  it('GET /projects/group%2Fproject: the path stays encoded as sent; the decoded form is another route', async () => {
    const res = await fetch(`${BASE}/api/v4/projects/group%2Fsub%2Fproject/echo`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      path: '/api/v4/projects/group%2Fsub%2Fproject/echo',
      id: 'group/sub/project',
    });

    const decoded = await fetch(`${BASE}/api/v4/projects/group/sub/project/echo`);
    expect(decoded.status).toBe(404);
    expect(await decoded.text()).toBe('{"error":"404 Not Found"}');
  });

  it('GET with a malformed escape (%zz) still reaches the app and gets the app’s answer', async () => {
    const url = `${BASE}/api/v4/projects/a%zz/echo`;
    const viaMsw = await snapshot(await fetch(url));
    expect(viaMsw.status).not.toBe(418);
    expect(viaMsw).toEqual(await snapshot(await direct(url)));
  });
});

describe('fauxlabHandlers: origins', () => {
  it('requests to other origins (port, scheme, look-alike or sub-domain host) are not intercepted', async () => {
    for (const url of [
      'http://gitlab.test:8080/api/v4/user',
      'https://gitlab.test/api/v4/user',
      'http://gitlab.test.evil.com/api/v4/user',
      'http://api.gitlab.test/api/v4/user',
      'http://other.test/api/v4/user',
      'http://other.test:8081/api/v4/user',
    ]) {
      const res = await fetch(url, { headers: { 'PRIVATE-TOKEN': 'tok-a' } });
      expect(res.status, url).toBe(418);
      expect(await res.text()).toBe(`fallback ${url}`);
    }
  });

  it('two instances on two origins in one process keep separate state and links', async () => {
    const a = await fetch(`${BASE}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'tok-a' } });
    const b = await fetch(`${OTHER}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'tok-a' } });
    expect([a.status, b.status]).toEqual([200, 401]);
    expect((await fetch(`${OTHER}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'tok-b' } })).status).toBe(200);

    const before = fx.clock.iso();
    const moved = await fetch(`${OTHER}/__fauxlab/clock`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ advance: '2h' }),
    });
    expect(moved.status).toBe(200);
    expect(other.clock.ms() - fx.clock.ms()).toBe(2 * 3600_000);
    expect(await (await fetch(`${BASE}/__fauxlab/clock`)).json()).toEqual({ now: before });

    const link = (await fetch(`${OTHER}/api/v4/things?per_page=2`)).headers.get('link');
    expect(link).toContain(`<${OTHER}/api/v4/things?page=2&per_page=2>; rel="next"`);
  });

  it('baseUrl: a trailing slash or a default port is the same origin; a path or another scheme is refused', async () => {
    const local = createFauxlab({ scenario: scenario('t') });
    server.use(...fauxlabHandlers(local, { baseUrl: 'http://local.test:80/' }));
    try {
      const res = await fetch('http://local.test/api/v4/user', { headers: { 'PRIVATE-TOKEN': 't' } });
      expect(res.status).toBe(200);
    } finally {
      server.resetHandlers();
    }
    expect(() => fauxlabHandlers(local, { baseUrl: 'http://local.test/gitlab' })).toThrow(TypeError);
    expect(() => fauxlabHandlers(local, { baseUrl: 'http://local.test/?x=1' })).toThrow(TypeError);
    expect(() => fauxlabHandlers(local, { baseUrl: 'ftp://local.test' })).toThrow(TypeError);
    expect(() => fauxlabHandlers(local, { baseUrl: 'gitlab.test' })).toThrow(TypeError);
  });
});
