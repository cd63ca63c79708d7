/**
 * The feature flags API of 13.12 (`lib/api/feature_flags.rb`): new version flags with strategies and
 * their scopes, `FeatureFlags::CreateService`/`UpdateService`/`DestroyService`, the models' validations
 * as full messages, legacy flags (the default version of 13.12: listed, shown, deleted; PUT refused),
 * and `ProjectPolicy`'s developers-only, operations-gated abilities.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { exportScenario } from '../../../src/scenario/export.js';
import { call } from '../repository/world.js';
import { flagsFx, flagsWorld } from './world.js';

const FLAGS = '/projects/acme%2Fapp/feature_flags';
const NOW = '2021-03-01T12:00:00.000Z';

const CREATE = {
  name: 'merge_train',
  description: 'Merge trains',
  version: 'new_version_flag',
  strategies: [
    {
      name: 'userWithId',
      parameters: { userIds: 'user1,user2' },
      scopes: [{ environment_scope: 'production' }],
    },
    { name: 'gradualRolloutUserId', parameters: '{"groupId":"default","percentage":"50"}' },
  ],
};

describe('feature flags API', () => {
  it('POST, GET, PUT, DELETE: Entities::FeatureFlag with its strategies, scopes and user lists', async () => {
    const fx = flagsFx();
    const made = await call(fx, 'POST', FLAGS, 'dev', CREATE);
    expect(made.status).toBe(201);
    const [s1, s2] = made.body.strategies;
    expect(made.body).toEqual({
      name: 'merge_train',
      description: 'Merge trains',
      active: true,
      version: 'new_version_flag',
      created_at: NOW,
      updated_at: NOW,
      scopes: [],
      strategies: [
        {
          id: s1.id,
          name: 'userWithId',
          parameters: { userIds: 'user1,user2' },
          scopes: [{ id: s1.scopes[0].id, environment_scope: 'production' }],
          user_list: null,
        },
        {
          id: s2.id,
          name: 'gradualRolloutUserId',
          parameters: { groupId: 'default', percentage: '50' },
          scopes: [],
          user_list: null,
        },
      ],
    });
    expect((await call(fx, 'GET', `${FLAGS}/merge_train`, 'rep')).status).toBe(403);
    expect((await call(fx, 'GET', `${FLAGS}/merge_train`, 'dev')).body).toEqual(made.body);

    fx.clock.advance(60_000);
    const put = await call(fx, 'PUT', `${FLAGS}/merge_train`, 'dev', {
      active: false,
      strategies: [
        { id: s1.id, scopes: [{ id: s1.scopes[0].id, _destroy: true }, { environment_scope: ' staging ' }] },
        { id: s2.id, _destroy: true },
        { name: 'default', parameters: {}, scopes: [{ environment_scope: '*' }] },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body.active).toBe(false);
    expect(put.body.updated_at).toBe('2021-03-01T12:01:00.000Z');
    expect(
      put.body.strategies.map((s: { name: string; scopes: { environment_scope: string }[] }) => [
        s.name,
        s.scopes.map((x) => x.environment_scope),
      ]),
    ).toEqual([
      ['userWithId', ['staging']],
      ['default', ['*']],
    ]);
    // An id of another flag's strategy: the nested attributes' RecordNotFound.
    expect(
      await call(fx, 'PUT', `${FLAGS}/merge_train`, 'dev', { strategies: [{ id: 999999, name: 'default' }] }),
    ).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });

    const del = await call(fx, 'DELETE', `${FLAGS}/merge_train`, 'dev');
    expect(del.status).toBe(200);
    expect(del.body).toEqual(put.body);
    expect(await call(fx, 'GET', `${FLAGS}/merge_train`, 'dev')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
  });

  it('GET: by name, scope=enabled|disabled, paginated; legacy flags listed with their scopes', async () => {
    const fx = flagsFx();
    const all = await call(fx, 'GET', FLAGS, 'dev');
    expect(all.headers.get('x-total')).toBe('3');
    expect(all.body.map((f: { name: string }) => f.name)).toEqual([
      'dark_mode',
      'new_checkout',
      'old_banner',
    ]);
    expect(
      (await call(fx, 'GET', `${FLAGS}?scope=disabled`, 'dev')).body.map((f: { name: string }) => f.name),
    ).toEqual(['dark_mode']);
    expect(
      (await call(fx, 'GET', `${FLAGS}?scope=enabled&per_page=1&page=2`, 'dev')).body.map(
        (f: { name: string }) => f.name,
      ),
    ).toEqual(['old_banner']);
    expect(await call(fx, 'GET', `${FLAGS}?scope=all`, 'dev')).toMatchObject({
      status: 400,
      body: { error: 'scope does not have a valid value' },
    });
    const legacy = all.body[2];
    expect(legacy).toMatchObject({ version: 'legacy_flag', strategies: [] });
    expect(
      legacy.scopes.map((s: { environment_scope: string; active: boolean }) => [
        s.environment_scope,
        s.active,
      ]),
    ).toEqual([
      ['*', false],
      ['production', true],
    ]);
    expect(all.body[1].strategies[0].user_list).toEqual({
      id: 1,
      iid: 1,
      name: 'beta testers',
      user_xids: 'alice,bob',
    });
  });

  it('a flag made without a version is a legacy flag (13.12 default) with its default scope; PUT refuses it', async () => {
    const fx = flagsFx();
    const made = await call(fx, 'POST', FLAGS, 'dev', { name: 'legacy_one', active: false });
    expect(made.status).toBe(201);
    expect(made.body.version).toBe('legacy_flag');
    expect(made.body.scopes).toEqual([
      {
        id: made.body.scopes[0].id,
        active: false,
        environment_scope: '*',
        strategies: [{ name: 'default', parameters: {} }],
        created_at: NOW,
        updated_at: NOW,
      },
    ]);
    expect(await call(fx, 'PUT', `${FLAGS}/legacy_one`, 'dev', { active: true })).toEqual(
      expect.objectContaining({
        status: 422,
        body: { message: 'PUT operations are not supported for legacy feature flags' },
      }),
    );
    expect(
      await call(fx, 'POST', FLAGS, 'dev', {
        name: 'legacy_two',
        scopes: [
          {
            environment_scope: 'production',
            active: true,
            strategies: '[{"name":"default","parameters":{}}]',
          },
        ],
      }),
    ).toMatchObject({ status: 400, body: { message: ['Default scope has to be the first element'] } });
    expect(
      await call(fx, 'POST', FLAGS, 'dev', {
        name: 'legacy_three',
        strategies: [{ name: 'default', parameters: {} }],
      }),
    ).toMatchObject({
      status: 400,
      body: { message: ['Version associations version 1 feature flags may not have strategies'] },
    });
    expect((await call(fx, 'DELETE', `${FLAGS}/old_banner`, 'dev')).status).toBe(200);
  });

  it("the models' validations as full messages, Grape's for the nested params", async () => {
    const fx = flagsFx();
    const post = (body: unknown) =>
      call(fx, 'POST', FLAGS, 'dev', { version: 'new_version_flag', ...(body as object) });
    expect(await post({ name: 'x' })).toMatchObject({
      status: 400,
      body: { message: ['Name is too short (minimum is 2 characters)'] },
    });
    expect(await post({ name: 'Bad-' })).toMatchObject({
      status: 400,
      body: {
        message: [
          "Name can contain only lowercase letters, digits, '_' and '-'. Must start with a letter, and cannot end with '-' or '_'",
        ],
      },
    });
    expect(await post({ name: 'dark_mode' })).toMatchObject({
      status: 400,
      body: { message: ['Name has already been taken'] },
    });
    expect(await post({ name: 'ok_name', version: 'v3' })).toMatchObject({
      status: 400,
      body: { message: 'Version is invalid' },
    });
    expect(
      await post({
        name: 'ok_name',
        strategies: [
          { name: 'gradualRolloutUserId', parameters: { groupId: 'Default', percentage: '101' } },
          { name: 'userWithId', parameters: { userIds: 'a,,b' }, scopes: [{ environment_scope: 'pro#d' }] },
          { name: 'flexibleRollout', parameters: { groupId: 'default', rollout: '5', stickiness: 'sticky' } },
          { name: 'nope', parameters: {} },
          { name: 'default', parameters: { extra: '1' } },
          { name: 'gitlabUserList', parameters: {} },
        ],
      }),
    ).toMatchObject({
      status: 400,
      body: {
        message: [
          'Strategies parameters percentage must be a string between 0 and 100 inclusive',
          'Strategies parameters groupId parameter is invalid',
          'Strategies parameters userIds must be a string of unique comma separated values each 256 characters or less',
          'Strategies parameters stickiness parameter must be DEFAULT, USERID, SESSIONID, or RANDOM',
          'Strategies parameters parameters are invalid',
          "Strategies scopes environment scope can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces",
          'Strategies name strategy name is invalid',
          "Strategies user list can't be blank",
        ],
      },
    });
    expect(
      await post({
        name: 'ok_name',
        strategies: [{ parameters: {} }, { name: 'default', parameters: '{nope' }],
      }),
    ).toMatchObject({
      status: 400,
      body: { error: 'strategies[0][name] is missing, strategies[1][parameters] is invalid' },
    });
    expect(await post({ name: 'ok_name', strategies: [{ name: 'default' }] })).toMatchObject({
      status: 400,
      body: { error: 'strategies[0][parameters] is missing' },
    });
    expect((await call(fx, 'GET', FLAGS, 'dev')).headers.get('x-total')).toBe('3');
  });

  it('developers and up, operations enabled: 403 below and for anonymous reads, 401 anonymous writes, 404 unseen', async () => {
    const fx = flagsFx();
    for (const token of ['rep', 'guest']) {
      expect((await call(fx, 'GET', FLAGS, token)).status).toBe(403);
      expect((await call(fx, 'POST', FLAGS, token, CREATE)).status).toBe(403);
      expect((await call(fx, 'DELETE', `${FLAGS}/dark_mode`, token)).status).toBe(403);
    }
    // `before { authorize_read_feature_flags! }` comes before Grape's validation of the params.
    expect((await call(fx, 'POST', FLAGS, 'rep', {})).body).toEqual({ message: '403 Forbidden' });
    expect((await call(fx, 'GET', `${FLAGS}?scope=all`, 'rep')).status).toBe(403);
    expect((await call(fx, 'POST', FLAGS, 'outsider', {})).body).toEqual({
      message: '404 Project Not Found',
    });
    expect((await call(fx, 'GET', FLAGS, 'outsider')).body).toEqual({ message: '404 Project Not Found' });
    expect((await call(fx, 'GET', FLAGS)).body).toEqual({ message: '404 Project Not Found' });
    expect((await call(fx, 'GET', '/projects/acme%2Fsite/feature_flags')).body).toEqual({
      message: '403 Forbidden',
    });
    expect((await call(fx, 'POST', '/projects/acme%2Fsite/feature_flags', undefined, CREATE)).status).toBe(
      401,
    );
    expect((await call(fx, 'GET', '/projects/acme%2Fsite/feature_flags', 'dev')).status).toBe(200);
    expect((await call(fx, 'GET', '/projects/acme%2Fops-off/feature_flags', 'root')).status).toBe(403);
    expect((await call(fx, 'GET', FLAGS, 'root')).status).toBe(200);
    expect((await call(fx, 'GET', FLAGS, 'maint')).status).toBe(200);
  });

  it('a scenario carries flags, lists and the instance id; an export loads into the same answers', async () => {
    const fx = flagsFx();
    await call(fx, 'POST', FLAGS, 'dev', CREATE);
    const again = createFauxlab({ scenario: exportScenario(fx.state, { now: fx.clock.iso() }) });
    for (const path of [FLAGS, `${FLAGS}/new_checkout`, '/projects/acme%2Fapp/feature_flags_user_lists'])
      expect((await call(again, 'GET', path, 'dev')).body).toEqual((await call(fx, 'GET', path, 'dev')).body);
    expect(() =>
      createFauxlab({
        scenario: {
          ...flagsWorld,
          projects: [
            {
              ...flagsWorld.projects![0]!,
              feature_flags: [{ name: 'Bad', strategies: [{ name: 'gitlabUserList', user_list: 'nobody' }] }],
            },
          ],
        },
      }),
    ).toThrow(/feature_flags\[0\]\.strategies\[0\]\.user_list: no user list named nobody/);
  });
});
