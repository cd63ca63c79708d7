import { describe, expect, it } from 'vitest';
import { send, world } from '../metadata/world.js';

/** In the world: 1 group registry token (acme), 2 and 3 project tokens of acme/app. */
const APP = '/projects/acme%2Fapp/deploy_tokens';
const GROUP = '/groups/acme/deploy_tokens';
const APP_CI = {
  id: 2,
  name: 'ci',
  username: 'gitlab+deploy-token-2',
  expires_at: '2022-01-01T00:00:00.000Z',
  scopes: ['read_repository', 'read_registry'],
};

describe('GET /projects/:id/deploy_tokens/:token_id and /groups/:id/deploy_tokens/:token_id (GitLab 14.9)', () => {
  it('14.8 has no such routes: the catch-all 404', async () => {
    const fx = world({ version: '14.8' });
    for (const path of [`${APP}/2`, `${GROUP}/1`]) {
      const r = await send(fx, 'GET', path, 'root');
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual({ error: '404 Not Found' });
    }
  });

  it("14.9: the owner's token as the list shows it, for who may read the list; another's is 404 Not found", async () => {
    const fx = world({ version: '14.9' });
    expect((await send(fx, 'GET', `${APP}/2`, 'maint')).body).toEqual(APP_CI);
    expect((await send(fx, 'GET', `${GROUP}/1`, 'maint')).body).toMatchObject({ id: 1, name: 'registry' });
    expect(await send(fx, 'GET', `${APP}/1`, 'maint')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect(await send(fx, 'GET', `${GROUP}/2`, 'owner')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await send(fx, 'GET', `${APP}/2`, 'dev')).body).toEqual({ message: '403 Forbidden' });
    expect((await send(fx, 'GET', `${APP}/2`, 'outsider')).body).toEqual({
      message: '404 Project Not Found',
    });
  });
});
