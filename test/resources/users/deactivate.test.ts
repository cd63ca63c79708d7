import { describe, expect, it } from 'vitest';
import { tget } from '../../../src/core/table.js';
import { send, usersFx } from './world.js';

/** Ids of the users world, in file order. */
const ALICE = 2;
const BOB = 3;
const MALLORY = 5;
const DAY = 86_400_000;

describe('POST /users/:id/deactivate', () => {
  it('is for administrators only: 401 anonymous, 403 for a user, nothing written', async () => {
    const fx = usersFx();
    const before = fx.state;
    expect((await send(fx, 'POST', `/users/${BOB}/deactivate`)).res.status).toBe(401);
    const { res, body } = await send(fx, 'POST', `/users/${BOB}/deactivate`, 'alice-api');
    expect([res.status, body]).toEqual([403, { message: '403 Forbidden' }]);
    expect(fx.state).toBe(before);
  });

  it('deactivates a user with no activity: 201 true, state deactivated, their token refused', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'POST', `/users/${BOB}/deactivate`, 'root-api');
    expect([res.status, body]).toEqual([201, true]);
    expect((await send(fx, 'GET', `/users/${BOB}`, 'root-api')).body.state).toBe('deactivated');
    // The API does not reactivate: only a sign-in through the web does (`Users::ActivityService` is
    // never reached, the request is refused first).
    const own = await send(fx, 'GET', '/user', 'bob-api');
    expect([own.res.status, own.body]).toEqual([
      403,
      {
        message:
          '403 Forbidden - Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at http://localhost',
      },
    ]);
    expect(tget(fx.state.users, BOB)!.state).toBe('deactivated');
  });

  it('a deactivated user ends the endpoint early: 201 with a null body', async () => {
    const fx = usersFx();
    await send(fx, 'POST', `/users/${BOB}/deactivate`, 'root-api');
    const before = fx.state;
    const { res, body } = await send(fx, 'POST', `/users/${BOB}/deactivate`, 'root-api');
    expect([res.status, body]).toEqual([201, null]);
    expect(tget(fx.state.users, BOB)).toBe(tget(before.users, BOB));
  });

  it('refuses a user active in the last 180 days, and allows them 180 days later', async () => {
    const fx = usersFx();
    // Alice's request is her activity today (`last_activity_on`).
    expect((await send(fx, 'GET', '/user', 'alice-api')).res.status).toBe(200);
    const refused = await send(fx, 'POST', `/users/${ALICE}/deactivate`, 'root-api');
    expect([refused.res.status, refused.body]).toEqual([
      403,
      {
        message:
          '403 Forbidden - The user you are trying to deactivate has been active in the past 180 days and cannot be deactivated',
      },
    ]);
    fx.clock.advance(179 * DAY);
    expect((await send(fx, 'POST', `/users/${ALICE}/deactivate`, 'root-api')).res.status).toBe(403);
    fx.clock.advance(1 * DAY);
    const ok = await send(fx, 'POST', `/users/${ALICE}/deactivate`, 'root-api');
    expect([ok.res.status, ok.body]).toEqual([201, true]);
  });

  it('refuses a blocked user with its own message', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'POST', `/users/${MALLORY}/deactivate`, 'root-api');
    expect([res.status, body]).toEqual([
      403,
      { message: '403 Forbidden - A blocked user cannot be deactivated by the API' },
    ]);
    expect(tget(fx.state.users, MALLORY)!.state).toBe('blocked');
  });

  it('an unknown user is 404 User Not Found; a non-numeric id matches no route', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'POST', '/users/999/deactivate', 'root-api');
    expect([res.status, body]).toEqual([404, { message: '404 User Not Found' }]);
    expect((await send(fx, 'POST', '/users/bob/deactivate', 'root-api')).res.status).toBe(404);
  });
});

describe('POST /users/:id/activate', () => {
  it('activates a deactivated user: 201 true, and their token works again', async () => {
    const fx = usersFx();
    await send(fx, 'POST', `/users/${BOB}/deactivate`, 'root-api');
    const { res, body } = await send(fx, 'POST', `/users/${BOB}/activate`, 'root-api');
    expect([res.status, body]).toEqual([201, true]);
    expect(tget(fx.state.users, BOB)!.state).toBe('active');
    expect((await send(fx, 'GET', '/user', 'bob-api')).res.status).toBe(200);
  });

  it('an active user has no transition: 201 false, nothing written', async () => {
    const fx = usersFx();
    const before = tget(fx.state.users, BOB);
    const { res, body } = await send(fx, 'POST', `/users/${BOB}/activate`, 'root-api');
    expect([res.status, body]).toEqual([201, false]);
    expect(tget(fx.state.users, BOB)).toBe(before);
  });

  it('a blocked user must be unblocked first; unblock refuses a deactivated one', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'POST', `/users/${MALLORY}/activate`, 'root-api');
    expect([res.status, body]).toEqual([
      403,
      { message: '403 Forbidden - A blocked user must be unblocked to be activated' },
    ]);
    await send(fx, 'POST', `/users/${BOB}/deactivate`, 'root-api');
    const unblock = await send(fx, 'POST', `/users/${BOB}/unblock`, 'root-api');
    expect(unblock.res.status).toBe(403);
  });

  it('is for administrators only', async () => {
    const fx = usersFx();
    await send(fx, 'POST', `/users/${BOB}/deactivate`, 'root-api');
    const { res } = await send(fx, 'POST', `/users/${BOB}/activate`, 'alice-api');
    expect(res.status).toBe(403);
    expect(tget(fx.state.users, BOB)!.state).toBe('deactivated');
  });
});
