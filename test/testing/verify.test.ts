import { describe, expect, it } from 'vitest';
import { expectRequest, RequestAssertionError } from '../../src/testing/index.js';
import { world } from '../helpers.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' };

async function session() {
  const fx = world();
  await fx.app.request('/api/v4/users?per_page=5&active=true', { headers: ROOT });
  await fx.app.request('/api/v4/users', {
    method: 'POST',
    headers: ROOT,
    body: JSON.stringify({
      username: 'bobby',
      name: 'Bobby',
      email: 'bobby@example.com',
      password: 'password1',
    }),
  });
  await fx.app.request('/api/v4/users/3/block', { method: 'POST', headers: ROOT });
  await fx.app.request('/api/v4/users/3/block', { method: 'POST', headers: ROOT });
  return fx;
}

/** The error a failing expectation throws. */
function failure(fn: () => unknown): RequestAssertionError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RequestAssertionError) return e;
    throw e;
  }
  throw new Error('expected the expectation to fail');
}

describe('expectRequest', () => {
  it('counts matching requests by method, path pattern, query, body, status and user', async () => {
    const fx = await session();
    expectRequest(fx, { method: 'POST', path: '/api/v4/users/:id/block' }).toHaveBeenCalledTimes(2);
    expectRequest(fx, {
      method: 'get',
      path: '/api/v4/users',
      query: { per_page: 5 },
    }).toHaveBeenCalledOnce();
    expectRequest(fx, {
      path: '/api/v4/users',
      query: { active: true, per_page: /^\d+$/ },
    }).toHaveBeenCalled();
    expectRequest(fx, {
      method: 'POST',
      body: { username: 'bobby', password: '[FILTERED]' },
    }).toHaveBeenCalledOnce();
    expectRequest(fx, {
      body: { email: (v: unknown) => String(v).endsWith('@example.com') },
    }).toHaveBeenCalledOnce();
    expectRequest(fx, { path: '/api/v4/users/**', status: '2xx' }).toHaveBeenCalledTimes(4);
    expectRequest(fx, {
      user: 'root',
      headers: { 'content-type': 'application/json' },
    }).toHaveBeenCalledTimes(4);
    expectRequest(fx, { method: 'DELETE' }).not.toHaveBeenCalled();
    expectRequest(fx, { method: 'POST' }).not.toHaveBeenCalledTimes(1);
    expect(
      expectRequest(fx, { method: 'POST', path: '/api/v4/users/3/block' }).calls.map((e) => e.id),
    ).toEqual([3, 4]);
  });

  it('a wrong count fails with the near misses, closest first, each difference named', async () => {
    const fx = await session();
    const e = failure(() =>
      expectRequest(fx, {
        method: 'POST',
        path: '/api/v4/users',
        body: { username: 'bob' },
      }).toHaveBeenCalledOnce(),
    );
    expect(e.message).toBe(
      [
        'expected 1 request matching POST /api/v4/users, body {"username":"bob"}, got 0',
        '',
        'Near misses (closest first, of 4 requests recorded):',
        '  #2 POST /api/v4/users -> 201',
        '     body.username: expected "bob", got "bobby"',
        '  #4 POST /api/v4/users/3/block -> 201',
        '     path: expected "/api/v4/users", got /api/v4/users/3/block',
        '     body: expected {"username":"bob"}, got nothing',
        '  #3 POST /api/v4/users/3/block -> 201',
        '     path: expected "/api/v4/users", got /api/v4/users/3/block',
        '     body: expected {"username":"bob"}, got nothing',
      ].join('\n'),
    );
    // For the test runner's diff: the matcher against the closest request's values.
    expect(e.expected).toEqual({ method: 'POST', path: '/api/v4/users', body: { username: 'bob' } });
    expect(e.actual).toMatchObject({ method: 'POST', path: '/api/v4/users', body: { username: 'bobby' } });
    expect(e.showDiff).toBe(true);
  });

  it('too many calls also fails', async () => {
    const fx = await session();
    const e = failure(() => expectRequest(fx, { path: '/api/v4/users/3/block' }).toHaveBeenCalledOnce());
    expect(e.message).toMatch(/^expected 1 request matching any method \/api\/v4\/users\/3\/block, got 2/);
  });

  it('not.toHaveBeenCalled lists the requests that did match', async () => {
    const fx = await session();
    const e = failure(() => expectRequest(fx, { path: '/api/v4/users/3/block' }).not.toHaveBeenCalled());
    expect(e.message).toBe(
      [
        'expected no request matching any method /api/v4/users/3/block, got 2:',
        '  #3 POST /api/v4/users/3/block -> 201',
        '  #4 POST /api/v4/users/3/block -> 201',
      ].join('\n'),
    );
  });

  it('says when nothing was recorded, and when the journal dropped older requests', async () => {
    const empty = world();
    expect(failure(() => expectRequest(empty, { method: 'GET' }).toHaveBeenCalled()).message).toContain(
      'No request was recorded.',
    );
    const small = world({ journal: 2 });
    for (let i = 0; i < 3; i++) await small.app.request('/api/v4/users/1');
    expect(failure(() => expectRequest(small, { method: 'POST' }).toHaveBeenCalled()).message).toContain(
      '(the journal keeps the last 2 requests; older ones were dropped)',
    );
  });

  it('refuses an instance whose journal is off', () => {
    expect(() => expectRequest(world({ journal: false }), {})).toThrow(/journal is off/);
  });

  it('works from vitest: a failure is reported as an assertion with a diff', async () => {
    const fx = await session();
    expect(() => expectRequest(fx, { method: 'PUT' }).toHaveBeenCalled()).toThrow(RequestAssertionError);
  });
});
