import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { exportScenario } from '../../../src/scenario/export.js';
import { tget } from '../../../src/core/table.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { send, usersWorld } from './world.js';

/** Ids of the users world, in file order, and the pending sign-up added after them. */
const BOB = 3;
const MALLORY = 5;
const PENDING = 8;
const DEACTIVATED = 9;

const world: ScenarioFile = {
  ...usersWorld,
  users: [
    ...usersWorld.users!,
    {
      username: 'penny',
      state: 'blocked_pending_approval',
      tokens: [{ token: 'penny-api', scopes: ['api'] }],
    },
    { username: 'dormant', state: 'deactivated' },
  ],
};
const fx = () => createFauxlab({ scenario: world });

describe('POST /users/:id/approve', () => {
  it('approves a user pending approval: 201 {"message":"Success"}, the user active, their token usable', async () => {
    const f = fx();
    expect((await send(f, 'GET', '/user', 'penny-api')).body).toEqual({
      message: '403 Forbidden - Your account is pending approval from your administrator and hence blocked.',
    });
    const { res, body } = await send(f, 'POST', `/users/${PENDING}/approve`, 'root-api');
    expect([res.status, body]).toEqual([201, { message: 'Success' }]);
    expect((await send(f, 'GET', `/users/${PENDING}`, 'root-api')).body.state).toBe('active');
    expect((await send(f, 'GET', '/user', 'penny-api')).res.status).toBe(200);
  });

  it('any other state is 409 with the service message, nothing written', async () => {
    const f = fx();
    for (const id of [BOB, MALLORY, DEACTIVATED]) {
      const before = tget(f.state.users, id);
      const { res, body } = await send(f, 'POST', `/users/${id}/approve`, 'root-api');
      expect([res.status, body]).toEqual([
        409,
        { message: 'The user you are trying to approve is not pending approval' },
      ]);
      expect(tget(f.state.users, id)).toBe(before);
    }
    await send(f, 'POST', `/users/${PENDING}/approve`, 'root-api');
    expect((await send(f, 'POST', `/users/${PENDING}/approve`, 'root-api')).res.status).toBe(409);
  });

  it('refuses a non-admin with the service message, 401 anonymous, 404 an unknown user first', async () => {
    const f = fx();
    const before = f.state;
    expect((await send(f, 'POST', `/users/${PENDING}/approve`)).res.status).toBe(401);
    const refused = await send(f, 'POST', `/users/${PENDING}/approve`, 'alice-api');
    expect([refused.res.status, refused.body]).toEqual([
      403,
      { message: 'You are not allowed to approve a user' },
    ]);
    const unknown = await send(f, 'POST', '/users/999/approve', 'alice-api');
    expect([unknown.res.status, unknown.body]).toEqual([404, { message: '404 User Not Found' }]);
    expect((await send(f, 'POST', '/users/__proto__/approve', 'root-api')).res.status).toBe(404);
    expect(f.state).toBe(before);
  });

  it('a pending user counts as blocked: block answers null, unblock lets them in, activate refuses', async () => {
    const f = fx();
    expect((await send(f, 'POST', `/users/${PENDING}/block`, 'root-api')).body).toBe(null);
    expect((await send(f, 'POST', `/users/${PENDING}/activate`, 'root-api')).body).toEqual({
      message: '403 Forbidden - A blocked user must be unblocked to be activated',
    });
    expect((await send(f, 'POST', `/users/${PENDING}/unblock`, 'root-api')).body).toBe(true);
    expect(tget(f.state.users, PENDING)!.state).toBe('active');
  });

  it('the state goes through a scenario export and back', async () => {
    const f = fx();
    const out = exportScenario(f.state, { now: f.clock.iso() });
    const again = createFauxlab({ scenario: out });
    expect(tget(again.state.users, PENDING)!.state).toBe('blocked_pending_approval');
  });
});
