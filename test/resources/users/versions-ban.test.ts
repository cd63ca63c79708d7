import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { json, request, tok } from '../helpers.js';

const scenario = {
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    { username: 'alice', tokens: tok('alice-api') },
    { username: 'bob', state: 'blocked' as const },
    { username: 'carol', state: 'banned' as const, tokens: tok('carol-api') },
  ],
};
const at = (version: string) => createFauxlab({ scenario, version });
const idOf = async (fx: ReturnType<typeof at>, username: string) =>
  (
    (await json(await request(fx, 'GET', `/api/v4/users?username=${username}`, { token: 'root-api' }))) as {
      id: number;
    }[]
  )[0]!.id;
const post = (fx: ReturnType<typeof at>, path: string, token = 'root-api') =>
  request(fx, 'POST', `/api/v4${path}`, { token });

describe('POST /users/:id/ban and /unban (GitLab 14.3)', () => {
  it('14.2 has no such routes: the catch-all 404', async () => {
    const fx = at('14.2');
    const alice = await idOf(fx, 'alice');
    for (const action of ['ban', 'unban']) {
      const res = await post(fx, `/users/${alice}/${action}`);
      expect(res.status).toBe(404);
      expect(await json(res)).toEqual({ error: '404 Not Found' });
    }
  });

  it('14.3: an administrator bans an active user (201 true, state banned) and unbans them (201 true, active)', async () => {
    const fx = at('14.3');
    const alice = await idOf(fx, 'alice');
    const ban = await post(fx, `/users/${alice}/ban`);
    expect(ban.status).toBe(201);
    expect(await json(ban)).toBe(true);
    const shown = await json(await request(fx, 'GET', `/api/v4/users/${alice}`, { token: 'root-api' }));
    expect(shown.state).toBe('banned');
    const unban = await post(fx, `/users/${alice}/unban`);
    expect(unban.status).toBe(201);
    expect(await json(unban)).toBe(true);
    expect(
      (await json(await request(fx, 'GET', `/api/v4/users/${alice}`, { token: 'root-api' }))).state,
    ).toBe('active');
  });

  it('a banned user is blocked: their token is refused as a blocked account', async () => {
    const fx = at('14.3');
    const alice = await idOf(fx, 'alice');
    expect((await request(fx, 'GET', '/api/v4/user', { token: 'alice-api' })).status).toBe(200);
    await post(fx, `/users/${alice}/ban`);
    const res = await request(fx, 'GET', '/api/v4/user', { token: 'alice-api' });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
  });

  it('only from the right state: banning a blocked or banned user, or unbanning an active one, is 403', async () => {
    const fx = at('14.3');
    const bob = await idOf(fx, 'bob');
    const alice = await idOf(fx, 'alice');
    const carol = await idOf(fx, 'carol');
    const blocked = await post(fx, `/users/${bob}/ban`);
    expect(blocked.status).toBe(403);
    expect(await json(blocked)).toEqual({ message: '403 Forbidden - You cannot ban blocked users.' });
    expect(await json(await post(fx, `/users/${carol}/ban`))).toEqual({
      message: '403 Forbidden - You cannot ban banned users.',
    });
    const active = await post(fx, `/users/${alice}/unban`);
    expect(active.status).toBe(403);
    expect(await json(active)).toEqual({ message: '403 Forbidden - You cannot unban active users.' });
  });

  it('administrators only, a user that exists, a numeric id', async () => {
    const fx = at('14.3');
    const alice = await idOf(fx, 'alice');
    const asUser = await post(fx, `/users/${alice}/ban`, 'alice-api');
    expect(asUser.status).toBe(403);
    expect(await json(asUser)).toEqual({ message: '403 Forbidden' });
    const missing = await post(fx, '/users/9999/ban');
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ message: '404 User Not Found' });
    expect((await post(fx, '/users/alice/ban')).status).toBe(404);
  });

  it('a scenario user banned: banned from 14.3, blocked before', async () => {
    const state = async (v: string) => {
      const fx = at(v);
      return (
        await json(
          await request(fx, 'GET', `/api/v4/users/${await idOf(fx, 'carol')}`, { token: 'root-api' }),
        )
      ).state;
    };
    expect(await state('14.2')).toBe('blocked');
    expect(await state('14.3')).toBe('banned');
  });
});
