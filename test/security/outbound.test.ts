/**
 * Outbound requests follow `Gitlab::UrlBlocker`: every address form of this machine and its networks is
 * refused when a URL is saved (each caller, with its message) unless the settings allow local requests
 * or the allowlist names it, again when the request is made (the name resolved anew), and at each
 * redirect hop; whatever the settings allow, no delivery reaches a fauxlab control plane.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, describe, expect, test } from 'vitest';
import { defaultResolver } from '../../src/core/url-blocker.js';
import type { Fauxlab, FauxlabOptions } from '../../src/index.js';
import { deliveries } from '../../src/resources/integrations/delivery.js';
import { exportUploads } from '../../src/resources/import_export/uploads.js';
import { localServers } from '../helpers.js';
import { reliabilityFx, reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const listen = localServers();
const PROJECT = '/projects/g-public%2Fp';

const LOCALHOST = 'Requests to localhost are not allowed';
const LOOPBACK = 'Requests to loopback addresses are not allowed';
const NETWORK = 'Requests to the local network are not allowed';
const LINK = 'Requests to the link local network are not allowed';

/**
 * The tests' resolver, so that no name is asked of DNS: `internal.test` is 127.0.0.1, `dual.test` a
 * documentation (public) address and a private one, `public.test` the documentation address alone
 * (never connected to: every test refuses it first); the rest as the default resolver has them.
 */
const resolve = async (host: string): Promise<string[]> => {
  if (host === 'internal.test') return ['127.0.0.1'];
  if (host === 'dual.test') return ['198.51.100.7', '10.0.0.7'];
  if (host === 'public.test') return ['198.51.100.7'];
  return defaultResolver(host);
};

const ownAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

/** Every address form, with `Gitlab::UrlBlocker`'s message for it. */
const FORMS: Array<[string, string]> = [
  ['http://127.0.0.1/h', LOCALHOST],
  ['http://localhost/h', LOCALHOST],
  ['http://127.0.0.2/h', LOOPBACK],
  ['http://[::1]/h', LOCALHOST],
  ['http://0.0.0.0/h', LOCALHOST],
  ['http://[::]/h', LOCALHOST],
  ['http://[::ffff:127.0.0.1]/h', LOCALHOST],
  ['http://[::ffff:7f00:1]/h', LOCALHOST],
  ['http://2130706433/h', LOCALHOST],
  ['http://0x7f.1/h', LOCALHOST],
  ['http://0177.0.0.1/h', LOCALHOST],
  ['http://169.254.169.254/latest/meta-data', LINK],
  ['http://[fe80::1]/h', LINK],
  ['http://10.0.0.1/h', NETWORK],
  ['http://172.16.0.1/h', NETWORK],
  ['http://192.168.1.1/h', NETWORK],
  ['http://[fc00::1]/h', NETWORK],
  ['http://[::ffff:10.0.0.1]/h', NETWORK],
  ['http://internal.test/h', LOCALHOST],
  ['http://dual.test/h', NETWORK],
  ...(ownAddress ? [[`http://${ownAddress}/h`, LOCALHOST] as [string, string]] : []),
];

const LOCAL_ALLOWED = {
  allow_local_requests_from_web_hooks_and_services: true,
  allow_local_requests_from_system_hooks: true,
};
const LOCAL_REFUSED = {
  allow_local_requests_from_web_hooks_and_services: false,
  allow_local_requests_from_system_hooks: false,
};

const world = (settings: Record<string, unknown>, options: FauxlabOptions = {}) =>
  reliabilityFx({
    scenario: { ...reliabilityWorld, settings },
    resolve,
    explain: true,
    ...options,
  });

async function api(fx: Fauxlab, method: string, path: string, token: string, body?: unknown) {
  const res = await fx.app.request(`/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.text().then((t) => (t ? JSON.parse(t) : null))) as unknown,
    explain: res.headers.get('x-fauxlab-explain'),
  };
}

/** Each caller that saves a URL: how it answers a refused one, given the blocker's message. */
const CALLERS: Array<{
  name: string;
  save: (fx: Fauxlab, url: string) => ReturnType<typeof api>;
  refused: (message: string) => { status: number; body: unknown };
  ok: number;
}> = [
  {
    name: 'project hook',
    save: (fx, url) => api(fx, 'POST', `${PROJECT}/hooks`, 'maint-api', { url }),
    refused: () => ({ status: 422, body: { message: 'Invalid url given' } }),
    ok: 201,
  },
  {
    name: 'system hook',
    save: (fx, url) => api(fx, 'POST', '/hooks', 'root-api', { url }),
    refused: (m) => ({ status: 400, body: { message: { url: [`is blocked: ${m}`] } } }),
    ok: 201,
  },
  {
    name: 'integration webhook',
    save: (fx, url) => api(fx, 'PUT', `${PROJECT}/services/slack`, 'maint-api', { webhook: url }),
    refused: () => ({ status: 400, body: { message: '400 Bad Request' } }),
    ok: 200,
  },
  {
    name: 'remote mirror',
    save: (fx, url) => api(fx, 'POST', `${PROJECT}/remote_mirrors`, 'maint-api', { url }),
    refused: (m) => ({ status: 400, body: { message: { url: [`is blocked: ${m}`] } } }),
    ok: 201,
  },
  {
    name: 'import_url',
    save: (fx, url) =>
      api(fx, 'POST', '/projects', 'dev-api', {
        name: `imp-${Math.random().toString(36).slice(2)}`,
        import_url: url,
      }),
    refused: (m) => ({
      status: 400,
      body: { message: { import_url: [`is blocked: ${m}`], limit_reached: [] } },
    }),
    ok: 201,
  },
];

describe('security: URLs are checked when saved', () => {
  test.each(CALLERS)(
    '$name: every local address form is refused with the platform message',
    async (caller) => {
      const fx = world(LOCAL_REFUSED);
      const before = fx.state;
      for (const [url, message] of FORMS) {
        const res = await caller.save(fx, url);
        expect({ url, status: res.status, body: res.body }).toEqual({ url, ...caller.refused(message) });
        // `--explain` says why, and which setting would allow it.
        if (caller.name === 'project hook')
          expect(res.explain).toBe(
            `is blocked: ${message}: the URL is local, and allow_local_requests_from_web_hooks_and_services is off (outbound_local_requests_whitelist names neither its host nor its address); to allow local URLs, set allow_local_requests_from_web_hooks_and_services: true in the scenario's settings`,
          );
      }
      expect(fx.state).toBe(before);
      await expectUnharmed(fx);
    },
  );

  test.each(CALLERS)(
    '$name: every form is accepted when the settings allow local requests',
    async (caller) => {
      const fx = world(LOCAL_ALLOWED);
      for (const [url] of FORMS)
        expect({ url, status: (await caller.save(fx, url)).status }).toEqual({ url, status: caller.ok });
      await expectUnharmed(fx);
    },
  );

  test('outbound_local_requests_allowlist_raw: hosts, addresses and ranges, with ports, as the platform parses them', async () => {
    const fx = world(LOCAL_REFUSED);
    const put = await api(fx, 'PUT', '/application/settings', 'root-api', {
      outbound_local_requests_allowlist_raw: '127.0.0.1:8080;10.0.0.0/8\ninternal.test , [::1]:9000',
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      outbound_local_requests_whitelist: ['127.0.0.1:8080', '10.0.0.0/8', 'internal.test', '[::1]:9000'],
      outbound_local_requests_allowlist_raw: '127.0.0.1:8080\n10.0.0.0/8\ninternal.test\n[::1]:9000',
    });
    const cases: Array<[string, number]> = [
      ['http://127.0.0.1:8080/h', 201],
      ['http://127.0.0.1:8081/h', 400],
      ['http://127.0.0.1/h', 400],
      ['http://10.20.30.40/h', 201],
      ['http://[::ffff:10.1.1.1]/h', 201],
      ['http://192.168.0.1/h', 400],
      ['http://internal.test/h', 201],
      ['http://[::1]:9000/h', 201],
      ['http://[::1]:9001/h', 400],
    ];
    for (const [url, status] of cases)
      expect({ url, status: (await api(fx, 'POST', '/hooks', 'root-api', { url })).status }).toEqual({
        url,
        status,
      });
    const long = await api(fx, 'PUT', '/application/settings', 'root-api', {
      outbound_local_requests_whitelist: ['a'.repeat(256)],
    });
    expect(long).toMatchObject({
      status: 400,
      body: {
        message: { outbound_local_requests_whitelist: ['entries cannot be larger than 255 characters'] },
      },
    });
    await expectUnharmed(fx);
  });
});

/** A receiver on 127.0.0.1 whose answer is `reply(n)` for its n-th request. */
const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});
async function receiver(
  reply: (n: number, port: number, path: string) => { status: number; location?: string },
) {
  const got: string[] = [];
  let port = 0;
  const s = createServer((req, res) => {
    got.push(`${req.method} ${req.url}`);
    req.resume();
    const r = reply(got.length, port, req.url!);
    res.writeHead(r.status, r.location ? { Location: r.location } : {});
    res.end();
  });
  servers.push(s);
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  port = (s.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, port, got };
}

/** A project hook on `url`, an issue to fire it, and the delivery's log once settled. */
async function deliver(fx: Fauxlab, url: string) {
  expect((await api(fx, 'POST', `${PROJECT}/hooks`, 'maint-api', { url, issues_events: true })).status).toBe(
    201,
  );
  expect((await api(fx, 'POST', `${PROJECT}/issues`, 'dev-api', { title: 'fire' })).status).toBe(201);
  await deliveries(fx.clock).settled();
  return deliveries(fx.clock).list().at(-1)!;
}

describe('security: deliveries are checked when made, at every hop', () => {
  test('a 307 to /__fauxlab/reset is refused even with local requests allowed; the world is unchanged', async () => {
    const fx = world(LOCAL_ALLOWED);
    const base = await listen(fx.fetch);
    const r = await receiver(() => ({ status: 307, location: `${base}/__fauxlab/reset` }));
    const d = await deliver(fx, r.url);
    expect(r.got).toEqual(['POST /hook']);
    expect(d.status).toBe('failed');
    expect(d.attempts.map((a) => a.error)).toEqual([
      `URL '${base}/__fauxlab/reset' is blocked: Requests to the fauxlab control plane are not allowed`,
    ]);
    // Not reset: the issue that fired the hook is still there.
    expect((await api(fx, 'GET', `${PROJECT}/issues?search=fire`, 'dev-api')).body).toHaveLength(1);
    await expectUnharmed(fx);
  });

  test('control planes anywhere, however spelt, and this instance itself are refused whatever the settings', async () => {
    const fx = world(LOCAL_ALLOWED, { baseUrl: 'http://gitlab.test' });
    const base = await listen(fx.fetch);
    const port = new URL(base).port;
    // A client reaches it on its port: from then on the instance knows the port as its own.
    expect((await fetch(`${base}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': 'dev-api' } })).status).toBe(
      200,
    );
    const hops: Record<string, string> = {
      '/encoded': '/%5F%5Ffauxlab/reset',
      '/dotted': '/a/..%2F__FAUXLAB/reset',
      '/self': `http://localhost:${port}/api/v4/version`,
    };
    const r = await receiver((_n, _port, path) => ({ status: 302, location: hops[path]! }));
    const origin = new URL(r.url).origin;
    const cases = [
      [`${origin}/encoded`, 'Requests to the fauxlab control plane are not allowed'],
      [`${origin}/dotted`, 'Requests to the fauxlab control plane are not allowed'],
      [`${origin}/self`, 'Requests to this fauxlab instance are not allowed'],
      ['http://public.test/__fauxlab/reset', 'Requests to the fauxlab control plane are not allowed'],
      ['http://gitlab.test/api/v4/version', 'Requests to this fauxlab instance are not allowed'],
      [`${base}/api/v4/version`, 'Requests to this fauxlab instance are not allowed'],
    ] as const;
    for (const [url] of cases)
      expect(
        (await api(fx, 'POST', `${PROJECT}/hooks`, 'maint-api', { url, issues_events: true })).status,
      ).toBe(201);
    expect((await api(fx, 'POST', `${PROJECT}/issues`, 'dev-api', { title: 'fire' })).status).toBe(201);
    await deliveries(fx.clock).settled();
    const log = deliveries(fx.clock).list();
    for (const [url, reason] of cases) {
      const d = log.find((x) => x.url === url)!;
      expect({ url, status: d.status, error: d.attempts.at(-1)!.error }).toEqual({
        url,
        status: 'failed',
        error: expect.stringMatching(new RegExp(`is blocked: ${reason}$`)),
      });
    }
    expect(r.got.sort()).toEqual(['POST /dotted', 'POST /encoded', 'POST /self']);
    await expectUnharmed(fx);
  });

  test('a redirect to a local address is refused when only the receiver is allowed', async () => {
    const fx = world(LOCAL_REFUSED);
    const target = await receiver(() => ({ status: 200 }));
    const r = await receiver(() => ({ status: 302, location: target.url }));
    await api(fx, 'PUT', '/application/settings', 'root-api', {
      outbound_local_requests_allowlist_raw: `127.0.0.1:${r.port}`,
    });
    const d = await deliver(fx, r.url);
    expect(r.got).toEqual(['POST /hook']);
    expect(target.got).toEqual([]);
    expect(d.attempts.map((a) => a.error)).toEqual([`URL '${target.url}' is blocked: ${LOCALHOST}`]);
    await expectUnharmed(fx);
  });

  test('a name that resolved to a public address when saved and to 127.0.0.1 when delivered is refused', async () => {
    let answer = ['198.51.100.7'];
    const fx = world(LOCAL_REFUSED, { resolve: async () => answer });
    expect(
      (
        await api(fx, 'POST', `${PROJECT}/hooks`, 'maint-api', {
          url: 'http://rebind.test/h',
          issues_events: true,
        })
      ).status,
    ).toBe(201);
    answer = ['127.0.0.1'];
    await api(fx, 'POST', `${PROJECT}/issues`, 'dev-api', { title: 'fire' });
    await deliveries(fx.clock).settled();
    expect(
      deliveries(fx.clock)
        .list()
        .map((d) => d.attempts.map((a) => a.error)),
    ).toEqual([[`URL 'http://rebind.test/h' is blocked: ${LOCALHOST}`]]);
    // A name that no longer resolves at all: `dns_rebinding_protection_enabled` refuses it.
    answer = [];
    await api(fx, 'POST', `${PROJECT}/issues`, 'dev-api', { title: 'fire again' });
    await deliveries(fx.clock).settled();
    expect(
      deliveries(fx.clock)
        .list()
        .at(-1)!
        .attempts.map((a) => a.error),
    ).toEqual(["URL 'http://rebind.test/h' is blocked: Host cannot be resolved or invalid"]);
    await expectUnharmed(fx);
  });

  test("redirects are followed at most HTTParty's limit: five requests, then RedirectionTooDeep", async () => {
    const fx = world(LOCAL_ALLOWED);
    const r = await receiver((n, port) => ({ status: 302, location: `http://127.0.0.1:${port}/hop${n}` }));
    const d = await deliver(fx, r.url);
    expect(r.got).toEqual(['POST /hook', 'GET /hop1', 'GET /hop2', 'GET /hop3', 'GET /hop4']);
    expect(d.attempts.map((a) => a.error)).toEqual(['Gitlab::HTTP::RedirectionTooDeep']);
    await expectUnharmed(fx);
  });

  test('an export upload to a local address is accepted when asked for and refused when sent', async () => {
    const fx = world(LOCAL_REFUSED);
    const r = await receiver(() => ({ status: 200 }));
    const res = await api(fx, 'POST', `${PROJECT}/export`, 'maint-api', { upload: { url: r.url } });
    expect(res.status).toBe(202);
    const bad = await api(fx, 'POST', `${PROJECT}/export`, 'maint-api', {
      upload: { url: 'ftp://x.test/a' },
    });
    expect(bad).toMatchObject({
      status: 400,
      body: { message: { url: ['is blocked: Only allowed schemes are http, https'] } },
    });
    await fx.app.request('/__fauxlab/clock', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"advance":"1h"}',
    });
    await api(fx, 'GET', '/version', 'dev-api');
    await exportUploads(fx.clock).settled();
    expect(r.got).toEqual([]);
    expect(exportUploads(fx.clock).list()[0]).toMatchObject({
      status: 'failed',
      attempts: [{ error: `URL '${r.url}' is blocked: ${LOCALHOST}` }],
    });
    await expectUnharmed(fx);
  });

  test('an integration webhook that redirects to the control plane is refused', async () => {
    const fx = world(LOCAL_ALLOWED);
    const base = await listen(fx.fetch);
    const r = await receiver(() => ({ status: 308, location: `${base}/__fauxlab/reset` }));
    expect((await api(fx, 'PUT', `${PROJECT}/services/slack`, 'maint-api', { webhook: r.url })).status).toBe(
      200,
    );
    await api(fx, 'POST', `${PROJECT}/issues`, 'dev-api', { title: 'fire' });
    await deliveries(fx.clock).settled();
    const d = deliveries(fx.clock)
      .list()
      .find((x) => x.integration === 'slack')!;
    expect(d.attempts.map((a) => a.error)).toEqual([
      `URL '${base}/__fauxlab/reset' is blocked: Requests to the fauxlab control plane are not allowed`,
    ]);
    expect((await api(fx, 'GET', `${PROJECT}/issues?search=fire`, 'dev-api')).body).toHaveLength(1);
    await expectUnharmed(fx);
  });
});
