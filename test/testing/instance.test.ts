import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { smallWorld, world } from '../helpers.js';

describe('instances and the shared route table', () => {
  it('instances share one route table, built once per process; extra routes get a table of their own', () => {
    const a = world();
    const b = world();
    expect(a.routes).toBe(b.routes);
    const c = createFauxlab({ scenario: smallWorld, routes: (r) => r.get('/extra', (ctx) => ctx.json({})) });
    expect(c.routes).not.toBe(a.routes);
    expect(c.routes.some((r) => r.path === '/extra')).toBe(true);
    expect(a.routes.some((r) => r.path === '/extra')).toBe(false);
  });

  it('each request reaches its own instance through the shared table', async () => {
    const a = world();
    const b = world({ tier: 'premium' });
    a.clock.advance(60_000);
    const now = async (fx: typeof a) => (await (await fx.app.request('/__fauxlab/clock')).json()).now;
    expect(await now(a)).toBe('2021-03-01T12:01:00.000Z');
    expect(await now(b)).toBe('2021-03-01T12:00:00.000Z');
  });

  it('the instance app can be mounted in another Hono app', async () => {
    const fx = world();
    const parent = new Hono();
    parent.get('/health', (c) => c.text('ok'));
    parent.route('/', fx.app);
    expect(await (await parent.request('/health')).text()).toBe('ok');
    const res = await parent.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'alice-api' } });
    expect((await res.json()).username).toBe('alice');
    expect(fx.requests()).toHaveLength(1);
  });

  it('app.request and fetch answer alike, HEAD and dropped connections included', async () => {
    const fx = world({ faults: [{ path: '/api/v4/users/3', drop: true }] });
    const head = await fx.app.request('/api/v4/users/1', { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    expect((await fx.app.request('/api/v4/users/3', { method: 'HEAD' })).type).toBe('error');
    expect((await fx.app.request('/api/v4/users/3')).type).toBe('error');
  });
});
