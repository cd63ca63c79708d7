import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { APP, body, call, world } from '../ci/world.js';

const set = (fx: ReturnType<typeof world>, name: string, params: Record<string, unknown>, token = 'root') =>
  call(fx, 'POST', `/features/${name}`, token, params);

describe('GET /features', () => {
  it('GET /features: admins only (401 anonymous, 403 others)', async () => {
    const fx = world();
    expect(await body(await call(fx, 'GET', '/features'))).toEqual({ message: '401 Unauthorized' });
    expect(await body(await call(fx, 'GET', '/features', 'owner'))).toEqual({ message: '403 Forbidden' });
    const res = await call(fx, 'GET', '/features', 'root');
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual([]);
  });

  it('GET /features: the features that were set, in the order they were first set', async () => {
    const fx = world();
    await set(fx, 'zeta', { value: true });
    await set(fx, 'alpha', { value: false });
    await set(fx, 'zeta', { value: 25 });
    expect(await body(await call(fx, 'GET', '/features', 'root'))).toEqual([
      {
        name: 'zeta',
        state: 'conditional',
        gates: [
          { key: 'boolean', value: false },
          { key: 'percentage_of_time', value: 25 },
        ],
      },
      { name: 'alpha', state: 'off', gates: [{ key: 'boolean', value: false }] },
    ]);
  });

  it('GET /features: scenario files may set flags', async () => {
    const fx = createFauxlab({
      scenario: {
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }],
        features: [
          { name: 'on_flag', state: 'on' },
          {
            name: 'rollout',
            gates: [
              { key: 'percentage_of_actors', value: 10 },
              { key: 'actors', value: ['User:1'] },
            ],
          },
        ],
      },
    });
    expect(await body(await call(fx, 'GET', '/features', 'root'))).toEqual([
      { name: 'on_flag', state: 'on', gates: [{ key: 'boolean', value: true }] },
      {
        name: 'rollout',
        state: 'conditional',
        gates: [
          { key: 'boolean', value: false },
          { key: 'actors', value: ['User:1'] },
          { key: 'percentage_of_actors', value: 10 },
        ],
      },
    ]);
  });
});

describe('POST /features/:name', () => {
  it('POST /features/:name: value true turns a feature on (201), creating it', async () => {
    const res = await set(world(), 'new_thing', { value: true });
    expect(res.status).toBe(201);
    expect(await body(res)).toEqual({
      name: 'new_thing',
      state: 'on',
      gates: [{ key: 'boolean', value: true }],
    });
  });

  it('POST /features/:name: value false (or 0) turns it off and clears every gate', async () => {
    const fx = world();
    await set(fx, 'f', { value: 30 });
    await set(fx, 'f', { value: true, user: 'dev' });
    for (const value of [false, '0']) {
      const res = await set(fx, 'f', { value });
      expect(await body(res)).toEqual({ name: 'f', state: 'off', gates: [{ key: 'boolean', value: false }] });
    }
  });

  it('POST /features/:name: an integer sets the percentage of time; off -> conditional', async () => {
    const res = await set(world(), 'f', { value: 40 });
    expect(await body(res)).toEqual({
      name: 'f',
      state: 'conditional',
      gates: [
        { key: 'boolean', value: false },
        { key: 'percentage_of_time', value: 40 },
      ],
    });
  });

  it('POST /features/:name: key=percentage_of_actors sets that gate instead', async () => {
    const res = await set(world(), 'f', { value: '15', key: 'percentage_of_actors' });
    expect((await body(res)).gates).toEqual([
      { key: 'boolean', value: false },
      { key: 'percentage_of_actors', value: 15 },
    ]);
  });

  it('POST /features/:name: on -> a percentage -> conditional (the spec transition)', async () => {
    const fx = world();
    await set(fx, 'f', { value: true });
    const res = await set(fx, 'f', { value: 50 });
    expect(await body(res)).toMatchObject({ state: 'conditional' });
  });

  it('POST /features/:name: on -> a targeted gate -> conditional', async () => {
    const fx = world();
    await set(fx, 'f', { value: true });
    expect(await body(await set(fx, 'f', { value: true, user: 'dev' }))).toEqual({
      name: 'f',
      state: 'conditional',
      gates: [
        { key: 'boolean', value: false },
        { key: 'actors', value: ['User:4'] },
      ],
    });
  });

  it('POST /features/:name: 100 percent of the time is on', async () => {
    expect(await body(await set(world(), 'f', { value: 100 }))).toMatchObject({ state: 'on' });
  });

  it('POST /features/:name: user, project, group and feature_group gates in one call', async () => {
    const res = await set(world(), 'f', {
      value: true,
      feature_group: 'gitlab_team',
      user: 'DEV',
      project: 'acme/app',
      group: 'acme',
    });
    expect(await body(res)).toEqual({
      name: 'f',
      state: 'conditional',
      gates: [
        { key: 'boolean', value: false },
        { key: 'actors', value: ['User:4', 'Project:1', 'Group:8'] },
        { key: 'groups', value: ['gitlab_team'] },
      ],
    });
  });

  it('POST /features/:name: value false with a target removes that target only', async () => {
    const fx = world();
    await set(fx, 'f', { value: true, user: 'dev', project: 'acme/app' });
    const res = await set(fx, 'f', { value: false, user: 'dev' });
    expect((await body(res)).gates).toEqual([
      { key: 'boolean', value: false },
      { key: 'actors', value: ['Project:1'] },
    ]);
    const last = await set(fx, 'f', { value: false, project: 'acme/app' });
    expect(await body(last)).toEqual({ name: 'f', state: 'off', gates: [{ key: 'boolean', value: false }] });
  });

  it('POST /features/:name: an unknown user is 404 Not found; unknown projects and groups change nothing', async () => {
    const fx = world();
    const res = await set(fx, 'f', { value: true, user: 'ghost' });
    expect(res.status).toBe(404);
    expect(await body(res)).toEqual({ message: '404 Not found' });
    const none = await set(fx, 'f', { value: true, project: 'no/where', group: 'nowhere' });
    expect(none.status).toBe(201);
    expect(await body(none)).toEqual({ name: 'f', state: 'off', gates: [{ key: 'boolean', value: false }] });
    expect(await body(await call(fx, 'GET', '/features', 'root'))).toEqual([]);
  });

  it('POST /features/:name: key with a target is a Grape mutual exclusion, value is required', async () => {
    const fx = world();
    expect(await body(await set(fx, 'f', { value: 10, key: 'percentage_of_actors', user: 'dev' }))).toEqual({
      error: 'key, user are mutually exclusive',
    });
    expect(await body(await set(fx, 'f', { key: 'x', project: 'a/b', group: 'g' }))).toEqual({
      error: 'value is missing, key, group are mutually exclusive, key, project are mutually exclusive',
    });
    expect(await body(await set(fx, 'f', {}))).toEqual({ error: 'value is missing' });
  });

  it('POST /features/:name: the admin check comes before the params', async () => {
    const fx = world();
    expect((await set(fx, 'f', {}, 'owner')).status).toBe(403);
    expect((await call(fx, 'POST', '/features/f', undefined, {})).status).toBe(401);
  });

  it('POST /features/:name: non-numbers count as 0 percent, like Ruby to_i', async () => {
    expect(await body(await set(world(), 'f', { value: 'maybe' }))).toEqual({
      name: 'f',
      state: 'off',
      gates: [{ key: 'boolean', value: false }],
    });
  });

  it('POST /features/:name: a percentage over 100 is the platform 500', async () => {
    const fx = createFauxlab({
      scenario: { users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }] },
      logger: () => {},
    });
    const res = await call(fx, 'POST', '/features/f', 'root', { value: 150 });
    expect(res.status).toBe(500);
    expect(await body(res)).toEqual({ message: '500 Internal Server Error' });
  });
});

describe('DELETE /features/:name', () => {
  it('DELETE /features/:name: 204 whether or not it existed; it leaves the list', async () => {
    const fx = world();
    await set(fx, 'f', { value: true });
    const res = await call(fx, 'DELETE', '/features/f', 'root');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await call(fx, 'DELETE', '/features/f', 'root')).status).toBe(204);
    expect((await call(fx, 'DELETE', '/features/never', 'root')).status).toBe(204);
    expect(await body(await call(fx, 'GET', '/features', 'root'))).toEqual([]);
    expect((await call(fx, 'DELETE', '/features/f', 'owner')).status).toBe(403);
  });
});

describe('the flags gate behaviour', () => {
  it('junit_pipeline_view: percentage of actors buckets projects the way Flipper does (CRC-32)', async () => {
    const fx = world();
    await set(fx, 'junit_pipeline_view', { value: 50, key: 'percentage_of_actors' });
    for (const [id, path] of [
      [1, 'acme%2Fapp'],
      [2, 'acme%2Fsite'],
      [3, 'acme%2Fclosed'],
    ] as const) {
      const p = await body(await call(fx, 'POST', `/projects/${path}/pipeline`, 'owner', { ref: 'master' }));
      const res = await call(fx, 'GET', `/projects/${path}/pipelines/${p.id}/test_report`, 'owner');
      const open = crc32(`junit_pipeline_view${`Project:${id}`}`) % 100_000 < 50_000;
      expect(res.status).toBe(open ? 200 : 404);
    }
  });

  it('api_kaminari_count_with_limit: above 10,000 rows the counts go, unless the flag is off', async () => {
    const fx = createFauxlab({
      scenario: {
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }],
        projects: [
          {
            path: 'root/big',
            pipelines: Array.from({ length: 10_001 }, () => ({ status: 'success' as const })),
          },
        ],
      },
    });
    const page = () => call(fx, 'GET', '/projects/root%2Fbig/pipelines?per_page=100', 'root');
    const limited = await page();
    expect(limited.headers.get('X-Total')).toBeNull();
    expect(limited.headers.get('X-Total-Pages')).toBeNull();
    expect(limited.headers.get('Link')).not.toContain('rel="last"');
    expect(limited.headers.get('X-Next-Page')).toBe('2');
    await call(fx, 'POST', '/features/api_kaminari_count_with_limit', 'root', { value: false });
    const counted = await page();
    expect(counted.headers.get('X-Total')).toBe('10001');
    expect(counted.headers.get('X-Total-Pages')).toBe('101');
    expect(counted.headers.get('Link')).toContain('rel="last"');
  });

  it('similarity_search: order_by=similarity sorts by similarity only while the flag is on', async () => {
    const fx = createFauxlab({
      scenario: {
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }],
        groups: [
          { path: 'a-foo-thing', visibility: 'public' },
          { path: 'b-foo', visibility: 'public' },
          { path: 'foo', visibility: 'public' },
        ],
      },
    });
    const names = async () =>
      (await body(await call(fx, 'GET', '/groups?order_by=similarity&search=foo', 'root'))).map(
        (g: { path: string }) => g.path,
      );
    expect(await names()).toEqual(['a-foo-thing', 'b-foo', 'foo']);
    await call(fx, 'POST', '/features/similarity_search', 'root', { value: true });
    expect((await names())[0]).toBe('foo');
  });

  it('ci_variables_api_filter_environment_scope: off for everyone by an admin', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/variables/REGION`, 'maint')).status).toBe(409);
    await set(fx, 'ci_variables_api_filter_environment_scope', { value: false });
    expect((await call(fx, 'GET', `${APP}/variables/REGION`, 'maint')).status).toBe(200);
  });
});
