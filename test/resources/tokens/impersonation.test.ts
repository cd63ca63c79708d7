import { describe, expect, it } from 'vitest';
import { call, json, oauthFx, type Fx } from './world.js';

const create = (fx: Fx, body: Record<string, unknown>, user = 2) =>
  call(fx, 'POST', `/users/${user}/impersonation_tokens`, 'root-api', body);

describe('POST /users/:user_id/impersonation_tokens', () => {
  it('POST /users/:user_id/impersonation_tokens: 201 with the token, which works as the user', async () => {
    const fx = oauthFx();
    const res = await create(fx, { name: 'ops', scopes: ['api', 'read_user'], expires_at: '2021-12-31' });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toEqual({
      id: 3,
      name: 'ops',
      revoked: false,
      created_at: '2021-03-01T12:00:00.000Z',
      scopes: ['api', 'read_user'],
      user_id: 2,
      active: true,
      expires_at: '2021-12-31',
      token: body.token,
      impersonation: true,
    });
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{20}$/);
    const me = await call(fx, 'GET', '/user', body.token);
    expect((await json(me)).username).toBe('alice');
  });

  it('POST /users/:user_id/impersonation_tokens: refused when the instance disables impersonation', async () => {
    const fx = oauthFx({ impersonation: false });
    const { token } = await json(await create(fx, { name: 'ops', scopes: ['api'] }));
    const res = await call(fx, 'GET', '/user', token);
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({
      error: 'invalid_token',
      error_description: 'Token is an impersonation token but impersonation was disabled.',
    });
  });

  it('POST /users/:user_id/impersonation_tokens: scopes are required and must exist', async () => {
    const fx = oauthFx();
    const none = await create(fx, { name: 'ops' });
    expect(none.status).toBe(400);
    expect(await json(none)).toEqual({ message: { scopes: ["can't be blank"] } });
    const bad = await create(fx, { name: 'ops', scopes: ['api', 'openid'] });
    expect(await json(bad)).toEqual({ message: { scopes: ['can only contain available scopes'] } });
    const missing = await create(fx, { scopes: 'api' });
    expect(await json(missing)).toEqual({ error: 'name is missing, scopes is invalid' });
  });

  it('POST /users/:user_id/impersonation_tokens: admins only, checked before params; unknown user 404', async () => {
    const fx = oauthFx();
    expect((await call(fx, 'POST', '/users/2/impersonation_tokens', '', {})).status).toBe(401);
    const alice = await call(fx, 'POST', '/users/2/impersonation_tokens', 'alice-api', {});
    expect(alice.status).toBe(403);
    expect(await json(alice)).toEqual({ message: '403 Forbidden' });
    const nobody = await create(fx, { name: 'x', scopes: ['api'] }, 99);
    expect(nobody.status).toBe(404);
    expect(await json(nobody)).toEqual({ message: '404 User Not Found' });
    const word = await call(fx, 'GET', '/users/alice/impersonation_tokens');
    expect(await json(word)).toEqual({ error: 'user_id is invalid' });
  });
});

describe('GET and DELETE impersonation tokens', () => {
  async function world() {
    const fx = oauthFx();
    await create(fx, { name: 'one', scopes: ['api'] });
    await create(fx, { name: 'two', scopes: ['read_user'], expires_at: '2021-03-01' });
    await create(fx, { name: 'three', scopes: ['api'] });
    await call(fx, 'DELETE', '/users/2/impersonation_tokens/5');
    return fx;
  }

  it('GET /users/:user_id/impersonation_tokens: the user impersonation tokens only, paginated', async () => {
    const fx = await world();
    const res = await call(fx, 'GET', '/users/2/impersonation_tokens?per_page=2');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('3');
    expect(res.headers.get('x-next-page')).toBe('2');
    const body = await json(res);
    expect(body.map((t: { name: string }) => t.name)).toEqual(['one', 'two']);
    expect(Object.keys(body[0])).toEqual([
      'id',
      'name',
      'revoked',
      'created_at',
      'scopes',
      'user_id',
      'active',
      'expires_at',
      'impersonation',
    ]);
  });

  it('GET /users/:user_id/impersonation_tokens: state=active and state=inactive', async () => {
    const fx = await world();
    const names = async (state: string) =>
      (await json(await call(fx, 'GET', `/users/2/impersonation_tokens?state=${state}`))).map(
        (t: { name: string }) => t.name,
      );
    // A token expiring today is still listed as active (the date comparison), though it no longer works.
    expect(await names('active')).toEqual(['one', 'two']);
    expect(await names('inactive')).toEqual(['three']);
    const bad = await call(fx, 'GET', '/users/2/impersonation_tokens?state=old');
    expect(await json(bad)).toEqual({ error: 'state does not have a valid value' });
  });

  it('GET /users/:user_id/impersonation_tokens/:id: one token; another user’s is not found', async () => {
    const fx = await world();
    const one = await json(await call(fx, 'GET', '/users/2/impersonation_tokens/4'));
    expect(one).toMatchObject({
      id: 4,
      name: 'two',
      active: false,
      expires_at: '2021-03-01',
      impersonation: true,
    });
    const other = await call(fx, 'GET', '/users/1/impersonation_tokens/3');
    expect(other.status).toBe(404);
    expect(await json(other)).toEqual({ message: '404 Impersonation Token Not Found' });
    // A personal token is not an impersonation token.
    expect((await call(fx, 'GET', '/users/2/impersonation_tokens/2')).status).toBe(404);
  });

  it('DELETE /users/:user_id/impersonation_tokens/:id: revokes (204), and the token stops working', async () => {
    const fx = oauthFx();
    const { id, token } = await json(await create(fx, { name: 'ops', scopes: ['api'] }));
    const res = await call(fx, 'DELETE', `/users/2/impersonation_tokens/${id}`);
    expect(res.status).toBe(204);
    expect((await json(await call(fx, 'GET', `/users/2/impersonation_tokens/${id}`))).revoked).toBe(true);
    expect(await json(await call(fx, 'GET', '/user', token))).toEqual({
      error: 'invalid_token',
      error_description: 'Token was revoked. You have to re-authorize from the user.',
    });
  });
});
