import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { BEFORE_WORLD, call, ciVariable as v, send, world } from '../metadata/world.js';

const BASE = '/groups/acme/variables';

describe('GET /groups/:id/variables', () => {
  it('GET /groups/:id/variables: the group variables for owners; no scope on the free tier', async () => {
    const r = await send(world(), 'GET', BASE, 'owner');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      v('GROUP_TOKEN', 'group-secret', { masked: true }),
      v('REGION', 'eu'),
      v('REGION', 'us'),
    ]);
    expect(r.res.headers.get('X-Total')).toBe('3');
  });

  it('GET /groups/:id/variables: the environment scope on the paid tiers', async () => {
    const r = await send(world({ tier: 'premium' }), 'GET', BASE, 'owner');
    expect(r.body[1]).toEqual(v('REGION', 'eu', { environment_scope: 'production' }));
    expect(Object.keys(r.body[0])).toEqual([
      'variable_type',
      'key',
      'value',
      'protected',
      'masked',
      'environment_scope',
    ]);
  });

  it('GET /groups/:id/variables: 401, then 404, then 403 (maintainers too), then 400', async () => {
    const fx = world();
    expect((await send(fx, 'GET', `${BASE}?page=x`)).body).toEqual({ message: '401 Unauthorized' });
    expect((await send(fx, 'GET', '/groups/nope/variables?page=x', 'owner')).body).toEqual({
      message: '404 Group Not Found',
    });
    expect((await send(fx, 'GET', `${BASE}?page=x`, 'maint')).body).toEqual({ message: '403 Forbidden' });
    expect((await send(fx, 'GET', `${BASE}?page=x`, 'owner')).body).toEqual({ error: 'page is invalid' });
    expect((await send(fx, 'GET', BASE, 'root')).status).toBe(200);
  });
});

describe('GET /groups/:id/variables/:key', () => {
  it('GET /groups/:id/variables/:key: one variable; 409 for several of the key, told apart by filter', async () => {
    const fx = world();
    expect((await send(fx, 'GET', `${BASE}/GROUP_TOKEN`, 'owner')).body).toEqual(
      v('GROUP_TOKEN', 'group-secret', { masked: true }),
    );
    expect(await send(fx, 'GET', `${BASE}/REGION`, 'owner')).toMatchObject({
      status: 409,
      body: {
        message:
          "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'",
      },
    });
    expect(
      (await send(fx, 'GET', `${BASE}/REGION?filter[environment_scope]=staging`, 'owner')).body.value,
    ).toBe('us');
    expect((await send(fx, 'GET', `${BASE}/NOPE`, 'owner')).body).toEqual({
      message: '404 GroupVariable Not Found',
    });
  });
});

describe('POST /groups/:id/variables', () => {
  it('POST /groups/:id/variables: 201; the scope is ignored on the free tier', async () => {
    const fx = world();
    const r = await send(fx, 'POST', BASE, 'owner', {
      key: 'NEW',
      value: 'x',
      environment_scope: 'prod',
      protected: 'true',
    });
    expect(r).toMatchObject({ status: 201, body: v('NEW', 'x', { protected: true }) });
    expect((await send(fx, 'POST', BASE, 'owner', { key: 'NEW', value: 'y' })).body).toEqual({
      message: { key: ['(NEW) has already been taken'] },
    });
  });

  it('POST /groups/:id/variables: a scope on the paid tiers, unique per key and scope', async () => {
    const fx = world({ tier: 'premium' });
    const r = await send(fx, 'POST', BASE, 'owner', {
      key: 'REGION',
      value: 'ap',
      environment_scope: 'asia',
    });
    expect(r.body).toEqual(v('REGION', 'ap', { environment_scope: 'asia' }));
    expect(
      (await send(fx, 'POST', BASE, 'owner', { key: 'REGION', value: 'x', environment_scope: 'asia' })).body,
    ).toEqual({
      message: { key: ['(REGION) has already been taken'] },
    });
  });

  it('POST /groups/:id/variables: the project variables validation; 401 anonymous', async () => {
    const fx = world();
    expect((await send(fx, 'POST', BASE, 'owner', { key: 'a-b', value: 'v' })).body).toEqual({
      message: { key: ["can contain only letters, digits and '_'."] },
    });
    expect((await send(fx, 'POST', BASE, 'owner', { key: 'K' })).body).toEqual({ error: 'value is missing' });
    expect((await send(fx, 'POST', BASE, undefined, { key: 'K', value: 'v' })).status).toBe(401);
    expect((await send(fx, 'POST', BASE, 'maint', { key: 'K', value: 'v' })).status).toBe(403);
  });
});

describe('PUT /groups/:id/variables/:key', () => {
  it('PUT /groups/:id/variables/:key: updates what is given', async () => {
    const fx = world();
    const r = await send(fx, 'PUT', `${BASE}/GROUP_TOKEN`, 'owner', {
      value: 'another-secret',
      variable_type: 'file',
    });
    expect(r).toMatchObject({
      status: 200,
      body: v('GROUP_TOKEN', 'another-secret', { variable_type: 'file', masked: true }),
    });
    expect((await send(fx, 'PUT', `${BASE}/NOPE`, 'owner', { value: 'x' })).body).toEqual({
      message: '404 GroupVariable Not Found',
    });
  });
});

describe('DELETE /groups/:id/variables/:key', () => {
  it('DELETE /groups/:id/variables/:key: 204 and gone at once', async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', `${BASE}/GROUP_TOKEN`, 'owner')).status).toBe(204);
    expect((await send(fx, 'GET', `${BASE}/GROUP_TOKEN`, 'owner')).status).toBe(404);
    expect((await send(fx, 'GET', BASE, 'owner')).body.map((x: any) => x.key)).toEqual(['REGION', 'REGION']);
    expect((await send(fx, 'DELETE', `${BASE}/REGION`, 'owner')).status).toBe(409);
    expect(
      (await call(fx, 'DELETE', `${BASE}/REGION?filter[environment_scope]=production`, 'owner')).status,
    ).toBe(204);
  });

  it('DELETE /groups/:id/variables/:key: 412 with an older If-Unmodified-Since; nothing deleted', async () => {
    const fx = world();
    const res = await call(fx, 'DELETE', `${BASE}/GROUP_TOKEN`, 'owner', undefined, BEFORE_WORLD);
    expect(res.status).toBe(412);
    expect(await res.json()).toEqual({ message: '412 Precondition Failed' });
    expect((await send(fx, 'GET', `${BASE}/GROUP_TOKEN`, 'owner')).status).toBe(200);
  });

  it('DELETE /groups/:id: the group variables go with the group', async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', '/groups/acme', 'owner')).status).toBe(202);
    expect(fx.state.ciVariables.group.size).toBe(0);
  });
});

describe('group variables in scenarios', () => {
  it('scenario group variables: validated as the model does', () => {
    expect(() =>
      createFauxlab({ scenario: { groups: [{ path: 'g', variables: [{ key: 'a b', value: '1' }] }] } }),
    ).toThrow(/groups\[0\]\.variables\[0\]\.key: can contain only/);
  });
});
