import { expect, test } from 'vitest';
import { reliabilityFx } from './world.js';

/**
 * Credentials a client sends or receives (tokens, passwords, OAuth secrets) never show up in the request
 * journal, the logs, the control plane's state dump or any error body.
 */
test('secrets: tokens, passwords and OAuth secrets stay out of the journal, the logs, the state and error bodies', async () => {
  const logged: string[] = [];
  const fx = reliabilityFx({ logger: (m, e) => logged.push(`${m} ${String(e)}`) });
  const seen: string[] = [];
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fx.app.request(path, {
      method,
      headers: { ...headers, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text };
  };
  const admin = { 'PRIVATE-TOKEN': 'root-api' };

  // Secrets the platform hands out, once.
  const pat = await call('POST', '/api/v4/users/4/personal_access_tokens', admin, {
    name: 'ci',
    scopes: ['api'],
  });
  expect(pat.status).toBe(201);
  const patToken = (JSON.parse(pat.text) as { token: string }).token;
  const imp = await call('POST', '/api/v4/users/4/impersonation_tokens', admin, {
    name: 'imp',
    scopes: ['api'],
  });
  expect(imp.status).toBe(201);
  const impToken = (JSON.parse(imp.text) as { token: string }).token;
  const app = await call('POST', '/api/v4/applications', admin, {
    name: 'app',
    redirect_uri: 'http://example.com/cb',
    scopes: 'api',
  });
  expect(app.status).toBe(201);
  const appSecret = (JSON.parse(app.text) as { secret: string }).secret;
  // Secrets clients send.
  const password = 'Correct-Horse-Battery-Staple-42';
  expect(
    (
      await call('POST', '/api/v4/users', admin, {
        email: 'new@example.com',
        username: 'newbie',
        name: 'New',
        password,
      })
    ).status,
  ).toBe(201);
  seen.push((await call('GET', `/api/v4/user?private_token=${patToken}`, {})).text);
  seen.push((await call('GET', '/api/v4/user', { Authorization: `Bearer ${impToken}` })).text);
  // Refused credentials: the error bodies must not echo them.
  for (const bad of ['wrong-token-abc123', 'dev-expired', 'dev-revoked']) {
    seen.push((await call('GET', '/api/v4/user', { 'PRIVATE-TOKEN': bad })).text);
    seen.push((await call('GET', `/api/v4/projects?private_token=${bad}`, {})).text);
    seen.push((await call('GET', '/api/v4/user', { Authorization: `Bearer ${bad}` })).text);
    seen.push((await call('GET', `/api/v4/user?access_token=${bad}`, {})).text);
  }
  seen.push((await call('GET', '/api/v4/user', { 'JOB-TOKEN': 'job-secret-xyz' })).text);

  const journal = JSON.stringify(fx.requests());
  const journalOverHttp = await (await fx.app.request('/__fauxlab/requests')).text();
  const state = await (await fx.app.request('/__fauxlab/state')).text();
  const errorBodies = seen.filter((t) => t.includes('"message"') || t.includes('"error"')).join('\n');
  const secrets = [
    'root-api',
    'dev-api',
    'wrong-token-abc123',
    'dev-expired',
    'dev-revoked',
    'job-secret-xyz',
    patToken,
    impToken,
    appSecret,
    password,
    'root-password-123',
  ];
  for (const s of secrets) {
    expect(journal, `journal has ${s}`).not.toContain(s);
    expect(journalOverHttp, `journal over HTTP has ${s}`).not.toContain(s);
    expect(state, `state has ${s}`).not.toContain(s);
    expect(errorBodies, `an error body has ${s}`).not.toContain(s);
    expect(logged.join('\n'), `the log has ${s}`).not.toContain(s);
  }
  // The journal still says what happened, without the secret.
  expect(fx.requests({ path: '/api/v4/users/4/personal_access_tokens' })).toHaveLength(1);
});
