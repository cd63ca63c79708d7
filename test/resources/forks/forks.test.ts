import { describe, expect, it } from 'vitest';
import { send, world } from '../metadata/world.js';

describe('GET /projects/:id/forks', () => {
  it('GET /projects/:id/forks: the direct forks the caller may see, with the list filters', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/projects/acme%2Fsite/forks', 'dev')).body).toEqual([]);
    const mine = await send(fx, 'POST', '/projects/acme%2Fsite/fork', 'dev');
    expect(mine.status).toBe(201);
    await send(fx, 'PUT', `/projects/${mine.body.id}`, 'dev', { visibility: 'private' });
    const theirs = await send(fx, 'POST', '/projects/acme%2Fsite/fork', 'outsider');
    expect(theirs.status).toBe(201);
    // A fork of the fork is not a direct fork.
    expect((await send(fx, 'POST', `/projects/${theirs.body.id}/fork`, 'maint')).status).toBe(201);
    const all = await send(fx, 'GET', '/projects/acme%2Fsite/forks', 'root');
    expect(all.body.map((p: any) => p.id)).toEqual([theirs.body.id, mine.body.id]);
    expect(all.res.headers.get('X-Total')).toBe('2');
    expect(all.body[0].forked_from_project).toMatchObject({ id: 2 });
    // dev's private fork is hidden from others.
    const outsider = await send(fx, 'GET', '/projects/acme%2Fsite/forks', 'outsider');
    expect(outsider.body.map((p: any) => p.id)).toEqual([theirs.body.id]);
    const owned = await send(fx, 'GET', '/projects/acme%2Fsite/forks?owned=true', 'dev');
    expect(owned.body.map((p: any) => p.id)).toEqual([mine.body.id]);
    const anonymous = await send(fx, 'GET', '/projects/acme%2Fsite/forks');
    expect(anonymous.body.map((p: any) => p.id)).toEqual([theirs.body.id]);
    expect(anonymous.body[0]).not.toHaveProperty('visibility');
  });

  it('GET /projects/:id/forks: a hidden project is not found; bad filters are a 400', async () => {
    const fx = world();
    expect(await send(fx, 'GET', '/projects/acme%2Fapp/forks', 'outsider')).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect((await send(fx, 'GET', '/projects/acme%2Fsite/forks?visibility=secret', 'dev')).body).toEqual({
      error: 'visibility does not have a valid value',
    });
  });
});

describe('POST /projects/:id/fork/:forked_from_id', () => {
  it('POST /projects/:id/fork/:forked_from_id: admins mark a project as a fork, once', async () => {
    const fx = world();
    expect((await send(fx, 'POST', '/projects/3/fork/2', 'dev')).status).toBe(403);
    const r = await send(fx, 'POST', '/projects/dev%2Fnotes/fork/acme%2Fsite', 'root');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: 3, forked_from_project: expect.objectContaining({ id: 2 }) });
    expect((await send(fx, 'GET', '/projects/2', 'root')).body.forks_count).toBe(1);
    expect((await send(fx, 'GET', '/projects/2/forks', 'root')).body.map((p: any) => p.id)).toEqual([3]);
    expect(await send(fx, 'POST', '/projects/3/fork/1', 'root')).toMatchObject({
      status: 409,
      body: { message: 'Project already forked' },
    });
    expect((await send(fx, 'POST', '/projects/3/fork/999', 'root')).status).toBe(404);
  });
});

describe('DELETE /projects/:id/fork', () => {
  it('DELETE /projects/:id/fork: owners remove the relation; 304 when there is none', async () => {
    const fx = world();
    const fork = await send(fx, 'POST', '/projects/acme%2Fsite/fork', 'dev');
    expect((await send(fx, 'DELETE', `/projects/${fork.body.id}/fork`, 'outsider')).status).toBe(403);
    expect((await send(fx, 'DELETE', `/projects/${fork.body.id}/fork`, 'dev')).status).toBe(204);
    expect(
      (await send(fx, 'GET', `/projects/${fork.body.id}`, 'dev')).body.forked_from_project,
    ).toBeUndefined();
    expect((await send(fx, 'GET', '/projects/2', 'dev')).body.forks_count).toBe(0);
    expect((await send(fx, 'DELETE', `/projects/${fork.body.id}/fork`, 'dev')).status).toBe(304);
    expect((await send(fx, 'DELETE', `/projects/${fork.body.id}/fork`)).status).toBe(401);
  });
});
