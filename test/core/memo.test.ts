import { request as httpRequest } from 'node:http';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ResponseMemo, type Kept } from '../../src/core/memo.js';
import { jsonResponse } from '../../src/core/respond.js';
import type { FauxlabOptions } from '../../src/index.js';
import type { JournalEntry } from '../../src/testing/journal.js';
import { activeToday, localServers, smallWorld, world } from '../helpers.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api' };

/** An instance with counting routes: how often each ran tells whether an answer was replayed. */
function counted(options: FauxlabOptions = {}) {
  const runs = { plain: 0, clock: 0, json: 0 };
  const fx = world({
    scenario: activeToday(smallWorld),
    ...options,
    routes: (r) => {
      r.get('/counted', (c) => {
        runs.plain++;
        const v = c.get('viewer').user?.username ?? null;
        return jsonResponse(JSON.stringify({ viewer: v, projects: c.get('fx').store.state.projects.size }));
      });
      r.get('/counted/clock', (c) => {
        runs.clock++;
        return jsonResponse(JSON.stringify({ now: c.get('fx').clock.iso() }));
      });
      r.get('/counted/json', (c) => {
        runs.json++;
        return c.json({ built: 'with c.json' });
      });
    },
  });
  const get = async (path: string, headers: Record<string, string> = ROOT) => {
    const res = await fx.app.request(`/api/v4${path}`, { headers });
    return { status: res.status, headers: [...res.headers], body: await res.text() };
  };
  return { fx, runs, get };
}

describe('repeated GETs answered from memory', () => {
  it('GET: the same request in an unchanged world runs the route once and answers the same bytes and headers', async () => {
    const { runs, get } = counted();
    const a = await get('/counted');
    const b = await get('/counted');
    expect(runs.plain).toBe(1);
    expect(b).toEqual(a);
    expect(JSON.parse(a.body)).toEqual({ viewer: 'root', projects: 4 });
  });

  it('GET: a replayed answer is journaled as the route would have it', async () => {
    const { fx, get } = counted();
    await get('/counted', { 'PRIVATE-TOKEN': 'root-sudo', Sudo: 'alice' });
    await get('/counted', { 'PRIVATE-TOKEN': 'root-sudo', Sudo: 'alice' });
    const entries = fx.requests().map(({ durationMs: _, id: __, ...e }: JournalEntry) => e);
    expect(entries).toHaveLength(2);
    expect(entries[1]).toEqual(entries[0]);
    expect(entries[1]).toMatchObject({
      route: 'GET /api/v4/counted',
      user: 'alice',
      sudoFrom: 'root',
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
    });
  });

  it('GET: any write starts it over (the next answer sees the change)', async () => {
    const { fx, runs, get } = counted();
    await get('/counted');
    const created = await fx.app.request('/api/v4/projects', {
      method: 'POST',
      headers: { ...ROOT, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'fresh' }),
    });
    expect(created.status).toBe(201);
    const after = await get('/counted');
    expect(runs.plain).toBe(2);
    expect(JSON.parse(after.body).projects).toBe(5);
  });

  it('GET /projects/:id: an update is visible to the very next read', async () => {
    const fx = world();
    const read = async () =>
      (await (await fx.app.request('/api/v4/projects/1', { headers: ROOT })).json()) as {
        description: string;
      };
    expect((await read()).description).toBe((await read()).description);
    const put = await fx.app.request('/api/v4/projects/1', {
      method: 'PUT',
      headers: { ...ROOT, 'Content-Type': 'application/json' },
      body: JSON.stringify({ description: 'changed' }),
    });
    expect(put.status).toBe(200);
    expect((await read()).description).toBe('changed');
  });

  it('GET: reset and restore give the answers of the world they bring back', async () => {
    const { fx, runs, get } = counted();
    const snap = fx.snapshot();
    await get('/counted');
    await fx.app.request('/api/v4/projects', {
      method: 'POST',
      headers: { ...ROOT, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'fresh' }),
    });
    expect(JSON.parse((await get('/counted')).body).projects).toBe(5);
    fx.reset();
    expect(JSON.parse((await get('/counted')).body).projects).toBe(4);
    fx.restore(snap);
    expect(JSON.parse((await get('/counted')).body).projects).toBe(4);
    // Restoring the very world the last answer came from keeps it.
    expect(runs.plain).toBe(3);
    fx.load({ ...smallWorld, projects: [] });
    expect(JSON.parse((await get('/counted')).body).projects).toBe(0);
    expect(runs.plain).toBe(4);
  });

  it('GET: headers are part of the request (another token, sudo or any other header is another answer)', async () => {
    const { runs, get } = counted();
    const root = await get('/counted');
    const alice = await get('/counted', { 'PRIVATE-TOKEN': 'alice-api' });
    const sudo = await get('/counted', { 'PRIVATE-TOKEN': 'root-sudo', Sudo: 'bob' });
    await get('/counted', { ...ROOT, 'X-Anything': '1' });
    expect(runs.plain).toBe(4);
    expect([root, alice, sudo].map((r) => JSON.parse(r.body).viewer)).toEqual(['root', 'alice', 'bob']);
  });

  it('GET: an answer that read the clock is replayed only at the same instant', async () => {
    const { fx, runs, get } = counted();
    const a = await get('/counted/clock');
    await get('/counted/clock');
    expect(runs.clock).toBe(1);
    fx.clock.advance(1000);
    const b = await get('/counted/clock');
    expect(runs.clock).toBe(2);
    expect(JSON.parse(b.body).now).not.toBe(JSON.parse(a.body).now);
  });

  it('GET: with a running clock, an answer that read it is computed each time and one that did not is replayed', async () => {
    const { runs, get } = counted({ realtimeClock: true });
    for (let i = 0; i < 3; i++) {
      await get('/counted/clock');
      await get('/counted');
      // Far enough apart that the running clock has moved.
      await new Promise((r) => setTimeout(r, 3));
    }
    expect(runs.clock).toBe(3);
    expect(runs.plain).toBe(1);
  });

  it('GET: a token that expires while the clock advances is refused, though its earlier answer was kept', async () => {
    const fx = world({
      scenario: {
        now: smallWorld.now,
        users: [
          { username: 'erin', tokens: [{ token: 'erin-api', scopes: ['api'], expires_at: '2021-03-02' }] },
        ],
      },
    });
    const get = () => fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'erin-api' } });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    fx.clock.advance(24 * 3600 * 1000);
    const res = await get();
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: 'invalid_token',
      error_description: 'Token is expired. You can either do re-authorization or token refresh.',
    });
  });

  it('GET: errors and responses built with c.json are computed each time', async () => {
    const { fx, runs, get } = counted();
    await get('/counted/json');
    await get('/counted/json');
    expect(runs.json).toBe(2);
    for (let i = 0; i < 2; i++) expect((await get('/counted', { 'PRIVATE-TOKEN': 'nope' })).status).toBe(401);
    expect(runs.plain).toBe(0);
    expect(fx.requests().map((e) => e.status)).toEqual([200, 200, 401, 401]);
  });

  it('GET: with every response body journaled, answers are still replayed (the journal holds the kept bytes)', async () => {
    const { fx, runs, get } = counted({ journal: { responseBodies: 'all' } });
    await get('/counted');
    await get('/counted');
    expect(runs.plain).toBe(1);
    expect(fx.requests()[1]!.responseBody).toBe(fx.requests()[0]!.responseBody);
    expect(fx.requests()[1]!.responseBody).toBeDefined();
  });

  it('GET: responseCache false computes every answer', async () => {
    const { runs, get } = counted({ responseCache: false });
    await get('/counted');
    await get('/counted');
    expect(runs.plain).toBe(2);
  });

  it('GET: injected faults bypass it', async () => {
    const { fx, runs, get } = counted();
    await get('/counted');
    fx.faults.add({ path: '/never/**', status: 500 });
    await get('/counted');
    expect(runs.plain).toBe(2);
  });

  it('GET /projects pages: replayed in pieces with the same bytes and pagination headers', async () => {
    const fx = world();
    const page = async () => {
      const res = await fx.app.request('/api/v4/projects?per_page=2&page=2', { headers: ROOT });
      return { status: res.status, headers: [...res.headers], body: await res.text() };
    };
    const a = await page();
    expect(await page()).toEqual(a);
    expect(a.headers).toContainEqual(['x-page', '2']);
    expect(JSON.parse(a.body)).toHaveLength(2);
  });
});

describe('ResponseMemo', () => {
  const kept = (size: number, clockMs?: number): Kept => ({
    key: '',
    status: 200,
    headers: {},
    body: 'x'.repeat(size),
    size,
    route: null,
    user: null,
    sudoFrom: undefined,
    explain: undefined,
    clockMs,
  });
  const now = () => 5;

  it('when full, an answer asked for once lately does not push out one asked for again; one asked more often does', () => {
    const r = {};
    for (const bound of [{ entries: 2 }, { bytes: 4 }]) {
      const m = new ResponseMemo(bound);
      for (const k of ['a', 'b']) {
        m.get(k, r, now);
        m.get(k, r, now);
        expect(m.admits(k, 1)).toBe(true);
        m.set(k, r, kept(1));
      }
      expect(m.get('c', r, now)).toBeUndefined();
      expect(m.admits('c', 1)).toBe(false);
      m.get('c', r, now);
      m.get('c', r, now);
      expect(m.admits('c', 1)).toBe(true);
      m.set('c', r, kept(1));
      expect([m.get('a', r, now), m.get('b', r, now), m.get('c', r, now)].map(Boolean)).toEqual([
        false,
        true,
        true,
      ]);
    }
  });

  it('GET with a query new on every request: the answers asked for again stay kept once the cache is full', async () => {
    const { runs, get } = counted({ responseCache: { entries: 4 } });
    const paths = [1, 2, 3, 4].map((k) => `/counted?k=${k}`);
    for (let round = 0; round < 3; round++) for (const p of paths) await get(p);
    expect(runs.plain).toBe(4);
    for (let n = 0; n < 20; n++) await get(`/counted?new=${n}`);
    expect(runs.plain).toBe(24);
    for (const p of paths) expect((await get(p)).status).toBe(200);
    expect(runs.plain).toBe(24);
  });

  it('by default keeps every page of a 100,000-user world as an admin reads them (5,000 pages of 19.3 KB)', () => {
    const m = new ResponseMemo();
    const r = {};
    const page = { ...kept(0), body: 'x'.repeat(19_300), size: 19_300 };
    const key = (n: number) =>
      `http://127.0.0.1:3000/api/v4/users?per_page=20&page=${n}\nHost\n127.0.0.1:3000\nPRIVATE-TOKEN\nbench-admin-token`;
    for (let n = 1; n <= 5_000; n++) {
      m.get(key(n), r, now);
      expect(m.admits(key(n), page.size)).toBe(true);
      m.set(key(n), r, { ...page, key: key(n) });
    }
    expect(m.size).toBe(5_000);
    for (let n = 1; n <= 5_000; n++) expect(m.get(key(n), r, now)).toBeDefined();
  });

  it('keeps answers per root: another root finds nothing and drops what was kept', () => {
    const m = new ResponseMemo();
    const r1 = {};
    m.set('a', r1, kept(1));
    expect(m.get('a', r1, now)).toBeDefined();
    expect(m.get('a', {}, now)).toBeUndefined();
    expect(m.get('a', r1, now)).toBeUndefined();
    expect(m.size).toBe(0);
  });

  it('an answer that read the clock holds only at its instant', () => {
    const m = new ResponseMemo();
    const r = {};
    m.set('a', r, kept(1, 5));
    m.set('b', r, kept(1, 4));
    expect(m.get('a', r, now)).toBeDefined();
    expect(m.get('b', r, now)).toBeUndefined();
  });

  it('drops the oldest answers when full, by entries or by key and string body characters; an answer over the bound is not kept', () => {
    const r = {};
    const byCount = new ResponseMemo({ entries: 2 });
    for (const k of ['a', 'b', 'c']) byCount.set(k, r, kept(1));
    // The oldest eighth (at least one) made room.
    expect(byCount.size).toBe(2);
    expect(
      [byCount.get('a', r, now), byCount.get('b', r, now), byCount.get('c', r, now)].map(Boolean),
    ).toEqual([false, true, true]);
    const byBytes = new ResponseMemo({ bytes: 10 });
    byBytes.set('a', r, kept(6));
    byBytes.set('a', r, kept(6));
    expect(byBytes.size).toBe(1);
    byBytes.set('b', r, kept(6));
    expect([byBytes.get('a', r, now), byBytes.get('b', r, now)].map(Boolean)).toEqual([false, true]);
    byBytes.set('c', r, kept(11));
    expect(byBytes.get('c', r, now)).toBeUndefined();
    expect(() => new ResponseMemo({ entries: 0 })).toThrow(RangeError);
  });
});

describe('repeated GETs on the Node server', () => {
  const listen = localServers();
  const get = (base: string, path: string, token?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${base}${path}`,
        { headers: token ? { 'private-token': token } : {} },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('GET /projects/:id over HTTP: each token gets its own answer, and a private project stays hidden', async () => {
    const fx = world();
    const base = await listen(fx.app.fetch);
    // acme/secret/vault (id 2) is private: root sees it, alice (owner of acme) too, bob does not.
    const seen = [];
    for (let round = 0; round < 2; round++)
      for (const token of ['root-api', 'bob-api', undefined, 'alice-api'])
        seen.push((await get(base, '/api/v4/projects/2', token)).status);
    expect(seen).toEqual([200, 404, 404, 200, 200, 404, 404, 200]);
    const [rootView, aliceView] = [
      await get(base, '/api/v4/projects/2', 'root-api'),
      await get(base, '/api/v4/projects/2', 'alice-api'),
    ];
    expect(JSON.parse(rootView.body).permissions).not.toEqual(JSON.parse(aliceView.body).permissions);
    expect(fx.requests()).toHaveLength(10);
  });

  it('GET /projects/:id mounted in another app: headers its middleware changed are part of the request', async () => {
    const fx = world();
    const outer = new Hono();
    let n = 0;
    // Two identical requests on the wire, made by the middleware into root's and then bob's.
    outer.use('*', async (c, next) => {
      c.req.raw.headers.set('private-token', n++ % 2 === 0 ? 'root-api' : 'bob-api');
      await next();
    });
    outer.route('/', fx.app);
    const base = await listen(outer.fetch);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(base, '/api/v4/projects/2')).status);
    expect(statuses).toEqual([200, 404, 200, 404]);
  });
});
