import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { json, request } from '../helpers.js';

const scenario = {
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-api', scopes: ['api' as const] }] },
    {
      username: 'alice',
      tokens: [
        { token: 'alice-api', scopes: ['api' as const], name: 'cli' },
        { token: 'alice-read', scopes: ['read_user' as const], name: 'reader' },
      ],
    },
    { username: 'bob', tokens: [{ token: 'bob-api', scopes: ['api' as const] }] },
  ],
};
const at = (version: string) => createFauxlab({ scenario, version });
type Fx = ReturnType<typeof at>;
const tokens = async (fx: Fx) =>
  (await json(await request(fx, 'GET', '/api/v4/personal_access_tokens', { token: 'root-api' }))) as {
    id: number;
    name: string;
    user_id: number;
    revoked: boolean;
  }[];
const idOf = async (fx: Fx, name: string) => (await tokens(fx)).find((t) => t.name === name)!.id;
const call = (fx: Fx, method: string, path: string, token: string) =>
  request(fx, method, `/api/v4/personal_access_tokens${path}`, { token });

describe('GET /personal_access_tokens/:id (GitLab 15.1; 404 for administrators from 15.3)', () => {
  it('15.0 has no such route: the catch-all 404', async () => {
    const fx = at('15.0');
    const res = await call(fx, 'GET', `/${await idOf(fx, 'cli')}`, 'alice-api');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
  });

  it("15.1: the owner's token; another user's, or one that does not exist, 401 to all", async () => {
    const fx = at('15.1');
    const id = await idOf(fx, 'cli');
    const own = await call(fx, 'GET', `/${id}`, 'alice-api');
    expect(own.status).toBe(200);
    expect(await json(own)).toMatchObject({ id, name: 'cli', scopes: ['api'], revoked: false, active: true });
    expect((await call(fx, 'GET', `/${id}`, 'root-api')).status).toBe(200);
    const other = await call(fx, 'GET', `/${id}`, 'bob-api');
    expect(other.status).toBe(401);
    expect(await json(other)).toEqual({ message: '401 Unauthorized' });
    expect((await call(fx, 'GET', '/9999', 'root-api')).status).toBe(401);
    // `self` is no route of its own yet: an id that finds nothing.
    expect((await call(fx, 'GET', '/self', 'alice-api')).status).toBe(401);
  });

  it('15.2 vs 15.3: an administrator asking for a missing token gets 401, then 404 Not found', async () => {
    expect((await call(at('15.2'), 'GET', '/9999', 'root-api')).status).toBe(401);
    const res = await call(at('15.3'), 'GET', '/9999', 'root-api');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ message: '404 Not found' });
    expect((await call(at('15.3'), 'GET', '/9999', 'bob-api')).status).toBe(401);
  });
});

describe('GET /personal_access_tokens/self (GitLab 15.5)', () => {
  it('15.4: the word reaches /:id and finds nothing (401; 404 for an administrator)', async () => {
    const fx = at('15.4');
    expect((await call(fx, 'GET', '/self', 'alice-api')).status).toBe(401);
    expect((await call(fx, 'GET', '/self', 'root-api')).status).toBe(404);
  });

  it('15.5: the token the request came with, whatever its scope', async () => {
    const fx = at('15.5');
    const res = await call(fx, 'GET', '/self', 'alice-read');
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      id: await idOf(fx, 'reader'),
      name: 'reader',
      scopes: ['read_user'],
    });
  });
});

describe('DELETE /personal_access_tokens/self (GitLab 15.0; any scope from 15.4)', () => {
  it('14.10: the word reaches /:id, a record not found (404 Not found), nothing revoked', async () => {
    const fx = at('14.10');
    const res = await call(fx, 'DELETE', '/self', 'alice-api');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ message: '404 Not found' });
    expect((await tokens(fx)).find((t) => t.name === 'cli')!.revoked).toBe(false);
  });

  it('15.0: revokes the token it came with (204), which then stops working', async () => {
    const fx = at('15.0');
    expect((await call(fx, 'DELETE', '/self', 'alice-api')).status).toBe(204);
    expect((await tokens(fx)).find((t) => t.name === 'cli')!.revoked).toBe(true);
    expect((await request(fx, 'GET', '/api/v4/user', { token: 'alice-api' })).status).toBe(401);
    expect((await tokens(fx)).find((t) => t.name === 'reader')!.revoked).toBe(false);
  });

  it('15.3 needs the api scope (403 insufficient_scope); 15.4 takes any token', async () => {
    const before = await call(at('15.3'), 'DELETE', '/self', 'alice-read');
    expect(before.status).toBe(403);
    expect((await json(before)).error).toBe('insufficient_scope');
    const fx = at('15.4');
    expect((await call(fx, 'DELETE', '/self', 'alice-read')).status).toBe(204);
    expect((await tokens(fx)).find((t) => t.name === 'reader')!.revoked).toBe(true);
  });
});
