import { describe, expect, it } from 'vitest';
import { call, gpgKey, send, world } from '../metadata/world.js';

/** `dev` is user 4 and `maint` user 3 of the metadata world. */
describe('POST /user/gpg_keys/:key_id/revoke and /users/:id/gpg_keys/:key_id/revoke', () => {
  it('revokes the current user`s key: 202 with the code as the body, the key gone', async () => {
    const fx = world();
    await send(fx, 'POST', '/user/gpg_keys', 'dev', { key: gpgKey('one') });
    const res = await call(fx, 'POST', '/user/gpg_keys/1/revoke', 'dev');
    expect([res.status, await res.text()]).toEqual([202, '202']);
    expect((await send(fx, 'GET', '/user/gpg_keys', 'dev')).body).toEqual([]);
    expect((await send(fx, 'GET', '/users/4/gpg_keys/1')).body).toEqual({ message: '404 GPG Key Not Found' });
    // Revoked once: the key is gone, so a second revoke finds nothing.
    expect((await send(fx, 'POST', '/user/gpg_keys/1/revoke', 'dev')).body).toEqual({
      message: '404 GPG Key Not Found',
    });
  });

  it('another user`s key is 404; anonymous 401; a non-numeric key id is 400', async () => {
    const fx = world();
    await send(fx, 'POST', '/user/gpg_keys', 'dev', { key: gpgKey('one') });
    const before = fx.state;
    expect((await send(fx, 'POST', '/user/gpg_keys/1/revoke', 'maint')).body).toEqual({
      message: '404 GPG Key Not Found',
    });
    expect((await send(fx, 'POST', '/user/gpg_keys/1/revoke')).res.status).toBe(401);
    expect((await send(fx, 'POST', '/user/gpg_keys/__proto__/revoke', 'dev')).res.status).toBe(400);
    expect(fx.state).toBe(before);
  });

  it('an admin revokes a user`s key; others are refused; unknown user and key are 404', async () => {
    const fx = world();
    await send(fx, 'POST', '/users/4/gpg_keys', 'root', { key: gpgKey('two') });
    expect((await send(fx, 'POST', '/users/4/gpg_keys/1/revoke', 'dev')).body).toEqual({
      message: '403 Forbidden',
    });
    expect((await send(fx, 'POST', '/users/999/gpg_keys/1/revoke', 'root')).body).toEqual({
      message: '404 User Not Found',
    });
    expect((await send(fx, 'POST', '/users/3/gpg_keys/1/revoke', 'root')).body).toEqual({
      message: '404 GPG Key Not Found',
    });
    const res = await call(fx, 'POST', '/users/4/gpg_keys/1/revoke', 'root');
    expect([res.status, await res.text()]).toEqual([202, '202']);
    expect((await send(fx, 'GET', '/users/4/gpg_keys')).body).toEqual([]);
  });
});
