import { describe, expect, it } from 'vitest';
import { findToken } from '../../src/core/auth.js';
import { json, world } from '../helpers.js';

const fx = world();
const get = (path: string, headers: Record<string, string> = {}) => fx.app.request(path, { headers });

describe('authentication', () => {
  it('GET /user: PRIVATE-TOKEN header, private_token param and Bearer all identify the user', async () => {
    for (const res of [
      await get('/api/v4/user', { 'PRIVATE-TOKEN': 'alice-api' }),
      await get('/api/v4/user?private_token=alice-api'),
      await get('/api/v4/user', { Authorization: 'Bearer alice-api' }),
      await get('/api/v4/user?access_token=alice-api'),
    ]) {
      expect(res.status).toBe(200);
      expect((await json(res)).username).toBe('alice');
    }
  });

  it('GET /user: 401 {"message":"401 Unauthorized"} without a token', async () => {
    const res = await get('/api/v4/user');
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({ message: '401 Unauthorized' });
  });

  it('GET /user: an unknown token is 401 even where anonymous access would do', async () => {
    const res = await get('/api/v4/user', { 'PRIVATE-TOKEN': 'nope' });
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({ message: '401 Unauthorized' });
  });

  it('GET /user: an expired token is 401 invalid_token with the platform description and WWW-Authenticate', async () => {
    const res = await get('/api/v4/user', { 'PRIVATE-TOKEN': 'alice-expired' });
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({
      error: 'invalid_token',
      error_description: 'Token is expired. You can either do re-authorization or token refresh.',
    });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm=.*error="invalid_token"/);
  });

  it('GET /user: a token expires when its expiry date begins on the instance clock', async () => {
    const local = world({ now: '2021-01-31T23:59:59Z' });
    expect(
      (await local.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'alice-expired' } })).status,
    ).toBe(200);
    local.clock.advance(1000);
    expect(
      (await local.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'alice-expired' } })).status,
    ).toBe(401);
  });

  it('GET /user: a revoked token is 401 invalid_token "Token was revoked"', async () => {
    const res = await get('/api/v4/user', { 'PRIVATE-TOKEN': 'alice-revoked' });
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({
      error: 'invalid_token',
      error_description: 'Token was revoked. You have to re-authorize from the user.',
    });
  });

  it('GET /user: impersonation tokens work, and are refused when impersonation is disabled', async () => {
    expect((await get('/api/v4/user', { 'PRIVATE-TOKEN': 'alice-imp' })).status).toBe(200);
    const off = world({ impersonation: false });
    const res = await off.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'alice-imp' } });
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({
      error: 'invalid_token',
      error_description: 'Token is an impersonation token but impersonation was disabled.',
    });
  });

  it('GET /user: read_user scope is enough on the users API', async () => {
    expect((await get('/api/v4/user', { 'PRIVATE-TOKEN': 'alice-user' })).status).toBe(200);
  });

  it('POST with a read_api token: 403 insufficient_scope naming the allowed scopes', async () => {
    const local = world({
      routes: (r) => r.post('/things', (c) => c.json({ ok: true }, 201)),
    });
    const res = await local.app.request('/api/v4/things', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'alice-read' },
    });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api',
    });
  });

  it('GET with a read_user token outside the users API: 403 with scope "api read_api"', async () => {
    const local = world({ routes: (r) => r.get('/things', (c) => c.json([])) });
    const res = await local.app.request('/api/v4/things', { headers: { 'PRIVATE-TOKEN': 'alice-user' } });
    expect(res.status).toBe(403);
    expect((await json(res)).scope).toBe('api read_api');
  });

  it('a blocked user\'s token: 403 "Your account has been blocked."', async () => {
    const res = await get('/api/v4/user', { 'PRIVATE-TOKEN': 'mallory-api' });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
  });

  it('POST without credentials: 401 before params are looked at', async () => {
    const local = world({ routes: (r) => r.post('/things', (c) => c.json({}, 201)) });
    const res = await local.app.request('/api/v4/things', { method: 'POST' });
    expect(res.status).toBe(401);
  });
});

describe('sudo', () => {
  it('GET /user: Sudo header with a username, case-insensitive, acts as that user', async () => {
    const res = await get('/api/v4/user', { 'PRIVATE-TOKEN': 'root-sudo', Sudo: 'ALICE' });
    expect(res.status).toBe(200);
    expect((await json(res)).username).toBe('alice');
  });

  it('GET /user: sudo param with a numeric id acts as that user; repeated (Ruby) params are fine', async () => {
    const res = await get('/api/v4/user?sudo=3&sudo=3', { 'PRIVATE-TOKEN': 'root-sudo' });
    expect((await json(res)).username).toBe('bob');
  });

  it('sudo by a non-admin: 403 "Must be admin to use sudo"', async () => {
    const res = await get('/api/v4/user', { 'PRIVATE-TOKEN': 'alice-api', Sudo: 'bob' });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
  });

  it('sudo with an admin token lacking the sudo scope: 403 insufficient_scope with scope "sudo"', async () => {
    const res = await get('/api/v4/user', { 'PRIVATE-TOKEN': 'root-api', Sudo: 'bob' });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'sudo',
    });
  });

  it('sudo to an unknown user: 404 "User with ID or username \'x\' Not Found"', async () => {
    const res = await get('/api/v4/user', { 'PRIVATE-TOKEN': 'root-sudo', Sudo: 'ghost' });
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ message: "404 User with ID or username 'ghost' Not Found" });
  });

  it('sudo without credentials: 401', async () => {
    const res = await get('/api/v4/user', { Sudo: 'bob' });
    expect(res.status).toBe(401);
  });
});

describe('token lookup across changes of the world', () => {
  it('GET /user: a token revoked, restored or created after it was last sent is seen as it is now', async () => {
    const local = world();
    const as = (token: string) => local.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': token } });
    expect((await as('alice-api')).status).toBe(200);
    const before = local.snapshot();
    const id = findToken(local.state, 'alice-api')!.id;
    const del = await local.app.request(`/api/v4/personal_access_tokens/${id}`, {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(del.status).toBe(204);
    const revoked = await as('alice-api');
    expect(revoked.status).toBe(401);
    expect((await json(revoked)).error_description).toBe(
      'Token was revoked. You have to re-authorize from the user.',
    );
    local.restore(before);
    expect((await as('alice-api')).status).toBe(200);

    expect((await as('later-token')).status).toBe(401);
    local.load({ users: [{ username: 'later', tokens: [{ token: 'later-token' }] }] });
    const later = await as('later-token');
    expect(later.status).toBe(200);
    expect((await json(later)).username).toBe('later');
  });
});
