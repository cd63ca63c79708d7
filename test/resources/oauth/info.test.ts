import { describe, expect, it } from 'vitest';
import { basic, codeFor, json, oauthFx, tokenRequest, type Fx } from './world.js';

const REDIRECT = 'http://127.0.0.1:9000/callback';
const CLIENT = { client_id: 'app-uid', client_secret: 'app-secret' };

async function issue(fx: Fx, scope = 'api read_user') {
  const code = await codeFor(fx, { scope });
  return json(
    await tokenRequest(fx, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...CLIENT }),
  );
}

const passwordToken = async (fx: Fx, username: string, password: string, scope: string) =>
  (await json(await tokenRequest(fx, { grant_type: 'password', username, password, scope, ...CLIENT })))
    .access_token as string;

const INVALID_TOKEN = {
  error: 'invalid_token',
  error_description: 'The access token is invalid',
  state: 'unauthorized',
};

describe('GET /oauth/token/info', () => {
  it('GET /oauth/token/info: the token information with the deprecated aliases', async () => {
    const fx = oauthFx();
    const t = await issue(fx);
    const res = await fx.app.request(`/oauth/token/info?access_token=${t.access_token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe(
      '{"resource_owner_id":2,"scope":["api","read_user"],"expires_in":7200,"application":{"uid":"app-uid"},' +
        '"created_at":1614600000,"scopes":["api","read_user"],"expires_in_seconds":7200}',
    );
  });

  it('GET /oauth/token/info: the token may come as a Bearer header or a bearer_token param', async () => {
    const fx = oauthFx();
    const t = await issue(fx);
    const byHeader = await fx.app.request('/oauth/token/info', {
      headers: { Authorization: `Bearer ${t.access_token}` },
    });
    expect((await json(byHeader)).resource_owner_id).toBe(2);
    const byParam = await fx.app.request(`/oauth/token/info?bearer_token=${t.access_token}`);
    expect((await json(byParam)).resource_owner_id).toBe(2);
  });

  it('GET /oauth/token/info: expires_in counts down on the instance clock', async () => {
    const fx = oauthFx();
    const t = await issue(fx);
    fx.clock.advance(3600 * 1000);
    const info = await json(await fx.app.request(`/oauth/token/info?access_token=${t.access_token}`));
    expect(info.expires_in).toBe(3600);
    expect(info.expires_in_seconds).toBe(3600);
  });

  it('GET /oauth/token/info: an unknown token, a personal token or none is invalid_token (401)', async () => {
    const fx = oauthFx();
    for (const path of [
      '/oauth/token/info?access_token=nope',
      '/oauth/token/info?access_token=alice-api',
      '/oauth/token/info',
    ]) {
      const res = await fx.app.request(path);
      expect(res.status).toBe(401);
      expect(await json(res)).toEqual(INVALID_TOKEN);
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer realm="Doorkeeper", error="invalid_token", error_description="The access token is invalid"',
      );
    }
  });

  it('GET /oauth/token/info: an expired token is invalid_token; the API says it expired', async () => {
    const fx = oauthFx();
    const t = await issue(fx);
    fx.clock.advance(7200 * 1000);
    expect(await json(await fx.app.request(`/oauth/token/info?access_token=${t.access_token}`))).toEqual(
      INVALID_TOKEN,
    );
    const api = await fx.app.request('/api/v4/user', {
      headers: { Authorization: `Bearer ${t.access_token}` },
    });
    expect(api.status).toBe(401);
    expect(await json(api)).toEqual({
      error: 'invalid_token',
      error_description: 'Token is expired. You can either do re-authorization or token refresh.',
    });
  });

  it('GET /oauth/token/info: a token is still good one second before it expires', async () => {
    const fx = oauthFx();
    const t = await issue(fx);
    fx.clock.advance(7199 * 1000);
    const api = await fx.app.request(`/api/v4/user?access_token=${t.access_token}`);
    expect(api.status).toBe(200);
  });
});

describe('POST /oauth/revoke', () => {
  const revoke = (fx: Fx, form: Record<string, string>, headers: Record<string, string> = {}) =>
    fx.app.request('/oauth/revoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });

  it('POST /oauth/revoke: the client revokes a token: 200 {} and the token stops working', async () => {
    const fx = oauthFx();
    const t = await issue(fx);
    const res = await revoke(fx, { token: t.access_token, ...CLIENT });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{}');
    const api = await fx.app.request('/api/v4/user', {
      headers: { Authorization: `Bearer ${t.access_token}` },
    });
    expect(await json(api)).toEqual({
      error: 'invalid_token',
      error_description: 'Token was revoked. You have to re-authorize from the user.',
    });
  });

  it('POST /oauth/revoke: the refresh token revokes the pair', async () => {
    const fx = oauthFx();
    const t = await issue(fx);
    expect(
      (await revoke(fx, { token: t.refresh_token }, { Authorization: basic('app-uid', 'app-secret') }))
        .status,
    ).toBe(200);
    expect((await fx.app.request(`/oauth/token/info?access_token=${t.access_token}`)).status).toBe(401);
  });

  it("POST /oauth/revoke: a confidential application's token needs that client", async () => {
    const fx = oauthFx();
    const t = await issue(fx);
    const refused = {
      error: 'unauthorized_client',
      error_description: 'You are not authorized to revoke this token',
    };
    const none = await revoke(fx, { token: t.access_token });
    expect(none.status).toBe(403);
    expect(await json(none)).toEqual(refused);
    const other = await revoke(fx, {
      token: t.access_token,
      client_id: 'trusted-uid',
      client_secret: 'trusted-secret',
    });
    expect(other.status).toBe(403);
    expect((await fx.app.request(`/oauth/token/info?access_token=${t.access_token}`)).status).toBe(200);
  });

  it('POST /oauth/revoke: a token issued without a client may be revoked by anyone holding it', async () => {
    const fx = oauthFx();
    const t = await json(
      await tokenRequest(fx, { grant_type: 'password', username: 'alice', password: 'alicepass123' }),
    );
    expect((await revoke(fx, { token: t.access_token })).status).toBe(200);
    expect((await fx.app.request(`/oauth/token/info?access_token=${t.access_token}`)).status).toBe(401);
  });

  it('POST /oauth/revoke: an unknown token is refused (403)', async () => {
    const res = await revoke(oauthFx(), { token: 'nope', ...CLIENT });
    expect(res.status).toBe(403);
  });
});

describe('OAuth tokens on the API', () => {
  it('API: a read_user token reads the user but cannot write (403 insufficient_scope)', async () => {
    const fx = oauthFx();
    const token = await passwordToken(fx, 'root', 'rootpass123', 'read_user');
    const auth = { Authorization: `Bearer ${token}` };
    expect((await fx.app.request('/api/v4/user', { headers: auth })).status).toBe(200);
    const res = await fx.app.request('/api/v4/users/2/block', { method: 'POST', headers: auth });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api',
    });
  });

  it('API: an api token can write', async () => {
    const fx = oauthFx();
    const token = await passwordToken(fx, 'root', 'rootpass123', 'api');
    const res = await fx.app.request('/api/v4/users/2/block', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('true');
  });

  it('API: a token reaches what its user can reach, no more', async () => {
    const fx = oauthFx();
    const alice = await passwordToken(fx, 'alice', 'alicepass123', 'api');
    const res = await fx.app.request('/api/v4/projects/acme%2Fsecret', {
      headers: { Authorization: `Bearer ${alice}` },
    });
    expect(res.status).toBe(200);
    const carol = await passwordToken(fx, 'carol', 'carolpass123', 'api');
    const hidden = await fx.app.request(`/api/v4/projects/acme%2Fsecret?access_token=${carol}`);
    expect(hidden.status).toBe(404);
    expect(await json(hidden)).toEqual({ message: '404 Project Not Found' });
  });
});
