import { describe, expect, it } from 'vitest';
import { send, world } from '../metadata/world.js';

describe('POST /projects/:id/housekeeping', () => {
  it('POST /projects/:id/housekeeping: maintainers start it; again within the hour is a 409', async () => {
    const fx = world();
    expect((await send(fx, 'POST', '/projects/acme%2Fsite/housekeeping')).status).toBe(401);
    expect((await send(fx, 'POST', '/projects/acme%2Fsite/housekeeping', 'dev')).status).toBe(403);
    expect((await send(fx, 'POST', '/projects/acme%2Fapp/housekeeping', 'outsider')).status).toBe(404);
    const r = await send(fx, 'POST', '/projects/acme%2Fsite/housekeeping', 'maint');
    expect(r.status).toBe(201);
    expect(r.body).toMatch(/^[0-9a-f]{24}$/);
    expect(await send(fx, 'POST', '/projects/acme%2Fsite/housekeeping', 'maint')).toMatchObject({
      status: 409,
      body: { message: 'Somebody already triggered housekeeping for this resource in the past 60 minutes' },
    });
    await send(fx, 'POST', '/__fauxlab/clock', undefined, { advance: '61m' });
    expect((await send(fx, 'POST', '/projects/acme%2Fsite/housekeeping', 'owner')).status).toBe(201);
  });
});

describe('GET /projects/:id/storage', () => {
  it('GET /projects/:id/storage: where the repository lives, for admins', async () => {
    const fx = world();
    const r = await send(fx, 'GET', '/projects/acme%2Fsite/storage', 'root');
    expect(r.body).toEqual({
      project_id: 2,
      disk_path: '@hashed/d4/73/d4735e3a265e16eee03f59718b9b5d03019c07d8b6c51f90da3a666eec13ab35',
      created_at: expect.any(String),
      repository_storage: 'default',
    });
    expect((await send(fx, 'GET', '/projects/acme%2Fsite/storage', 'owner')).status).toBe(403);
    expect((await send(fx, 'GET', '/projects/acme%2Fsite/storage')).status).toBe(401);
  });
});
