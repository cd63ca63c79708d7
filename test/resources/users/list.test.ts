import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { ADMIN_KEYS, BASIC_KEYS, call, json, send, usernames, usersFx, usersWorld } from './world.js';

const fx = usersFx();
const get = (path: string, token?: string) => send(fx, 'GET', path, token);
const names = async (path: string, token = 'root-api') => {
  const { res, body } = await get(path, token);
  expect(res.status).toBe(200);
  return usernames(body);
};

const ALL_DESC = ['bobby', 'dave', 'mallory', 'carol', 'bob', 'alice', 'root'];

describe('GET /users: who may list', () => {
  it('GET /users: anonymous without a username is refused', async () => {
    const { res, body } = await get('/users');
    expect(res.status).toBe(403);
    expect(body).toEqual({ message: '403 Forbidden - Not authorized to access /api/v4/users' });
  });

  it('GET /users: anonymous with a blank username is refused', async () => {
    const { res } = await get('/users?username=%20');
    expect(res.status).toBe(403);
  });

  it('GET /users: anonymous may look a username up, case-insensitively, in the basic shape', async () => {
    const { res, body } = await get('/users?username=ALICE');
    expect(res.status).toBe(200);
    expect(body).toEqual([
      {
        id: 2,
        name: 'Alice Liddell',
        username: 'alice',
        state: 'active',
        avatar_url: 'https://www.gravatar.com/avatar/c160f8cc69a4f0bf2b0362752353d060?s=80&d=identicon',
        web_url: 'http://localhost/alice',
      },
    ]);
  });

  it('GET /users: anonymous is refused even a username when public visibility is restricted', async () => {
    const restricted = createFauxlab({
      scenario: { ...usersWorld, settings: { restricted_visibility_levels: ['public'] } },
    });
    const res = await call(restricted, 'GET', '/api/v4/users?username=alice');
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({ message: '403 Forbidden - Not authorized to access /api/v4/users' });
    expect((await call(restricted, 'GET', '/api/v4/users?username=alice', { token: 'bob-api' })).status).toBe(
      200,
    );
  });

  it('GET /users: a regular user gets every user, newest first, in the basic shape', async () => {
    const { res, body } = await get('/users', 'alice-api');
    expect(res.status).toBe(200);
    expect(usernames(body)).toEqual(ALL_DESC);
    for (const u of body) expect(Object.keys(u)).toEqual(BASIC_KEYS);
    expect(body.find((u: any) => u.username === 'mallory').state).toBe('blocked');
  });

  it('GET /users: an admin gets the admin shape', async () => {
    const { body } = await get('/users', 'root-api');
    expect(usernames(body)).toEqual(ALL_DESC);
    for (const u of body) expect(Object.keys(u)).toEqual(ADMIN_KEYS);
    const carol = body.find((u: any) => u.username === 'carol');
    expect(carol).toMatchObject({
      email: 'carol@example.com',
      is_admin: false,
      external: true,
      two_factor_enabled: true,
      identities: [{ provider: 'github', extern_uid: 'CarolGH' }],
    });
  });

  it('GET /users: a read_user token may list', async () => {
    const { res } = await get('/users', 'alice-read-user');
    expect(res.status).toBe(200);
  });

  it('GET /users: a token without api, read_api or read_user scope is refused', async () => {
    const { res, body } = await get('/users', 'alice-repo');
    expect(res.status).toBe(403);
    expect(body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api read_api read_user',
    });
  });
});

describe('GET /users: filters', () => {
  it('GET /users: search matches name fragments, case-insensitively', async () => {
    expect(await names('/users?search=LIDD', 'alice-api')).toEqual(['alice']);
  });

  it('GET /users: search matches username fragments', async () => {
    expect(await names('/users?search=mallo', 'alice-api')).toEqual(['mallory']);
  });

  it('GET /users: search matches a whole primary e-mail only', async () => {
    expect(await names('/users?search=CAROL@example.com', 'alice-api')).toEqual(['carol']);
    expect(await names('/users?search=example.com', 'alice-api')).toEqual([]);
  });

  it('GET /users: search needs every word of three or more characters', async () => {
    expect(await names('/users?search=alice%20lidd', 'alice-api')).toEqual(['alice']);
    expect(await names('/users?search=alice%20zzz', 'alice-api')).toEqual([]);
  });

  it('GET /users: a search shorter than three characters must match a whole name or username', async () => {
    expect(await names('/users?search=bo', 'alice-api')).toEqual([]);
    expect(await names('/users?search=DAVE', 'alice-api')).toEqual(['dave']);
  });

  it('GET /users: search ignores a leading @, and a bare @ finds nobody', async () => {
    expect(await names('/users?search=@carol', 'alice-api')).toEqual(['carol']);
    expect(await names('/users?search=@', 'alice-api')).toEqual([]);
  });

  it('GET /users: a blank search is no filter', async () => {
    expect(await names('/users?search=', 'alice-api')).toEqual(ALL_DESC);
  });

  it('GET /users: non-admins get search results by relevance, admins by id', async () => {
    expect(await names('/users?search=bob', 'alice-api')).toEqual(['bob', 'bobby']);
    expect(await names('/users?search=bob', 'root-api')).toEqual(['bobby', 'bob']);
  });

  it('GET /users: username is an exact, case-insensitive match', async () => {
    expect(await names('/users?username=BoB', 'alice-api')).toEqual(['bob']);
    expect(await names('/users?username=bo', 'alice-api')).toEqual([]);
  });

  it('GET /users: active=true leaves out blocked users; active=false filters nothing', async () => {
    expect(await names('/users?active=true', 'alice-api')).toEqual(ALL_DESC.filter((u) => u !== 'mallory'));
    expect(await names('/users?active=false', 'alice-api')).toEqual(ALL_DESC);
  });

  it('GET /users: blocked=true gives blocked users only; blocked=false filters nothing', async () => {
    expect(await names('/users?blocked=true', 'alice-api')).toEqual(['mallory']);
    expect(await names('/users?blocked=false', 'alice-api')).toEqual(ALL_DESC);
  });

  it('GET /users: booleans accept the spellings clients send', async () => {
    expect(await names('/users?blocked=True', 'alice-api')).toEqual(['mallory']);
    expect(await names('/users?blocked=1', 'alice-api')).toEqual(['mallory']);
  });

  it('GET /users: a non-boolean filter value is a 400', async () => {
    const { res, body } = await get('/users?active=maybe', 'alice-api');
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: 'active is invalid' });
  });

  it('GET /users: external=true gives external users to admins', async () => {
    expect(await names('/users?external=true')).toEqual(['carol']);
  });

  it('GET /users: external=true is admin-only (403 for users, 401 for anonymous)', async () => {
    const asUser = await get('/users?external=true', 'alice-api');
    expect(asUser.res.status).toBe(403);
    expect(asUser.body).toEqual({ message: '403 Forbidden' });
    const anonymous = await get('/users?external=true&username=carol');
    expect(anonymous.res.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
  });

  it('GET /users: exclude_external=true leaves external users out', async () => {
    expect(await names('/users?exclude_external=true', 'alice-api')).toEqual(
      ALL_DESC.filter((u) => u !== 'carol'),
    );
  });

  it('GET /users: extern_uid with provider finds the identity, extern_uid case-insensitively', async () => {
    expect(await names('/users?extern_uid=carolgh&provider=github')).toEqual(['carol']);
    expect(await names('/users?extern_uid=carolgh&provider=gitlab')).toEqual([]);
  });

  it('GET /users: extern_uid with provider is admin-only', async () => {
    const { res, body } = await get('/users?extern_uid=CarolGH&provider=github', 'alice-api');
    expect(res.status).toBe(403);
    expect(body).toEqual({ message: '403 Forbidden' });
    expect((await get('/users?extern_uid=CarolGH&provider=github')).res.status).toBe(401);
  });

  it('GET /users: extern_uid without provider is a 400', async () => {
    const { res, body } = await get('/users?extern_uid=CarolGH', 'root-api');
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: 'extern_uid, provider provide all or none of parameters' });
  });

  it('GET /users: admins=true gives admins, for admins only', async () => {
    expect(await names('/users?admins=true')).toEqual(['root']);
    expect(await names('/users?admins=true', 'alice-api')).toEqual(ALL_DESC);
  });

  it('GET /users: two_factor filters admins\u2019 lists and is ignored for others', async () => {
    expect(await names('/users?two_factor=enabled')).toEqual(['carol']);
    expect(await names('/users?two_factor=disabled')).toEqual(ALL_DESC.filter((u) => u !== 'carol'));
    expect(await names('/users?two_factor=whatever')).toEqual(ALL_DESC);
    expect(await names('/users?two_factor=enabled', 'alice-api')).toEqual(ALL_DESC);
  });

  it('GET /users: created_before and created_after are inclusive', async () => {
    expect(
      await names('/users?created_after=2020-04-01T00:00:00Z&created_before=2020-06-01T00:00:00Z'),
    ).toEqual(['dave', 'mallory', 'carol']);
  });

  it('GET /users: created_before and created_after are ignored for non-admins', async () => {
    expect(await names('/users?created_after=2020-04-01T00:00:00Z', 'alice-api')).toEqual(ALL_DESC);
  });

  it('GET /users: a bad created_after is a 400, for admins and others', async () => {
    for (const token of ['root-api', 'alice-api']) {
      const { res, body } = await get('/users?created_after=yesterday-ish', token);
      expect(res.status).toBe(400);
      expect(body).toEqual({ error: 'created_after is invalid' });
    }
  });

  it('GET /users: without_projects gives users with no project access at all', async () => {
    // alice owns acme (projects inside), bob owns bob/notes; dave's group has no projects.
    expect(await names('/users?without_projects=true')).toEqual([
      'bobby',
      'dave',
      'mallory',
      'carol',
      'root',
    ]);
    expect(await names('/users?without_projects=true', 'alice-api')).toEqual(ALL_DESC);
  });

  it('GET /users: custom_attributes[key]=value filters admins\u2019 lists on every pair', async () => {
    expect(await names('/users?custom_attributes[team]=red')).toEqual(['carol']);
    expect(await names('/users?custom_attributes[team]=red&custom_attributes[floor]=3')).toEqual(['carol']);
    expect(await names('/users?custom_attributes[team]=red&custom_attributes[floor]=4')).toEqual([]);
    expect(await names('/users?custom_attributes[team]=red', 'alice-api')).toEqual(ALL_DESC);
  });

  it('GET /users: with_custom_attributes adds them (before web_url) for admins only', async () => {
    const { body } = await get('/users?username=carol&with_custom_attributes=true', 'root-api');
    expect(body[0].custom_attributes).toEqual([
      { key: 'team', value: 'red' },
      { key: 'floor', value: '3' },
    ]);
    const keys = Object.keys(body[0]);
    expect(keys.slice(4, 7)).toEqual(['avatar_url', 'custom_attributes', 'web_url']);
    const asUser = await get('/users?username=carol&with_custom_attributes=true', 'alice-api');
    expect(Object.keys(asUser.body[0])).toEqual(BASIC_KEYS);
  });

  it('GET /users: filters combine', async () => {
    expect(await names('/users?active=true&search=bob&without_projects=true')).toEqual(['bobby']);
  });
});

describe('GET /users: order', () => {
  it('GET /users: admins order by name, username, created_at or id, either way', async () => {
    expect(await names('/users?order_by=name&sort=asc')).toEqual([
      'root',
      'alice',
      'bob',
      'bobby',
      'carol',
      'mallory',
      'dave',
    ]);
    expect(await names('/users?order_by=username&sort=asc')).toEqual([
      'alice',
      'bob',
      'bobby',
      'carol',
      'dave',
      'mallory',
      'root',
    ]);
    expect(await names('/users?order_by=username')).toEqual([
      'root',
      'mallory',
      'dave',
      'carol',
      'bobby',
      'bob',
      'alice',
    ]);
    expect(await names('/users?order_by=created_at&sort=asc')).toEqual([...ALL_DESC].reverse());
    expect(await names('/users?sort=asc')).toEqual([...ALL_DESC].reverse());
  });

  it('GET /users: ties break on id in the sort direction', async () => {
    const same = createFauxlab({
      scenario: {
        users: [
          { username: 'a1', name: 'Same', admin: true, tokens: [{ token: 'adm' }] },
          { username: 'a2', name: 'Same' },
          { username: 'a3', name: 'Same' },
        ],
      },
    });
    const asc = await json(await call(same, 'GET', '/api/v4/users?order_by=name&sort=asc', { token: 'adm' }));
    expect(usernames(asc)).toEqual(['a1', 'a2', 'a3']);
    const desc = await json(await call(same, 'GET', '/api/v4/users?order_by=updated_at', { token: 'adm' }));
    expect(usernames(desc)).toEqual(['a3', 'a2', 'a1']);
  });

  it('GET /users: order_by and sort are ignored for non-admins', async () => {
    expect(await names('/users?order_by=username&sort=asc', 'alice-api')).toEqual(ALL_DESC);
  });

  it('GET /users: an unknown order_by or sort is a 400, for admins and others', async () => {
    for (const token of ['root-api', 'alice-api']) {
      const bad = await get('/users?order_by=email', token);
      expect(bad.res.status).toBe(400);
      expect(bad.body).toEqual({ error: 'order_by does not have a valid value' });
    }
    const both = await get('/users?order_by=email&sort=up', 'root-api');
    expect(both.body).toEqual({
      error: 'order_by does not have a valid value, sort does not have a valid value',
    });
  });
});

describe('GET /users: pagination', () => {
  it('GET /users: pages carry the offset headers', async () => {
    const { res, body } = await get('/users?per_page=3', 'alice-api');
    expect(usernames(body)).toEqual(ALL_DESC.slice(0, 3));
    expect(res.headers.get('X-Total')).toBe('7');
    expect(res.headers.get('X-Total-Pages')).toBe('3');
    expect(res.headers.get('X-Per-Page')).toBe('3');
    expect(res.headers.get('X-Page')).toBe('1');
    expect(res.headers.get('X-Next-Page')).toBe('2');
    expect(res.headers.get('X-Prev-Page')).toBe('');
  });

  it('GET /users: X-Next-Page is empty on the last page', async () => {
    const { res, body } = await get('/users?per_page=3&page=3', 'alice-api');
    expect(usernames(body)).toEqual(['root']);
    expect(res.headers.get('X-Next-Page')).toBe('');
    expect(res.headers.get('X-Prev-Page')).toBe('2');
    expect(res.headers.get('Link')).not.toContain('rel="next"');
  });

  it('GET /users: Link keeps every param a regular user sent, with the declared defaults', async () => {
    const { res } = await get('/users?search=o&per_page=1&active=true', 'alice-api');
    // "o" is shorter than three characters: an exact match of nothing, so one page.
    expect(res.headers.get('Link')).toBe(
      '<http://localhost/api/v4/users?active=true&blocked=false&external=false&page=1&per_page=1&search=o&with_custom_attributes=false>; rel="first", ' +
        '<http://localhost/api/v4/users?active=true&blocked=false&external=false&page=1&per_page=1&search=o&with_custom_attributes=false>; rel="last"',
    );
  });

  it('GET /users: Link drops the admin-only params a regular user sent', async () => {
    const { res } = await get(
      '/users?per_page=2&order_by=name&sort=asc&without_projects=true&two_factor=enabled',
      'alice-api',
    );
    const next = /<([^>]+)>; rel="next"/.exec(res.headers.get('Link')!)![1]!;
    expect(next).toBe(
      'http://localhost/api/v4/users?active=false&blocked=false&external=false&page=2&per_page=2&with_custom_attributes=false',
    );
  });

  it('GET /users: Link keeps an admin\u2019s order and filters, nested ones too', async () => {
    const { res } = await get('/users?per_page=1&order_by=name&custom_attributes[team]=red', 'root-api');
    expect(res.headers.get('Link')).toBe(
      '<http://localhost/api/v4/users?active=false&blocked=false&custom_attributes%5Bteam%5D=red&external=false&order_by=name&page=1&per_page=1&sort=desc&with_custom_attributes=false&without_projects=false>; rel="first", ' +
        '<http://localhost/api/v4/users?active=false&blocked=false&custom_attributes%5Bteam%5D=red&external=false&order_by=name&page=1&per_page=1&sort=desc&with_custom_attributes=false&without_projects=false>; rel="last"',
    );
  });

  it('GET /users: following Link rel="next" walks every user once', async () => {
    const seen: string[] = [];
    let url: string | undefined = 'http://localhost/api/v4/users?per_page=2&order_by=username&sort=asc';
    while (url) {
      const res = await fx.app.request(url, { headers: { 'PRIVATE-TOKEN': 'root-api' } });
      seen.push(...usernames(await json(res)));
      url = /<([^>]+)>; rel="next"/.exec(res.headers.get('Link') ?? '')?.[1];
    }
    expect(seen).toEqual(['alice', 'bob', 'bobby', 'carol', 'dave', 'mallory', 'root']);
  });

  it('GET /users: links use the configured external URL', async () => {
    const external = usersFx({ baseUrl: 'https://gitlab.example.com/' });
    const res = await call(external, 'GET', '/api/v4/users?per_page=5', { token: 'alice-api' });
    expect(res.headers.get('Link')).toContain('<https://gitlab.example.com/api/v4/users?');
    const body = await json(res);
    expect(body[0].web_url).toBe('https://gitlab.example.com/bobby');
    expect(body[0].avatar_url).toMatch(
      /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?s=80&d=identicon$/,
    );
  });

  it('GET /users: a bad page is a 400', async () => {
    const { res, body } = await get('/users?page=two', 'alice-api');
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: 'page is invalid' });
  });
});
