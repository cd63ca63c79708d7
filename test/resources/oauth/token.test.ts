import { describe, expect, it } from 'vitest';
import { basic, codeFor, json, oauthFx, s256, tokenRequest, type Fx } from './world.js';

const REDIRECT = 'http://127.0.0.1:9000/callback';
const CLIENT = { client_id: 'app-uid', client_secret: 'app-secret' };

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};
const INVALID_CLIENT = {
  error: 'invalid_client',
  error_description:
    'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
};
const INVALID_REQUEST = {
  error: 'invalid_request',
  error_description:
    'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
};
const INVALID_SCOPE = {
  error: 'invalid_scope',
  error_description: 'The requested scope is invalid, unknown, or malformed.',
};

async function expectError(res: Response, status: number, body: Record<string, string>) {
  expect(res.status).toBe(status);
  expect(await json(res)).toEqual(body);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
  expect(res.headers.get('www-authenticate')).toBe(
    `Bearer realm="Doorkeeper", error="${body.error}", error_description="${body.error_description}"`,
  );
}

const exchange = (
  fx: Fx,
  code: string,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
) =>
  tokenRequest(
    fx,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...CLIENT, ...extra },
    headers,
  );

describe('POST /oauth/token: authorization_code', () => {
  it('POST /oauth/token: a code buys an access and a refresh token, never cached', async () => {
    const fx = oauthFx();
    const res = await exchange(fx, await codeFor(fx, { scope: 'api read_user' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const body = await json(res);
    expect(Object.keys(body)).toEqual([
      'access_token',
      'token_type',
      'expires_in',
      'refresh_token',
      'scope',
      'created_at',
    ]);
    expect(body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 7200,
      scope: 'api read_user',
      created_at: 1614600000,
    });
    expect(body.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(body.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    const me = await fx.app.request('/api/v4/user', {
      headers: { Authorization: `Bearer ${body.access_token}` },
    });
    expect((await json(me)).username).toBe('alice');
  });

  it('POST /oauth/token: the client may authenticate with HTTP Basic', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx);
    const res = await tokenRequest(
      fx,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { Authorization: basic('app-uid', 'app-secret') },
    );
    expect(res.status).toBe(200);
  });

  it('POST /oauth/token: a JSON body works as well as a form', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx);
    const res = await fx.app.request('/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...CLIENT }),
    });
    expect(res.status).toBe(200);
  });

  it('POST /oauth/token: a code works once (invalid_grant the second time)', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx);
    expect((await exchange(fx, code)).status).toBe(200);
    await expectError(await exchange(fx, code), 400, INVALID_GRANT);
  });

  it('POST /oauth/token: a redirect URI other than the authorize one is invalid_grant', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx);
    await expectError(
      await exchange(fx, code, { redirect_uri: 'https://example.com/cb?tenant=1' }),
      400,
      INVALID_GRANT,
    );
    // The failed attempt did not use the code up.
    expect((await exchange(fx, code)).status).toBe(200);
  });

  it('POST /oauth/token: no redirect URI is invalid_request', async () => {
    const fx = oauthFx();
    await expectError(await exchange(fx, await codeFor(fx), { redirect_uri: '' }), 400, INVALID_REQUEST);
  });

  it('POST /oauth/token: a wrong client secret is invalid_client (401)', async () => {
    const fx = oauthFx();
    await expectError(await exchange(fx, await codeFor(fx), { client_secret: 'wrong' }), 401, INVALID_CLIENT);
  });

  it('POST /oauth/token: no client at all is invalid_client (401)', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx);
    await expectError(
      await tokenRequest(fx, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }),
      401,
      INVALID_CLIENT,
    );
  });

  it('POST /oauth/token: a code given to another client is invalid_grant', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx);
    await expectError(
      await exchange(fx, code, { client_id: 'trusted-uid', client_secret: 'trusted-secret' }),
      400,
      INVALID_GRANT,
    );
  });

  it('POST /oauth/token: a code older than ten minutes is invalid_grant', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx);
    fx.clock.advance(10 * 60 * 1000);
    await expectError(await exchange(fx, code), 400, INVALID_GRANT);
  });

  it('POST /oauth/token: an unknown code is invalid_grant; no code is invalid_request with the state echoed', async () => {
    const fx = oauthFx();
    await expectError(await exchange(fx, 'f'.repeat(64)), 400, INVALID_GRANT);
    await expectError(await exchange(fx, '', { state: 'st' }), 400, { ...INVALID_REQUEST, state: 'st' });
  });
});

describe('POST /oauth/token: PKCE', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

  it('POST /oauth/token: S256: the right verifier buys the token', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx, { code_challenge: s256(verifier), code_challenge_method: 'S256' });
    expect((await exchange(fx, code, { code_verifier: verifier })).status).toBe(200);
  });

  it('POST /oauth/token: S256: a wrong verifier is invalid_grant', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx, { code_challenge: s256(verifier), code_challenge_method: 'S256' });
    await expectError(await exchange(fx, code, { code_verifier: `${verifier}x` }), 400, INVALID_GRANT);
  });

  it('POST /oauth/token: a PKCE code without a verifier is invalid_request', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx, { code_challenge: s256(verifier), code_challenge_method: 'S256' });
    await expectError(await exchange(fx, code), 400, INVALID_REQUEST);
  });

  it('POST /oauth/token: plain: the verifier is the challenge itself', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx, { code_challenge: verifier, code_challenge_method: 'plain' });
    await expectError(await exchange(fx, code, { code_verifier: s256(verifier) }), 400, INVALID_GRANT);
    expect((await exchange(fx, code, { code_verifier: verifier })).status).toBe(200);
  });

  it('POST /oauth/token: a verifier for a code issued without PKCE is invalid_grant', async () => {
    const fx = oauthFx();
    await expectError(await exchange(fx, await codeFor(fx), { code_verifier: verifier }), 400, INVALID_GRANT);
  });
});

describe('POST /oauth/token: password', () => {
  const password = (fx: Fx, form: Record<string, string>, headers: Record<string, string> = {}) =>
    tokenRequest(fx, { grant_type: 'password', ...form }, headers);

  it('POST /oauth/token: password grant with client credentials by HTTP Basic, default scope api', async () => {
    const fx = oauthFx();
    const res = await password(
      fx,
      { username: 'alice', password: 'alicepass123' },
      { Authorization: basic('app-uid', 'app-secret') },
    );
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'api' });
    expect(body.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    const info = await json(await fx.app.request(`/oauth/token/info?access_token=${body.access_token}`));
    expect(info.application).toEqual({ uid: 'app-uid' });
  });

  it('POST /oauth/token: password grant with client credentials as params, and a scope', async () => {
    const fx = oauthFx();
    const res = await password(fx, {
      username: 'alice',
      password: 'alicepass123',
      scope: 'read_user',
      ...CLIENT,
    });
    expect((await json(res)).scope).toBe('read_user');
  });

  it('POST /oauth/token: password grant without a client (go-gitlab basic auth sends an empty one)', async () => {
    const fx = oauthFx();
    const res = await password(
      fx,
      { username: 'alice', password: 'alicepass123' },
      { Authorization: basic('', '') },
    );
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.scope).toBe('api');
    const info = await json(await fx.app.request(`/oauth/token/info?access_token=${body.access_token}`));
    expect(info.application).toEqual({ uid: null });
  });

  it('POST /oauth/token: a user with two-factor authentication is refused (invalid_grant)', async () => {
    await expectError(
      await password(oauthFx(), { username: 'bob', password: 'bobpass1234' }),
      400,
      INVALID_GRANT,
    );
  });

  it('POST /oauth/token: a wrong password, or a blocked user, is invalid_grant', async () => {
    const fx = oauthFx();
    await expectError(await password(fx, { username: 'alice', password: 'nope-nope' }), 400, INVALID_GRANT);
    await expectError(
      await password(fx, { username: 'mallory', password: 'mallorypass1' }),
      400,
      INVALID_GRANT,
    );
  });

  it('POST /oauth/token: a client id with a wrong secret is invalid_client', async () => {
    await expectError(
      await password(oauthFx(), {
        username: 'alice',
        password: 'alicepass123',
        client_id: 'app-uid',
        client_secret: 'x',
      }),
      401,
      INVALID_CLIENT,
    );
  });

  it('POST /oauth/token: a scope the application lacks is invalid_scope', async () => {
    await expectError(
      await password(oauthFx(), { username: 'alice', password: 'alicepass123', scope: 'sudo', ...CLIENT }),
      400,
      INVALID_SCOPE,
    );
  });
});

describe('POST /oauth/token: refresh_token', () => {
  async function tokens(fx: Fx) {
    return json(await exchange(fx, await codeFor(fx, { scope: 'api read_user' })));
  }
  const refresh = (fx: Fx, token: string, extra: Record<string, string> = CLIENT) =>
    tokenRequest(fx, { grant_type: 'refresh_token', refresh_token: token, ...extra });

  it('POST /oauth/token: a refresh gives new tokens and revokes the old pair', async () => {
    const fx = oauthFx();
    const first = await tokens(fx);
    fx.clock.advance(60_000);
    const res = await refresh(fx, first.refresh_token);
    expect(res.status).toBe(200);
    const second = await json(res);
    expect(second).toMatchObject({
      token_type: 'Bearer',
      expires_in: 7200,
      scope: 'api read_user',
      created_at: 1614600060,
    });
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    await expectError(await refresh(fx, first.refresh_token), 400, INVALID_GRANT);
    const old = await fx.app.request('/api/v4/user', {
      headers: { Authorization: `Bearer ${first.access_token}` },
    });
    expect(old.status).toBe(401);
    expect(await json(old)).toEqual({
      error: 'invalid_token',
      error_description: 'Token was revoked. You have to re-authorize from the user.',
    });
    const fresh = await fx.app.request('/api/v4/user', {
      headers: { Authorization: `Bearer ${second.access_token}` },
    });
    expect(fresh.status).toBe(200);
  });

  it('POST /oauth/token: a refresh may narrow the scopes, not widen them', async () => {
    const fx = oauthFx();
    const first = await tokens(fx);
    await expectError(
      await refresh(fx, first.refresh_token, { ...CLIENT, scope: 'api sudo' }),
      400,
      INVALID_SCOPE,
    );
    expect(
      (await json(await refresh(fx, first.refresh_token, { ...CLIENT, scope: 'read_user' }))).scope,
    ).toBe('read_user');
  });

  it('POST /oauth/token: a refresh works after the access token expired', async () => {
    const fx = oauthFx();
    const first = await tokens(fx);
    fx.clock.advance(3 * 3600 * 1000);
    expect((await refresh(fx, first.refresh_token)).status).toBe(200);
  });

  it('POST /oauth/token: refresh errors: no token, unknown token, no client, wrong client', async () => {
    const fx = oauthFx();
    const first = await tokens(fx);
    await expectError(await refresh(fx, ''), 400, INVALID_REQUEST);
    await expectError(await refresh(fx, 'e'.repeat(64)), 400, INVALID_GRANT);
    await expectError(await refresh(fx, first.refresh_token, {}), 400, INVALID_GRANT);
    await expectError(
      await refresh(fx, first.refresh_token, { ...CLIENT, client_secret: 'bad' }),
      401,
      INVALID_CLIENT,
    );
    await expectError(
      await refresh(fx, first.refresh_token, { client_id: 'trusted-uid', client_secret: 'trusted-secret' }),
      400,
      INVALID_GRANT,
    );
    expect((await refresh(fx, first.refresh_token)).status).toBe(200);
  });
});

describe('POST /oauth/token: client_credentials and grant types', () => {
  it('POST /oauth/token: client_credentials gives a token without a user or a refresh token', async () => {
    const fx = oauthFx();
    const res = await tokenRequest(fx, { grant_type: 'client_credentials', ...CLIENT });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body)).toEqual(['access_token', 'token_type', 'expires_in', 'scope', 'created_at']);
    const info = await json(await fx.app.request(`/oauth/token/info?access_token=${body.access_token}`));
    expect(info.resource_owner_id).toBeNull();
    // The API knows no user behind it.
    const api = await fx.app.request('/api/v4/user', {
      headers: { Authorization: `Bearer ${body.access_token}` },
    });
    expect(api.status).toBe(401);
    expect(await json(api)).toEqual({ message: '401 Unauthorized' });
  });

  it('POST /oauth/token: client_credentials needs the client (invalid_client)', async () => {
    await expectError(
      await tokenRequest(oauthFx(), { grant_type: 'client_credentials' }),
      401,
      INVALID_CLIENT,
    );
  });

  it('POST /oauth/token: an unknown grant type is unsupported_grant_type; none is invalid_request', async () => {
    const fx = oauthFx();
    await expectError(await tokenRequest(fx, { grant_type: 'implicit', ...CLIENT }), 400, {
      error: 'unsupported_grant_type',
      error_description: 'The authorization grant type is not supported by the authorization server.',
    });
    await expectError(await tokenRequest(fx, { ...CLIENT }), 400, INVALID_REQUEST);
  });
});
