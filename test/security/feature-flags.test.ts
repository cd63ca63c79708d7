/**
 * Feature flags' input surfaces: prototype keys in strategy parameters, flag and list names and Unleash
 * headers; the per-project flag count (`project_feature_flags`, 200) refused before the write; stored
 * environment scopes bounded by their column (255), so that an Unleash client's glob match of a long
 * app name against them stays linear in the name.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const FLAGS = '/api/v4/projects/g-public%2Fp/feature_flags';
const LISTS = '/api/v4/projects/g-public%2Fp/feature_flags_user_lists';

const send = (
  fx: ReturnType<typeof createFauxlab>,
  method: string,
  path: string,
  body?: string,
  headers = {},
) =>
  fx.app.request(path, {
    method,
    headers: { 'PRIVATE-TOKEN': 'owner-api', 'Content-Type': 'application/json', ...headers },
    body,
  });

describe('feature flags: attacks', () => {
  it('prototype keys in parameters, names and scopes are data: refused by the validations or kept as text', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld });
    for (const parameters of [
      '{"__proto__":{"polluted":1}}',
      { constructor: { prototype: { polluted: 1 } } },
    ]) {
      const res = await send(
        fx,
        'POST',
        FLAGS,
        JSON.stringify({
          name: 'proto',
          version: 'new_version_flag',
          strategies: [{ name: 'default', parameters }],
        }),
      );
      expect([res.status, await res.json()]).toEqual([
        400,
        { message: ['Strategies parameters parameters are invalid'] },
      ]);
    }
    const raw = await send(
      fx,
      'POST',
      FLAGS,
      '{"name":"constructor","version":"new_version_flag","strategies":[{"name":"__proto__","parameters":{"__proto__":{"x":1}}}],"__proto__":{"admin":true}}',
    );
    expect([raw.status, await raw.json()]).toEqual([
      400,
      { message: ['Strategies name strategy name is invalid'] },
    ]);
    const ok = await send(
      fx,
      'POST',
      FLAGS,
      JSON.stringify({
        name: 'constructor',
        version: 'new_version_flag',
        strategies: [
          {
            name: 'userWithId',
            parameters: { userIds: '__proto__,toString' },
            scopes: [{ environment_scope: '__proto__' }],
          },
        ],
      }),
    );
    expect(ok.status).toBe(201);
    expect((await (await send(fx, 'GET', `${FLAGS}/constructor`)).json()) as unknown).toMatchObject({
      strategies: [
        { parameters: { userIds: '__proto__,toString' }, scopes: [{ environment_scope: '__proto__' }] },
      ],
    });
    expect((await send(fx, 'GET', `${FLAGS}/hasOwnProperty`)).status).toBe(404);
    for (const name of ['__proto__', 'constructor', 'toString'])
      expect((await send(fx, 'POST', LISTS, JSON.stringify({ name, user_xids: name }))).status).toBe(201);
    expect((await send(fx, 'POST', LISTS, JSON.stringify({ name: 'valueOf', user_xids: 'a' }))).status).toBe(
      201,
    );
    await expectUnharmed(fx);
  });

  it('the 201st flag of a project is refused by the plan limit, before anything is written', async () => {
    const flags = Array.from({ length: 200 }, (_, i) => ({
      name: `flag_${i}`,
      strategies: [{ name: 'default', scopes: ['*'] }],
    }));
    const fx = createFauxlab({
      scenario: {
        ...reliabilityWorld,
        projects: reliabilityWorld.projects!.map((p) =>
          p.path === 'g-public/p' ? { ...p, feature_flags: flags } : p,
        ),
      },
    });
    const res = await send(
      fx,
      'POST',
      FLAGS,
      JSON.stringify({ name: 'one_more', version: 'new_version_flag' }),
    );
    expect([res.status, await res.json()]).toEqual([
      400,
      { message: ['Maximum number of project feature flags (200) exceeded'] },
    ]);
    expect((await send(fx, 'GET', `${FLAGS}?per_page=1`)).headers.get('x-total')).toBe('200');
    await expectUnharmed(fx);
  });

  it('a scope past its 255-character column is refused, so an Unleash glob match stays bounded', async () => {
    const fx = createFauxlab({
      scenario: {
        ...reliabilityWorld,
        projects: reliabilityWorld.projects!.map((p) =>
          p.path === 'g-public/p' ? { ...p, feature_flags_instance_id: 'unleash-id' } : p,
        ),
      },
    });
    const long = `${'*a'.repeat(128)}`;
    const res = await send(
      fx,
      'POST',
      FLAGS,
      JSON.stringify({
        name: 'globby',
        version: 'new_version_flag',
        strategies: [{ name: 'default', parameters: {}, scopes: [{ environment_scope: long }] }],
      }),
    );
    expect(res.status).toBe(500);
    expect((await send(fx, 'GET', `${FLAGS}/globby`)).status).toBe(404);
    // The longest scope the column takes, against an app name of 64 KiB: answered, another user served.
    const stored = '*a'.repeat(127) + '*';
    expect(
      (
        await send(
          fx,
          'POST',
          FLAGS,
          JSON.stringify({
            name: 'globby',
            version: 'new_version_flag',
            strategies: [{ name: 'default', parameters: {}, scopes: [{ environment_scope: stored }] }],
          }),
        )
      ).status,
    ).toBe(201);
    const unleash = await fx.app.request(
      `/api/v4/feature_flags/unleash/g-public%2Fp/client/features?instance_id=unleash-id&app_name=${'a'.repeat(65536)}b`,
    );
    expect(unleash.status).toBe(200);
    expect(((await unleash.json()) as { features: { name: string }[] }).features.map((f) => f.name)).toEqual([
      'globby',
    ]);
    await expectUnharmed(fx);
  });
});
