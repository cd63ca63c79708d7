import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { exportScenario } from '../../../src/scenario/export.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { BASIC_KEYS, send, usernames, usersFx, usersWorld } from '../users/world.js';

/** Ids of the users world, in file order. */
const ROOT = 1;
const ALICE = 2;
const BOB = 3;
const MALLORY = 5;
const DAVE = 6;

describe('POST /users/:id/follow and /unfollow', () => {
  it('follows: 201 with the followed user as UserBasic; again, 304 with no body', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'POST', `/users/${BOB}/follow`, 'alice-api');
    expect(res.status).toBe(201);
    expect(Object.keys(body)).toEqual(BASIC_KEYS);
    expect(body.username).toBe('bob');
    const again = await send(fx, 'POST', `/users/${BOB}/follow`, 'alice-api');
    expect(again.res.status).toBe(304);
    expect(await again.res.text()).toBe('');
    expect(usernames((await send(fx, 'GET', `/users/${BOB}/followers`, 'bob-api')).body)).toEqual(['alice']);
    expect(usernames((await send(fx, 'GET', `/users/${ALICE}/following`)).body)).toEqual(['bob']);
  });

  it('following oneself is not modified (User#follow answers false), nothing written', async () => {
    const fx = usersFx();
    const before = fx.state;
    expect((await send(fx, 'POST', `/users/${ALICE}/follow`, 'alice-api')).res.status).toBe(304);
    expect(fx.state).toBe(before);
  });

  it('unfollows: 201 UserBasic, then 304; the lists empty again', async () => {
    const fx = usersFx();
    await send(fx, 'POST', `/users/${BOB}/follow`, 'alice-api');
    const { res, body } = await send(fx, 'POST', `/users/${BOB}/unfollow`, 'alice-api');
    expect([res.status, body.id]).toEqual([201, BOB]);
    expect((await send(fx, 'POST', `/users/${BOB}/unfollow`, 'alice-api')).res.status).toBe(304);
    expect((await send(fx, 'GET', `/users/${BOB}/followers`)).body).toEqual([]);
  });

  it('401 anonymous, 403 a read_user token, 404 an unknown user, non-numeric ids match no route', async () => {
    const fx = usersFx();
    expect((await send(fx, 'POST', `/users/${BOB}/follow`)).res.status).toBe(401);
    expect((await send(fx, 'POST', `/users/${BOB}/follow`, 'alice-read-user')).res.status).toBe(403);
    const unknown = await send(fx, 'POST', '/users/999/follow', 'alice-api');
    expect([unknown.res.status, unknown.body]).toEqual([404, { message: '404 User Not Found' }]);
    for (const id of ['__proto__', 'constructor', 'alice'])
      expect((await send(fx, 'POST', `/users/${id}/follow`, 'alice-api')).res.status).toBe(404);
  });
});

describe('GET /users/:id/followers and /following', () => {
  it('lists by user id, paginated, with the pagination headers', async () => {
    const fx = usersFx();
    for (const t of ['dave-api', 'root-api', 'bob-api']) await send(fx, 'POST', `/users/${ALICE}/follow`, t);
    const all = await send(fx, 'GET', `/users/${ALICE}/followers`, 'bob-api');
    expect(usernames(all.body)).toEqual(['root', 'bob', 'dave']);
    expect(all.res.headers.get('x-total')).toBe('3');
    const page = await send(fx, 'GET', `/users/${ALICE}/followers?per_page=2&page=2`, 'bob-api');
    expect(usernames(page.body)).toEqual(['dave']);
    expect(Object.keys(page.body[0])).toEqual(BASIC_KEYS);
    expect(usernames((await send(fx, 'GET', `/users/${ROOT}/following`)).body)).toEqual(['alice']);
    expect((await send(fx, 'GET', `/users/${BOB}/followers`)).body).toEqual([]);
  });

  it('a private profile or a blocked user is 404 to others (read_user_profile), not to admins or the user', async () => {
    const fx = usersFx();
    for (const id of [DAVE, MALLORY]) {
      const { res, body } = await send(fx, 'GET', `/users/${id}/following`, 'alice-api');
      expect([res.status, body]).toEqual([404, { message: '404 User Not Found' }]);
      expect((await send(fx, 'GET', `/users/${id}/followers`, 'root-api')).res.status).toBe(200);
    }
    expect((await send(fx, 'GET', `/users/${DAVE}/followers`, 'dave-api')).res.status).toBe(200);
    expect((await send(fx, 'GET', '/users/999/followers')).res.status).toBe(404);
    expect((await send(fx, 'GET', `/users/${BOB}/followers?per_page=abc`)).res.status).toBe(400);
  });

  it('anonymous callers are refused where public visibility is restricted', async () => {
    const fx = usersFx();
    await send(fx, 'PUT', '/application/settings', 'root-api', { restricted_visibility_levels: ['public'] });
    expect((await send(fx, 'GET', `/users/${BOB}/followers`)).res.status).toBe(404);
    expect((await send(fx, 'GET', `/users/${BOB}/followers`, 'alice-api')).res.status).toBe(200);
  });

  it('a deleted follower drops out of the lists', async () => {
    const fx = usersFx();
    await send(fx, 'POST', `/users/${ALICE}/follow`, 'bob-api');
    await send(fx, 'POST', `/users/${ALICE}/follow`, 'dave-api');
    expect((await send(fx, 'DELETE', `/users/${DAVE}`, 'root-api')).res.status).toBe(204);
    fx.clock.advance(60_000);
    expect(usernames((await send(fx, 'GET', `/users/${ALICE}/followers`)).body)).toEqual(['bob']);
  });
});

describe('following in scenarios', () => {
  const world: ScenarioFile = {
    ...usersWorld,
    users: usersWorld.users!.map((u) =>
      u.username === 'alice'
        ? { ...u, following: ['carol', 'bob'] }
        : u.username === 'bobby'
          ? { ...u, following: ['alice'] }
          : u,
    ),
  };

  it('loads a user entry`s `following` and exports it back', async () => {
    const fx = createFauxlab({ scenario: world });
    expect(usernames((await send(fx, 'GET', `/users/${ALICE}/following`)).body)).toEqual(['bob', 'carol']);
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const again = createFauxlab({ scenario: out });
    expect(again.state.follows).toEqual(fx.state.follows);
    expect(out.users!.find((u) => u.username === 'alice')!.following).toEqual(['bob', 'carol']);
  });

  it('refuses unknown usernames, oneself and duplicates', () => {
    const bad: ScenarioFile = {
      ...usersWorld,
      users: usersWorld.users!.map((u) =>
        u.username === 'alice' ? { ...u, following: ['nobody', 'alice', 'bob', 'BOB'] } : u,
      ),
    };
    expect(() => createFauxlab({ scenario: bad })).toThrow(
      /following\[0\]: no user "nobody"[\s\S]*following\[1\]: a user cannot follow themselves[\s\S]*following\[3\]: "BOB" is listed twice/,
    );
  });
});
