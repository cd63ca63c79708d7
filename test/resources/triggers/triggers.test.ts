import { describe, expect, it } from 'vitest';
import { APP, NOW, body, call, world } from '../ci/world.js';

/** Creates a trigger as `who` on acme/app; returns its entity. */
async function newTrigger(fx: ReturnType<typeof world>, who = 'maint', description = 'deploy') {
  const res = await call(fx, 'POST', `${APP}/triggers`, who, { description });
  expect(res.status).toBe(201);
  return body(res);
}

/** `POST .../trigger/pipeline` with a form body, as curl and the docs send it. */
function trigger(
  fx: ReturnType<typeof world>,
  path: string,
  form: string,
  headers: Record<string, string> = {},
) {
  return fx.app.request(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: form,
  });
}

describe('pipeline triggers', () => {
  it('POST /projects/:id/triggers: 201 with the whole token for its owner, who is the caller', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    expect(t).toEqual({
      id: 1,
      token: expect.stringMatching(/^[0-9a-f]{30}$/),
      description: 'deploy',
      created_at: NOW,
      updated_at: NOW,
      last_used: null,
      owner: {
        id: 3,
        name: 'Max Maintainer',
        username: 'maint',
        state: 'active',
        avatar_url: expect.any(String),
        web_url: 'http://localhost/maint',
      },
    });
  });

  it('GET /projects/:id/triggers: other maintainers see only the first four characters of a token', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    const mine = await body(await call(fx, 'GET', `${APP}/triggers`, 'maint'));
    expect(mine.map((x: any) => x.token)).toEqual([t.token]);
    const res = await call(fx, 'GET', `${APP}/triggers`, 'owner');
    expect(res.status).toBe(200);
    expect(res.headers.get('X-Total')).toBe('1');
    expect((await body(res))[0].token).toBe(t.token.slice(0, 4));
    expect((await body(await call(fx, 'GET', `${APP}/triggers/${t.id}`, 'root'))).token).toBe(
      t.token.slice(0, 4),
    );
  });

  it('GET /projects/:id/triggers: 401 anonymous, 404 hidden project, 403 below maintainer', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/triggers`)).status).toBe(401);
    const hidden = await call(fx, 'GET', `${APP}/triggers`, 'outsider');
    expect([hidden.status, await body(hidden)]).toEqual([404, { message: '404 Project Not Found' }]);
    const dev = await call(fx, 'GET', `${APP}/triggers`, 'dev');
    expect([dev.status, await body(dev)]).toEqual([403, { message: '403 Forbidden' }]);
    const bad = await call(fx, 'GET', `${APP}/triggers?page=x`, 'dev');
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'page is invalid' }]);
  });

  it("GET /projects/:id/triggers/:trigger_id: 404 Not found for another project's trigger", async () => {
    const fx = world();
    await call(fx, 'POST', '/projects/acme%2Fsite/triggers', 'maint', { description: 'x' });
    const res = await call(fx, 'GET', `${APP}/triggers/1`, 'maint');
    expect([res.status, await body(res)]).toEqual([404, { message: '404 Not found' }]);
    const bad = await call(fx, 'GET', `${APP}/triggers/abc`, 'maint');
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'trigger_id is invalid' }]);
  });

  it('POST /projects/:id/triggers: description is required', async () => {
    const res = await call(world(), 'POST', `${APP}/triggers`, 'maint', {});
    expect([res.status, await body(res)]).toEqual([400, { error: 'description is missing' }]);
  });

  it('PUT /projects/:id/triggers/:trigger_id: the owner renames it; another maintainer is 403', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    fx.clock.advance(3_600_000);
    const other = await call(fx, 'PUT', `${APP}/triggers/${t.id}`, 'owner', { description: 'x' });
    expect([other.status, await body(other)]).toEqual([403, { message: '403 Forbidden' }]);
    const res = await call(fx, 'PUT', `${APP}/triggers/${t.id}`, 'maint', { description: 'release' });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ description: 'release', updated_at: '2021-03-01T13:00:00.000Z' });
    // Nothing to change leaves updated_at alone.
    fx.clock.advance(3_600_000);
    const same = await body(await call(fx, 'PUT', `${APP}/triggers/${t.id}`, 'maint', {}));
    expect(same.updated_at).toBe('2021-03-01T13:00:00.000Z');
  });

  it('DELETE /projects/:id/triggers/:trigger_id: 204, then its token starts nothing', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    expect((await call(fx, 'DELETE', `${APP}/triggers/${t.id}`, 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${APP}/triggers/${t.id}`, 'owner')).status).toBe(204);
    expect((await call(fx, 'GET', `${APP}/triggers/${t.id}`, 'maint')).status).toBe(404);
    const res = await trigger(fx, `${APP}/trigger/pipeline`, `token=${t.token}&ref=master`);
    expect(res.status).toBe(404);
  });

  it('DELETE /projects/:id/triggers/:trigger_id: 412 when changed since If-Unmodified-Since', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    const res = await fx.app.request(`${APP}/triggers/${t.id}`, {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'maint', 'If-Unmodified-Since': 'Mon, 01 Mar 2021 11:00:00 GMT' },
    });
    expect([res.status, await res.json()]).toEqual([412, { message: '412 Precondition Failed' }]);
  });

  it('POST /projects/:id/trigger/pipeline: 201, a pending pipeline of the trigger owner, with the variables', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    const res = await trigger(
      fx,
      `${APP}/trigger/pipeline`,
      `token=${t.token}&ref=feature&variables[DEPLOY]=yes`,
    );
    expect(res.status).toBe(201);
    const pl = await res.json();
    expect(pl).toMatchObject({
      id: 8,
      ref: 'feature',
      status: 'pending',
      tag: false,
      user: { username: 'maint' },
    });
    const vars = await body(await call(fx, 'GET', `${APP}/pipelines/8/variables`, 'maint'));
    expect(vars).toEqual([
      { key: 'DEPLOY', value: 'yes', variable_type: 'env_var' },
      {
        key: 'TRIGGER_PAYLOAD',
        value: '{"ref":"feature","variables":{"DEPLOY":"yes"},"id":"acme/app"}',
        variable_type: 'file',
      },
    ]);
    expect((await body(await call(fx, 'GET', `${APP}/triggers/${t.id}`, 'maint'))).last_used).toBe(NOW);
  });

  it('POST /projects/:id/trigger/pipeline: no credentials needed, even for a private project; JSON too', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    const res = await fx.app.request(`${APP}/trigger/pipeline`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: t.token, ref: 'v1.0' }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ ref: 'v1.0', tag: true });
  });

  it('POST /projects/:id/ref/:ref/trigger/pipeline: the ref in the path, slashes included', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    const res = await trigger(fx, `${APP}/ref/master/trigger/pipeline`, `token=${t.token}`);
    expect(res.status).toBe(201);
    expect((await res.json()).ref).toBe('master');
    const missing = await trigger(fx, `${APP}/ref/no/such/trigger/pipeline`, `token=${t.token}`);
    expect([missing.status, await missing.json()]).toEqual([
      400,
      { message: { base: ['Reference not found'] } },
    ]);
  });

  it('POST /projects/:id/trigger/pipeline: params first, then the hook loop guard, then the variables', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    const none = await trigger(fx, `${APP}/trigger/pipeline`, '');
    expect([none.status, await none.json()]).toEqual([400, { error: 'ref is missing, token is missing' }]);
    const blank = await trigger(fx, `${APP}/trigger/pipeline`, `token=${t.token}&ref=`);
    expect([blank.status, await blank.json()]).toEqual([400, { error: 'ref is empty' }]);
    const hook = await trigger(fx, `${APP}/trigger/pipeline`, `token=${t.token}&ref=master`, {
      'X-Gitlab-Event': 'Pipeline Hook',
    });
    expect([hook.status, await hook.json()]).toEqual([403, { message: '403 Forbidden' }]);
    const nested = await trigger(
      fx,
      `${APP}/trigger/pipeline`,
      `token=${t.token}&ref=master&variables[A][b]=1`,
    );
    expect([nested.status, await nested.json()]).toEqual([
      400,
      { message: 'variables needs to be a map of key-valued strings' },
    ]);
    expect(fx.state.pipelines.size).toBe(7);
  });

  it("POST /projects/:id/trigger/pipeline: 404 for an unknown token, another project's token or project", async () => {
    const fx = world();
    const t = await newTrigger(fx);
    for (const [path, token] of [
      [`${APP}/trigger/pipeline`, 'nope'],
      ['/api/v4/projects/acme%2Fsite/trigger/pipeline', t.token],
      ['/api/v4/projects/999/trigger/pipeline', t.token],
    ]) {
      const res = await trigger(fx, path!, `token=${token}&ref=master`);
      expect([res.status, await res.json()]).toEqual([404, { message: '404 Not Found' }]);
    }
  });

  it('POST /projects/:id/trigger/pipeline: 400 when the owner may no longer run pipelines', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    await call(fx, 'PUT', '/groups/acme/members/3', 'owner', { access_level: 20 });
    const res = await trigger(fx, `${APP}/trigger/pipeline`, `token=${t.token}&ref=master`);
    expect([res.status, await res.json()]).toEqual([
      400,
      { message: { base: ['Insufficient permissions to create a new pipeline'] } },
    ]);
    expect((await body(await call(fx, 'GET', `${APP}/triggers/${t.id}`, 'owner'))).last_used).toBeNull();
  });

  it("POST /projects/:id/trigger/pipeline: bad variable keys are the model's message", async () => {
    const fx = world();
    const t = await newTrigger(fx);
    const res = await trigger(fx, `${APP}/trigger/pipeline`, `token=${t.token}&ref=master&variables[a-b]=1`);
    expect([res.status, await res.json()]).toEqual([
      400,
      {
        message: {
          base: [
            "Failed to persist the pipeline: Validation failed: Variables key can contain only letters, digits and '_'.",
          ],
        },
      },
    ]);
  });

  it("DELETE /projects/:id: the project's triggers go with it", async () => {
    const fx = world();
    await newTrigger(fx);
    expect(fx.state.triggers.records.size).toBe(1);
    await call(fx, 'DELETE', APP, 'root');
    expect(fx.state.triggers.records.size).toBe(0);
  });

  it('GET /projects/:id/triggers: 403 in an archived project, as are its variables (admin_build is frozen)', async () => {
    const fx = world();
    const t = await newTrigger(fx);
    expect((await call(fx, 'POST', `${APP}/archive`, 'owner')).status).toBe(201);
    for (const path of [`${APP}/triggers`, `${APP}/variables`])
      expect((await call(fx, 'GET', path, 'maint')).status).toBe(403);
    const res = await trigger(fx, `${APP}/trigger/pipeline`, `token=${t.token}&ref=master`);
    expect([res.status, await res.json()]).toEqual([
      400,
      { message: { base: ['Insufficient permissions to create a new pipeline'] } },
    ]);
  });
});
