/**
 * Feature flag user lists (`lib/api/feature_flags_user_lists.rb`, 13.12): iids per project, names
 * unique, `user_xids` checked by `FeatureFlagUserXidsValidator`, `search` anywhere in the name, and a
 * list a strategy uses kept (409).
 */
import { describe, expect, it } from 'vitest';
import { call } from '../repository/world.js';
import { flagsFx } from './world.js';

const LISTS = '/projects/acme%2Fapp/feature_flags_user_lists';
const NOW = '2021-03-01T12:00:00.000Z';

describe('feature flag user lists API', () => {
  it('POST, GET, PUT, DELETE by iid: Entities::FeatureFlag::UserList with the UI paths', async () => {
    const fx = flagsFx();
    const made = await call(fx, 'POST', LISTS, 'dev', { name: 'Canaries', user_xids: 'u1,u2' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: made.body.id,
      iid: 2,
      name: 'Canaries',
      user_xids: 'u1,u2',
      project_id: made.body.project_id,
      created_at: NOW,
      updated_at: NOW,
      path: '/acme/app/-/feature_flags_user_lists/2',
      edit_path: '/acme/app/-/feature_flags_user_lists/2/edit',
    });
    expect((await call(fx, 'GET', `${LISTS}/2`, 'dev')).body).toEqual(made.body);
    expect(
      (await call(fx, 'GET', `${LISTS}?search=CAN`, 'dev')).body.map((l: { name: string }) => l.name),
    ).toEqual(['Canaries']);
    expect((await call(fx, 'GET', LISTS, 'dev')).headers.get('x-total')).toBe('2');
    fx.clock.advance(1000);
    const put = await call(fx, 'PUT', `${LISTS}/2`, 'dev', { user_xids: 'u3' });
    expect(put.body).toMatchObject({
      name: 'Canaries',
      user_xids: 'u3',
      updated_at: '2021-03-01T12:00:01.000Z',
    });
    const del = await call(fx, 'DELETE', `${LISTS}/2`, 'dev');
    expect(del.status).toBe(204);
    expect(await call(fx, 'GET', `${LISTS}/2`, 'dev')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await call(fx, 'POST', LISTS, 'dev', { name: 'Next', user_xids: 'x' })).body.iid).toBe(3);
  });

  it('validations as full messages; a list in use by a strategy is a 409', async () => {
    const fx = flagsFx();
    expect(await call(fx, 'POST', LISTS, 'dev', { name: 'beta testers', user_xids: 'a' })).toMatchObject({
      status: 400,
      body: { message: ['Name has already been taken'] },
    });
    expect(await call(fx, 'POST', LISTS, 'dev', { name: '', user_xids: 'a,a' })).toMatchObject({
      status: 400,
      body: {
        message: [
          "Name can't be blank",
          'Name is too short (minimum is 1 character)',
          'User xids user_xids must be a string of unique comma separated values each 256 characters or less',
        ],
      },
    });
    expect(await call(fx, 'POST', LISTS, 'dev', { name: 'n', user_xids: ` a` })).toMatchObject({
      status: 400,
    });
    expect(await call(fx, 'POST', LISTS, 'dev', { name: 'n', user_xids: 'x'.repeat(257) })).toMatchObject({
      status: 400,
    });
    expect(await call(fx, 'POST', LISTS, 'dev', { name: 'n' })).toMatchObject({
      status: 400,
      body: { error: 'user_xids is missing' },
    });
    expect(await call(fx, 'DELETE', `${LISTS}/1`, 'dev')).toMatchObject({
      status: 409,
      body: { message: ['User list is associated with a strategy'] },
    });
    // Once the flag that uses it goes, the list may go too.
    expect((await call(fx, 'DELETE', '/projects/acme%2Fapp/feature_flags/new_checkout', 'dev')).status).toBe(
      200,
    );
    expect((await call(fx, 'DELETE', `${LISTS}/1`, 'dev')).status).toBe(204);
  });

  it('admin_feature_flags_user_lists: developers; the list is empty where operations are disabled', async () => {
    const fx = flagsFx();
    expect((await call(fx, 'GET', LISTS, 'rep')).status).toBe(403);
    expect((await call(fx, 'POST', LISTS, 'rep', { name: 'n', user_xids: 'a' })).status).toBe(403);
    expect((await call(fx, 'POST', LISTS, 'rep', {})).body).toEqual({ message: '403 Forbidden' });
    expect((await call(fx, 'GET', LISTS, 'outsider')).status).toBe(404);
    expect((await call(fx, 'POST', LISTS, undefined, { name: 'n', user_xids: 'a' })).status).toBe(401);
    const off = '/projects/acme%2Fops-off/feature_flags_user_lists';
    expect((await call(fx, 'POST', off, 'root', { name: 'n', user_xids: 'a' })).status).toBe(201);
    expect((await call(fx, 'GET', off, 'root')).body).toEqual([]);
    expect((await call(fx, 'GET', `${off}/1`, 'root')).status).toBe(200);
  });
});
