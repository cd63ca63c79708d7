import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { BEFORE_WORLD, call, ciVariable as v, send, world } from '../metadata/world.js';

const BASE = '/admin/ci/variables';

describe('GET /admin/ci/variables', () => {
  it('GET /admin/ci/variables: every instance variable, Entities::Ci::Variable shape, paginated', async () => {
    const r = await send(world(), 'GET', `${BASE}?per_page=2`, 'root');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      v('INSTANCE_URL', 'https://example.com'),
      v('INSTANCE_SECRET', 'super-secret', { protected: true, masked: true }),
    ]);
    expect(Object.keys(r.body[0])).toEqual(['variable_type', 'key', 'value', 'protected', 'masked']);
    expect(r.res.headers.get('X-Total')).toBe('3');
  });

  it('GET /admin/ci/variables: 401 anonymous, 403 other users, before bad params', async () => {
    const fx = world();
    expect((await send(fx, 'GET', `${BASE}?page=x`)).status).toBe(401);
    expect((await send(fx, 'GET', `${BASE}?page=x`, 'owner')).body).toEqual({ message: '403 Forbidden' });
    expect((await send(fx, 'GET', `${BASE}?page=x`, 'root')).body).toEqual({ error: 'page is invalid' });
  });
});

describe('GET /admin/ci/variables/:key', () => {
  it('GET /admin/ci/variables/:key: the variable; 404 InstanceVariable for an unknown key', async () => {
    const fx = world();
    expect((await send(fx, 'GET', `${BASE}/INSTANCE_FILE`, 'root')).body).toEqual(
      v('INSTANCE_FILE', 'a: 1', { variable_type: 'file' }),
    );
    expect(await send(fx, 'GET', `${BASE}/NOPE`, 'root')).toMatchObject({
      status: 404,
      body: { message: '404 InstanceVariable Not Found' },
    });
  });
});

describe('POST /admin/ci/variables', () => {
  it('POST /admin/ci/variables: 201; protected and masked read as Rails booleans', async () => {
    const fx = world();
    const r = await send(fx, 'POST', BASE, 'root', {
      key: 'NEW_VAR',
      value: 'new value',
      protected: 'yes',
      masked: 'false',
      variable_type: 'file',
    });
    expect(r).toMatchObject({
      status: 201,
      body: v('NEW_VAR', 'new value', { variable_type: 'file', protected: true }),
    });
    expect((await send(fx, 'GET', `${BASE}/NEW_VAR`, 'root')).status).toBe(200);
  });

  it('POST /admin/ci/variables: Grape errors, then the model errors of project variables', async () => {
    const fx = world();
    expect((await send(fx, 'POST', BASE, 'root', {})).body).toEqual({
      error: 'key is missing, value is missing',
    });
    expect((await send(fx, 'POST', BASE, 'root', { key: 'K', value: 'v', variable_type: 'x' })).body).toEqual(
      {
        error: 'variable_type does not have a valid value',
      },
    );
    expect(
      (await send(fx, 'POST', BASE, 'root', { key: 'BAD KEY', value: 'short', masked: true })).body,
    ).toEqual({
      message: { key: ["can contain only letters, digits and '_'."], value: ['is invalid'] },
    });
    expect((await send(fx, 'POST', BASE, 'root', { key: 'INSTANCE_URL', value: 'x' })).body).toEqual({
      message: { key: ['(INSTANCE_URL) has already been taken'] },
    });
    expect((await send(fx, 'POST', BASE, 'root', { key: 'BIG', value: 'x'.repeat(10_001) })).body).toEqual({
      message: { value: ['The value of the provided variable exceeds the 10000 character limit'] },
    });
  });

  it('POST /admin/ci/variables: 401 anonymous, 400 before 403 for other users', async () => {
    const fx = world();
    expect((await send(fx, 'POST', BASE, undefined, { key: 'K', value: 'v' })).status).toBe(401);
    expect((await send(fx, 'POST', BASE, 'owner', { key: 'K', value: 'v' })).status).toBe(403);
  });
});

describe('PUT /admin/ci/variables/:key', () => {
  it('PUT /admin/ci/variables/:key: changes what is given; the value is optional', async () => {
    const fx = world();
    const r = await send(fx, 'PUT', `${BASE}/INSTANCE_URL`, 'root', { protected: true, key: 'IGNORED' });
    expect(r).toMatchObject({
      status: 200,
      body: v('INSTANCE_URL', 'https://example.com', { protected: true }),
    });
    expect(
      (await send(fx, 'PUT', `${BASE}/INSTANCE_URL`, 'root', { value: 'https://b.example' })).body.value,
    ).toBe('https://b.example');
  });

  it('PUT /admin/ci/variables/:key: 404 unknown, 400 for an unmaskable value', async () => {
    const fx = world();
    expect((await send(fx, 'PUT', `${BASE}/NOPE`, 'root', { value: 'x' })).body).toEqual({
      message: '404 InstanceVariable Not Found',
    });
    expect((await send(fx, 'PUT', `${BASE}/INSTANCE_SECRET`, 'root', { value: 'a b' })).body).toEqual({
      message: { value: ['is invalid'] },
    });
  });
});

describe('DELETE /admin/ci/variables/:key', () => {
  it('DELETE /admin/ci/variables/:key: 204, gone from the list and by key at once', async () => {
    const fx = world();
    const res = await call(fx, 'DELETE', `${BASE}/INSTANCE_URL`, 'root');
    expect(res.status).toBe(204);
    expect((await send(fx, 'GET', `${BASE}/INSTANCE_URL`, 'root')).status).toBe(404);
    expect((await send(fx, 'GET', BASE, 'root')).body.map((x: any) => x.key)).toEqual([
      'INSTANCE_SECRET',
      'INSTANCE_FILE',
    ]);
    // The key is free again.
    expect((await send(fx, 'POST', BASE, 'root', { key: 'INSTANCE_URL', value: 'again' })).status).toBe(201);
  });

  it('DELETE /admin/ci/variables/:key: instance variables carry no timestamps: no precondition to fail', async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', `${BASE}/INSTANCE_URL`, 'root', undefined, BEFORE_WORLD)).status).toBe(
      204,
    );
  });

  it('DELETE /admin/ci/variables/:key: 403 non-admin, 404 unknown', async () => {
    const fx = world();
    expect((await send(fx, 'DELETE', `${BASE}/INSTANCE_URL`, 'owner')).status).toBe(403);
    expect((await send(fx, 'DELETE', `${BASE}/NOPE`, 'root')).status).toBe(404);
  });
});

describe('instance variables in scenarios', () => {
  it('scenario variables: validated as the model does', () => {
    expect(() =>
      createFauxlab({
        scenario: {
          variables: [
            { key: 'A', value: '1' },
            { key: 'A', value: '2' },
          ],
        },
      }),
    ).toThrow(/variables\[1\]\.key: \(A\) has already been taken/);
  });
});
