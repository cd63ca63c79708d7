import { describe, expect, it } from 'vitest';
import { iget, mget, tget } from '../../../src/core/table.js';
import { groupsFx, MEMBER_KEYS, refused, send, type Fx } from './world.js';

const usernames = (list: { username: string }[]) => list.map((m) => m.username);
const memberOf = (fx: Fx, source: 'group' | 'project', path: string, userId: number) => {
  const id = source === 'group' ? iget(fx.state.idx.namespaces, path) : iget(fx.state.idx.projects, path);
  return iget(fx.state.idx.members, `${source}:${id}:${userId}`);
};
/** User ids of the world. */
const U = { root: 1, alice: 2, bob: 3, carol: 4, dave: 5, erin: 6, frank: 7, grace: 8, mia: 9 };

describe('GET /groups/:id/members', () => {
  it('GET /groups/:id/members: the direct members with the Member entity', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'GET', '/groups/acme/members', 'erin-api');
    expect(out.status).toBe(200);
    expect(usernames(out.body)).toEqual(['alice', 'bob', 'mia']);
    expect(Object.keys(out.body[0])).toEqual(MEMBER_KEYS);
    expect(out.body[0]).toMatchObject({
      id: U.alice,
      username: 'alice',
      name: 'Alice Liddell',
      state: 'active',
      web_url: 'http://localhost/alice',
      access_level: 50,
      expires_at: null,
    });
    expect(out.res.headers.get('x-total')).toBe('3');
  });

  it('GET /groups/:id/members: authentication comes first, even before bad params', async () => {
    const fx = groupsFx();
    expect(await send(fx, 'GET', '/groups/acme/members?user_ids=x')).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    expect(await send(fx, 'GET', '/groups/acme/members?user_ids=x', 'erin-api')).toMatchObject({
      status: 400,
      body: { error: 'user_ids is invalid' },
    });
  });

  it('GET /groups/:id/members: query searches the users; user_ids narrows', async () => {
    const fx = groupsFx();
    expect(usernames((await send(fx, 'GET', '/groups/acme/members?query=bob', 'erin-api')).body)).toEqual([
      'bob',
    ]);
    expect(usernames((await send(fx, 'GET', '/groups/acme/members?query=builder', 'erin-api')).body)).toEqual(
      ['bob'],
    );
    const ids = await send(
      fx,
      'GET',
      `/groups/acme/members?user_ids[]=${U.mia}&user_ids[]=${U.erin}`,
      'erin-api',
    );
    expect(usernames(ids.body)).toEqual(['mia']);
  });

  it('GET /groups/:id/members: a hidden group is a 404', async () => {
    const fx = groupsFx();
    expect(await send(fx, 'GET', '/groups/hidden/members', 'erin-api')).toMatchObject({
      status: 404,
      body: { message: '404 Group Not Found' },
    });
  });

  it('GET /groups/:id/members/all: inherited members too, one per user with the highest level, by user id', async () => {
    const fx = groupsFx();
    await send(fx, 'POST', '/groups/acme%2Fsecret/members', 'alice-api', {
      user_id: U.bob,
      access_level: 40,
    });
    await send(fx, 'POST', '/groups/acme%2Fsecret/members', 'alice-api', {
      user_id: U.erin,
      access_level: 10,
    });
    const direct = await send(fx, 'GET', '/groups/acme%2Fsecret/members', 'alice-api');
    expect(usernames(direct.body)).toEqual(['bob', 'erin']);
    const all = await send(fx, 'GET', '/groups/acme%2Fsecret/members/all', 'alice-api');
    expect(all.body.map((m: any) => [m.username, m.access_level])).toEqual([
      ['alice', 50],
      ['bob', 40],
      ['erin', 10],
      ['mia', 40],
    ]);
  });

  it('GET /groups/:id/members/:user_id: a direct member, else 404 Not found', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'GET', `/groups/acme/members/${U.bob}`, 'erin-api');
    expect(out.body).toMatchObject({ username: 'bob', access_level: 30 });
    expect(await send(fx, 'GET', `/groups/acme%2Fsecret/members/${U.bob}`, 'alice-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    const inherited = await send(fx, 'GET', `/groups/acme%2Fsecret/members/all/${U.bob}`, 'alice-api');
    expect(inherited.body).toMatchObject({ username: 'bob', access_level: 30 });
    expect(await send(fx, 'GET', `/groups/acme/members/abc`, 'erin-api')).toMatchObject({
      status: 400,
      body: { error: 'user_id is invalid' },
    });
  });
});

describe('POST /groups/:id/members', () => {
  it('POST /groups/:id/members: owners add members, 201 with the member', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'POST', '/groups/acme/members', 'alice-api', {
      user_id: U.erin,
      access_level: 20,
      expires_at: '2021-06-30',
    });
    expect(out.status).toBe(201);
    expect(Object.keys(out.body)).toEqual(MEMBER_KEYS);
    expect(out.body).toMatchObject({ username: 'erin', access_level: 20, expires_at: '2021-06-30' });
    expect((await send(fx, 'GET', '/groups/acme', 'erin-api')).status).toBe(200);
  });

  it('POST /groups/:id/members: 401, 400, 404, 403, 409 and 404 User, in that order', async () => {
    const fx = groupsFx();
    await refused(fx, 'POST', '/groups/acme/members', undefined, {}, 401);
    expect(await refused(fx, 'POST', '/groups/acme/members', 'bob-api', {}, 400)).toEqual({
      error: 'user_id is missing, access_level is missing',
    });
    await refused(
      fx,
      'POST',
      '/groups/hidden/members',
      'bob-api',
      { user_id: U.erin, access_level: 30 },
      404,
    );
    expect(
      await refused(
        fx,
        'POST',
        '/groups/acme/members',
        'bob-api',
        { user_id: U.erin, access_level: 30 },
        403,
      ),
    ).toEqual({
      message: '403 Forbidden',
    });
    expect(
      await refused(
        fx,
        'POST',
        '/groups/acme/members',
        'alice-api',
        { user_id: U.bob, access_level: 30 },
        409,
      ),
    ).toEqual({
      message: 'Member already exists',
    });
    expect(
      await refused(fx, 'POST', '/groups/acme/members', 'alice-api', { user_id: 999, access_level: 30 }, 404),
    ).toEqual({
      message: '404 User Not Found',
    });
  });

  it('POST /groups/:id/members: the model refuses unknown levels, past expiries and levels below an inherited one', async () => {
    const fx = groupsFx();
    expect(
      await refused(
        fx,
        'POST',
        '/groups/acme/members',
        'alice-api',
        { user_id: U.erin, access_level: 35 },
        400,
      ),
    ).toEqual({
      message: { access_level: ['is not included in the list'] },
    });
    expect(
      await refused(
        fx,
        'POST',
        '/groups/acme/members',
        'alice-api',
        { user_id: U.erin, access_level: 30, expires_at: '2021-02-01' },
        400,
      ),
    ).toEqual({ message: { expires_at: ['cannot be a date in the past'] } });
    expect(
      await refused(
        fx,
        'POST',
        '/groups/acme%2Fsecret/members',
        'alice-api',
        { user_id: U.mia, access_level: 20 },
        400,
      ),
    ).toEqual({
      message: {
        access_level: [
          'should be greater than or equal to Maintainer inherited membership from group Acme Corp',
        ],
      },
    });
  });

  it('POST /groups/:id/members: admins manage any group', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'POST', '/groups/hidden/members', 'root-api', {
      user_id: U.erin,
      access_level: 30,
    });
    expect(out.status).toBe(201);
  });
});

describe('PUT /groups/:id/members/:user_id', () => {
  it('PUT /groups/:id/members/:user_id: changes the level and expiry', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'PUT', `/groups/acme/members/${U.bob}`, 'alice-api', {
      access_level: 40,
      expires_at: '2022-01-01',
    });
    expect(out).toMatchObject({
      status: 200,
      body: { username: 'bob', access_level: 40, expires_at: '2022-01-01' },
    });
    const cleared = await send(fx, 'PUT', `/groups/acme/members/${U.bob}`, 'alice-api', {
      access_level: 40,
      expires_at: '',
    });
    expect(cleared.body.expires_at).toBeNull();
    const kept = await send(fx, 'PUT', `/groups/acme/members/${U.bob}`, 'alice-api', { access_level: 30 });
    expect(kept.body).toMatchObject({ access_level: 30, expires_at: null });
  });

  it('PUT /groups/:id/members/:user_id: non-members 404, non-owners 403, bad levels 400', async () => {
    const fx = groupsFx();
    expect(
      await refused(fx, 'PUT', `/groups/acme/members/${U.erin}`, 'alice-api', { access_level: 30 }, 404),
    ).toEqual({
      message: '404 Not found',
    });
    await refused(fx, 'PUT', `/groups/acme/members/${U.bob}`, 'mia-api', { access_level: 40 }, 403);
    expect(await refused(fx, 'PUT', `/groups/acme/members/${U.bob}`, 'alice-api', {}, 400)).toEqual({
      error: 'access_level is missing',
    });
    expect(
      await refused(fx, 'PUT', `/groups/acme/members/${U.bob}`, 'alice-api', { access_level: 60 }, 400),
    ).toEqual({
      message: { access_level: ['is not included in the list'] },
    });
  });

  it('PUT /groups/:id/members/:user_id: the last owner cannot be changed', async () => {
    const fx = groupsFx();
    await refused(fx, 'PUT', `/groups/acme/members/${U.alice}`, 'alice-api', { access_level: 40 }, 403);
    await refused(fx, 'PUT', `/groups/acme/members/${U.alice}`, 'root-api', { access_level: 40 }, 403);
    await send(fx, 'PUT', `/groups/acme/members/${U.mia}`, 'alice-api', { access_level: 50 });
    const out = await send(fx, 'PUT', `/groups/acme/members/${U.alice}`, 'alice-api', { access_level: 40 });
    expect(out).toMatchObject({ status: 200, body: { access_level: 40 } });
  });
});

describe('DELETE /groups/:id/members/:user_id', () => {
  it('DELETE /groups/:id/members/:user_id: owners remove members, 204', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'DELETE', `/groups/acme/members/${U.bob}`, 'alice-api');
    expect(out.status).toBe(204);
    expect(out.body).toBeUndefined();
    expect(memberOf(fx, 'group', 'acme', U.bob)).toBeUndefined();
  });

  it('DELETE /groups/:id/members/:user_id: members leave by themselves; others need owner rights', async () => {
    const fx = groupsFx();
    await refused(fx, 'DELETE', `/groups/acme/members/${U.mia}`, 'bob-api', undefined, 403);
    expect((await send(fx, 'DELETE', `/groups/acme/members/${U.bob}`, 'bob-api')).status).toBe(204);
    expect(await refused(fx, 'DELETE', `/groups/acme/members/${U.bob}`, 'alice-api', undefined, 404)).toEqual(
      {
        message: '404 Not found',
      },
    );
  });

  it('DELETE /groups/:id/members/:user_id: the last owner stays', async () => {
    const fx = groupsFx();
    await refused(fx, 'DELETE', `/groups/acme/members/${U.alice}`, 'alice-api', undefined, 403);
    await refused(fx, 'DELETE', `/groups/hidden/members/${U.dave}`, 'root-api', undefined, 403);
  });

  it('DELETE /groups/:id/members/:user_id: a subgroup owner is not the last owner while the parent has one', async () => {
    const fx = groupsFx();
    await send(fx, 'POST', '/groups/acme%2Fsecret/members', 'alice-api', {
      user_id: U.erin,
      access_level: 50,
    });
    expect((await send(fx, 'DELETE', `/groups/acme%2Fsecret/members/${U.erin}`, 'erin-api')).status).toBe(
      204,
    );
  });

  it('DELETE /groups/:id/members/:user_id: the same user leaves the subgroups and projects below', async () => {
    const fx = groupsFx();
    await send(fx, 'POST', '/groups/acme%2Fsecret%2Fdeep/members', 'alice-api', {
      user_id: U.bob,
      access_level: 40,
    });
    const project = iget(fx.state.idx.projects, 'acme/secret/vault')!;
    expect(memberOf(fx, 'group', 'acme/secret/deep', U.bob)).toBeDefined();
    expect(memberOf(fx, 'project', 'acme/secret/vault', U.frank)).toBeDefined();
    await send(fx, 'POST', '/groups/acme/members', 'alice-api', { user_id: U.frank, access_level: 10 });
    await send(fx, 'DELETE', `/groups/acme/members/${U.bob}`, 'alice-api');
    await send(fx, 'DELETE', `/groups/acme/members/${U.frank}`, 'alice-api');
    expect(memberOf(fx, 'group', 'acme/secret/deep', U.bob)).toBeUndefined();
    expect(memberOf(fx, 'project', 'acme/secret/vault', U.frank)).toBeUndefined();
    expect(mget(fx.state.idx.membersBySource, `project:${project}`)).toEqual([]);
    expect(tget(fx.state.projects, project)).toBeDefined();
  });

  it('DELETE /groups/:id/members/:user_id: 412 when If-Unmodified-Since is older than the membership', async () => {
    const fx = groupsFx();
    const before = fx.state;
    const out = await send(fx, 'DELETE', `/groups/acme/members/${U.bob}`, 'alice-api', undefined, {
      'If-Unmodified-Since': 'Sun, 28 Feb 2021 12:00:00 GMT',
    });
    expect(out.status).toBe(412);
    expect(fx.state).toBe(before);
  });
});
