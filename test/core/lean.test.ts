import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fauxlab, FauxlabOptions } from '../../src/index.js';
import type { JournalEntry } from '../../src/testing/journal.js';
import { localServers, world } from '../helpers.js';

/** A fault that never applies: with any fault set, every request takes the full middleware path. */
const NEVER = { path: '/never/**', status: 500 };

const GETS: [string, Record<string, string>][] = [
  ['/api/v4/projects?per_page=2&page=2', { 'PRIVATE-TOKEN': 'root-api' }],
  ['/api/v4/projects?simple=true', {}],
  ['/api/v4/projects/1', { 'PRIVATE-TOKEN': 'alice-api', 'X-Custom': 'yes' }],
  ['/api/v4/projects/999', { 'PRIVATE-TOKEN': 'alice-api' }],
  ['/api/v4/projects?per_page=abc', { 'PRIVATE-TOKEN': 'alice-api' }],
  ['/api/v4/projects', { 'PRIVATE-TOKEN': 'nope' }],
  ['/api/v4/projects?private_token=alice-api&search=a', {}],
  ['/api/v4/user', { 'PRIVATE-TOKEN': 'root-sudo', Sudo: 'alice' }],
  ['/api/v4/users/1', { Authorization: 'Bearer root-api' }],
  ['/api/v4/nothing/here', { 'PRIVATE-TOKEN': 'root-api' }],
  ['/api/v4/users/1/nothing', {}],
  ['/api/v4/version', {}],
];

async function exchanges(options: FauxlabOptions) {
  const fx = world(options);
  const out = [];
  for (const [path, headers] of GETS) {
    const res = await fx.app.request(path, { headers });
    out.push({ path, status: res.status, headers: [...res.headers], body: await res.text() });
  }
  const entries = fx.requests().map(({ durationMs, ...e }: JournalEntry) => {
    expect(durationMs).toBeGreaterThanOrEqual(0);
    return e;
  });
  return { out, entries, json: JSON.stringify(entries) };
}

describe('the lean path of GET requests', () => {
  for (const [name, options] of [
    ['default journal', {}],
    ['every response body, explained 404s', { journal: { responseBodies: 'all' as const }, explain: true }],
    ['no journal', { journal: false as const }],
  ] as [string, FauxlabOptions][])
    it(`answers and journals exactly as the full path (${name})`, async () => {
      const lean = await exchanges(options);
      const full = await exchanges({ ...options, faults: [NEVER] });
      expect(lean.out).toEqual(full.out);
      // Same entries, same field order.
      expect(lean.entries).toEqual(full.entries);
      expect(lean.json).toBe(full.json);
    });

  it('journal entries of the lean path are frozen and keep their identity', async () => {
    const fx = world();
    await fx.app.request('/api/v4/projects/1', { headers: { 'PRIVATE-TOKEN': 'root-api' } });
    const [a] = fx.requests();
    expect(Object.isFrozen(a)).toBe(true);
    expect(fx.requests()[0]).toBe(a);
    expect(a).toMatchObject({ route: 'GET /api/v4/projects/:id', user: 'root', status: 200 });
  });
});

describe('app.fetch and fetch', () => {
  const req = (path: string, headers: Record<string, string> = { 'PRIVATE-TOKEN': 'root-api' }) =>
    new Request(`http://localhost${path}`, { headers });

  it('app.fetch answers a plain GET without a promise; fetch always returns one, with the same answer', async () => {
    const fx = world();
    const direct = fx.app.fetch(req('/api/v4/projects/1'));
    expect(direct).toBeInstanceOf(Response);
    const viaFetch = fx.fetch(req('/api/v4/projects/1'));
    expect(viaFetch).toBeInstanceOf(Promise);
    const a = direct as Response;
    const b = await viaFetch;
    expect([a.status, [...a.headers], await a.text()]).toEqual([b.status, [...b.headers], await b.text()]);
  });

  it('app.fetch returns a promise where the answer needs one (writes); an error whose body is journaled answers at once', async () => {
    const fx = world();
    // The journal holds the error's text: nothing is read back from the response.
    const missing = fx.app.fetch(req('/api/v4/projects/999'));
    expect(missing).not.toBeInstanceOf(Promise);
    expect((await missing).status).toBe(404);
    const star = fx.app.fetch(
      new Request('http://localhost/api/v4/projects/1/star', {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': 'root-api' },
      }),
    );
    expect(star).toBeInstanceOf(Promise);
    expect((await star).status).toBe(201);
    expect(fx.requests().map((e) => e.status)).toEqual([404, 201]);
    expect(fx.requests()[0]!.responseBody).toBe('{"message":"404 Project Not Found"}');
  });
});

describe('the lean path on the Node server', () => {
  const servers: Server[] = [];
  const bases: string[] = [];
  const instances: Fauxlab[] = [world(), world({ faults: [NEVER] })];
  beforeAll(async () => {
    for (const fx of instances)
      await new Promise<void>((resolve) => {
        const s = serve({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
          bases.push(`http://127.0.0.1:${info.port}`);
          resolve();
        }) as Server;
        servers.push(s);
      });
  });
  afterAll(() => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  /** A GET with a repeated header, as Node sends it: two header lines. */
  const get = (base: string, path: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${base}${path}`,
        { headers: { 'private-token': 'alice-api', 'x-dup': ['a', 'b'], 'X-Mixed-Case': 'Yes' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('journals request headers as the full path does (repeated headers joined, secrets filtered)', async () => {
    for (const [i, base] of bases.entries()) {
      expect(await get(base, '/api/v4/projects/1')).toBe(200);
      expect(await get(base, '/api/v4/projects/999?private_token=x')).toBe(401);
      expect(instances[i]!.requests()).toHaveLength(2);
    }
    // Each server has its own port: the host header is the one difference.
    const entries = instances.map((fx) =>
      fx
        .requests()
        .map(({ durationMs: _, ...e }: JournalEntry) =>
          JSON.stringify(e).replace(/127\.0\.0\.1:\d+/g, 'HOST'),
        ),
    );
    expect(entries[0]).toEqual(entries[1]);
    expect(instances[0]!.requests()[0]!.headers).toMatchObject({
      'private-token': '[FILTERED]',
      'x-dup': 'a, b',
      'x-mixed-case': 'Yes',
    });
  });
});

describe('project lists written in pieces', () => {
  const listen = localServers();
  /** Status, headers and body of a GET over HTTP. */
  const fetchOver = (base: string, path: string) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = httpRequest(`${base}${path}`, { headers: { 'private-token': 'root-api' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      req.on('error', reject);
      req.end();
    });
  const PATHS = [
    '/api/v4/projects?per_page=2&page=2',
    '/api/v4/projects?search=nothing-at-all',
    '/api/v4/groups/8/projects',
  ];

  it('GET /projects on a Node server: the same status, headers and bytes as in process, served directly, mounted or the full way', async () => {
    const direct = world();
    const full = world({ faults: [NEVER] });
    const mounted = world();
    const outer = new Hono();
    outer.use('*', async (c, next) => {
      await next();
      c.header('x-outer', 'yes');
    });
    outer.route('/', mounted.app);
    const bases = [await listen(direct.app.fetch), await listen(direct.fetch), await listen(full.app.fetch)];
    const outerBase = await listen(outer.fetch);
    /** The same request in process, with the server's URL (the links in the body carry its host). */
    const inProcess = async (base: string, path: string) => {
      const res = await direct.app.request(`${base}${path}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } });
      return { status: res.status, total: res.headers.get('x-total') ?? undefined, body: await res.text() };
    };
    for (const path of PATHS)
      for (const base of [...bases, outerBase]) {
        const want = await inProcess(base, path);
        const got = await fetchOver(base, path);
        expect(got.status).toBe(want.status);
        expect(got.body).toBe(want.body);
        expect(got.headers['content-length']).toBe(String(Buffer.byteLength(got.body)));
        expect(got.headers['x-total']).toBe(want.total);
        expect(got.headers['x-content-type-options']).toBe('nosniff');
        if (base === outerBase) expect(got.headers['x-outer']).toBe('yes');
      }
  });

  it('GET /projects with every response body journaled: the journal has the page, the client gets it once', async () => {
    const fx = world({ journal: { responseBodies: 'all' } });
    const base = await listen(fx.app.fetch);
    // One project: under the journal's 4 KB body limit, so the entry holds it whole.
    const got = await fetchOver(base, '/api/v4/projects?per_page=1');
    expect(got.status).toBe(200);
    const [entry] = fx.requests();
    expect(entry!.status).toBe(200);
    expect(entry!.responseBody).toBe(got.body);
    expect(JSON.parse(got.body)).toHaveLength(1);
  });
});
