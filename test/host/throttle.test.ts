import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { smallWorld } from '../helpers.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api' };
const ALICE = { 'PRIVATE-TOKEN': 'alice-api' };

/** smallWorld with the platform's API throttles set (clock frozen at 2021-03-01T12:00:00Z). */
function throttled(settings: Record<string, unknown>) {
  return createFauxlab({ scenario: { ...smallWorld, settings } });
}

const AUTHENTICATED = {
  throttle_authenticated_api_enabled: true,
  throttle_authenticated_api_requests_per_period: 2,
  throttle_authenticated_api_period_in_seconds: 3,
};

describe('Rack::Attack throttles (throttle_* application settings)', () => {
  it('throttle_authenticated_api: past the limit in the window, 429 "Retry later" with the RateLimit headers', async () => {
    const fx = throttled(AUTHENTICATED);
    for (let i = 0; i < 2; i++)
      expect((await fx.app.request('/api/v4/user', { headers: ROOT })).status).toBe(200);
    const res = await fx.app.request('/api/v4/user', { headers: ROOT });
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(await res.text()).toBe('Retry later\n');
    // 12:00:00 is the start of a 3-second window (epoch seconds divisible by 3): it ends 3 s later.
    const now = Date.parse('2021-03-01T12:00:00Z') / 1000;
    expect(now % 3).toBe(0);
    expect(
      Object.fromEntries([...res.headers].filter(([k]) => k.startsWith('ratelimit') || k === 'retry-after')),
    ).toEqual({
      'ratelimit-name': 'throttle_authenticated_api',
      'ratelimit-limit': '40',
      'ratelimit-observed': '3',
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(now + 3),
      'ratelimit-resettime': 'Mon, 01 Mar 2021 12:00:03 GMT',
      'retry-after': '3',
    });
  });

  it('a refused write changes nothing; the next window lets the user through again', async () => {
    const fx = throttled(AUTHENTICATED);
    const create = (name: string) =>
      fx.app.request('/api/v4/projects', {
        method: 'POST',
        headers: { ...ROOT, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name }),
      });
    expect((await create('one')).status).toBe(201);
    expect((await create('two')).status).toBe(201);
    const before = fx.state;
    expect((await create('three')).status).toBe(429);
    expect(fx.state).toBe(before);
    fx.clock.advance(3000);
    expect((await create('three')).status).toBe(201);
  });

  it('counted per user: another user has a window of their own; the disabled throttle counts nothing', async () => {
    const fx = throttled(AUTHENTICATED);
    for (let i = 0; i < 3; i++) await fx.app.request('/api/v4/user', { headers: ROOT });
    expect((await fx.app.request('/api/v4/user', { headers: ROOT })).status).toBe(429);
    expect((await fx.app.request('/api/v4/user', { headers: ALICE })).status).toBe(200);
    // Anonymous requests meet throttle_unauthenticated, which is off.
    for (let i = 0; i < 5; i++) expect((await fx.app.request('/api/v4/projects')).status).toBe(200);
    const off = throttled({});
    for (let i = 0; i < 5; i++)
      expect((await off.app.request('/api/v4/user', { headers: ROOT })).status).toBe(200);
  });

  it('throttle_unauthenticated: per client address; a bad or expired credential counts as none', async () => {
    const fx = throttled({
      throttle_unauthenticated_enabled: true,
      throttle_unauthenticated_requests_per_period: 1,
      throttle_unauthenticated_period_in_seconds: 60,
    });
    const from = (ip: string, headers: Record<string, string> = {}) =>
      fx.app.request('/api/v4/projects', { headers: { 'X-Forwarded-For': ip, ...headers } });
    expect((await from('10.0.0.1')).status).toBe(200);
    const res = await from('10.0.0.1', { 'PRIVATE-TOKEN': 'alice-expired' });
    expect(res.status).toBe(429);
    expect(res.headers.get('ratelimit-name')).toBe('throttle_unauthenticated');
    expect(res.headers.get('ratelimit-limit')).toBe('1');
    expect((await from('10.0.0.2')).status).toBe(200);
    // A valid credential is the authenticated throttle's, which is off.
    expect((await from('10.0.0.1', ROOT)).status).toBe(200);
  });

  it('the control plane and reset: never throttled; reset() starts the counts over', async () => {
    const fx = throttled({ ...AUTHENTICATED, throttle_authenticated_api_requests_per_period: 1 });
    await fx.app.request('/api/v4/user', { headers: ROOT });
    expect((await fx.app.request('/api/v4/user', { headers: ROOT })).status).toBe(429);
    for (let i = 0; i < 3; i++)
      expect((await fx.app.request('/__fauxlab/', { headers: ROOT })).status).toBe(200);
    fx.reset();
    expect((await fx.app.request('/api/v4/user', { headers: ROOT })).status).toBe(200);
  });

  it('a setting turned on through the API applies from the next request (the fast paths count too)', async () => {
    const fx = throttled({});
    const put = await fx.app.request(
      '/api/v4/application/settings?throttle_authenticated_api_enabled=true&throttle_authenticated_api_requests_per_period=1&throttle_authenticated_api_period_in_seconds=60',
      { method: 'PUT', headers: ROOT },
    );
    expect(put.status).toBe(200);
    expect((await fx.app.request('/api/v4/version', { headers: ROOT })).status).toBe(200);
    expect((await fx.app.request('/api/v4/version', { headers: ROOT })).status).toBe(429);
  });
});
