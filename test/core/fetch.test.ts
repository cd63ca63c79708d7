import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/app.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-token' };
const world = () =>
  createFauxlab({
    scenario: { users: [{ username: 'root', admin: true, tokens: [{ token: 'root-token' }] }] },
  });

describe('fx.fetch', () => {
  it('fx.fetch: a URL string and an init, as fetch takes them', async () => {
    const res = await world().fetch('http://x.test/api/v4/user', { headers: ROOT });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { username: string }).username).toBe('root');
  });

  it('fx.fetch: a URL object, and a method and body in the init', async () => {
    const fx = world();
    const res = await fx.fetch(new URL('http://x.test/api/v4/users'), {
      method: 'POST',
      headers: { ...ROOT, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'zed', name: 'Zed', email: 'zed@example.com', password: 'password1' }),
    });
    expect(res.status).toBe(201);
    expect(fx.state.users.size).toBe(2);
  });

  it('fx.fetch: an init overrides what the Request carries', async () => {
    const fx = world();
    const req = new Request('http://x.test/api/v4/user', { headers: ROOT });
    expect((await fx.fetch(req, { headers: {} })).status).toBe(401);
    expect((await fx.fetch(req)).status).toBe(200);
  });

  it('fx.fetch: serves as the fetch of code that takes one', async () => {
    const fx = world();
    const whoAmI = async (f: typeof fetch) =>
      ((await (await f('http://x.test/api/v4/user', { headers: ROOT })).json()) as { username: string })
        .username;
    expect(await whoAmI(fx.fetch)).toBe('root');
    expect(fx.requests.last()).toMatchObject({ method: 'GET', path: '/api/v4/user', user: 'root' });
  });

  it('fx.fetch: a bad input rejects with fetch\u2019s TypeError instead of throwing', async () => {
    const fx = world();
    const pending = fx.fetch('/api/v4/user');
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toThrow(TypeError);
    await expect(fx.fetch('http://x.test/api/v4/user', { method: 'GET', body: 'x' })).rejects.toThrow(
      TypeError,
    );
  });

  it('fx.fetch: a Node server calling it with its bindings still answers (and can drop connections)', async () => {
    const fx = world();
    const server = await new Promise<{ s: Server; port: number }>((done) => {
      const s = serve({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
        done({ s: s as Server, port: info.port }),
      ) as Server;
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${base}/api/v4/user`, { headers: ROOT })).status).toBe(200);
      fx.faults.add({ path: '/api/v4/user', drop: true, times: 1 });
      await expect(fetch(`${base}/api/v4/user`, { headers: ROOT })).rejects.toThrow(TypeError);
    } finally {
      server.s.closeAllConnections();
      await new Promise((r) => server.s.close(r));
    }
  });
});
