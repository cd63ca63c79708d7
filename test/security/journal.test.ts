import { describe, expect, test } from 'vitest';
import { redactUrl } from '../../src/testing/journal.js';
import { authorizePath, Browser, oauthFx } from '../resources/oauth/world.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

describe('security: credentials in the journal', () => {
  test('POST /oauth/authorize (implicit grant): the Location header is journaled without the access token', async () => {
    const fx = oauthFx();
    const b = new Browser(fx);
    expect((await b.signIn('alice', 'alicepass123')).status).toBe(302);
    const app = { client_id: 'app-uid', redirect_uri: 'http://127.0.0.1:9000/callback', state: 'xyz' };
    const page = await (
      await b.get(authorizePath({ ...app, response_type: 'token', scope: 'read_user' }))
    ).text();
    const location = (await b.decide(page, 'Authorize')).headers.get('location')!;
    const token = /access_token=([0-9a-f]{64})/.exec(location)![1]!;
    const page2 = await (await b.get(authorizePath({ ...app, response_type: 'code' }))).text();
    const code = /code=([0-9a-f]{64})/.exec(
      (await b.decide(page2, 'Authorize')).headers.get('location')!,
    )![1]!;
    const text = JSON.stringify(fx.requests());
    expect(text).not.toContain(token);
    expect(text).not.toContain(code);
    expect(text).toContain('#access_token=[FILTERED]&token_type=Bearer');
    expect(text).toContain('?code=[FILTERED]&state=xyz');
  });

  test('GET /api/v4/projects?private_token=...: the Link header, which repeats the query, is journaled filtered', async () => {
    const fx = reliabilityFx();
    const res = await fx.app.request('/api/v4/projects?per_page=1&private_token=dev-api');
    expect(res.headers.get('link')).toContain('private_token=dev-api');
    const [entry] = fx.requests();
    expect(entry!.responseHeaders.link).toContain('private_token=[FILTERED]');
    expect(JSON.stringify(fx.requests())).not.toContain('dev-api');
    await expectUnharmed(fx);
  });

  test('GET /api/v4/user?private%5Ftoken=...&x=%zz: a malformed query is kept with the credential filtered', async () => {
    const fx = reliabilityFx();
    await fx.app.request('/api/v4/user?private%5Ftoken=dev-api&x=%zz');
    await fx.app.request('/api/v4/user?x=%zz&access_token=dev-api&user[password]=hunter2');
    const [a, b] = fx.requests();
    expect(a!.query).toEqual({ '?': 'private%5Ftoken=[FILTERED]&x=%zz' });
    expect(b!.query).toEqual({ '?': 'x=%zz&access_token=[FILTERED]&user[password]=[FILTERED]' });
    await expectUnharmed(fx);
  });

  test('redactUrl: query and fragment credentials (access_token, code, id_token, refresh_token), other params kept', () => {
    expect(redactUrl('https://app.test/cb?code=abc&state=s#id_token=t&refresh_token=r&x=1')).toBe(
      'https://app.test/cb?code=[FILTERED]&state=s#id_token=[FILTERED]&refresh_token=[FILTERED]&x=1',
    );
    expect(redactUrl('/plain/path')).toBe('/plain/path');
  });
});

describe('security: journal filters', () => {
  test('GET /__fauxlab/requests?path=/**a**a**b over long logged paths: answered, in step with the pattern', async () => {
    const fx = reliabilityFx();
    for (let i = 0; i < 50; i++) await fx.app.request(`/${'a'.repeat(8_000)}${i}`);
    await fx.app.request('/xaxaxb');
    const res = await fx.app.request(`/__fauxlab/requests?path=${encodeURIComponent('/**a**a**b')}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { path: string }[]).map((e) => e.path)).toEqual(['/xaxaxb']);
    const long = await fx.app.request(`/__fauxlab/requests?path=${'*'.repeat(1025)}`);
    expect(long.status).toBe(400);
    expect(await long.json()).toEqual({ message: 'path: a pattern of at most 1024 characters' });
    const fault = await fx.app.request('/__fauxlab/faults', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ path: '*'.repeat(1025), status: 500 }),
    });
    expect(fault.status).toBe(400);
    await expectUnharmed(fx);
  });
});
