import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { BEFORE_WORLD, call, send, world } from '../metadata/world.js';

/** In the world: 1 group registry token (acme), 2 and 3 project tokens of acme/app. */
const GROUP_TOKEN = {
  id: 1,
  name: 'registry',
  username: 'gitlab+deploy-token-1',
  expires_at: null,
  scopes: ['read_registry'],
};
const APP_CI = {
  id: 2,
  name: 'ci',
  username: 'gitlab+deploy-token-2',
  expires_at: '2022-01-01T00:00:00.000Z',
  scopes: ['read_repository', 'read_registry'],
};
const APP_OLD = { id: 3, name: 'old', username: 'deployer', expires_at: null, scopes: ['read_repository'] };

const APP = '/projects/acme%2Fapp/deploy_tokens';
const GROUP = '/groups/acme/deploy_tokens';

describe('GET /deploy_tokens', () => {
  it('GET /deploy_tokens: every token of the instance, revoked ones too, for admins; never the token', async () => {
    const r = await send(world(), 'GET', '/deploy_tokens', 'root');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([GROUP_TOKEN, APP_CI, APP_OLD]);
    expect(r.res.headers.get('X-Total')).toBe('3');
  });

  it('GET /deploy_tokens: 401 anonymous, 403 other users', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/deploy_tokens')).status).toBe(401);
    expect((await send(fx, 'GET', '/deploy_tokens', 'owner')).status).toBe(403);
  });
});

describe('project deploy tokens', () => {
  it('GET /projects/:id/deploy_tokens: the project tokens, for maintainers', async () => {
    const fx = world();
    expect((await send(fx, 'GET', APP, 'maint')).body).toEqual([APP_CI, APP_OLD]);
    expect((await send(fx, 'GET', `${APP}?per_page=1`, 'root')).res.headers.get('X-Next-Page')).toBe('2');
  });

  it('GET /projects/:id/deploy_tokens: 403 developers and anonymous readers of a public project, 404 hidden', async () => {
    const fx = world();
    expect((await send(fx, 'GET', APP, 'dev')).body).toEqual({ message: '403 Forbidden' });
    expect((await send(fx, 'GET', '/projects/acme%2Fsite/deploy_tokens')).status).toBe(403);
    expect((await send(fx, 'GET', APP, 'outsider')).body).toEqual({ message: '404 Project Not Found' });
  });

  it('POST /projects/:id/deploy_tokens: 201 with the token, shown this once', async () => {
    const fx = world();
    const r = await send(fx, 'POST', APP, 'maint', {
      name: 'deployer',
      scopes: ['write_registry', 'read_repository'],
      expires_at: '2021-12-31',
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: 4,
      name: 'deployer',
      username: 'gitlab+deploy-token-4',
      expires_at: '2021-12-31T00:00:00.000Z',
      scopes: ['read_repository', 'write_registry'],
      token: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
    });
    const listed = (await send(fx, 'GET', APP, 'maint')).body;
    expect(listed.at(-1)).toEqual({
      id: 4,
      name: 'deployer',
      username: 'gitlab+deploy-token-4',
      expires_at: '2021-12-31T00:00:00.000Z',
      scopes: ['read_repository', 'write_registry'],
    });
  });

  it('POST /projects/:id/deploy_tokens: comma-separated scopes and a custom username', async () => {
    const fx = world();
    const r = await send(fx, 'POST', APP, 'root', {
      name: 'n',
      scopes: 'read_package_registry,read_repository',
      username: 'bot.user+1',
    });
    expect(r.body).toMatchObject({
      username: 'bot.user+1',
      expires_at: null,
      scopes: ['read_repository', 'read_package_registry'],
    });
  });

  it('POST /projects/:id/deploy_tokens: Grape errors for the params', async () => {
    const fx = world();
    expect((await send(fx, 'POST', APP, 'maint', {})).body).toEqual({
      error: 'name is missing, scopes is missing',
    });
    expect((await send(fx, 'POST', APP, 'maint', { name: 'n', scopes: ['api'] })).body).toEqual({
      error: 'scopes does not have a valid value',
    });
    expect(
      (await send(fx, 'POST', APP, 'maint', { name: 'n', scopes: ['read_registry'], expires_at: 'soon' }))
        .body,
    ).toEqual({
      error: 'expires_at is invalid',
    });
  });

  it('POST /projects/:id/deploy_tokens: model errors as one sentence', async () => {
    const fx = world();
    expect(await send(fx, 'POST', APP, 'maint', { name: 'n', scopes: [], username: 'a b' })).toEqual(
      expect.objectContaining({
        status: 400,
        body: {
          message:
            "Username can contain only letters, digits, '_', '-', '+', and '.' and Scopes can't be blank",
        },
      }),
    );
    expect((await send(fx, 'POST', APP, 'maint', { name: 'n', scopes: [] })).body).toEqual({
      message: "Scopes can't be blank",
    });
  });

  it('POST /projects/:id/deploy_tokens: no authenticate! (deploy_tokens.rb): params first, then 404 hidden project, 403 developers', async () => {
    const fx = world();
    const data = { name: 'n', scopes: ['read_registry'] };
    const before = fx.state;
    expect((await send(fx, 'POST', APP, undefined, {})).body).toEqual({
      error: 'name is missing, scopes is missing',
    });
    expect((await send(fx, 'POST', APP, undefined, data)).body).toEqual({ message: '404 Project Not Found' });
    expect((await send(fx, 'POST', APP, 'dev', data)).status).toBe(403);
    expect(fx.state).toBe(before);
  });

  it('DELETE /projects/:id/deploy_tokens/:token_id: 204, then the token is gone', async () => {
    const fx = world();
    const res = await call(fx, 'DELETE', `${APP}/2`, 'maint');
    expect(res.status).toBe(204);
    expect((await send(fx, 'GET', APP, 'maint')).body).toEqual([APP_OLD]);
    expect((await send(fx, 'GET', '/deploy_tokens', 'root')).body).toEqual([GROUP_TOKEN, APP_OLD]);
  });

  it("DELETE /projects/:id/deploy_tokens/:token_id: 404 for another owner's token, 400 for a bad id, 403 developers", async () => {
    const fx = world();
    expect((await send(fx, 'DELETE', `${APP}/1`, 'maint')).body).toEqual({
      message: '404 Deploy Token Not Found',
    });
    expect((await send(fx, 'DELETE', `${APP}/99`, 'maint')).status).toBe(404);
    expect((await send(fx, 'DELETE', `${APP}/x`, 'maint')).body).toEqual({ error: 'token_id is invalid' });
    expect((await send(fx, 'DELETE', `${APP}/2`, 'dev')).status).toBe(403);
  });

  it('DELETE /projects/:id/deploy_tokens/:token_id: unconditional, as on the platform', async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', `${APP}/2`, 'maint', undefined, BEFORE_WORLD)).status).toBe(204);
  });

  it('DELETE /projects/:id: the project tokens go with the project', async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', '/projects/acme%2Fapp', 'owner')).status).toBe(202);
    expect((await send(fx, 'GET', '/deploy_tokens', 'root')).body).toEqual([GROUP_TOKEN]);
  });
});

describe('group deploy tokens', () => {
  it('GET /groups/:id/deploy_tokens: the group tokens, for maintainers; 403 developers; 404 unknown', async () => {
    const fx = world();
    expect((await send(fx, 'GET', GROUP, 'maint')).body).toEqual([GROUP_TOKEN]);
    expect((await send(fx, 'GET', GROUP, 'dev')).status).toBe(403);
    expect((await send(fx, 'GET', '/groups/nope/deploy_tokens', 'root')).body).toEqual({
      message: '404 Group Not Found',
    });
  });

  it('POST /groups/:id/deploy_tokens: owners create; maintainers may not', async () => {
    const fx = world();
    const data = { name: 'g', scopes: ['read_repository'] };
    expect((await send(fx, 'POST', GROUP, 'maint', data)).status).toBe(403);
    const r = await send(fx, 'POST', GROUP, 'owner', data);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: 4,
      name: 'g',
      username: 'gitlab+deploy-token-4',
      token: expect.any(String),
    });
    expect((await send(fx, 'GET', GROUP, 'owner')).body.map((t: any) => t.id)).toEqual([1, 4]);
  });

  it("DELETE /groups/:id/deploy_tokens/:token_id: owners; 404 Not found for another owner's token", async () => {
    const fx = world();
    expect((await send(fx, 'DELETE', `${GROUP}/1`, 'maint')).status).toBe(403);
    expect((await send(fx, 'DELETE', `${GROUP}/2`, 'owner')).body).toEqual({ message: '404 Not found' });
    expect((await call(fx, 'DELETE', `${GROUP}/1`, 'owner')).status).toBe(204);
    expect((await send(fx, 'GET', GROUP, 'owner')).body).toEqual([]);
  });

  it('DELETE /groups/:id/deploy_tokens/:token_id: 412 with an older If-Unmodified-Since; nothing deleted', async () => {
    const fx = world();
    const res = await call(fx, 'DELETE', `${GROUP}/1`, 'owner', undefined, BEFORE_WORLD);
    expect(res.status).toBe(412);
    expect(await res.json()).toEqual({ message: '412 Precondition Failed' });
    expect((await send(fx, 'GET', GROUP, 'owner')).body).toEqual([GROUP_TOKEN]);
  });

  it("DELETE /groups/:id: the group tokens and its projects' go with it", async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', '/groups/acme', 'owner')).status).toBe(202);
    expect((await send(fx, 'GET', '/deploy_tokens', 'root')).body).toEqual([]);
  });
});

describe('deploy tokens in scenarios', () => {
  it('scenario deploy_tokens: a token or its digest (exactly one), valid usernames', () => {
    const base = { users: [{ username: 'u' }] };
    expect(() =>
      createFauxlab({
        scenario: {
          ...base,
          projects: [{ path: 'u/p', deploy_tokens: [{ name: 'x', scopes: ['read_registry'] }] }],
        },
      }),
    ).toThrow(/projects\[0\]\.deploy_tokens\[0\]: give token or token_digest/);
    expect(() =>
      createFauxlab({
        scenario: {
          ...base,
          projects: [
            {
              path: 'u/p',
              deploy_tokens: [{ name: 'x', token: 't', username: 'a b', scopes: ['read_registry'] }],
            },
          ],
        },
      }),
    ).toThrow(/projects\[0\]\.deploy_tokens\[0\]: Username can contain only/);
  });
});
