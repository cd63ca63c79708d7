import { describe, expect, it } from 'vitest';
import { BEFORE_WORLD, call, gpgKey, send, sshKey, world, NOW } from '../metadata/world.js';

describe('/user/keys', () => {
  it('POST /user/keys: 201 with the SSHKey entity; listed and shown', async () => {
    const fx = world();
    const key = sshKey(1);
    const r = await send(fx, 'POST', '/user/keys', 'dev', {
      title: 'laptop',
      key,
      expires_at: '2022-01-01T00:00:00Z',
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: 1,
      title: 'laptop',
      key,
      created_at: NOW,
      expires_at: '2022-01-01T00:00:00.000Z',
    });
    expect(Object.keys(r.body)).toEqual(['id', 'title', 'key', 'created_at', 'expires_at']);
    expect((await send(fx, 'GET', '/user/keys', 'dev')).body).toEqual([r.body]);
    expect((await send(fx, 'GET', '/user/keys/1', 'dev')).body).toEqual(r.body);
    expect((await send(fx, 'GET', '/user/keys/1', 'maint')).body).toEqual({ message: '404 Key Not Found' });
  });

  it('POST /user/keys: the key is sanitised: a broken line joined, the comment cut to one word', async () => {
    const fx = world();
    const [type, b64] = sshKey(2).split(' ');
    const r = await send(fx, 'POST', '/user/keys', 'dev', {
      title: 't',
      key: `  ${type} ${b64!.slice(0, 20)}\n${b64!.slice(20)} me@box and more\n`,
    });
    expect(r.body.key).toBe(`${type} ${b64} me@box`);
  });

  it('POST /user/keys: validation: blank, unknown type, unparsable body, duplicate', async () => {
    const fx = world();
    expect((await send(fx, 'POST', '/user/keys', 'dev', {})).body).toEqual({
      error: 'key is missing, title is missing',
    });
    expect((await send(fx, 'POST', '/user/keys', 'dev', { title: '', key: '' })).body).toEqual({
      message: {
        title: ["can't be blank"],
        key: ["can't be blank", 'is invalid'],
        fingerprint: ['cannot be generated'],
      },
    });
    expect((await send(fx, 'POST', '/user/keys', 'dev', { title: 't', key: 'ssh-foo AAAA' })).body).toEqual({
      message: { key: ['is invalid'], fingerprint: ['cannot be generated'] },
    });
    expect(
      (await send(fx, 'POST', '/user/keys', 'dev', { title: 't', key: 'ssh-rsa AAAAB3NzaC1yc2E=' })).body,
    ).toEqual({
      message: { fingerprint: ['cannot be generated'] },
    });
    await send(fx, 'POST', '/user/keys', 'maint', { title: 't', key: sshKey(3, '') });
    expect(
      (await send(fx, 'POST', '/user/keys', 'dev', { title: 'u', key: sshKey(3, 'other') })).body,
    ).toEqual({
      message: { fingerprint: ['has already been taken'] },
    });
  });

  it('DELETE /user/keys/:key_id: 204 and gone; 412 when changed since; 404 for a foreign key', async () => {
    const fx = world();
    await send(fx, 'POST', '/user/keys', 'dev', { title: 't', key: sshKey(4) });
    expect((await send(fx, 'DELETE', '/user/keys/1', 'maint')).body).toEqual({
      message: '404 Key Not Found',
    });
    expect((await call(fx, 'DELETE', '/user/keys/1', 'dev', undefined, BEFORE_WORLD)).status).toBe(412);
    expect((await call(fx, 'DELETE', '/user/keys/1', 'dev')).status).toBe(204);
    expect((await send(fx, 'GET', '/user/keys', 'dev')).body).toEqual([]);
    // The fingerprint is free again.
    expect((await send(fx, 'POST', '/user/keys', 'maint', { title: 't', key: sshKey(4) })).status).toBe(201);
  });

  it('/user/keys: 401 anonymous', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/user/keys')).status).toBe(401);
    expect((await send(fx, 'POST', '/user/keys', undefined, { title: 't', key: sshKey(1) })).status).toBe(
      401,
    );
  });
});

describe('/users/:id/keys', () => {
  it("GET /users/:user_id/keys: anyone reads a user's keys, by id or username", async () => {
    const fx = world();
    await send(fx, 'POST', '/user/keys', 'dev', { title: 't', key: sshKey(5) });
    const byId = await send(fx, 'GET', '/users/4/keys');
    expect(byId.status).toBe(200);
    expect(byId.body.map((k: any) => k.title)).toEqual(['t']);
    expect((await send(fx, 'GET', '/users/DEV/keys')).body).toEqual(byId.body);
    expect((await send(fx, 'GET', '/users/nobody/keys')).body).toEqual({ message: '404 User Not Found' });
  });

  it('POST /users/:id/keys: admins add a key to a user; 403 others; 404 unknown user', async () => {
    const fx = world();
    const r = await send(fx, 'POST', '/users/4/keys', 'root', { title: 'deploy', key: sshKey(6) });
    expect(r).toMatchObject({ status: 201, body: { id: 1, title: 'deploy' } });
    expect((await send(fx, 'GET', '/user/keys', 'dev')).body.map((k: any) => k.id)).toEqual([1]);
    expect((await send(fx, 'POST', '/users/4/keys', 'dev', { title: 'x', key: sshKey(7) })).status).toBe(403);
    expect((await send(fx, 'POST', '/users/99/keys', 'root', { title: 'x', key: sshKey(7) })).body).toEqual({
      message: '404 User Not Found',
    });
  });

  it('DELETE /users/:id/keys/:key_id: admins; 404 Key for another user; 412 when changed since', async () => {
    const fx = world();
    await send(fx, 'POST', '/users/4/keys', 'root', { title: 'deploy', key: sshKey(8) });
    expect((await send(fx, 'DELETE', '/users/3/keys/1', 'root')).body).toEqual({
      message: '404 Key Not Found',
    });
    expect((await call(fx, 'DELETE', '/users/4/keys/1', 'root', undefined, BEFORE_WORLD)).status).toBe(412);
    expect((await call(fx, 'DELETE', '/users/4/keys/1', 'root')).status).toBe(204);
    expect((await send(fx, 'GET', '/users/4/keys')).body).toEqual([]);
  });
});

describe('GPG keys', () => {
  it('POST /user/gpg_keys: 201 {id, key, created_at}; listed and shown; public to read by user id', async () => {
    const fx = world();
    const key = gpgKey('mQENBF...');
    const r = await send(fx, 'POST', '/user/gpg_keys', 'dev', { key });
    expect(r).toMatchObject({ status: 201, body: { id: 1, key, created_at: NOW } });
    expect(Object.keys(r.body)).toEqual(['id', 'key', 'created_at']);
    expect((await send(fx, 'GET', '/user/gpg_keys', 'dev')).body).toEqual([r.body]);
    expect((await send(fx, 'GET', '/user/gpg_keys/1', 'dev')).body).toEqual(r.body);
    expect((await send(fx, 'GET', '/users/4/gpg_keys')).body).toEqual([r.body]);
    expect((await send(fx, 'GET', '/users/4/gpg_keys/1')).body).toEqual(r.body);
    expect((await send(fx, 'GET', '/users/3/gpg_keys/1')).body).toEqual({ message: '404 GPG Key Not Found' });
  });

  it('POST /user/gpg_keys: the armour must be there, and a key is added once', async () => {
    const fx = world();
    const message =
      "is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----' and ends with '-----END PGP PUBLIC KEY BLOCK-----'";
    expect((await send(fx, 'POST', '/user/gpg_keys', 'dev', { key: 'nope' })).body).toEqual({
      message: { key: [message] },
    });
    expect((await send(fx, 'POST', '/user/gpg_keys', 'dev', { key: '' })).body).toEqual({
      message: { key: ["can't be blank", message] },
    });
    await send(fx, 'POST', '/user/gpg_keys', 'dev', { key: gpgKey('abc') });
    expect((await send(fx, 'POST', '/user/gpg_keys', 'maint', { key: gpgKey('abc') })).body).toEqual({
      message: { key: ['has already been taken'] },
    });
  });

  it('DELETE /user/gpg_keys/:key_id and /users/:id/gpg_keys/:key_id: 204, 412 when changed since, 404 foreign', async () => {
    const fx = world();
    await send(fx, 'POST', '/user/gpg_keys', 'dev', { key: gpgKey('one') });
    await send(fx, 'POST', '/users/4/gpg_keys', 'root', { key: gpgKey('two') });
    expect((await send(fx, 'DELETE', '/user/gpg_keys/1', 'maint')).body).toEqual({
      message: '404 GPG Key Not Found',
    });
    expect((await call(fx, 'DELETE', '/user/gpg_keys/1', 'dev', undefined, BEFORE_WORLD)).status).toBe(412);
    expect((await call(fx, 'DELETE', '/user/gpg_keys/1', 'dev')).status).toBe(204);
    expect((await send(fx, 'DELETE', '/users/4/gpg_keys/2', 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', '/users/4/gpg_keys/2', 'root', undefined, BEFORE_WORLD)).status).toBe(
      412,
    );
    expect((await call(fx, 'DELETE', '/users/4/gpg_keys/2', 'root')).status).toBe(204);
    expect((await send(fx, 'GET', '/users/4/gpg_keys')).body).toEqual([]);
  });

  it('POST /users/:id/gpg_keys: admins only; 404 User unknown', async () => {
    const fx = world();
    expect((await send(fx, 'POST', '/users/4/gpg_keys', 'dev', { key: gpgKey('x') })).status).toBe(403);
    expect((await send(fx, 'POST', '/users/99/gpg_keys', 'root', { key: gpgKey('x') })).body).toEqual({
      message: '404 User Not Found',
    });
  });
});

describe('profile records go with their user', () => {
  it('DELETE /users/:id: e-mails, keys and status of the user are gone; the e-mail and key are free again', async () => {
    const fx = world();
    await send(fx, 'POST', '/user/emails', 'dev', { email: 'gone@example.com' });
    await send(fx, 'POST', '/user/keys', 'dev', { title: 't', key: sshKey(9) });
    await send(fx, 'POST', '/user/gpg_keys', 'dev', { key: gpgKey('g') });
    await send(fx, 'PUT', '/user/status', 'dev', { message: 'bye' });
    expect((await call(fx, 'DELETE', '/users/4', 'root')).status).toBe(204);
    const p = fx.state.profile;
    expect([p.emails.size, p.keys.size, p.gpgKeys.size, p.statuses.size]).toEqual([0, 0, 0, 0]);
    expect((await send(fx, 'POST', '/user/emails', 'maint', { email: 'gone@example.com' })).status).toBe(201);
    expect((await send(fx, 'POST', '/user/keys', 'maint', { title: 't', key: sshKey(9) })).status).toBe(201);
  });
});
