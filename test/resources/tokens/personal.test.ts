import { describe, expect, it } from 'vitest';
import { call, json, oauthFx } from './world.js';

const names = async (res: Response) => (await json(res)).map((t: { name: string }) => t.name);

async function world() {
  const fx = oauthFx();
  await call(fx, 'POST', '/users/2/personal_access_tokens', 'root-api', {
    name: 'laptop',
    scopes: 'api,read_user',
  });
  await call(fx, 'POST', '/users/2/impersonation_tokens', 'root-api', { name: 'imp', scopes: ['api'] });
  return fx;
}

describe('POST /users/:user_id/personal_access_tokens', () => {
  it('POST /users/:user_id/personal_access_tokens: 201 with the token (scopes may be comma-separated)', async () => {
    const fx = oauthFx();
    const res = await call(fx, 'POST', '/users/2/personal_access_tokens', 'root-api', {
      name: 'laptop',
      scopes: 'api,read_user',
      expires_at: '2022-01-01',
    });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(Object.keys(body)).toEqual([
      'id',
      'name',
      'revoked',
      'created_at',
      'scopes',
      'user_id',
      'active',
      'expires_at',
      'token',
    ]);
    expect(body).toMatchObject({
      name: 'laptop',
      scopes: ['api', 'read_user'],
      user_id: 2,
      active: true,
      expires_at: '2022-01-01',
    });
    expect((await json(await call(fx, 'GET', '/user', body.token))).username).toBe('alice');
  });

  it('POST /users/:user_id/personal_access_tokens: unknown scopes and missing params', async () => {
    const fx = oauthFx();
    const bad = await call(fx, 'POST', '/users/2/personal_access_tokens', 'root-api', {
      name: 'x',
      scopes: ['api', 'nope'],
    });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({ error: 'scopes does not have a valid value' });
    const none = await call(fx, 'POST', '/users/2/personal_access_tokens', 'root-api', {});
    expect(await json(none)).toEqual({ error: 'name is missing, scopes is missing' });
    expect((await call(fx, 'POST', '/users/2/personal_access_tokens', 'alice-api', {})).status).toBe(403);
  });
});

describe('GET /personal_access_tokens', () => {
  it('GET /personal_access_tokens: a user sees their own personal tokens, not impersonation ones', async () => {
    const fx = await world();
    const res = await call(fx, 'GET', '/personal_access_tokens', 'alice-api');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('2');
    expect(await names(res)).toEqual(['token', 'laptop']);
  });

  it('GET /personal_access_tokens: an admin sees everyone’s, or one user’s with user_id', async () => {
    const fx = await world();
    expect(await names(await call(fx, 'GET', '/personal_access_tokens'))).toEqual([
      'token',
      'token',
      'laptop',
      'imp',
    ]);
    expect(await names(await call(fx, 'GET', '/personal_access_tokens?user_id=2'))).toEqual([
      'token',
      'laptop',
      'imp',
    ]);
  });

  it('GET /personal_access_tokens: a user naming someone else is 401; anonymous 401', async () => {
    const fx = await world();
    const other = await call(fx, 'GET', '/personal_access_tokens?user_id=1', 'alice-api');
    expect(other.status).toBe(401);
    expect(await json(other)).toEqual({ message: '401 Unauthorized' });
    expect((await call(fx, 'GET', '/personal_access_tokens?user_id=2', 'alice-api')).status).toBe(200);
    expect((await call(fx, 'GET', '/personal_access_tokens', '')).status).toBe(401);
  });

  it('GET /personal_access_tokens: OAuth tokens are not personal tokens', async () => {
    const fx = await world();
    await fx.app.request('/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&username=alice&password=alicepass123',
    });
    expect(await names(await call(fx, 'GET', '/personal_access_tokens', 'alice-api'))).toEqual([
      'token',
      'laptop',
    ]);
  });
});

describe('DELETE /personal_access_tokens/:id', () => {
  it('DELETE /personal_access_tokens/:id: the owner revokes (204) and the token stops working', async () => {
    const fx = await world();
    const res = await call(fx, 'DELETE', '/personal_access_tokens/2', 'alice-api');
    expect(res.status).toBe(204);
    expect((await call(fx, 'GET', '/user', 'alice-api')).status).toBe(401);
  });

  it('DELETE /personal_access_tokens/:id: someone else’s token is 400; an unknown one 404', async () => {
    const fx = await world();
    const other = await call(fx, 'DELETE', '/personal_access_tokens/1', 'alice-api');
    expect(other.status).toBe(400);
    expect(await json(other)).toEqual({ message: '400 Bad request' });
    const missing = await call(fx, 'DELETE', '/personal_access_tokens/99', 'alice-api');
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ message: '404 Not found' });
    expect((await call(fx, 'DELETE', '/personal_access_tokens/2')).status).toBe(204);
  });
});
