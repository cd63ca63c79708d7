import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { send, sshKey, world } from '../metadata/world.js';

async function withKey() {
  const fx = world();
  const key = sshKey(7, 'dev@laptop');
  const made = await send(fx, 'POST', '/user/keys', 'dev', { title: 'laptop', key });
  const blob = Buffer.from(key.split(' ')[1]!, 'base64');
  const md5 = createHash('md5').update(blob).digest('hex').match(/../g)!.join(':');
  const sha = createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
  return { fx, id: made.body.id as number, key, md5, sha };
}

describe('GET /keys/:id', () => {
  it('GET /keys/:id: the key with its owner, for admins', async () => {
    const { fx, id, key } = await withKey();
    const r = await send(fx, 'GET', `/keys/${id}`, 'root');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id,
      title: 'laptop',
      key,
      expires_at: null,
      user: expect.objectContaining({ id: 4, username: 'dev', email: expect.any(String) }),
    });
    expect((await send(fx, 'GET', `/keys/${id}`)).status).toBe(401);
    expect((await send(fx, 'GET', `/keys/${id}`, 'dev')).status).toBe(403);
    expect(await send(fx, 'GET', '/keys/999', 'root')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
  });
});

describe('GET /keys', () => {
  it('GET /keys: by MD5 or SHA256 fingerprint', async () => {
    const { fx, id, md5, sha } = await withKey();
    expect((await send(fx, 'GET', `/keys?fingerprint=${md5}`, 'root')).body).toMatchObject({ id });
    expect(
      (await send(fx, 'GET', `/keys?fingerprint=SHA256:${encodeURIComponent(sha)}`, 'root')).body,
    ).toMatchObject({ id, user: expect.objectContaining({ username: 'dev' }) });
    expect(await send(fx, 'GET', `/keys?fingerprint=${'00:'.repeat(15)}00`, 'root')).toMatchObject({
      status: 404,
      body: { message: '404 Key Not Found' },
    });
  });

  it('GET /keys: 401 first, then the fingerprint, then admins only; a malformed fingerprint is a 400', async () => {
    const { fx, md5 } = await withKey();
    expect((await send(fx, 'GET', '/keys')).status).toBe(401);
    expect((await send(fx, 'GET', '/keys', 'dev')).body).toEqual({ error: 'fingerprint is missing' });
    expect((await send(fx, 'GET', `/keys?fingerprint=${md5}`, 'dev')).status).toBe(403);
    expect(await send(fx, 'GET', '/keys?fingerprint=nope', 'root')).toMatchObject({
      status: 400,
      body: { message: 'Failed to return the key' },
    });
    expect((await send(fx, 'GET', '/keys?fingerprint=SHA256:abc', 'root')).status).toBe(400);
  });
});
