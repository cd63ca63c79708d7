import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { exportScenario } from '../../../src/scenario/export.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { send, usersFx, usersWorld } from '../users/world.js';

describe('PUT /user/preferences', () => {
  it('makes the row on the first write and updates it after: Entities::UserPreferences', async () => {
    const fx = usersFx();
    const first = await send(fx, 'PUT', '/user/preferences', 'bob-api', { view_diffs_file_by_file: true });
    expect([first.res.status, first.body]).toEqual([
      200,
      { id: 1, user_id: 3, view_diffs_file_by_file: true },
    ]);
    const other = await send(fx, 'PUT', '/user/preferences', 'alice-api', {
      view_diffs_file_by_file: 'false',
    });
    expect(other.body).toEqual({ id: 2, user_id: 2, view_diffs_file_by_file: false });
    const again = await send(fx, 'PUT', '/user/preferences', 'bob-api', { view_diffs_file_by_file: false });
    expect(again.body).toEqual({ id: 1, user_id: 3, view_diffs_file_by_file: false });
  });

  it('13.12 requires view_diffs_file_by_file, a Boolean; show_whitespace_in_diffs is not a param yet', async () => {
    const fx = usersFx();
    const before = fx.state;
    expect((await send(fx, 'PUT', '/user/preferences', 'bob-api', {})).body).toEqual({
      error: 'view_diffs_file_by_file is missing',
    });
    expect(
      (await send(fx, 'PUT', '/user/preferences', 'bob-api', { show_whitespace_in_diffs: true })).body,
    ).toEqual({ error: 'view_diffs_file_by_file is missing' });
    expect(
      (await send(fx, 'PUT', '/user/preferences', 'bob-api', { view_diffs_file_by_file: 'maybe' })).body,
    ).toEqual({ error: 'view_diffs_file_by_file is invalid' });
    const proto = await send(fx, 'PUT', '/user/preferences', 'bob-api', {
      __proto__: { admin: true },
      constructor: 'x',
      view_diffs_file_by_file: true,
    });
    expect(proto.body).toEqual({ id: 1, user_id: 3, view_diffs_file_by_file: true });
    expect(Object.keys(proto.body)).toEqual(['id', 'user_id', 'view_diffs_file_by_file']);
    expect(before.preferences.records).not.toBe(fx.state.preferences.records);
  });

  it('401 anonymous, 403 a read_user token, nothing written', async () => {
    const fx = usersFx();
    const before = fx.state;
    const body = { view_diffs_file_by_file: true };
    expect((await send(fx, 'PUT', '/user/preferences', undefined, body)).res.status).toBe(401);
    expect((await send(fx, 'PUT', '/user/preferences', 'alice-read-user', body)).res.status).toBe(403);
    expect(fx.state).toBe(before);
  });

  it('the rows go through a scenario export and back, ids and all', async () => {
    const fx = usersFx();
    await send(fx, 'PUT', '/user/preferences', 'dave-api', { view_diffs_file_by_file: true });
    await send(fx, 'PUT', '/user/preferences', 'alice-api', { view_diffs_file_by_file: false });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    expect(out.user_preferences).toEqual([
      { username: 'dave', view_diffs_file_by_file: true },
      { username: 'alice' },
    ]);
    const again = createFauxlab({ scenario: out });
    expect(again.state.preferences).toEqual(fx.state.preferences);
    const bad: ScenarioFile = {
      ...usersWorld,
      user_preferences: [{ username: 'nobody' }, { username: 'bob' }, { username: 'Bob' }],
    };
    expect(() => createFauxlab({ scenario: bad })).toThrow(
      /user_preferences\[0\][\s\S]*user_preferences\[2\]/,
    );
  });
});
