import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { exportScenario } from '../../../src/scenario/export.js';
import { packagesWorld } from '../packages/world.js';
import { send, usersFx } from '../users/world.js';

const GB = 1024 * 1024 * 1024;
const MB = 1024 * 1024;
const DEFAULTS = {
  conan_max_file_size: 3 * GB,
  generic_packages_max_file_size: 5 * GB,
  maven_max_file_size: 3 * GB,
  npm_max_file_size: 500 * MB,
  nuget_max_file_size: 500 * MB,
  pypi_max_file_size: 3 * GB,
};

describe('GET /application/plan_limits', () => {
  it('the default plan`s limits, the column defaults until changed, in the entity order', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'GET', '/application/plan_limits', 'root-api');
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(Object.keys(DEFAULTS));
    expect(body).toEqual(DEFAULTS);
    expect((await send(fx, 'GET', '/application/plan_limits?plan_name=default', 'root-api')).body).toEqual(
      DEFAULTS,
    );
  });

  it('plan_name takes Plan.all_plans: default on the community edition; other plans have no rows', async () => {
    const fx = usersFx();
    expect((await send(fx, 'GET', '/application/plan_limits?plan_name=gold', 'root-api')).body).toEqual({
      error: 'plan_name does not have a valid value',
    });
    expect(
      (await send(fx, 'GET', '/application/plan_limits?plan_name=__proto__', 'root-api')).res.status,
    ).toBe(400);
    const ee = usersFx({ tier: 'premium' });
    expect((await send(ee, 'GET', '/application/plan_limits?plan_name=gold', 'root-api')).body).toEqual({
      message: '404 Plan Not Found',
    });
  });

  it('admins only: 401 anonymous, 403 others, before the params', async () => {
    const fx = usersFx();
    expect((await send(fx, 'GET', '/application/plan_limits')).res.status).toBe(401);
    expect((await send(fx, 'GET', '/application/plan_limits?plan_name=x', 'alice-api')).body).toEqual({
      message: '403 Forbidden',
    });
    expect((await send(fx, 'PUT', '/application/plan_limits', 'alice-api', {})).body).toEqual({
      message: '403 Forbidden',
    });
  });
});

describe('PUT /application/plan_limits', () => {
  it('changes the given limits; GET shows them after', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'PUT', '/application/plan_limits', 'root-api', {
      plan_name: 'default',
      npm_max_file_size: 1024,
      conan_max_file_size: '2048',
    });
    expect(res.status).toBe(200);
    expect(body).toEqual({ ...DEFAULTS, npm_max_file_size: 1024, conan_max_file_size: 2048 });
    expect((await send(fx, 'GET', '/application/plan_limits', 'root-api')).body).toEqual(body);
  });

  it('plan_name is required; sizes are Integers; nothing written on a refusal', async () => {
    const fx = usersFx();
    const before = fx.state;
    expect(
      (await send(fx, 'PUT', '/application/plan_limits', 'root-api', { npm_max_file_size: 1 })).body,
    ).toEqual({
      error: 'plan_name is missing',
    });
    expect(
      (
        await send(fx, 'PUT', '/application/plan_limits', 'root-api', {
          plan_name: 'default',
          npm_max_file_size: 'big',
        })
      ).body,
    ).toEqual({ error: 'npm_max_file_size is invalid' });
    expect(fx.state).toBe(before);
  });

  it('the packages registries read the limit: npm refuses a file over npm_max_file_size', async () => {
    const fx = createFauxlab({ scenario: { ...packagesWorld, plan_limits: { npm_max_file_size: 10 } } });
    const tgz = Buffer.from('more than ten bytes');
    const doc = {
      name: '@acme/big',
      versions: {
        '1.0.0': { name: '@acme/big', version: '1.0.0', dist: { shasum: 'x', tarball: 'http://r/t.tgz' } },
      },
      _attachments: { '@acme/big-1.0.0.tgz': { data: tgz.toString('base64'), length: tgz.length } },
    };
    const res = await fx.app.request('/api/v4/projects/acme%2Fpkgs/packages/npm/@acme%2fbig', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer dev' },
      body: JSON.stringify(doc),
    });
    expect([res.status, await res.json()]).toEqual([400, { message: 'File is too large.' }]);
  });

  it('the saved row goes through a scenario export and back', async () => {
    const fx = usersFx();
    await send(fx, 'PUT', '/application/plan_limits', 'root-api', {
      plan_name: 'default',
      pypi_max_file_size: 5,
    });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    expect(out.plan_limits).toEqual({ pypi_max_file_size: 5 });
    expect(createFauxlab({ scenario: out }).state.planLimits).toEqual(fx.state.planLimits);
  });
});
