import { describe, expect, it } from 'vitest';
import { json, world } from '../helpers.js';

const post = (fx: ReturnType<typeof world>, path: string, body?: unknown) =>
  fx.app.request(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('control plane', () => {
  it('POST /__fauxlab/clock: advance by a duration and set to an ISO time', async () => {
    const fx = world();
    let res = await post(fx, '/__fauxlab/clock', { advance: '1h30m' });
    expect(await json(res)).toEqual({ now: '2021-03-01T13:30:00.000Z' });
    res = await post(fx, '/__fauxlab/clock', { set: '2022-01-01T00:00:00Z' });
    expect(await json(res)).toEqual({ now: '2022-01-01T00:00:00.000Z' });
    expect(fx.clock.iso()).toBe('2022-01-01T00:00:00.000Z');
  });

  it('POST /__fauxlab/clock: a bad duration is a 400 and the clock stays', async () => {
    const fx = world();
    const res = await post(fx, '/__fauxlab/clock', { advance: 'soon' });
    expect(res.status).toBe(400);
    expect(fx.clock.iso()).toBe('2021-03-01T12:00:00.000Z');
  });

  it('POST /__fauxlab/scenario replaces the world; POST /__fauxlab/reset returns to it', async () => {
    const fx = world();
    let res = await post(fx, '/__fauxlab/scenario', {
      users: [{ username: 'zed', tokens: [{ token: 'zed-t' }] }],
    });
    expect(res.status).toBe(201);
    expect((await fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'alice-api' } })).status).toBe(
      401,
    );
    expect((await fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'zed-t' } })).status).toBe(
      200,
    );
    fx.clock.advance(60_000);
    res = await post(fx, '/__fauxlab/reset');
    expect(res.status).toBe(200);
    expect((await fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'zed-t' } })).status).toBe(
      200,
    );
    expect(fx.clock.iso()).toBe('2021-01-04T10:00:00.000Z');
  });

  it('POST /__fauxlab/scenario: an invalid scenario is a 400 naming the field path, and the world stays', async () => {
    const fx = world();
    const before = fx.state;
    const res = await post(fx, '/__fauxlab/scenario', {
      users: [{ username: 'a', tokens: [{ token: 't', scopes: ['everything'] }] }],
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.message.scenario[0]).toMatch(/^users\[0\]\.tokens\[0\]\.scopes\[0\]: /);
    expect(fx.state).toBe(before);
  });

  it('GET /__fauxlab/state: the whole state as JSON, with no token or password in clear', async () => {
    const fx = world();
    const res = await fx.app.request('/__fauxlab/state');
    const text = await res.text();
    expect(JSON.parse(text).users.size).toBe(4);
    expect(text).not.toContain('alice-api');
  });

  it('the control plane can be switched off', async () => {
    const fx = world({ controlPlane: false });
    const res = await post(fx, '/__fauxlab/reset');
    expect(res.status).toBe(404);
  });

  it('reset() restores the loaded scenario after writes', async () => {
    const fx = world();
    const initial = fx.state;
    const res = await fx.app.request('/api/v4/users', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
      body: JSON.stringify({
        username: 'newbie',
        name: 'New',
        email: 'new@example.com',
        password: 'secret123',
      }),
    });
    expect(res.status).toBe(201);
    expect(fx.state).not.toBe(initial);
    fx.clock.advance(5000);
    fx.reset();
    expect(fx.state).toBe(initial);
    expect(fx.clock.iso()).toBe('2021-03-01T12:00:00.000Z');
  });
});
