import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { fauxlabHandlers } from '../../src/msw/index.js';
import { Faults, parseLatency } from '../../src/testing/faults.js';
import { json, smallWorld, world } from '../helpers.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api' };
const get = (
  fx: ReturnType<typeof world>,
  path = '/api/v4/users/1',
  headers: Record<string, string> = ROOT,
) => fx.app.request(path, { headers });

describe('fault injection: status faults with the platform bodies', () => {
  it('429: the rate limiter body, Retry-After and RateLimit-* headers on the instance clock', async () => {
    const fx = world({ faults: [{ path: '/api/v4/users/:id', status: 429 }] });
    const res = await get(fx);
    expect(res.status).toBe(429);
    expect(await res.text()).toBe(
      '{"message":{"error":"This endpoint has been requested too many times. Try again later."}}',
    );
    // The clock is frozen at 2021-03-01T12:00:00Z; the reset is 60 s later.
    expect(
      Object.fromEntries([...res.headers].filter(([k]) => k.startsWith('ratelimit') || k === 'retry-after')),
    ).toEqual({
      'ratelimit-name': 'throttle_authenticated_api',
      'ratelimit-limit': '120',
      'ratelimit-observed': '121',
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(Date.parse('2021-03-01T12:01:00Z') / 1000),
      'ratelimit-resettime': 'Mon, 01 Mar 2021 12:01:00 GMT',
      'retry-after': '60',
    });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('429 to an anonymous request names the unauthenticated throttle; retryAfter is configurable', async () => {
    const fx = world({ faults: [{ status: 429, retryAfter: 5 }] });
    const res = await get(fx, '/api/v4/users/1', {});
    expect(res.headers.get('ratelimit-name')).toBe('throttle_unauthenticated_api');
    expect(res.headers.get('ratelimit-limit')).toBe('60');
    expect(res.headers.get('retry-after')).toBe('5');
  });

  it('500 and 503 are the API helpers bodies; 502 is what Workhorse sends when Rails does not answer', async () => {
    const fx = world();
    fx.faults.add({ path: '/api/v4/users/1', status: 500 });
    fx.faults.add({ path: '/api/v4/users/2', status: 502 });
    fx.faults.add({ path: '/api/v4/users/3', status: 503 });
    fx.faults.add({ path: '/api/v4/users/4', status: 418 });
    let res = await get(fx, '/api/v4/users/1');
    expect([res.status, await res.text()]).toEqual([500, '{"message":"500 Internal Server Error"}']);
    res = await get(fx, '/api/v4/users/2');
    expect([res.status, await res.text()]).toEqual([502, 'GitLab is not responding']);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('x-frame-options')).toBeNull();
    res = await get(fx, '/api/v4/users/3');
    expect([res.status, await res.text()]).toEqual([503, '{"message":"503 Service Unavailable"}']);
    res = await get(fx, '/api/v4/users/4');
    expect([res.status, await res.text()]).toEqual([418, '{"message":"418 I\'m a Teapot"}']);
  });

  it('a custom body and headers replace the defaults', async () => {
    const fx = world({ faults: [{ status: 500, body: { message: 'boom' }, headers: { 'X-Why': 'test' } }] });
    const res = await get(fx);
    expect(await res.text()).toBe('{"message":"boom"}');
    expect(res.headers.get('x-why')).toBe('test');
  });

  it('HEAD gets the status and headers without a body', async () => {
    const fx = world({ faults: [{ status: 503 }] });
    const res = await fx.app.request('/api/v4/users/1', { method: 'HEAD', headers: ROOT });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('');
  });
});

describe('fault injection: which requests', () => {
  it('matches the method (HEAD as GET) and the path pattern; others pass through', async () => {
    const fx = world({ faults: [{ method: 'POST', path: '/api/v4/users/*/block', status: 500 }] });
    expect((await get(fx)).status).toBe(200);
    expect((await fx.app.request('/api/v4/users/2/block', { method: 'POST', headers: ROOT })).status).toBe(
      500,
    );
    expect((await fx.app.request('/api/v4/users/2/unblock', { method: 'POST', headers: ROOT })).status).toBe(
      201,
    );
  });

  it('times: only the next N matching requests, then the route answers; the fault stays listed, spent', async () => {
    const fx = world();
    const f = fx.faults.add({ status: 502, times: 2 });
    expect(f).toMatchObject({ id: 1, remaining: 2, hits: 0 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(fx)).status);
    expect(statuses).toEqual([502, 502, 200, 200]);
    expect(fx.faults.list()).toMatchObject([{ id: 1, remaining: 0, hits: 2 }]);
  });

  it('the first answering fault wins; a later one neither answers nor uses up its count', async () => {
    const fx = world();
    fx.faults.add({ status: 500, times: 1 });
    fx.faults.add({ status: 503, times: 1 });
    expect((await get(fx)).status).toBe(500);
    expect((await get(fx)).status).toBe(503);
    expect((await get(fx)).status).toBe(200);
  });

  it('probability: reproducible under the same seed, different under another', async () => {
    const run = async (seed: number) => {
      const fx = world({ seed, faults: [{ status: 503, probability: 0.5 }] });
      let out = '';
      for (let i = 0; i < 40; i++) out += (await get(fx)).status === 503 ? 'x' : '.';
      return out;
    };
    const a = await run(7);
    expect(await run(7)).toBe(a);
    expect(await run(8)).not.toBe(a);
    const hits = a.split('').filter((ch) => ch === 'x').length;
    expect(hits).toBeGreaterThan(8);
    expect(hits).toBeLessThan(32);
  });

  it('a fault seed fixes the draws whatever the instance seed', async () => {
    const draws = async (instanceSeed: number) => {
      const fx = world({ seed: instanceSeed, faults: [{ status: 503, probability: 0.3, seed: 99 }] });
      const out = [];
      for (let i = 0; i < 20; i++) out.push((await get(fx)).status);
      return out;
    };
    expect(await draws(1)).toEqual(await draws(2));
  });

  it('the control plane is never faulted', async () => {
    const fx = world({ faults: [{ status: 500 }] });
    expect((await fx.app.request('/__fauxlab/clock')).status).toBe(200);
  });

  it('the journal names the faults that applied', async () => {
    const fx = world({ faults: [{ latency: 1 }, { path: '/api/v4/users/2', status: 500 }] });
    await get(fx, '/api/v4/users/1');
    await get(fx, '/api/v4/users/2');
    expect(fx.requests().map((e) => [e.status, e.faults])).toEqual([
      [200, [1]],
      [500, [1, 2]],
    ]);
  });
});

describe('fault injection: latency', () => {
  it('adds a fixed delay before the route answers', async () => {
    const fx = world({ faults: [{ latency: 60 }] });
    const t0 = performance.now();
    expect((await get(fx)).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(55);
    expect(fx.requests.last()!.durationMs).toBeGreaterThanOrEqual(55);
  });

  it('a range draws each delay between its bounds', async () => {
    const fx = world({ faults: [{ latency: '20-40' }] });
    for (let i = 0; i < 3; i++) await get(fx);
    for (const e of fx.requests()) expect(e.durationMs).toBeGreaterThanOrEqual(18);
    // The upper bound, from the draws themselves: a wall-clock bound would fail on a busy machine.
    const faults = new Faults(7);
    faults.add({ latency: '20-40' });
    const delays = Array.from({ length: 200 }, () => faults.plan('GET', '/api/v4/users/1')!.delayMs);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...delays)).toBeLessThanOrEqual(40);
    expect(new Set(delays).size).toBeGreaterThan(1);
  });

  it('parses ms, pairs, units and ranges, and refuses nonsense', () => {
    expect(parseLatency(100)).toEqual([100, 100]);
    expect(parseLatency([10, 20])).toEqual([10, 20]);
    expect(parseLatency('250')).toEqual([250, 250]);
    expect(parseLatency('1s')).toEqual([1000, 1000]);
    expect(parseLatency('100-500')).toEqual([100, 500]);
    expect(parseLatency('50ms-2s')).toEqual([50, 2000]);
    expect(() => parseLatency('500-100')).toThrow();
    expect(() => parseLatency('soon')).toThrow();
  });
});

describe('fault injection: dropped connections', () => {
  it('in process: a network error (Response.error())', async () => {
    const fx = world({ faults: [{ drop: true, times: 1 }] });
    const res = await fx.fetch(new Request('http://gitlab.test/api/v4/users/1', { headers: ROOT }));
    expect(res.type).toBe('error');
    expect(fx.requests.last()).toMatchObject({ status: 0, faults: [1] });
    expect((await fx.fetch(new Request('http://gitlab.test/api/v4/users/1', { headers: ROOT }))).status).toBe(
      200,
    );
  });

  describe('through MSW', () => {
    const fx = createFauxlab({ scenario: smallWorld, faults: [{ path: '/api/v4/users/1', drop: true }] });
    const server = setupServer(...fauxlabHandlers(fx, { baseUrl: 'http://drop.test' }));
    beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
    afterAll(() => server.close());

    it('the client fetch rejects with a TypeError, as on a network failure', async () => {
      await expect(fetch('http://drop.test/api/v4/users/1', { headers: ROOT })).rejects.toThrow(TypeError);
      expect((await fetch('http://drop.test/api/v4/users/2', { headers: ROOT })).status).toBe(200);
    });
  });

  describe('on the Node server', () => {
    const fx = createFauxlab({ scenario: smallWorld, faults: [{ path: '/api/v4/users/1', drop: true }] });
    let server: Server;
    let base = '';
    beforeAll(async () => {
      await new Promise<void>((resolve) => {
        server = serve({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
          base = `http://127.0.0.1:${info.port}`;
          resolve();
        }) as Server;
      });
    });
    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });

    it('the socket is closed without an answer; other requests are served', async () => {
      await expect(fetch(`${base}/api/v4/users/1`, { headers: ROOT })).rejects.toThrow(TypeError);
      const res = await fetch(`${base}/api/v4/users/2`, { headers: ROOT });
      expect(res.status).toBe(200);
      expect(fx.requests().map((e) => e.status)).toEqual([0, 200]);
    });
  });
});

describe('POST/GET/DELETE /__fauxlab/faults', () => {
  const post = (fx: ReturnType<typeof world>, body: unknown) =>
    fx.app.request('/__fauxlab/faults', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('adds a fault (201 with its id), lists it, applies it, deletes it', async () => {
    const fx = world({ seed: 3 });
    let res = await post(fx, { method: 'GET', path: '/api/v4/users/:id', status: 503, times: 1 });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      id: 1,
      method: ['GET'],
      path: '/api/v4/users/:id',
      status: 503,
      times: 1,
      remaining: 1,
      seed: expect.any(Number),
      hits: 0,
    });
    expect((await get(fx)).status).toBe(503);
    res = await fx.app.request('/__fauxlab/faults');
    expect(await json(res)).toMatchObject([{ id: 1, hits: 1, remaining: 0 }]);
    res = await fx.app.request('/__fauxlab/faults/1', { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(fx.faults.list()).toEqual([]);
    res = await fx.app.request('/__fauxlab/faults/1', { method: 'DELETE' });
    expect([res.status, await json(res)]).toEqual([404, { message: '404 Fault Not Found' }]);
  });

  it('an array adds several, all or nothing', async () => {
    const fx = world();
    let res = await post(fx, [{ status: 500 }, { latency: 'slow' }]);
    expect(res.status).toBe(400);
    expect((await json(res)).message.fault[0]).toMatch(/^\[1\] latency: /);
    expect(fx.faults.list()).toEqual([]);
    res = await post(fx, [{ status: 500, path: '/a' }, { latency: 5 }]);
    expect(res.status).toBe(201);
    expect((await json(res)).map((f: { id: number }) => f.id)).toEqual([1, 2]);
  });

  it('an invalid fault is a 400 naming each problem', async () => {
    const fx = world();
    for (const [body, problem] of [
      [{}, /give status, latency or drop/],
      [{ status: 200 }, /^status: /],
      [{ status: 500, drop: true }, /^drop: status and drop cannot be combined/],
      [{ status: 500, probability: 2 }, /^probability: /],
      [{ status: 500, times: 0 }, /^times: /],
      [{ status: 500, color: 'red' }, /color/],
    ] as const) {
      const res = await post(fx, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).message.fault.join('; ')).toMatch(problem);
    }
  });

  it('DELETE /__fauxlab/faults removes every fault', async () => {
    const fx = world({ faults: [{ status: 500 }] });
    expect((await fx.app.request('/__fauxlab/faults', { method: 'DELETE' })).status).toBe(204);
    expect((await get(fx)).status).toBe(200);
  });

  it('reset() removes added faults and brings back the initial ones, counts renewed', async () => {
    const fx = world({ faults: [{ path: '/api/v4/users/2', status: 500, times: 1 }] });
    await get(fx, '/api/v4/users/2');
    fx.faults.add({ status: 503 });
    fx.reset();
    expect(fx.faults.list()).toMatchObject([{ id: 1, remaining: 1, hits: 0 }]);
    expect((await get(fx, '/api/v4/users/1')).status).toBe(200);
    expect((await get(fx, '/api/v4/users/2')).status).toBe(500);
  });
});
