/**
 * Project repository storage moves (`lib/api/project_repository_storage_moves.rb`): admins only; a move
 * is scheduled, started, replicated (the project's `repository_storage` changes) and finished on the
 * instance clock; the storages are the configured ones; the bulk move schedules one per project.
 */
import { describe, expect, it } from 'vitest';
import { advance, call, movesWorld, world } from './world.js';

const APP = '/projects/acme%2Fapp';

describe('POST /projects/:id/repository_storage_moves', () => {
  it('201 and Entities::Projects::RepositoryStorageMove; the states on the clock; the storage moves', async () => {
    const fx = world();
    const made = await call(fx, 'POST', `${APP}/repository_storage_moves`, 'root', {
      destination_storage_name: 'storage2',
    });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: 1,
      created_at: '2021-03-01T12:00:00.000Z',
      state: 'scheduled',
      source_storage_name: 'default',
      destination_storage_name: 'storage2',
      project: {
        id: 1,
        description: '',
        name: 'app',
        name_with_namespace: 'acme / app',
        path: 'app',
        path_with_namespace: 'acme/app',
        created_at: '2021-01-01T00:00:00.000Z',
      },
    });
    const one = () => call(fx, 'GET', `${APP}/repository_storage_moves/1`, 'root');
    const storage = async () => (await call(fx, 'GET', APP, 'root')).body.repository_storage;
    expect((await one()).body.state).toBe('scheduled');
    // A second move while the repository is read-only: the model's validation.
    expect(await call(fx, 'POST', `${APP}/repository_storage_moves`, 'root', {})).toMatchObject({
      status: 400,
      body: { message: { project: ['is read-only'] } },
    });
    await advance(fx, '1s');
    expect((await one()).body.state).toBe('started');
    expect(await storage()).toBe('default');
    await advance(fx, '2s');
    expect((await one()).body.state).toBe('replicated');
    expect(await storage()).toBe('storage2');
    await advance(fx, '1s');
    expect((await one()).body.state).toBe('finished');
    // Without a destination: `pick_storage_shard`, the heaviest storage; the source is where it is now.
    const back = await call(fx, 'POST', `${APP}/repository_storage_moves`, 'root');
    expect(back.body).toMatchObject({
      id: 2,
      source_storage_name: 'storage2',
      destination_storage_name: 'default',
    });
  });

  it("unknown or blank storages are the model's errors; admins only; a hidden or missing project is a 404", async () => {
    const fx = world();
    const post = (body: unknown, token = 'root', path = APP) =>
      call(fx, 'POST', `${path}/repository_storage_moves`, token, body);
    expect(await post({ destination_storage_name: 'nope' })).toMatchObject({
      status: 400,
      body: { message: { destination_storage_name: ['is not included in the list'] } },
    });
    expect((await post({ destination_storage_name: '' })).body).toEqual({
      message: { destination_storage_name: ["can't be blank", 'is not included in the list'] },
    });
    expect((await post({ destination_storage_name: '__proto__' })).status).toBe(400);
    expect((await post({ destination_storage_name: 'constructor' })).status).toBe(400);
    expect((await post({}, 'owner')).body).toEqual({ message: '403 Forbidden' });
    expect((await post({}, '')).body).toEqual({ message: '401 Unauthorized' });
    expect((await post({}, 'root', '/projects/acme%2Fnope')).body).toEqual({
      message: '404 Project Not Found',
    });
    // Nothing was made.
    expect((await call(fx, 'GET', '/project_repository_storage_moves', 'root')).body).toEqual([]);
  });
});

describe('GET /project_repository_storage_moves, /:repository_storage_move_id, /projects/:id/...', () => {
  it("every move newest first, paginated; one by id; a project's own; 404 Not found; 403 for non-admins", async () => {
    // Free: a project is deleted at once (premium marks it for deletion first).
    const fx = world({ ...movesWorld, tier: 'free' });
    await call(fx, 'POST', `${APP}/repository_storage_moves`, 'root', {
      destination_storage_name: 'storage2',
    });
    await advance(fx, '1m');
    await call(fx, 'POST', '/projects/acme%2Fsite/repository_storage_moves', 'root', {
      destination_storage_name: 'cold',
    });
    const all = await call(fx, 'GET', '/project_repository_storage_moves', 'root');
    expect(all.body.map((m: { id: number }) => m.id)).toEqual([2, 1]);
    expect(all.headers.get('x-total')).toBe('2');
    expect(all.body[1].state).toBe('finished');
    const own = await call(fx, 'GET', `${APP}/repository_storage_moves`, 'root');
    expect(own.body.map((m: { id: number }) => m.id)).toEqual([1]);
    expect((await call(fx, 'GET', '/project_repository_storage_moves/2', 'root')).body.project.path).toBe(
      'site',
    );
    expect((await call(fx, 'GET', `${APP}/repository_storage_moves/2`, 'root')).body).toEqual({
      message: '404 Not found',
    });
    expect((await call(fx, 'GET', '/project_repository_storage_moves/9', 'root')).body).toEqual({
      message: '404 Not found',
    });
    expect((await call(fx, 'GET', '/project_repository_storage_moves/x', 'root')).body).toEqual({
      error: 'repository_storage_move_id is invalid',
    });
    expect((await call(fx, 'GET', '/project_repository_storage_moves', 'owner')).status).toBe(403);
    expect((await call(fx, 'GET', '/project_repository_storage_moves/x', 'owner')).status).toBe(403);
    expect((await call(fx, 'GET', `${APP}/repository_storage_moves`)).status).toBe(401);
    // A deleted project's moves go with it.
    await call(fx, 'DELETE', '/projects/acme%2Fsite', 'root');
    expect((await call(fx, 'GET', '/project_repository_storage_moves/2', 'root')).status).toBe(404);
  });
});

describe('POST /project_repository_storage_moves', () => {
  it('202 Accepted; a move for every project on the source storage; values are the configured storages', async () => {
    const fx = world();
    await call(fx, 'POST', '/projects/acme%2Fsite/repository_storage_moves', 'root', {
      destination_storage_name: 'cold',
    });
    await advance(fx, '10s');
    const r = await call(fx, 'POST', '/project_repository_storage_moves', 'root', {
      source_storage_name: 'default',
      destination_storage_name: 'storage2',
    });
    expect(r).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
    const all = (await call(fx, 'GET', '/project_repository_storage_moves', 'root')).body;
    // Only acme/app was on `default` (acme/site moved to `cold`).
    expect(all.map((m: { project: { path: string }; state: string }) => [m.project.path, m.state])).toEqual([
      ['app', 'scheduled'],
      ['site', 'finished'],
    ]);
    expect((await call(fx, 'POST', '/project_repository_storage_moves', 'root', {})).body).toEqual({
      error: 'source_storage_name is missing',
    });
    expect(
      (
        await call(fx, 'POST', '/project_repository_storage_moves', 'root', {
          source_storage_name: 'x',
          destination_storage_name: 'y',
        })
      ).body,
    ).toEqual({
      error:
        'source_storage_name does not have a valid value, destination_storage_name does not have a valid value',
    });
    expect(
      (await call(fx, 'POST', '/project_repository_storage_moves', 'owner', { source_storage_name: 'x' }))
        .status,
    ).toBe(403);
  });
});
