import { describe, expect, it } from 'vitest';
import { BEFORE_WORLD, call, send, world } from '../metadata/world.js';

/** Users in the world: 1 root, 2 owner, 3 maint, 4 dev, 5 outsider. */
describe('/user/emails', () => {
  it('POST /user/emails: 201 {id, email}, stripped and down-cased; listed and shown', async () => {
    const fx = world();
    const r = await send(fx, 'POST', '/user/emails', 'dev', { email: ' Dev.Work@Example.COM ' });
    expect(r).toMatchObject({ status: 201, body: { id: 1, email: 'dev.work@example.com' } });
    expect(Object.keys(r.body)).toEqual(['id', 'email']);
    expect((await send(fx, 'GET', '/user/emails', 'dev')).body).toEqual([
      { id: 1, email: 'dev.work@example.com' },
    ]);
    expect((await send(fx, 'GET', '/user/emails/1', 'dev')).body).toEqual({
      id: 1,
      email: 'dev.work@example.com',
    });
    expect((await send(fx, 'GET', '/user/emails', 'maint')).body).toEqual([]);
  });

  it("POST /user/emails: validation: blank, format, another user's secondary or primary e-mail", async () => {
    const fx = world();
    expect((await send(fx, 'POST', '/user/emails', 'dev', {})).body).toEqual({ error: 'email is missing' });
    expect((await send(fx, 'POST', '/user/emails', 'dev', { email: '' })).body).toEqual({
      message: { email: ["can't be blank", 'is invalid'] },
    });
    expect((await send(fx, 'POST', '/user/emails', 'dev', { email: 'nope' })).body).toEqual({
      message: { email: ['is invalid'] },
    });
    expect((await send(fx, 'POST', '/user/emails', 'dev', { email: 'owner@example.com' })).body).toEqual({
      message: { email: ['has already been taken'] },
    });
    await send(fx, 'POST', '/user/emails', 'maint', { email: 'shared@example.com' });
    expect((await send(fx, 'POST', '/user/emails', 'dev', { email: 'SHARED@example.com' })).body).toEqual({
      message: { email: ['has already been taken'] },
    });
  });

  it("POST /users: another user's secondary e-mail is taken (409), as `by_any_email` finds it", async () => {
    const fx = world();
    await send(fx, 'POST', '/user/emails', 'dev', { email: 'second@example.com' });
    expect(
      await send(fx, 'POST', '/users', 'root', {
        email: 'second@example.com',
        username: 'newbie',
        name: 'New',
        password: 'secret-password',
      }),
    ).toMatchObject({ status: 409, body: { message: 'Email has already been taken' } });
  });

  it('GET /user/emails/:email_id: 404 Email for an unknown or foreign id; 401 anonymous', async () => {
    const fx = world();
    await send(fx, 'POST', '/user/emails', 'maint', { email: 'm2@example.com' });
    expect((await send(fx, 'GET', '/user/emails/1', 'dev')).body).toEqual({ message: '404 Email Not Found' });
    expect((await send(fx, 'GET', '/user/emails')).status).toBe(401);
    expect((await send(fx, 'POST', '/user/emails', undefined, { email: 'x@example.com' })).status).toBe(401);
  });

  it('DELETE /user/emails/:email_id: 204 and gone; 412 when changed since; 404 foreign', async () => {
    const fx = world();
    await send(fx, 'POST', '/user/emails', 'dev', { email: 'd2@example.com' });
    expect((await send(fx, 'DELETE', '/user/emails/1', 'maint')).body).toEqual({
      message: '404 Email Not Found',
    });
    const stale = await call(fx, 'DELETE', '/user/emails/1', 'dev', undefined, BEFORE_WORLD);
    expect(stale.status).toBe(412);
    expect(await stale.json()).toEqual({ message: '412 Precondition Failed' });
    expect((await call(fx, 'DELETE', '/user/emails/1', 'dev')).status).toBe(204);
    expect((await send(fx, 'GET', '/user/emails/1', 'dev')).status).toBe(404);
    expect((await send(fx, 'GET', '/user/emails', 'dev')).body).toEqual([]);
    // The address is free again.
    expect((await send(fx, 'POST', '/user/emails', 'maint', { email: 'd2@example.com' })).status).toBe(201);
  });

  it('GET /user/emails: read_user tokens may read', async () => {
    expect((await send(world(), 'GET', '/user/emails', 'root-user')).status).toBe(200);
  });
});

describe('/users/:id/emails', () => {
  it('POST /users/:id/emails: admins add an e-mail to a user; listed for admins', async () => {
    const fx = world();
    const r = await send(fx, 'POST', '/users/4/emails', 'root', {
      email: 'dev3@example.com',
      skip_confirmation: true,
    });
    expect(r).toMatchObject({ status: 201, body: { id: 1, email: 'dev3@example.com' } });
    expect((await send(fx, 'GET', '/users/4/emails', 'root')).body).toEqual([
      { id: 1, email: 'dev3@example.com' },
    ]);
    expect((await send(fx, 'GET', '/user/emails', 'dev')).body).toEqual([
      { id: 1, email: 'dev3@example.com' },
    ]);
  });

  it('/users/:id/emails: 403 non-admins, 404 User unknown, unknown route for a non-numeric id', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/users/4/emails', 'dev')).status).toBe(403);
    expect((await send(fx, 'POST', '/users/4/emails', 'dev', { email: 'a@example.com' })).status).toBe(403);
    expect((await send(fx, 'GET', '/users/99/emails', 'root')).body).toEqual({
      message: '404 User Not Found',
    });
    expect((await send(fx, 'GET', '/users/dev/emails', 'root')).body).toEqual({ error: '404 Not Found' });
    expect((await send(fx, 'POST', '/users/4/emails', 'dev', {})).body).toEqual({
      error: 'email is missing',
    });
  });

  it("DELETE /users/:id/emails/:email_id: admins; 404 for another user's e-mail; 412 when changed since", async () => {
    const fx = world();
    await send(fx, 'POST', '/users/4/emails', 'root', { email: 'dev3@example.com' });
    expect((await send(fx, 'DELETE', '/users/3/emails/1', 'root')).body).toEqual({
      message: '404 Email Not Found',
    });
    expect((await send(fx, 'DELETE', '/users/4/emails/1', 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', '/users/4/emails/1', 'root', undefined, BEFORE_WORLD)).status).toBe(412);
    expect((await call(fx, 'DELETE', '/users/4/emails/1', 'root')).status).toBe(204);
    expect((await send(fx, 'GET', '/users/4/emails', 'root')).body).toEqual([]);
  });
});
