import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { json, request, tok } from '../helpers.js';

const KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@example.com';
const at = async (version: string) => {
  const fx = createFauxlab({
    scenario: {
      users: [
        { username: 'root', admin: true, tokens: tok('root-api') },
        { username: 'alice', tokens: tok('alice-api') },
      ],
    },
    version,
  });
  const key = await json(
    await request(fx, 'POST', '/api/v4/user/keys', {
      token: 'alice-api',
      body: { title: 'laptop', key: KEY },
    }),
  );
  const me = await json(await request(fx, 'GET', '/api/v4/user', { token: 'alice-api' }));
  return { fx, key, user: me.id as number };
};

describe('GET /users/:id/keys/:key_id (GitLab 14.9)', () => {
  it('14.8 has no such route: the catch-all 404', async () => {
    const { fx, key, user } = await at('14.8');
    const res = await request(fx, 'GET', `/api/v4/users/${user}/keys/${key.id}`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
  });

  it("14.9: a user's key as the list shows it, to anyone; 404 Key and 404 User", async () => {
    const { fx, key, user } = await at('14.9');
    const res = await request(fx, 'GET', `/api/v4/users/${user}/keys/${key.id}`);
    expect(res.status).toBe(200);
    const list = await json(await request(fx, 'GET', `/api/v4/users/${user}/keys`));
    expect(await json(res)).toEqual(list[0]);
    expect(list[0]).toMatchObject({ id: key.id, title: 'laptop' });
    const other = await request(fx, 'GET', `/api/v4/users/${user}/keys/${key.id + 100}`);
    expect(other.status).toBe(404);
    expect(await json(other)).toEqual({ message: '404 Key Not Found' });
    const nobody = await request(fx, 'GET', `/api/v4/users/9999/keys/${key.id}`);
    expect(await json(nobody)).toEqual({ message: '404 User Not Found' });
  });
});
