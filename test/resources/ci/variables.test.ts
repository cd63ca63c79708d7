import { describe, expect, it } from 'vitest';
import { APP, body, call, world } from './world.js';

const VARS = `${APP}/variables`;

describe('GET /projects/:id/variables', () => {
  it('GET /projects/:id/variables: only key, variable_type and value, in id order, paginated', async () => {
    const res = await call(world(), 'GET', VARS, 'maint');
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual([
      { key: 'DEPLOY_TOKEN', variable_type: 'env_var', value: 'sekret-value' },
      { key: 'REGION', variable_type: 'env_var', value: 'eu' },
      { key: 'REGION', variable_type: 'env_var', value: 'us' },
      { key: 'CONFIG', variable_type: 'file', value: 'a: 1' },
    ]);
    expect(res.headers.get('X-Total')).toBe('4');
    const page = await call(world(), 'GET', `${VARS}?per_page=1&page=4`, 'maint');
    expect(await body(page)).toEqual([{ key: 'CONFIG', variable_type: 'file', value: 'a: 1' }]);
    expect(page.headers.get('X-Next-Page')).toBe('');
  });

  it('GET /projects/:id/variables: maintainers and up; 401 anonymous, 403 developers, 404 outsiders', async () => {
    const fx = world();
    expect(await body(await call(fx, 'GET', VARS))).toEqual({ message: '401 Unauthorized' });
    expect(await body(await call(fx, 'GET', VARS, 'dev'))).toEqual({ message: '403 Forbidden' });
    expect(await body(await call(fx, 'GET', VARS, 'outsider'))).toEqual({ message: '404 Project Not Found' });
    expect((await call(fx, 'GET', VARS, 'owner')).status).toBe(200);
    expect((await call(fx, 'GET', VARS, 'root')).status).toBe(200);
    // Public projects too: reading variables is administering CI.
    expect((await call(fx, 'GET', '/projects/acme%2Fsite/variables')).status).toBe(401);
    expect((await call(fx, 'GET', '/projects/acme%2Fsite/variables', 'rep')).status).toBe(403);
  });

  it('GET /projects/:id/variables: the caller is checked before the params', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${VARS}?page=x`)).status).toBe(401);
    expect((await call(fx, 'GET', `${VARS}?page=x`, 'dev')).status).toBe(403);
    expect(await body(await call(fx, 'GET', `${VARS}?page=x`, 'maint'))).toEqual({
      error: 'page is invalid',
    });
  });
});

describe('GET /projects/:id/variables/:key', () => {
  it('GET /projects/:id/variables/:key: key, variable_type, value, protected, masked', async () => {
    const res = await call(world(), 'GET', `${VARS}/DEPLOY_TOKEN`, 'maint');
    expect(res.status).toBe(200);
    const v = await body(res);
    expect(Object.keys(v)).toEqual(['key', 'variable_type', 'value', 'protected', 'masked']);
    expect(v).toEqual({
      key: 'DEPLOY_TOKEN',
      variable_type: 'env_var',
      value: 'sekret-value',
      protected: true,
      masked: true,
    });
  });

  it('GET /projects/:id/variables/:key: unknown key is 404 Variable Not Found', async () => {
    const res = await call(world(), 'GET', `${VARS}/NOPE`, 'maint');
    expect(res.status).toBe(404);
    expect(await body(res)).toEqual({ message: '404 Variable Not Found' });
  });

  it('GET /projects/:id/variables/:key: filter[environment_scope] selects among two scopes of one key', async () => {
    const fx = world();
    const eu = await body(
      await call(fx, 'GET', `${VARS}/REGION?filter[environment_scope]=production`, 'maint'),
    );
    expect(eu.value).toBe('eu');
    const us = await body(
      await call(fx, 'GET', `${VARS}/REGION?filter%5Benvironment_scope%5D=staging`, 'maint'),
    );
    expect(us.value).toBe('us');
    const none = await call(fx, 'GET', `${VARS}/REGION?filter[environment_scope]=review`, 'maint');
    expect(none.status).toBe(404);
  });

  it('GET /projects/:id/variables/:key: several matches without a filter are a 409', async () => {
    const res = await call(world(), 'GET', `${VARS}/REGION`, 'maint');
    expect(res.status).toBe(409);
    expect(await body(res)).toEqual({
      message:
        "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'",
    });
  });

  it('GET /projects/:id/variables/:key: filter must be a hash', async () => {
    const res = await call(world(), 'GET', `${VARS}/REGION?filter=production`, 'maint');
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ error: 'filter is invalid' });
  });

  it('GET /projects/:id/variables/:key: an empty filter is no filter', async () => {
    const res = await call(world(), 'GET', `${VARS}/REGION?filter[environment_scope]=`, 'maint');
    expect(res.status).toBe(409);
  });
});

describe('POST /projects/:id/variables', () => {
  it('POST /projects/:id/variables: 201 with the create shape and the default scope *', async () => {
    const fx = world();
    const res = await call(fx, 'POST', VARS, 'maint', { key: 'NEW_KEY', value: 'v' });
    expect(res.status).toBe(201);
    const v = await body(res);
    expect(Object.keys(v)).toEqual([
      'key',
      'value',
      'protected',
      'variable_type',
      'masked',
      'environment_scope',
    ]);
    expect(v).toEqual({
      key: 'NEW_KEY',
      value: 'v',
      protected: false,
      variable_type: 'env_var',
      masked: false,
      environment_scope: '*',
    });
    expect((await body(await call(fx, 'GET', VARS, 'maint'))).at(-1)).toEqual({
      key: 'NEW_KEY',
      variable_type: 'env_var',
      value: 'v',
    });
  });

  it('POST /projects/:id/variables: every attribute, form-encoded', async () => {
    const fx = world();
    const res = await fx.app.request(VARS, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'owner', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'key=%20SPACED%20&value=abcdefgh12&protected=true&masked=true&variable_type=file&environment_scope=review%2F*',
    });
    expect(res.status).toBe(201);
    expect(await body(res)).toEqual({
      key: 'SPACED',
      value: 'abcdefgh12',
      protected: true,
      variable_type: 'file',
      masked: true,
      environment_scope: 'review/*',
    });
  });

  it.each([
    ['BAD-KEY', { key: ["can contain only letters, digits and '_'."] }],
    ['', { key: ["can't be blank", "can contain only letters, digits and '_'."] }],
    ['K'.repeat(256), { key: ['is too long (maximum is 255 characters)'] }],
    ['K'.repeat(255), null],
    ['lower_and_Digits_09', null],
  ])('POST /projects/:id/variables: key %j', async (key, errors) => {
    const res = await call(world(), 'POST', VARS, 'maint', { key, value: 'v' });
    if (errors === null) expect(res.status).toBe(201);
    else {
      expect(res.status).toBe(400);
      expect(await body(res)).toEqual({ message: errors });
    }
  });

  it.each([
    ['short', false],
    ['has space in it', false],
    ['multi\nline-value', false],
    ['$VARIABLE_REF', false],
    ['12345678', true],
    ['Base64+/=_@:.~-ok', true],
  ])('POST /projects/:id/variables: masked value %j is allowed: %s', async (value, ok) => {
    const res = await call(world(), 'POST', VARS, 'maint', { key: 'MASKED', value, masked: true });
    if (ok) expect(res.status).toBe(201);
    else {
      expect(res.status).toBe(400);
      expect(await body(res)).toEqual({ message: { value: ['is invalid'] } });
    }
  });

  it('POST /projects/:id/variables: an unmasked value may be anything', async () => {
    const res = await call(world(), 'POST', VARS, 'maint', { key: 'FREE', value: 'x y\nz' });
    expect(res.status).toBe(201);
  });

  it('POST /projects/:id/variables: the same key and scope is taken; another scope is not', async () => {
    const fx = world();
    const dup = await call(fx, 'POST', VARS, 'maint', {
      key: 'REGION',
      value: 'x',
      environment_scope: 'staging',
    });
    expect(dup.status).toBe(400);
    expect(await body(dup)).toEqual({ message: { key: ['(REGION) has already been taken'] } });
    const dupStar = await call(fx, 'POST', VARS, 'maint', { key: 'CONFIG', value: 'x' });
    expect(await body(dupStar)).toEqual({ message: { key: ['(CONFIG) has already been taken'] } });
    const other = await call(fx, 'POST', VARS, 'maint', {
      key: 'REGION',
      value: 'x',
      environment_scope: 'review/*',
    });
    expect(other.status).toBe(201);
  });

  it('POST /projects/:id/variables: errors come in the model order, on several fields at once', async () => {
    const res = await call(world(), 'POST', VARS, 'maint', {
      key: 'A-B',
      value: 'short',
      masked: true,
      environment_scope: 'bad!scope',
    });
    expect(await body(res)).toEqual({
      message: {
        key: ["can contain only letters, digits and '_'."],
        value: ['is invalid'],
        environment_scope: [
          "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces",
        ],
      },
    });
  });

  it('POST /projects/:id/variables: Grape checks the params', async () => {
    const fx = world();
    expect(await body(await call(fx, 'POST', VARS, 'maint', {}))).toEqual({
      error: 'key is missing, value is missing',
    });
    expect(
      await body(await call(fx, 'POST', VARS, 'maint', { key: 'K', value: 'v', variable_type: 'yaml' })),
    ).toEqual({ error: 'variable_type does not have a valid value' });
    expect(
      await body(await call(fx, 'POST', VARS, 'maint', { key: 'K', value: 'v', masked: 'sure' })),
    ).toEqual({
      error: 'masked is invalid',
    });
  });

  it('POST /projects/:id/variables: 401, 404 and 403 come before the params', async () => {
    const fx = world();
    expect((await call(fx, 'POST', VARS, undefined, {})).status).toBe(401);
    expect((await call(fx, 'POST', '/projects/acme%2Fnope/variables', 'maint', {})).status).toBe(404);
    expect((await call(fx, 'POST', VARS, 'dev', {})).status).toBe(403);
  });
});

describe('PUT /projects/:id/variables/:key', () => {
  it('PUT /projects/:id/variables/:key: updates and answers with the update shape', async () => {
    const fx = world();
    const res = await call(fx, 'PUT', `${VARS}/CONFIG`, 'maint', {
      value: 'b: 2',
      protected: true,
      variable_type: 'env_var',
    });
    expect(res.status).toBe(200);
    const v = await body(res);
    expect(Object.keys(v)).toEqual([
      'key',
      'value',
      'variable_type',
      'protected',
      'masked',
      'environment_scope',
    ]);
    expect(v).toEqual({
      key: 'CONFIG',
      value: 'b: 2',
      variable_type: 'env_var',
      protected: true,
      masked: false,
      environment_scope: '*',
    });
    expect((await body(await call(fx, 'GET', `${VARS}/CONFIG`, 'maint'))).value).toBe('b: 2');
  });

  it('PUT /projects/:id/variables/:key: filter[environment_scope] picks the variable to change', async () => {
    const fx = world();
    const res = await call(fx, 'PUT', `${VARS}/REGION`, 'maint', {
      value: 'ap',
      filter: { environment_scope: 'staging' },
    });
    expect(await body(res)).toMatchObject({ value: 'ap', environment_scope: 'staging' });
    const list = await body(await call(fx, 'GET', VARS, 'maint'));
    expect(
      list.filter((v: { key: string }) => v.key === 'REGION').map((v: { value: string }) => v.value),
    ).toEqual(['eu', 'ap']);
  });

  it('PUT /projects/:id/variables/:key: moving to a taken scope is a validation error', async () => {
    const res = await call(world(), 'PUT', `${VARS}/REGION?filter[environment_scope]=staging`, 'maint', {
      value: 'x',
      environment_scope: 'production',
    });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ message: { key: ['(REGION) has already been taken'] } });
  });

  it('PUT /projects/:id/variables/:key: 409 without a filter, 404 for unknown keys, masking still applies', async () => {
    const fx = world();
    expect((await call(fx, 'PUT', `${VARS}/REGION`, 'maint', { value: 'x' })).status).toBe(409);
    expect(await body(await call(fx, 'PUT', `${VARS}/NOPE`, 'maint', { value: 'x' }))).toEqual({
      message: '404 Variable Not Found',
    });
    expect(await body(await call(fx, 'PUT', `${VARS}/DEPLOY_TOKEN`, 'maint', { value: 'tiny' }))).toEqual({
      message: { value: ['is invalid'] },
    });
  });

  it('PUT /projects/:id/variables/:key: value is required, filter must be a hash', async () => {
    const fx = world();
    expect(await body(await call(fx, 'PUT', `${VARS}/CONFIG`, 'maint', {}))).toEqual({
      error: 'value is missing',
    });
    expect(await body(await call(fx, 'PUT', `${VARS}/CONFIG`, 'maint', { value: 'v', filter: 'x' }))).toEqual(
      {
        error: 'filter is invalid',
      },
    );
  });
});

describe('DELETE /projects/:id/variables/:key', () => {
  it('DELETE /projects/:id/variables/:key: 204, then 404', async () => {
    const fx = world();
    const res = await call(fx, 'DELETE', `${VARS}/CONFIG`, 'maint');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await call(fx, 'DELETE', `${VARS}/CONFIG`, 'maint')).status).toBe(404);
  });

  it('DELETE /projects/:id/variables/:key: the filter deletes one scope of a key', async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', `${VARS}/REGION`, 'maint')).status).toBe(409);
    const res = await call(fx, 'DELETE', `${VARS}/REGION?filter[environment_scope]=production`, 'maint');
    expect(res.status).toBe(204);
    // One left: no filter needed any more.
    expect(await body(await call(fx, 'GET', `${VARS}/REGION`, 'maint'))).toMatchObject({ value: 'us' });
  });

  it('DELETE /projects/:id/variables/:key: developers get 403', async () => {
    expect((await call(world(), 'DELETE', `${VARS}/CONFIG`, 'dev')).status).toBe(403);
  });
});

describe('the ci_variables_api_filter_environment_scope flag', () => {
  it('with the flag off, the filter is ignored and the oldest variable of the key is used', async () => {
    const fx = world();
    const off = await call(fx, 'POST', '/features/ci_variables_api_filter_environment_scope', 'root', {
      value: false,
    });
    expect(off.status).toBe(201);
    expect(await body(await call(fx, 'GET', `${VARS}/REGION`, 'maint'))).toMatchObject({ value: 'eu' });
    expect(
      await body(await call(fx, 'GET', `${VARS}/REGION?filter[environment_scope]=staging`, 'maint')),
    ).toMatchObject({ value: 'eu' });
    expect(
      (await call(fx, 'DELETE', `${VARS}/REGION?filter[environment_scope]=staging`, 'maint')).status,
    ).toBe(204);
    const left = (await body(await call(fx, 'GET', VARS, 'maint'))).filter(
      (v: { key: string }) => v.key === 'REGION',
    );
    expect(left).toEqual([{ key: 'REGION', variable_type: 'env_var', value: 'us' }]);
  });

  it('deleting the flag restores its default (on)', async () => {
    const fx = world();
    await call(fx, 'POST', '/features/ci_variables_api_filter_environment_scope', 'root', { value: false });
    expect((await call(fx, 'GET', `${VARS}/REGION`, 'maint')).status).toBe(200);
    await call(fx, 'DELETE', '/features/ci_variables_api_filter_environment_scope', 'root');
    expect((await call(fx, 'GET', `${VARS}/REGION`, 'maint')).status).toBe(409);
  });
});
