import { describe, expect, it } from 'vitest';
import { Browser, authorizePath, codeFor, csrfOf, json, oauthFx, tokenRequest } from './world.js';

const APP = {
  client_id: 'app-uid',
  redirect_uri: 'http://127.0.0.1:9000/callback',
  response_type: 'code',
  state: 'xyz',
};

async function signedIn(fx = oauthFx(), login = 'alice', password = 'alicepass123') {
  const b = new Browser(fx);
  const res = await b.signIn(login, password);
  expect(res.status).toBe(302);
  return b;
}

describe('sign-in', () => {
  it('GET /oauth/authorize: a signed-out browser goes to the sign-in page with a session cookie', async () => {
    const fx = oauthFx();
    const res = await fx.app.request(authorizePath(APP));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/users/sign_in');
    expect(res.headers.get('set-cookie')).toMatch(
      /^_fauxlab_session=a\.[A-Za-z0-9_-]+\.[0-9a-f]{64}; path=\/; HttpOnly; SameSite=Lax$/,
    );
    // Looking writes nothing: the same request gets the same answer.
    const again = await fx.app.request(authorizePath(APP));
    expect(again.headers.get('set-cookie')).toBe(res.headers.get('set-cookie'));
    expect(fx.state.seq.web_sessions).toBeUndefined();
  });

  it('GET /oauth/authorize: a forged session cookie is no session', async () => {
    const fx = oauthFx();
    const forged = `_fauxlab_session=a.e30.${'0'.repeat(64)}`;
    const res = await fx.app.request(authorizePath(APP), { headers: { Cookie: forged } });
    expect(res.headers.get('location')).toBe('/users/sign_in');
    const unknown = await fx.app.request(authorizePath(APP), {
      headers: { Cookie: `_fauxlab_session=${'f'.repeat(64)}` },
    });
    expect(unknown.headers.get('location')).toBe('/users/sign_in');
  });

  it('GET /users/sign_in: a form with username, password and an authenticity token', async () => {
    const res = await oauthFx().app.request('/users/sign_in');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await res.text();
    expect(page).toContain('name="user[login]"');
    expect(page).toContain('name="user[password]"');
    expect(csrfOf(page)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('POST /users/sign_in: after signing in the browser goes back to the authorize request', async () => {
    const b = new Browser(oauthFx());
    await b.get(authorizePath(APP));
    const res = await b.signIn('alice', 'alicepass123');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(authorizePath(APP));
  });

  it('POST /users/sign_in: an e-mail address signs in too, and the session cookie changes', async () => {
    const b = new Browser(oauthFx());
    await b.get('/users/sign_in');
    const before = b.cookie;
    const res = await b.signIn('ALICE@example.com', 'alicepass123');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
    expect(b.cookie).not.toBe(before);
  });

  it('POST /users/sign_in: a wrong password shows the form again with an alert, signed out', async () => {
    const b = new Browser(oauthFx());
    const res = await b.signIn('alice', 'wrong-password');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Invalid login or password.');
    expect((await b.get(authorizePath(APP))).headers.get('location')).toBe('/users/sign_in');
  });

  it('POST /users/sign_in: a blocked user is told so', async () => {
    const res = await new Browser(oauthFx()).signIn('mallory', 'mallorypass1');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Your account has been blocked.');
  });

  it('POST /users/sign_in: without the authenticity token the form is rejected (422)', async () => {
    const b = new Browser(oauthFx());
    await b.get('/users/sign_in');
    const res = await b.post('/users/sign_in', { 'user[login]': 'alice', 'user[password]': 'alicepass123' });
    expect(res.status).toBe(422);
    expect((await b.get(authorizePath(APP))).headers.get('location')).toBe('/users/sign_in');
  });

  it('POST /users/sign_in: records the sign-in on the user', async () => {
    const fx = oauthFx();
    await signedIn(fx);
    const me = await json(
      await fx.app.request('/api/v4/users/2', { headers: { 'PRIVATE-TOKEN': 'root-api' } }),
    );
    expect(me.current_sign_in_at).toBe('2021-03-01T12:00:00.000Z');
    expect(me.last_sign_in_at).toBe('2021-03-01T12:00:00.000Z');
  });

  it('GET /users/sign_out: ends the session', async () => {
    const b = await signedIn();
    const res = await b.get('/users/sign_out');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/users/sign_in');
    expect((await b.get(authorizePath(APP))).headers.get('location')).toBe('/users/sign_in');
  });
});

describe('GET /oauth/authorize: the consent page', () => {
  it('GET /oauth/authorize: names the application and the scopes, with Authorize and Deny forms', async () => {
    const b = await signedIn();
    const res = await b.get(authorizePath({ ...APP, scope: 'api read_user' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const page = await res.text();
    expect(page).toContain('Authorize <a href="http://127.0.0.1:9000/callback"');
    expect(page).toContain('>Test App</a> to use your account?');
    expect([...page.matchAll(/data-scope="([^"]+)"/g)].map((m) => m[1])).toEqual(['api', 'read_user']);
    expect(page).toContain('value="Authorize"');
    expect(page).toContain('value="Deny"');
    expect(page).toContain('<input type="hidden" name="_method" value="delete">');
    expect(page).toContain('<input type="hidden" name="state" value="xyz">');
  });

  it('GET /oauth/authorize: without a scope the application gets the default api scope', async () => {
    const page = await (await (await signedIn()).get(authorizePath(APP))).text();
    expect([...page.matchAll(/data-scope="([^"]+)"/g)].map((m) => m[1])).toEqual(['api']);
  });

  const errorCases: [string, Record<string, string>, string][] = [
    [
      'an unknown client',
      { ...APP, client_id: 'nope' },
      'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    ],
    [
      'a redirect URI the application does not have',
      { ...APP, redirect_uri: 'https://evil.example/cb' },
      'The redirect URI included is not valid.',
    ],
    [
      'no client id',
      { ...APP, client_id: '' },
      'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
    ],
    [
      'a scope the application lacks',
      { ...APP, scope: 'api sudo' },
      'The requested scope is invalid, unknown, or malformed.',
    ],
    [
      'an unknown response type',
      { ...APP, response_type: 'id_token' },
      'The authorization server does not support this response type.',
    ],
    [
      'a PKCE challenge without a method',
      { ...APP, code_challenge: 'abc' },
      'The code challenge method must be plain or S256.',
    ],
  ];
  for (const [what, params, description] of errorCases)
    it(`GET /oauth/authorize: ${what} is shown on the page, never redirected`, async () => {
      const res = await (await signedIn()).get(authorizePath(params));
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBeNull();
      const page = await res.text();
      expect(page).toContain('An error has occurred');
      expect(page).toContain(description.replace(/'/g, '&#39;'));
    });

  it('GET /oauth/authorize: the redirect URI must match exactly (path, and the registered query in any order)', async () => {
    const b = await signedIn();
    const page = async (uri: string) =>
      (await (await b.get(authorizePath({ ...APP, redirect_uri: uri }))).text()).includes(
        'An error has occurred',
      );
    expect(await page('http://127.0.0.1:9000/callback/')).toBe(true);
    expect(await page('https://example.com/cb')).toBe(true);
    expect(await page('https://example.com/cb?tenant=1#frag')).toBe(true);
    expect(await page('https://example.com/cb?tenant=1')).toBe(false);
    // A loopback URI matches on any port (RFC 8252).
    expect(await page('http://127.0.0.1:4567/callback')).toBe(false);
  });

  it('GET /oauth/authorize: a trusted application skips the consent page', async () => {
    const res = await (
      await signedIn()
    ).get(
      authorizePath({
        client_id: 'trusted-uid',
        redirect_uri: 'https://trusted.example/cb',
        response_type: 'code',
        state: 's1',
      }),
    );
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(
      /^https:\/\/trusted\.example\/cb\?code=[0-9a-f]{64}&state=s1$/,
    );
  });

  it('GET /oauth/authorize: consent once given for the same scopes is not asked again', async () => {
    const fx = oauthFx();
    const code = await codeFor(fx);
    await tokenRequest(fx, {
      grant_type: 'authorization_code',
      code,
      client_id: 'app-uid',
      client_secret: 'app-secret',
      redirect_uri: APP.redirect_uri,
    });
    const b = await signedIn(fx);
    const again = await b.get(authorizePath(APP));
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toMatch(
      /^http:\/\/127\.0\.0\.1:9000\/callback\?code=[0-9a-f]{64}&state=xyz$/,
    );
    const wider = await b.get(authorizePath({ ...APP, scope: 'api read_user' }));
    expect(wider.status).toBe(200);
  });
});

describe('POST /oauth/authorize: Authorize and Deny', () => {
  it('POST /oauth/authorize: Authorize redirects with the code and state in the query', async () => {
    const b = await signedIn();
    const page = await (await b.get(authorizePath(APP))).text();
    const res = await b.decide(page, 'Authorize');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(
      /^http:\/\/127\.0\.0\.1:9000\/callback\?code=[0-9a-f]{64}&state=xyz$/,
    );
  });

  it('POST /oauth/authorize: the registered redirect URI keeps its own query', async () => {
    const b = await signedIn();
    const page = await (
      await b.get(authorizePath({ ...APP, redirect_uri: 'https://example.com/cb?tenant=1' }))
    ).text();
    const location = (await b.decide(page, 'Authorize')).headers.get('location');
    expect(location).toMatch(/^https:\/\/example\.com\/cb\?tenant=1&code=[0-9a-f]{64}&state=xyz$/);
  });

  it('POST /oauth/authorize: Deny redirects with error=access_denied and the state', async () => {
    const b = await signedIn();
    const page = await (await b.get(authorizePath(APP))).text();
    const res = await b.decide(page, 'Deny');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(
      'http://127.0.0.1:9000/callback?error=access_denied&error_description=The+resource+owner+or+authorization+server+denied+the+request.&state=xyz',
    );
  });

  it('DELETE /oauth/authorize: denies too', async () => {
    const b = await signedIn();
    const page = await (await b.get(authorizePath(APP))).text();
    const res = await b.request(`${authorizePath(APP)}&authenticity_token=${csrfOf(page)}`, {
      method: 'DELETE',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toContain('error=access_denied');
  });

  it('POST /oauth/authorize: implicit flow: the token, its type, expires_in and state in the fragment', async () => {
    const fx = oauthFx();
    const b = await signedIn(fx);
    const page = await (
      await b.get(authorizePath({ ...APP, response_type: 'token', scope: 'read_user' }))
    ).text();
    const location = (await b.decide(page, 'Authorize')).headers.get('location')!;
    const m =
      /^http:\/\/127\.0\.0\.1:9000\/callback#access_token=([0-9a-f]{64})&token_type=Bearer&expires_in=3600&state=xyz$/.exec(
        location,
      );
    expect(m).not.toBeNull();
    const me = await fx.app.request('/api/v4/user', { headers: { Authorization: `Bearer ${m![1]}` } });
    expect(me.status).toBe(200);
    expect((await json(me)).username).toBe('alice');
  });

  it('POST /oauth/authorize: implicit flow: Deny answers in the fragment', async () => {
    const b = await signedIn();
    const page = await (await b.get(authorizePath({ ...APP, response_type: 'token' }))).text();
    expect((await b.decide(page, 'Deny')).headers.get('location')).toBe(
      'http://127.0.0.1:9000/callback#error=access_denied&error_description=The+resource+owner+or+authorization+server+denied+the+request.&state=xyz',
    );
  });

  it('POST /oauth/authorize: without the authenticity token nothing is granted (422)', async () => {
    const b = await signedIn();
    const res = await b.post('/oauth/authorize', { ...APP, scope: 'api' });
    expect(res.status).toBe(422);
    expect(res.headers.get('location')).toBeNull();
  });

  it('POST /oauth/authorize: a bad redirect URI answers Doorkeeper JSON, not a redirect', async () => {
    const b = await signedIn();
    const token = csrfOf(await (await b.get(authorizePath(APP))).text());
    const res = await b.post('/oauth/authorize', {
      ...APP,
      redirect_uri: 'https://evil.example/cb',
      authenticity_token: token,
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'The redirect URI included is not valid.',
      state: 'xyz',
    });
  });

  it('POST /oauth/authorize: a scope the application lacks goes back to the client as invalid_scope', async () => {
    const b = await signedIn();
    const token = csrfOf(await (await b.get(authorizePath(APP))).text());
    const res = await b.post('/oauth/authorize', { ...APP, scope: 'sudo', authenticity_token: token });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(
      'http://127.0.0.1:9000/callback?error=invalid_scope&error_description=The+requested+scope+is+invalid%2C+unknown%2C+or+malformed.&state=xyz',
    );
  });
});
