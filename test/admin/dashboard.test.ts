import { describe, expect, it } from 'vitest';
import { controlPlane } from '../../src/admin/control.js';
import { curlCommand } from '../../src/admin/dashboard/curl.js';
import { renderablePath } from '../../src/admin/dashboard/render.js';
import { createFauxlab } from '../../src/index.js';
import { defaultResolver } from '../../src/core/url-blocker.js';
import { deliveries } from '../../src/resources/integrations/delivery.js';
import type { JournalEntry } from '../../src/testing/journal.js';
import { localServers, smallWorld, world } from '../helpers.js';

const listen = localServers();

const HTML = { Accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
const page = async (fx: ReturnType<typeof world>, query = '', headers: Record<string, string> = {}) => {
  const res = await fx.app.request(`/__fauxlab/${query}`, { headers: { ...HTML, ...headers } });
  return { res, text: await res.text() };
};
const EVIL = '<script>alert(1)</script>';

describe('dashboard: JSON index', () => {
  it('GET /__fauxlab/: a JSON index of every control-plane endpoint when Accept has no text/html', async () => {
    const fx = world();
    for (const accept of [undefined, 'application/json', '*/*']) {
      const res = await fx.app.request('/__fauxlab/', accept ? { headers: { Accept: accept } } : {});
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as {
        dashboard: string;
        endpoints: { method: string; path: string; description: string | null }[];
      };
      expect(body.dashboard).toBe('/__fauxlab/');
      const listed = body.endpoints.map((e) => `${e.method} ${e.path}`).sort();
      const routes = [
        ...new Set(
          controlPlane()
            .routes.filter((r) => r.method !== 'ALL')
            .map((r) => `${r.method} ${r.path === '/' ? '/__fauxlab' : `/__fauxlab${r.path}`}`),
        ),
      ].sort();
      expect(listed).toEqual(routes);
      expect(listed).toContain('POST /__fauxlab/snapshots/:name/restore');
      for (const e of body.endpoints)
        expect(e.description, `${e.method} ${e.path}`).toEqual(expect.any(String));
    }
  });

  it('GET /__fauxlab (no trailing slash): the same index', async () => {
    const res = await world().app.request('/__fauxlab');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { dashboard: string }).dashboard).toBe('/__fauxlab/');
  });
});

describe('dashboard: HTML', () => {
  it('GET /__fauxlab/: HTML for a browser, with a Content-Security-Policy and only its own assets', async () => {
    const fx = world();
    const { res, text } = await page(fx);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(text).toContain('<main id="main"');
    expect(text).toContain('<nav aria-label="Dashboard views">');
    expect(text).toContain('<h1>Requests</h1>');
    // No external asset and no inline script: only the page's own script and stylesheet.
    expect([...text.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script src="/__fauxlab/dashboard.js" defer>',
    ]);
    expect(text).not.toMatch(/(src|href)="https?:/);
    const js = await fx.app.request('/__fauxlab/dashboard.js');
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await js.text()).toContain("'Content-Type': 'application/json'");
    const css = await fx.app.request('/__fauxlab/dashboard.css');
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('GET /__fauxlab/?view=...: each view has its heading; an unknown view shows the requests', async () => {
    const fx = world();
    for (const [view, heading] of [
      ['world', 'World'],
      ['clock', 'Clock'],
      ['faults', 'Faults'],
      ['snapshots', 'Snapshots'],
      ['deliveries', 'Deliveries'],
      ['nonsense', 'Requests'],
    ]) {
      const { res, text } = await page(fx, `?view=${view}`);
      expect(res.status).toBe(200);
      expect(text).toContain(`<h1>${heading}</h1>`);
    }
  });

  it('requests view: newest first, with status, user and the reason of a 404; filters by status and user', async () => {
    const fx = world();
    await fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'alice-api' } });
    await fx.app.request('/api/v4/projects/acme%2Fsecret%2Fvault', {
      headers: { 'PRIVATE-TOKEN': 'bob-api' },
    });
    await fx.app.request('/api/v4/version', { headers: { 'PRIVATE-TOKEN': 'root-api' } });
    const { text } = await page(fx, '?view=requests');
    const ids = [...text.matchAll(/<tbody class="entry" data-id="(\d+)">/g)].map((m) => Number(m[1]));
    expect(ids).toEqual([3, 2, 1]);
    expect(text).toContain('<td class="status">404</td>');
    expect(text).toMatch(/<strong>Why 404:<\/strong> project hidden from this viewer/);
    const only404 = await page(fx, '?view=requests&status=4xx');
    expect([...only404.text.matchAll(/data-id="(\d+)"/g)].map((m) => m[1])).toEqual(['2']);
    const alice = await page(fx, '?view=requests&user=ALICE');
    expect([...alice.text.matchAll(/data-id="(\d+)"/g)].map((m) => m[1])).toEqual(['1']);
    const text2 = await page(fx, '?view=requests&path=version');
    expect([...text2.text.matchAll(/data-id="(\d+)"/g)].map((m) => m[1])).toEqual(['3']);
    const pattern = await page(fx, '?view=requests&path=/api/v4/projects/**&method=GET');
    expect([...pattern.text.matchAll(/data-id="(\d+)"/g)].map((m) => m[1])).toEqual(['2']);
    const bad = await page(fx, '?view=requests&status=abc');
    expect(bad.res.status).toBe(200);
    expect(bad.text).toContain('status: abc is not a status or a class such as 4xx');
  });

  it('requests view: each path with its query string (credentials filtered), a long one cut with the whole in its tooltip', async () => {
    const fx = world();
    await fx.app.request('/api/v4/projects?search=vault&order_by=id&private_token=root-api', {
      headers: { 'PRIVATE-TOKEN': 'alice-api' },
    });
    const long = `/api/v4/projects?search=${'x'.repeat(200)}`;
    await fx.app.request(long);
    const { text } = await page(fx, '?view=requests');
    expect(text).toContain(
      '<td class="path" title="/api/v4/projects?search=vault&amp;order_by=id&amp;private_token=%5BFILTERED%5D">/api/v4/projects?search=vault&amp;order_by=id&amp;private_token=%5BFILTERED%5D</td>',
    );
    expect(text).toContain('Details of request 1: GET /api/v4/projects?search=vault&amp;order_by=id');
    expect(text).not.toContain('root-api');
    const cell = /<td class="path" title="([^"]*)">([^<]*)<\/td>/.exec(
      text.slice(text.indexOf('data-id="2"')),
    )!;
    expect(cell[1]).toBe(long);
    expect([...cell[2]!].length).toBe(120);
    expect(cell[2]!.endsWith('…')).toBe(true);
    expect(long.startsWith(cell[2]!.slice(0, -1))).toBe(true);
  });

  it('requests view: the rows fragment holds only entries after `since`, and names the last id', async () => {
    const fx = world();
    await fx.app.request('/api/v4/version');
    await fx.app.request('/api/v4/projects');
    const res = await fx.app.request('/__fauxlab/?view=requests&fragment=rows&since=1', { headers: HTML });
    expect(res.headers.get('x-fauxlab-last')).toBe('2');
    const text = await res.text();
    expect(text.startsWith('<tbody')).toBe(true);
    expect([...text.matchAll(/data-id="(\d+)"/g)].map((m) => m[1])).toEqual(['2']);
  });

  it('escapes everything user-controlled: usernames, names, paths, bodies and rendered records hold <script> as text', async () => {
    const fx = createFauxlab({
      scenario: {
        ...smallWorld,
        users: [...smallWorld.users!, { username: 'evil', name: EVIL, bio: EVIL }],
        projects: [...smallWorld.projects!, { path: 'acme/evil', description: EVIL, visibility: 'public' }],
      },
    });
    await fx.app.request(`/api/v4/${encodeURIComponent(EVIL)}`);
    await fx.app.request(`/api/v4/x<script>y</script>`);
    await fx.app.request('/api/v4/projects', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: EVIL, path: 'p' }),
    });
    const evilId = (await (await fx.app.request('/api/v4/users?username=evil')).json())[0].id;
    for (const query of [
      '?view=requests',
      '?view=world&list=users',
      `?view=world&api=/users/${evilId}`,
      '?view=world&api=/projects/acme%252Fevil&as=alice',
      `?view=world&api=${encodeURIComponent(`/${EVIL}`)}&as=${encodeURIComponent(EVIL)}`,
    ]) {
      const { text } = await page(fx, query);
      expect(text, query).not.toContain('<script>alert');
      expect(text, query).not.toContain('<script>y');
      const scripts = [...text.matchAll(/<script[^>]*>/g)];
      expect(scripts, query).toHaveLength(1);
    }
    expect((await page(fx, '?view=world&list=users')).text).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt;',
    );
    expect((await page(fx, `?view=world&api=/users/${evilId}`)).text).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt;',
    );
  });

  it('world view: counts per area and the projects, users and groups of the world', async () => {
    const fx = world();
    const { text } = await page(fx, '?view=world');
    expect(text).toContain('<dt>Users</dt><dd>4</dd>');
    expect(text).toContain('<dt>Projects</dt><dd>4</dd>');
    expect(text).toContain('<dt>Access tokens</dt><dd>10</dd>');
    expect(text).toContain('acme/secret/vault');
    expect((await page(fx, '?view=world&list=users')).text).toContain('>mallory</a>');
    expect((await page(fx, '?view=world&list=groups')).text).toContain('>acme/secret</a>');
  });

  it('world view: a record as the API renders it for the chosen user, without touching the instance', async () => {
    const fx = world();
    const vault = (
      await (
        await fx.app.request('/api/v4/projects/acme%2Fsecret%2Fvault', {
          headers: { 'PRIVATE-TOKEN': 'root-api' },
        })
      ).json()
    ).id;
    fx.requests.clear();
    const before = fx.state;
    const asBob = await page(fx, `?view=world&api=/projects/${vault}&as=bob`);
    expect(asBob.text).toContain('<strong class="render-status">404</strong>');
    expect(asBob.text).toContain('404 Project Not Found');
    // With no user asked for, the first admin.
    const asAdmin = await page(fx, `?view=world&api=/projects/${vault}`);
    expect(asAdmin.text).toContain('<strong class="render-status">200</strong>');
    expect(asAdmin.text).toContain('&quot;path_with_namespace&quot;: &quot;acme/secret/vault&quot;');
    const anonymous = await page(fx, `?view=world&api=/projects/${vault}&as=`);
    expect(anonymous.text).toContain('GET /api/v4/projects/' + vault + ' anonymously');
    expect(anonymous.text).toContain('<strong class="render-status">404</strong>');
    const blocked = await page(fx, '?view=world&api=/user&as=mallory');
    expect(blocked.text).toContain('<strong class="render-status">403</strong>');
    const me = await page(fx, '?view=world&api=/user&as=alice');
    expect(me.text).toContain('&quot;username&quot;: &quot;alice&quot;');
    expect(fx.state).toBe(before);
    expect(fx.requests()).toHaveLength(0);
    const unknown = await page(fx, '?view=world&api=/user&as=nobody');
    expect(unknown.text).toContain('No such user.');
    const escape = await page(fx, '?view=world&api=/../../__fauxlab/state');
    expect(escape.text).toContain('give an API path such as /projects/1');
  });

  it('world view: a project page lists its issues, merge requests and pipelines, the pipelines as they stand now', async () => {
    const fx = createFauxlab({
      scenario: {
        ...smallWorld,
        projects: [
          {
            path: 'acme/website',
            visibility: 'public',
            issues: [
              { title: 'First <b>issue</b>', author: 'alice' },
              { title: 'Second', author: 'alice' },
            ],
            merge_requests: [{ title: 'Fix it', author: 'alice', source_branch: 'fix' }],
            pipelines: [{ status: 'pending', duration: 60 }],
          },
        ],
      },
    });
    const pid = (await (await fx.app.request('/api/v4/projects/acme%2Fwebsite')).json()).id;
    const shown = async () => (await page(fx, `?view=world&project=${pid}`)).text;
    let text = await shown();
    expect([...text.matchAll(/>#(\d+)<\/a>/g)].map((m) => m[1])).toEqual(['2', '1']);
    expect(text).toContain('First &lt;b&gt;issue&lt;/b&gt;');
    expect(text).toContain('>!1</a>');
    expect(text).toMatch(/data-pipeline="\d+">pending</);
    fx.clock.advance(1000);
    expect(await shown()).toMatch(/data-pipeline="\d+">running</);
    fx.clock.advance(60_000);
    text = await shown();
    expect(text).toMatch(/data-pipeline="\d+">success</);
    expect(text).toContain(`api=%2Fprojects%2F${pid}%2Fissues%2F1`);
  });

  it('renderablePath: API paths only, no dot segment however encoded', () => {
    expect(renderablePath('/projects/1/issues?state=opened')).toBe(true);
    for (const p of [
      'projects',
      '/../__fauxlab/state',
      '/a/%2e%2E/b',
      '/a/./b',
      '/a b',
      '/a\\b',
      `/${'x'.repeat(2001)}`,
    ])
      expect(renderablePath(p), p).toBe(false);
  });

  it('no secrets: journaled passwords and tokens stay [FILTERED] in the page and its curl commands', async () => {
    const fx = world();
    await fx.app.request('/api/v4/users', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
      body: JSON.stringify({
        username: 'zed',
        name: 'Zed',
        email: 'zed@example.com',
        password: 'hunter2hunter2',
      }),
    });
    await fx.app.request('/api/v4/user?private_token=alice-api');
    const { text } = await page(fx, '?view=requests');
    expect(text).not.toContain('hunter2hunter2');
    expect(text).not.toContain('root-api');
    expect(text).not.toContain('alice-api');
    expect(text).toContain('[FILTERED]');
  });
});

describe('dashboard: deliveries', () => {
  it('deliveries view: newest first, with payloads, credentials in headers and bodies filtered', async () => {
    const fx = world();
    const hook = await listen(() => new Response('ok'));
    const log = deliveries(fx.clock);
    for (const event of ['push', 'issue'])
      log.enqueue(
        {
          at: fx.clock.iso(),
          integration: 'webhook',
          integration_id: 1,
          project_id: 1,
          project: 'acme/website',
          event,
          action: null,
          url: `${hook}/hook`,
          request: {
            headers: { 'Content-Type': 'application/json', 'X-Gitlab-Token': 'hook-secret' },
            body: { object_kind: event, title: EVIL, password: 'pw-secret' },
          },
        },
        // A receiver on 127.0.0.1: local requests allowed, as the settings would.
        { allowLocal: true, dnsRebindProtection: true, allowlist: [], resolve: defaultResolver, self: [] },
      );
    await log.settled();
    const { text } = await page(fx, '?view=deliveries');
    expect([...text.matchAll(/<tbody class="entry" data-id="(\d+)">/g)].map((m) => m[1])).toEqual(['2', '1']);
    expect(text).toContain('&quot;object_kind&quot;: &quot;issue&quot;');
    expect(text).toContain('<th scope="row">X-Gitlab-Token</th><td>[FILTERED]</td>');
    expect(text).not.toContain('hook-secret');
    expect(text).not.toContain('pw-secret');
    expect(text).not.toContain('<script>alert');
    expect(text).toContain('>delivered<');
  });
});

describe('dashboard: admin token', () => {
  const TOKEN = 's3cret-admin';
  const tokened = () => world({ controlPlaneToken: TOKEN });
  const login = (fx: ReturnType<typeof world>, token: string) =>
    fx.app.request('/__fauxlab/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
  const cookieOf = (res: Response) => res.headers.get('set-cookie')!.split(';')[0]!;

  it('without the token: the page shows the sign-in form (401) and the JSON index refuses as before', async () => {
    const fx = tokened();
    const { res, text } = await page(fx, '?view=world');
    expect(res.status).toBe(401);
    expect(text).toContain('<label for="token">Admin token</label>');
    expect(text).not.toContain('acme/secret/vault');
    const json = await fx.app.request('/__fauxlab/');
    expect(json.status).toBe(401);
    expect(await json.json()).toEqual({
      message: '401 Unauthorized - admin token missing: send "Authorization: Bearer <admin token>"',
    });
    const rows = await fx.app.request('/__fauxlab/?view=requests&fragment=rows', {
      headers: { ...HTML, Authorization: 'Bearer wrong' },
    });
    expect(rows.status).toBe(401);
  });

  it('POST /__fauxlab/login: a wrong token is refused; the right one sets an HttpOnly, SameSite=Strict session cookie', async () => {
    const fx = tokened();
    const wrong = await login(fx, 'wrong');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('That is not the admin token.');
    const huge = await fx.app.request('/__fauxlab/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `token=${TOKEN}&pad=${'x'.repeat(5000)}`,
    });
    expect(huge.status).toBe(413);
    expect(huge.headers.get('set-cookie')).toBeNull();
    const ok = await login(fx, TOKEN);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/__fauxlab/');
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^fauxlab_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/__fauxlab');
    expect(cookie).not.toContain(TOKEN);
    const { res, text } = await page(fx, '?view=world', { Cookie: cookieOf(ok) });
    expect(res.status).toBe(200);
    expect(text).toContain('acme/secret/vault');
    expect(text).toContain('Sign out');
  });

  it('the control plane accepts the session cookie: reads, and writes sent as JSON from the same origin only', async () => {
    const fx = tokened();
    const cookie = cookieOf(await login(fx, TOKEN));
    expect((await fx.app.request('/__fauxlab/clock', { headers: { Cookie: cookie } })).status).toBe(200);
    const advance = (headers: Record<string, string>) =>
      fx.app.request('http://localhost/__fauxlab/clock', {
        method: 'POST',
        headers: { Cookie: cookie, ...headers },
        body: JSON.stringify({ advance: '1h' }),
      });
    const start = fx.clock.ms();
    expect((await advance({ 'Content-Type': 'text/plain' })).status).toBe(401);
    expect((await advance({})).status).toBe(401);
    expect(
      (await advance({ 'Content-Type': 'application/json', Origin: 'http://evil.example' })).status,
    ).toBe(401);
    expect(fx.clock.ms()).toBe(start);
    expect((await advance({ 'Content-Type': 'application/json', Origin: 'http://localhost' })).status).toBe(
      200,
    );
    expect((await advance({ 'Content-Type': 'application/json' })).status).toBe(200);
    expect(fx.clock.ms()).toBe(start + 2 * 3600_000);
    expect(
      (await fx.app.request('/__fauxlab/clock', { headers: { Cookie: 'fauxlab_session=forged' } })).status,
    ).toBe(401);
  });

  it('POST /__fauxlab/login and /logout with JSON (from the page script): answered in JSON, the same cookie', async () => {
    const fx = tokened();
    const post = (path: string, body: unknown, cookie?: string) =>
      fx.app.request(`/__fauxlab/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(cookie && { Cookie: cookie }) },
        body: JSON.stringify(body),
      });
    const wrong = await post('login', { token: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ message: '401 Unauthorized' });
    expect((await post('login', { token: 42 })).status).toBe(401);
    expect((await post('login', ['x'])).status).toBe(401);
    const ok = await post('login', { token: TOKEN });
    expect(ok.status).toBe(200);
    const cookie = cookieOf(ok);
    expect(ok.headers.get('set-cookie')).toContain('HttpOnly');
    expect((await fx.app.request('/__fauxlab/state', { headers: { Cookie: cookie } })).status).toBe(200);
    expect((await post('logout', {}, cookie)).status).toBe(204);
    expect((await fx.app.request('/__fauxlab/state', { headers: { Cookie: cookie } })).status).toBe(401);
  });

  it('a session write from the configured external URL is same-origin too', async () => {
    const fx = world({ controlPlaneToken: TOKEN, baseUrl: 'https://gitlab.example.com/' });
    const cookie = cookieOf(await login(fx, TOKEN));
    const advance = (origin: string) =>
      fx.app.request('http://127.0.0.1:4010/__fauxlab/clock', {
        method: 'POST',
        headers: { Cookie: cookie, 'Content-Type': 'application/json', Origin: origin },
        body: JSON.stringify({ advance: '1m' }),
      });
    expect((await advance('https://gitlab.example.com')).status).toBe(200);
    expect((await advance('https://other.example.com')).status).toBe(401);
  });

  it('POST /__fauxlab/logout: the session ends and its cookie no longer opens anything', async () => {
    const fx = tokened();
    const cookie = cookieOf(await login(fx, TOKEN));
    const out = await fx.app.request('/__fauxlab/logout', { method: 'POST', headers: { Cookie: cookie } });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^fauxlab_session=;/);
    expect((await fx.app.request('/__fauxlab/clock', { headers: { Cookie: cookie } })).status).toBe(401);
    expect((await page(fx, '', { Cookie: cookie })).res.status).toBe(401);
  });

  it('the bearer token still opens the page and the control plane, and a session of one instance opens no other', async () => {
    const fx = tokened();
    const { res } = await page(fx, '?view=clock', { Authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    const cookie = cookieOf(await login(fx, TOKEN));
    const other = tokened();
    expect((await other.app.request('/__fauxlab/clock', { headers: { Cookie: cookie } })).status).toBe(401);
  });
});

describe('dashboard: copy as curl', () => {
  const entry = (over: Partial<JournalEntry>): JournalEntry => ({
    id: 1,
    at: '2021-03-01T12:00:00.000Z',
    method: 'GET',
    path: '/api/v4/projects',
    query: {},
    headers: {},
    status: 200,
    responseHeaders: {},
    durationMs: 1,
    route: null,
    user: null,
    ...over,
  });

  it('curlCommand: method, URL with the Rack query, headers and a JSON body, quoted for the shell', () => {
    const cmd = curlCommand(
      entry({
        method: 'POST',
        path: '/api/v4/projects/1/issues',
        query: { labels: ['a', "it's"], opts: { x: '1' } },
        headers: { host: 'h', 'content-type': 'application/json', 'private-token': '[FILTERED]' },
        body: { title: "it's <b>" },
      }),
      'http://127.0.0.1:4010',
    );
    expect(cmd).toBe(
      [
        "curl -X POST 'http://127.0.0.1:4010/api/v4/projects/1/issues?labels%5B%5D=a&labels%5B%5D=it%27s&opts%5Bx%5D=1'",
        "-H 'content-type: application/json'",
        "-H 'private-token: [FILTERED]'",
        `--data-raw '{"title":"it'\\''s <b>"}'`,
      ].join(' \\\n  '),
    );
  });

  it('curlCommand: a form body stays a form, a multipart file becomes -F name=@file, HEAD is --head', () => {
    expect(
      curlCommand(
        entry({
          method: 'PUT',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: { name: 'a b', password: '[FILTERED]' },
        }),
        'http://x',
      ),
    ).toBe(
      "curl -X PUT 'http://x/api/v4/projects' \\\n  -H 'content-type: application/x-www-form-urlencoded' \\\n  --data-raw 'name=a+b&password=%5BFILTERED%5D'",
    );
    expect(
      curlCommand(
        entry({
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data; boundary=x' },
          body: { file: { file: 'a.png', type: 'image/png', size: 3 }, note: 'hi' },
        }),
        'http://x',
      ),
    ).toBe("curl -X POST 'http://x/api/v4/projects' \\\n  -F 'file=@a.png' \\\n  -F 'note=hi'");
    expect(curlCommand(entry({ method: 'HEAD' }), 'http://x')).toBe("curl --head 'http://x/api/v4/projects'");
  });
});
