import { describe, expect, it } from 'vitest';
import { apiPath } from '../helpers.js';
import { createFauxlab } from '../../../src/index.js';
import { NOW, REGISTRATION, body, call, runnersFx, runnersWorld } from './world.js';

/** `POST /runners` as gitlab-runner sends it: a form, no user credentials. */
function register(fx: ReturnType<typeof runnersFx>, form: Record<string, string>, headers = {}) {
  return fx.app.request(apiPath('/runners'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

describe('POST /runners (Ci::RegisterRunnerService)', () => {
  it("the instance's registration token makes an instance runner: 201 with its id and authentication token", async () => {
    const fx = runnersFx();
    const res = await register(
      fx,
      {
        token: REGISTRATION,
        description: 'new-runner',
        tag_list: 'ruby, mysql,,ruby',
        'info[name]': 'gitlab-runner',
        'info[version]': '13.12.0',
        'info[platform]': 'linux',
      },
      { 'X-Forwarded-For': '192.0.2.7, 10.0.0.1' },
    );
    expect(res.status).toBe(201);
    const made = await body(res);
    expect(made).toEqual({ id: 5, token: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/) });
    const details = await body(await call(fx, 'GET', '/runners/5', 'root'));
    expect(details).toMatchObject({
      id: 5,
      description: 'new-runner',
      ip_address: '192.0.2.7',
      active: true,
      is_shared: true,
      name: 'gitlab-runner',
      online: null,
      status: 'not_connected',
      tag_list: ['ruby', 'mysql'],
      run_untagged: true,
      locked: false,
      maximum_timeout: null,
      access_level: 'not_protected',
      version: '13.12.0',
      platform: 'linux',
      contacted_at: null,
      projects: [],
      groups: [],
    });
  });

  it("a project's runners token makes a runner of that project; a group's, of that group", async () => {
    const fx = runnersFx();
    const app = await body(await call(fx, 'GET', '/projects/acme%2Fapp', 'owner'));
    const group = await body(await call(fx, 'GET', '/groups/acme', 'owner'));
    const p = await body(await register(fx, { token: app.runners_token, locked: 'true' }));
    const g = await body(await register(fx, { token: group.runners_token }));
    const proj = await body(await call(fx, 'GET', `/runners/${p.id}`, 'maint'));
    expect(proj).toMatchObject({ is_shared: false, locked: true, projects: [{ id: app.id }], groups: [] });
    const grp = await body(await call(fx, 'GET', `/runners/${g.id}`, 'owner'));
    expect(grp).toMatchObject({ is_shared: false, projects: [], groups: [{ id: group.id, name: 'acme' }] });
    const listed = await body(await call(fx, 'GET', '/groups/acme/runners?type=group_type', 'owner'));
    expect(listed.map((r: any) => r.id)).toEqual([2, g.id]);
  });

  it('an unknown token is 403 and makes nothing; the token param is required', async () => {
    const fx = runnersFx();
    const res = await register(fx, { token: 'nope' });
    expect([res.status, await body(res)]).toEqual([403, { message: '403 Forbidden' }]);
    const missing = await register(fx, { description: 'x' });
    expect([missing.status, await body(missing)]).toEqual([400, { error: 'token is missing' }]);
    const all = await call(fx, 'GET', '/runners/all', 'root');
    expect(all.headers.get('X-Total')).toBe('4');
  });

  it("the model's validations: tags when it takes no untagged jobs, a timeout of ten minutes at least", async () => {
    const fx = runnersFx();
    const res = await register(fx, { token: REGISTRATION, run_untagged: 'false', maximum_timeout: '60' });
    expect([res.status, await body(res)]).toEqual([
      400,
      {
        message: {
          tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'],
          maximum_timeout: ['needs to be at least 10 minutes'],
        },
      },
    ]);
    const bad = await register(fx, { token: REGISTRATION, access_level: 'everyone' });
    expect([bad.status, await body(bad)]).toEqual([
      400,
      { error: 'access_level does not have a valid value' },
    ]);
  });

  it('registers at the instant of the request', async () => {
    const fx = runnersFx();
    const made = await body(await register(fx, { token: REGISTRATION }));
    fx.clock.advance(60_000);
    const all = await body(await call(fx, 'GET', '/runners/all?status=not_connected', 'root'));
    expect(all.map((r: any) => r.id)).toEqual([3, made.id]);
    expect(NOW).toBe('2021-03-01T12:00:00.000Z');
  });
});

describe('DELETE /runners (unregister by authentication token)', () => {
  it('204 for a runner token, which then authenticates nothing; 403 for any other', async () => {
    const fx = runnersFx();
    const del = (token: string) =>
      fx.app.request(apiPath('/runners'), {
        method: 'DELETE',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token }),
      });
    expect((await del('grouptoken00000000002')).status).toBe(204);
    expect((await call(fx, 'GET', '/runners/2', 'root')).status).toBe(404);
    const again = await del('grouptoken00000000002');
    expect([again.status, await body(again)]).toEqual([403, { message: '403 Forbidden' }]);
    // A registration token is not an authentication token.
    expect((await del(REGISTRATION)).status).toBe(403);
  });
});

describe('the request journal keeps no runner secret', () => {
  it('registration and authentication tokens are filtered from bodies, queries and answers', async () => {
    const fx = createFauxlab({ scenario: runnersWorld, journal: { responseBodies: 'all' } });
    const made = await body(await register(fx, { token: REGISTRATION }));
    await fx.app.request(apiPath(`/runners?token=${made.token}`), { method: 'DELETE' });
    const project = await call(fx, 'GET', '/projects/acme%2Fapp', 'owner');
    const runnersToken = (await body(project)).runners_token as string;
    const text = JSON.stringify(fx.requests());
    for (const secret of [REGISTRATION, made.token, runnersToken]) expect(text).not.toContain(secret);
    const [reg, unreg] = fx.requests();
    expect(reg!.body).toEqual({ token: '[FILTERED]' });
    expect(JSON.parse(reg!.responseBody!)).toEqual({ id: made.id, token: '[FILTERED]' });
    expect(unreg!.query).toEqual({ token: '[FILTERED]' });
    expect(unreg!.status).toBe(204);
  });
});
