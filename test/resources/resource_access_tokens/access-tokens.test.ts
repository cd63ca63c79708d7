import { describe, expect, it } from 'vitest';
import { APP, NOW, body, call, world } from '../ci/world.js';

async function create(fx: ReturnType<typeof world>, more: Record<string, unknown> = {}) {
  const res = await call(fx, 'POST', `${APP}/access_tokens`, 'maint', {
    name: 'deploy bot',
    scopes: ['api', 'read_repository'],
    ...more,
  });
  expect(res.status).toBe(201);
  return body(res);
}

describe('project access tokens (ResourceAccessTokens::CreateService)', () => {
  it('POST: a bot user project_<id>_bot, maintainer of the project, and its token, shown once', async () => {
    const fx = world();
    const t = await create(fx, { expires_at: '2021-06-01' });
    expect(t).toEqual({
      id: expect.any(Number),
      name: 'deploy bot',
      revoked: false,
      created_at: NOW,
      scopes: ['api', 'read_repository'],
      user_id: expect.any(Number),
      active: true,
      expires_at: '2021-06-01',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
    });
    const bot = await body(await call(fx, 'GET', `/users/${t.user_id}`, 'root'));
    expect(bot).toMatchObject({ username: 'project_1_bot', name: 'deploy bot', bot: true, state: 'active' });
    expect(bot.email).toBe('project1_bot@example.com');
    const member = await body(await call(fx, 'GET', `${APP}/members/${t.user_id}`, 'maint'));
    expect(member).toMatchObject({ access_level: 40, expires_at: '2021-06-01' });
    // A second token gets a second bot.
    const second = await create(fx);
    const bot2 = await body(await call(fx, 'GET', `/users/${second.user_id}`, 'root'));
    expect([bot2.username, second.expires_at]).toEqual(['project_1_bot1', null]);
  });

  it('the token authenticates API calls as the bot, with its scopes', async () => {
    const fx = world();
    const t = await create(fx, { scopes: ['read_api'] });
    const me = await call(fx, 'GET', '/user', t.token);
    expect((await body(me)).username).toBe('project_1_bot');
    expect((await call(fx, 'GET', `${APP}/pipelines`, t.token)).status).toBe(200);
    const write = await call(fx, 'POST', `${APP}/triggers`, t.token, { description: 'x' });
    expect(write.status).toBe(403);
  });

  it('GET lists the tokens of the project’s bots; below maintainer it is 401 as the platform answers', async () => {
    const fx = world();
    const t = await create(fx);
    const list = await body(await call(fx, 'GET', `${APP}/access_tokens`, 'owner'));
    const { token: _shown, ...listed } = t;
    expect(list).toEqual([listed]);
    const dev = await call(fx, 'GET', `${APP}/access_tokens`, 'dev');
    expect([dev.status, await body(dev)]).toEqual([401, { message: '401 Unauthorized' }]);
    const hidden = await call(fx, 'GET', `${APP}/access_tokens`, 'outsider');
    expect([hidden.status, await body(hidden)]).toEqual([404, { message: '404 Project Not Found' }]);
    expect((await call(fx, 'GET', `${APP}/access_tokens`)).status).toBe(401);
  });

  it("POST below maintainer, and with scopes the model refuses: the service's 400", async () => {
    const fx = world();
    const dev = await call(fx, 'POST', `${APP}/access_tokens`, 'dev', { name: 'x', scopes: ['api'] });
    expect([dev.status, await body(dev)]).toEqual([
      400,
      { message: '400 Bad request - User does not have permission to create Project Access Token' },
    ]);
    const bad = await call(fx, 'POST', `${APP}/access_tokens`, 'maint', {
      name: 'x',
      scopes: ['everything'],
    });
    expect([bad.status, await body(bad)]).toEqual([
      400,
      { message: '400 Bad request - Scopes can only contain available scopes' },
    ]);
    const missing = await call(fx, 'POST', `${APP}/access_tokens`, 'maint', { name: 'x' });
    expect([missing.status, await body(missing)]).toEqual([400, { error: 'scopes is missing' }]);
    // Nothing was made by the refused requests.
    expect(await body(await call(fx, 'GET', '/users?username=project_1_bot', 'root'))).toEqual([]);
  });

  it('DELETE revokes: the bot is gone with its membership, the token authenticates nothing', async () => {
    const fx = world();
    const t = await create(fx);
    const dev = await call(fx, 'DELETE', `${APP}/access_tokens/${t.id}`, 'dev');
    expect([dev.status, await body(dev)]).toEqual([
      400,
      { message: '400 Bad request - Dev User cannot delete deploy bot' },
    ]);
    expect((await call(fx, 'DELETE', `${APP}/access_tokens/${t.id}`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', '/user', t.token)).status).toBe(401);
    expect((await call(fx, 'GET', `/users/${t.user_id}`, 'root')).status).toBe(404);
    expect(await body(await call(fx, 'GET', `${APP}/access_tokens`, 'maint'))).toEqual([]);
    const again = await call(fx, 'DELETE', `${APP}/access_tokens/${t.id}`, 'maint');
    expect([again.status, await body(again)]).toEqual([
      404,
      { message: `404 Could not find project access token with token_id: ${t.id} Not Found` },
    ]);
    // A personal token of a user is no project access token.
    const other = await call(fx, 'DELETE', `${APP}/access_tokens/1`, 'maint');
    expect(other.status).toBe(404);
  });
});
