import { Gitlab } from '@gitbeaker/rest';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../src/index.js';
import { expectRequest, useFauxlab } from '../../src/testing/index.js';
import { smallWorld } from '../helpers.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' };
const newUser = (username: string) =>
  JSON.stringify({ username, name: username, email: `${username}@example.com`, password: 'password1' });

describe('useFauxlab: one instance per file, reset before each test, served through MSW', () => {
  const fx = useFauxlab({ scenario: smallWorld, msw: 'http://reset.test' });
  let first: Fauxlab | undefined;

  it('serves fetch at the origin through MSW', async () => {
    first = fx.instance;
    const res = await fetch('http://reset.test/api/v4/users', {
      method: 'POST',
      headers: ROOT,
      body: newUser('temp'),
    });
    expect(res.status).toBe(201);
    expect(fx.state.users.size).toBe(5);
    fx.clock.advance(60_000);
    fx.faults.add({ status: 500 });
    expectRequest(fx, { method: 'POST', path: '/api/v4/users' }).toHaveBeenCalledOnce();
  });

  it('the next test starts from the scenario: state, clock, journal and faults', async () => {
    expect(fx.instance).toBe(first);
    expect(fx.state.users.size).toBe(4);
    expect(fx.clock.iso()).toBe('2021-03-01T12:00:00.000Z');
    expect(fx.requests()).toEqual([]);
    expect(fx.faults.list()).toEqual([]);
    const res = await fetch('http://reset.test/api/v4/users?username=temp', { headers: ROOT });
    expect(await res.json()).toEqual([]);
  });

  it('exposes the MSW server and origin', () => {
    expect(fx.url).toBe('http://reset.test');
    expect(fx.server).toBeDefined();
  });

  it('works with a real client (gitbeaker), including its retries on injected 429s', async () => {
    fx.faults.add({ path: '/api/v4/user', status: 429, times: 2 });
    const api = new Gitlab({ host: 'http://reset.test', token: 'alice-api' });
    const me = await api.Users.showCurrentUser();
    expect(me.username).toBe('alice');
    expectRequest(fx, { method: 'GET', path: '/api/v4/user' }).toHaveBeenCalledTimes(3);
    expect(fx.requests().map((e) => e.status)).toEqual([429, 429, 200]);
  });
});

describe('useFauxlab: a fresh instance per test', () => {
  const fx = useFauxlab({ scenario: smallWorld, isolation: 'fresh' });
  const seen: Fauxlab[] = [];

  it('gets an instance', () => {
    seen.push(fx.instance);
  });

  it('gets another one', async () => {
    seen.push(fx.instance);
    expect(seen[1]).not.toBe(seen[0]);
    const res = await fx.app.request('/api/v4/user', { headers: ROOT });
    expect(res.status).toBe(200);
  });
});

describe('useFauxlab: handlers for an MSW server of your own', () => {
  const fx = useFauxlab({ scenario: smallWorld, isolation: 'fresh' });
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  it('reach the current test instance', async () => {
    server.use(...fx.handlers('http://own.test'));
    const res = await fetch('http://own.test/api/v4/user', { headers: ROOT });
    expect((await res.json()).username).toBe('root');
    expectRequest(fx, { path: '/api/v4/user', user: 'root' }).toHaveBeenCalledOnce();
  });
});

describe('useFauxlab outside a test', () => {
  const fx = useFauxlab({ scenario: smallWorld, isolation: 'fresh' });
  it('the fixture refuses to be used when no test runs (here: after the test, before the next)', () => {
    expect(fx.instance).toBeDefined();
  });
  afterAll(() => {
    expect(() => fx.state).toThrow(/only while tests run/);
  });
});

describe('many instances in one process', () => {
  it('1,000 instances with a small scenario are independent of one another', async () => {
    const scenario = {
      users: [{ username: 'root', admin: true, tokens: [{ token: 't' }] }, { username: 'alice' }],
      groups: [{ path: 'acme', members: [{ username: 'alice', access_level: 'owner' as const }] }],
      projects: [{ path: 'acme/app' }],
    };
    const all = Array.from({ length: 1000 }, () => createFauxlab({ scenario }));
    const headers = { 'PRIVATE-TOKEN': 't', 'Content-Type': 'application/json' };
    await all[7]!.app.request('/api/v4/users', { method: 'POST', headers, body: newUser('only-in-7') });
    all[9]!.clock.advance(1000);
    for (const [i, fx] of all.entries()) {
      expect(fx.state.users.size, `instance ${i}`).toBe(i === 7 ? 3 : 2);
      expect(fx.requests.size).toBe(i === 7 ? 1 : 0);
      expect(fx.clock.ms() === all[0]!.clock.ms()).toBe(i !== 9);
    }
    const res = await all[999]!.app.request('/api/v4/users?username=only-in-7', { headers });
    expect(await res.json()).toEqual([]);
  });
});
