import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { APP, NOW, body, call, world } from './world.js';

const ids = async (res: Response) => ((await body(res)) as { id: number }[]).map((p) => p.id);
const list = (fx: ReturnType<typeof world>, query = '', token = 'owner') =>
  call(fx, 'GET', `${APP}/pipelines${query}`, token);

describe('GET /projects/:id/pipelines', () => {
  it('GET /projects/:id/pipelines: newest first, list items have the spec fields in order', async () => {
    const fx = world();
    const res = await list(fx);
    expect(res.status).toBe(200);
    const items = await body(res);
    expect(items.map((p: { id: number }) => p.id)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(Object.keys(items[0])).toEqual([
      'id',
      'status',
      'ref',
      'sha',
      'web_url',
      'created_at',
      'updated_at',
    ]);
    expect(items[6]).toEqual({
      id: 1,
      status: 'success',
      ref: 'master',
      sha: items[6].sha,
      web_url: 'http://localhost/acme/app/-/pipelines/1',
      created_at: '2021-03-01T10:00:00.000Z',
      updated_at: '2021-03-01T10:05:00.000Z',
    });
    expect(items[6].sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('GET /projects/:id/pipelines: paginated with the declared defaults in the links', async () => {
    const fx = world();
    const res = await list(fx, '?per_page=2&page=2');
    expect(await ids(res)).toEqual([5, 4]);
    expect(res.headers.get('X-Total')).toBe('7');
    expect(res.headers.get('X-Total-Pages')).toBe('4');
    expect(res.headers.get('X-Next-Page')).toBe('3');
    expect(res.headers.get('Link')).toContain(
      '<http://localhost/api/v4/projects/acme%2Fapp/pipelines?id=acme%2Fapp&order_by=id&page=3&per_page=2&sort=desc>; rel="next"',
    );
  });

  it('GET /projects/:id/pipelines: sort=asc', async () => {
    expect(await ids(await list(world(), '?sort=asc'))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it.each([
    ['running', [4]],
    ['pending', [5]],
    ['finished', [3, 2, 1]],
    ['branches', [7, 5]],
    ['tags', [3]],
  ])('GET /projects/:id/pipelines: scope=%s', async (scope, expected) => {
    expect(await ids(await list(world(), `?scope=${scope}`))).toEqual(expected);
  });

  it('GET /projects/:id/pipelines: scopes follow the clock', async () => {
    const fx = world();
    fx.clock.advance(1000);
    expect(await ids(await list(fx, '?scope=running'))).toEqual([5, 4]);
    expect(await ids(await list(fx, '?scope=pending'))).toEqual([]);
    fx.clock.advance(5 * 60_000);
    expect(await ids(await list(fx, '?scope=running'))).toEqual([]);
    expect(await ids(await list(fx, '?scope=finished'))).toEqual([5, 4, 3, 2, 1]);
  });

  it.each([
    ['success', [1]],
    ['failed', [2]],
    ['canceled', [3]],
    ['running', [4]],
    ['pending', [5]],
    ['manual', [6]],
    ['skipped', [7]],
    ['created', []],
    ['scheduled', []],
    ['preparing', []],
    ['waiting_for_resource', []],
  ])('GET /projects/:id/pipelines: status=%s', async (status, expected) => {
    expect(await ids(await list(world(), `?status=${status}`))).toEqual(expected);
  });

  it('GET /projects/:id/pipelines: status reads the clock (a pending pipeline that failed)', async () => {
    const fx = world();
    fx.clock.advance(91_000);
    expect(await ids(await list(fx, '?status=failed'))).toEqual([5, 2]);
  });

  it('GET /projects/:id/pipelines: ref and sha filters', async () => {
    const fx = world();
    expect(await ids(await list(fx, '?ref=feature'))).toEqual([5, 2]);
    expect(await ids(await list(fx, '?ref=v1.0'))).toEqual([3]);
    expect(await ids(await list(fx, '?ref=nope'))).toEqual([]);
    const sha = (await body(await call(fx, 'GET', `${APP}/pipelines/1`, 'owner'))).sha;
    expect(await ids(await list(fx, `?sha=${sha}`))).toEqual([7, 6, 4, 1]);
    expect(await ids(await list(fx, `?sha=${'0'.repeat(40)}`))).toEqual([]);
  });

  it('GET /projects/:id/pipelines: yaml_errors', async () => {
    const fx = world();
    expect(await ids(await list(fx, '?yaml_errors=true'))).toEqual([2]);
    expect(await ids(await list(fx, '?yaml_errors=false'))).toEqual([7, 6, 5, 4, 3, 1]);
  });

  it('GET /projects/:id/pipelines: name and username of the triggering user', async () => {
    const fx = world();
    expect(await ids(await list(fx, '?username=dev'))).toEqual([4, 2]);
    expect(await ids(await list(fx, '?name=Dev%20User'))).toEqual([4, 2]);
    expect(await ids(await list(fx, '?name=Dev%20User&username=owner'))).toEqual([]);
    expect(await ids(await list(fx, '?username=Dev'))).toEqual([]);
  });

  it('GET /projects/:id/pipelines: updated_after and updated_before are strict', async () => {
    const fx = world();
    expect(await ids(await list(fx, '?updated_after=2021-03-01T11:30:00Z'))).toEqual([7, 5, 4]);
    expect(await ids(await list(fx, '?updated_before=2021-03-01T10:32:00Z'))).toEqual([1]);
    expect(
      await ids(await list(fx, '?updated_after=2021-03-01T10:00:00Z&updated_before=2021-03-01T11:00:01Z')),
    ).toEqual([3, 2, 1]);
  });

  it.each([
    ['status', 'asc', [3, 2, 6, 5, 4, 7, 1]],
    ['ref', 'asc', [2, 5, 1, 4, 6, 7, 3]],
    ['ref', 'desc', [3, 7, 6, 4, 1, 5, 2]],
    ['updated_at', 'asc', [1, 2, 3, 6, 7, 4, 5]],
    ['user_id', 'asc', [1, 5, 7, 3, 2, 4, 6]],
    ['user_id', 'desc', [6, 4, 2, 3, 7, 5, 1]],
    ['id', 'desc', [7, 6, 5, 4, 3, 2, 1]],
  ])('GET /projects/:id/pipelines: order_by=%s sort=%s', async (orderBy, sort, expected) => {
    expect(await ids(await list(world(), `?order_by=${orderBy}&sort=${sort}`))).toEqual(expected);
  });

  it.each([
    ['scope=bogus', 'scope does not have a valid value'],
    ['status=bogus', 'status does not have a valid value'],
    ['order_by=name', 'order_by does not have a valid value'],
    ['sort=up', 'sort does not have a valid value'],
    ['yaml_errors=maybe', 'yaml_errors is invalid'],
    ['updated_after=yesterday', 'updated_after is invalid'],
    ['scope=bogus&sort=up', 'scope does not have a valid value, sort does not have a valid value'],
  ])('GET /projects/:id/pipelines: %s is a 400', async (query, error) => {
    const res = await list(world(), `?${query}`);
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ error });
  });

  it('GET /projects/:id/pipelines: who may list', async () => {
    const fx = world();
    expect((await list(fx, '', 'rep')).status).toBe(200);
    // Public jobs (the default) open pipelines to anyone who may read the project.
    expect((await list(fx, '', 'guest')).status).toBe(200);
    expect(await body(await list(fx, '', 'outsider'))).toEqual({ message: '404 Project Not Found' });
    expect((await list(fx, '', 'root')).status).toBe(200);
    expect((await call(fx, 'GET', '/projects/acme%2Fsite/pipelines')).status).toBe(200);
    // Without public jobs, reporters and up only.
    const closed = (t?: string) => call(fx, 'GET', '/projects/acme%2Fclosed/pipelines', t);
    expect(await body(await closed())).toEqual({ message: '403 Forbidden' });
    expect((await closed('guest')).status).toBe(403);
    expect((await closed('rep')).status).toBe(200);
    // Jobs switched off: nobody, admins included.
    const off = await call(fx, 'GET', '/projects/acme%2Fnojobs/pipelines', 'root');
    expect(off.status).toBe(403);
  });
});

describe('GET /projects/:id/pipelines/:pipeline_id', () => {
  it('GET /projects/:id/pipelines/:pipeline_id: the full shape, spec order, detailed_status last', async () => {
    const fx = world();
    const res = await call(fx, 'GET', `${APP}/pipelines/1`, 'owner');
    expect(res.status).toBe(200);
    const p = await body(res);
    expect(Object.keys(p)).toEqual([
      'id',
      'status',
      'ref',
      'sha',
      'before_sha',
      'tag',
      'yaml_errors',
      'user',
      'created_at',
      'updated_at',
      'started_at',
      'finished_at',
      'committed_at',
      'duration',
      'coverage',
      'web_url',
      'detailed_status',
    ]);
    expect(p).toMatchObject({
      id: 1,
      status: 'success',
      before_sha: '0000000000000000000000000000000000000000',
      tag: false,
      yaml_errors: null,
      user: { id: 2, username: 'owner', name: 'Olive Owner', state: 'active' },
      created_at: '2021-03-01T10:00:00.000Z',
      updated_at: '2021-03-01T10:05:00.000Z',
      started_at: '2021-03-01T10:00:00.000Z',
      finished_at: '2021-03-01T10:05:00.000Z',
      committed_at: null,
      duration: 300,
      coverage: '87.50',
      web_url: 'http://localhost/acme/app/-/pipelines/1',
    });
    expect(Object.keys(p.user)).toEqual(['id', 'name', 'username', 'state', 'avatar_url', 'web_url']);
    expect(p.detailed_status).toEqual({
      icon: 'status_success',
      text: 'passed',
      label: 'passed',
      group: 'success',
      tooltip: 'passed',
      has_details: true,
      details_path: '/acme/app/-/pipelines/1',
      illustration: null,
      favicon: '/assets/ci_favicons/favicon_status_success.png',
    });
  });

  it('GET /projects/:id/pipelines/:pipeline_id: tags, yaml errors, and the looks of other statuses', async () => {
    const fx = world();
    const get = async (id: number) => body(await call(fx, 'GET', `${APP}/pipelines/${id}`, 'owner'));
    const failed = await get(2);
    expect(failed).toMatchObject({
      status: 'failed',
      yaml_errors: 'jobs config should contain at least one visible job',
      duration: 120,
      coverage: null,
      finished_at: '2021-03-01T10:32:00.000Z',
    });
    expect(failed.detailed_status).toMatchObject({ icon: 'status_failed', text: 'failed', group: 'failed' });
    const tag = await get(3);
    expect(tag).toMatchObject({
      ref: 'v1.0',
      tag: true,
      status: 'canceled',
      started_at: null,
      duration: null,
    });
    expect(tag.detailed_status.favicon).toBe('/assets/ci_favicons/favicon_status_canceled.png');
    expect((await get(6)).detailed_status).toMatchObject({
      icon: 'status_manual',
      text: 'blocked',
      label: 'waiting for manual action',
      group: 'manual',
      tooltip: 'waiting for manual action',
    });
    expect((await get(7)).detailed_status).toMatchObject({ icon: 'status_skipped', group: 'skipped' });
  });

  it('GET /projects/:id/pipelines/:pipeline_id: unknown ids and ids of other projects are 404 Not found', async () => {
    const fx = world();
    expect(await body(await call(fx, 'GET', `${APP}/pipelines/99`, 'owner'))).toEqual({
      message: '404 Not found',
    });
    const created = await body(
      await call(fx, 'POST', '/projects/acme%2Fsite/pipeline', 'owner', { ref: 'master' }),
    );
    expect((await call(fx, 'GET', `${APP}/pipelines/${created.id}`, 'owner')).status).toBe(404);
    expect(await body(await call(fx, 'GET', `${APP}/pipelines/abc`, 'owner'))).toEqual({
      error: 'pipeline_id is invalid',
    });
  });
});

describe('the pipeline clock', () => {
  it('a pipeline created at T is pending at T, running after the clock moves, success after its duration', async () => {
    const fx = world();
    const res = await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref: 'master' });
    expect(res.status).toBe(201);
    const created = await body(res);
    expect(created).toMatchObject({
      status: 'pending',
      created_at: NOW,
      updated_at: NOW,
      started_at: null,
      finished_at: null,
      duration: null,
    });
    const get = async () => body(await call(fx, 'GET', `${APP}/pipelines/${created.id}`, 'dev'));
    expect((await get()).status).toBe('pending');

    const tick = await call(fx, 'POST', '/__fauxlab/clock', undefined, { advance: '10s' });
    expect(tick.status).toBe(200);
    expect(await get()).toMatchObject({
      status: 'running',
      started_at: NOW,
      finished_at: null,
      duration: null,
      detailed_status: { icon: 'status_running', text: 'running' },
    });

    await call(fx, 'POST', '/__fauxlab/clock', undefined, { advance: '49s' });
    expect((await get()).status).toBe('running');
    await call(fx, 'POST', '/__fauxlab/clock', undefined, { advance: '1s' });
    expect(await get()).toMatchObject({
      status: 'success',
      started_at: NOW,
      finished_at: '2021-03-01T12:01:00.000Z',
      updated_at: '2021-03-01T12:01:00.000Z',
      duration: 60,
    });
  });

  it('scenario pipelines run with their own duration and outcome', async () => {
    const fx = world();
    const get = async (id: number) => body(await call(fx, 'GET', `${APP}/pipelines/${id}`, 'owner'));
    expect((await get(5)).status).toBe('pending');
    fx.clock.advance(1);
    expect((await get(5)).status).toBe('running');
    fx.clock.advance(89_999);
    expect(await get(5)).toMatchObject({
      status: 'failed',
      duration: 90,
      finished_at: '2021-03-01T12:01:30.000Z',
    });
    // The running one started at 11:58 and takes 300s.
    fx.clock.advance(90_000);
    expect(await get(4)).toMatchObject({
      status: 'success',
      started_at: '2021-03-01T11:58:00.000Z',
      duration: 300,
    });
  });

  it('a scenario running pipeline reads running at the start of the clock, with its start time', async () => {
    const fx = world();
    const p = await body(await call(fx, 'GET', `${APP}/pipelines/4`, 'owner'));
    expect(p).toMatchObject({ status: 'running', started_at: '2021-03-01T11:58:00.000Z', finished_at: null });
    fx.clock.advance(2 * 60_000 + 59_000);
    expect((await body(await call(fx, 'GET', `${APP}/pipelines/4`, 'owner'))).status).toBe('running');
    fx.clock.advance(1000);
    expect((await body(await call(fx, 'GET', `${APP}/pipelines/4`, 'owner'))).status).toBe('success');
  });

  it('coverage shows once the pipeline has finished', async () => {
    const fx = createWorldWith([{ ref: 'master', status: 'pending', coverage: '66.5', duration: 10 }]);
    const get = async () => body(await call(fx, 'GET', '/projects/root%2Fsolo/pipelines/1', 'root'));
    expect((await get()).coverage).toBeNull();
    fx.clock.advance(10_000);
    expect((await get()).coverage).toBe('66.5');
  });
});

type Pipelines = NonNullable<NonNullable<ScenarioFile['projects']>[number]['pipelines']>;

function createWorldWith(pipelines: Pipelines) {
  return createFauxlab({
    scenario: {
      now: NOW,
      users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }],
      projects: [{ path: 'root/solo', pipelines }],
    },
  });
}

const STATES = [
  'created',
  'waiting_for_resource',
  'preparing',
  'pending',
  'running',
  'success',
  'failed',
  'canceled',
  'skipped',
  'manual',
  'scheduled',
] as const;

describe('POST /projects/:id/pipelines/:pipeline_id/retry', () => {
  it.each(STATES)('POST retry: a %s pipeline goes back to pending (201), then runs again', async (status) => {
    const fx = createWorldWith([{ ref: 'master', status, duration: 30, outcome: 'failed' }]);
    const res = await call(fx, 'POST', '/projects/root%2Fsolo/pipelines/1/retry', 'root');
    expect(res.status).toBe(201);
    const p = await body(res);
    expect(p).toMatchObject({ id: 1, status: 'pending', updated_at: NOW });
    expect(p.detailed_status.group).toBe('pending');
    fx.clock.advance(1000);
    const running = await body(await call(fx, 'GET', '/projects/root%2Fsolo/pipelines/1', 'root'));
    expect(running).toMatchObject({ status: 'running', started_at: NOW });
    fx.clock.advance(29_000);
    const done = await body(await call(fx, 'GET', '/projects/root%2Fsolo/pipelines/1', 'root'));
    expect(done).toMatchObject({ status: 'failed', duration: 30, finished_at: '2021-03-01T12:00:30.000Z' });
  });

  it('POST retry: a finished pipeline keeps its last run times until the new run sets them', async () => {
    const fx = world();
    fx.clock.advance(60_000);
    const p = await body(await call(fx, 'POST', `${APP}/pipelines/2/retry`, 'dev'));
    expect(p).toMatchObject({
      status: 'pending',
      started_at: '2021-03-01T10:30:00.000Z',
      finished_at: '2021-03-01T10:32:00.000Z',
      duration: 120,
      updated_at: '2021-03-01T12:01:00.000Z',
    });
  });

  it('POST retry: needs a developer; reporters get 403, anonymous 401, unknown ids 404', async () => {
    const fx = world();
    expect((await call(fx, 'POST', `${APP}/pipelines/1/retry`, 'rep')).status).toBe(403);
    expect(await body(await call(fx, 'POST', `${APP}/pipelines/1/retry`))).toEqual({
      message: '401 Unauthorized',
    });
    expect(await body(await call(fx, 'POST', `${APP}/pipelines/42/retry`, 'dev'))).toEqual({
      message: '404 Not found',
    });
    expect((await call(fx, 'POST', `${APP}/pipelines/1/retry`, 'dev')).status).toBe(201);
  });
});

describe('POST /projects/:id/pipelines/:pipeline_id/cancel', () => {
  it.each(STATES)('POST cancel: a %s pipeline becomes canceled (200) and stays so', async (status) => {
    const fx = createWorldWith([{ ref: 'master', status, duration: 30 }]);
    fx.clock.advance(5000);
    const res = await call(fx, 'POST', '/projects/root%2Fsolo/pipelines/1/cancel', 'root');
    expect(res.status).toBe(200);
    const p = await body(res);
    expect(p.status).toBe('canceled');
    expect(p.detailed_status).toMatchObject({ icon: 'status_canceled', group: 'canceled' });
    fx.clock.advance(3_600_000);
    const later = await body(await call(fx, 'GET', '/projects/root%2Fsolo/pipelines/1', 'root'));
    expect(later.status).toBe('canceled');
  });

  it('POST cancel: a running pipeline finishes now, with the time it ran', async () => {
    const fx = world();
    fx.clock.advance(30_000);
    const p = await body(await call(fx, 'POST', `${APP}/pipelines/4/cancel`, 'dev'));
    expect(p).toMatchObject({
      status: 'canceled',
      started_at: '2021-03-01T11:58:00.000Z',
      finished_at: '2021-03-01T12:00:30.000Z',
      updated_at: '2021-03-01T12:00:30.000Z',
      duration: 150,
    });
  });

  it('POST cancel then retry: the pipeline runs again', async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/pipelines/5/cancel`, 'owner');
    expect((await body(await call(fx, 'POST', `${APP}/pipelines/5/retry`, 'owner'))).status).toBe('pending');
    fx.clock.advance(90_001);
    expect((await body(await call(fx, 'GET', `${APP}/pipelines/5`, 'owner'))).status).toBe('failed');
  });

  it('POST cancel: reporters get 403', async () => {
    const res = await call(world(), 'POST', `${APP}/pipelines/4/cancel`, 'rep');
    expect(res.status).toBe(403);
    expect(await body(res)).toEqual({ message: '403 Forbidden' });
  });
});

describe('POST /projects/:id/pipeline', () => {
  it('POST /projects/:id/pipeline: 201 pending, on the ref head, by the caller, with variables', async () => {
    const fx = world();
    const res = await call(fx, 'POST', `${APP}/pipeline`, 'dev', {
      ref: 'hotfix',
      variables: [
        { key: 'A', value: '1' },
        { key: 'B', value: 'two', variable_type: 'file' },
      ],
    });
    expect(res.status).toBe(201);
    const p = await body(res);
    expect(p).toMatchObject({
      id: 8,
      status: 'pending',
      ref: 'hotfix',
      sha: 'a'.repeat(40),
      tag: false,
      before_sha: '0000000000000000000000000000000000000000',
      user: { username: 'dev' },
    });
    const vars = await body(await call(fx, 'GET', `${APP}/pipelines/8/variables`, 'dev'));
    expect(vars).toEqual([
      { key: 'A', value: '1', variable_type: 'env_var' },
      { key: 'B', value: 'two', variable_type: 'file' },
    ]);
  });

  it('POST /projects/:id/pipeline: form-encoded variables arrive as Ruby clients send them', async () => {
    const fx = world();
    const res = await fx.app.request(`${APP}/pipeline`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'dev', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'ref=feature&variables[][key]=K&variables[][value]=V',
    });
    expect(res.status).toBe(201);
    const id = (await body(res)).id;
    expect(await body(await call(fx, 'GET', `${APP}/pipelines/${id}/variables`, 'dev'))).toEqual([
      { key: 'K', value: 'V', variable_type: 'env_var' },
    ]);
  });

  it('POST /projects/:id/pipeline: a tag ref makes a tag pipeline', async () => {
    const fx = world();
    const p = await body(await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref: 'v1.0' }));
    const tagged = await body(await call(fx, 'GET', `${APP}/pipelines/3`, 'dev'));
    expect(p).toMatchObject({ ref: 'v1.0', tag: true, sha: tagged.sha });
  });

  it('POST /projects/:id/pipeline: an unknown ref is the reference 400', async () => {
    const fx = world();
    const res = await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref: 'nope' });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ message: { base: ['Reference not found'] } });
    expect(await ids(await list(fx))).toHaveLength(7);
  });

  it('POST /projects/:id/pipeline: ref is required', async () => {
    const res = await call(world(), 'POST', `${APP}/pipeline`, 'dev', {});
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ error: 'ref is missing' });
  });

  it('POST /projects/:id/pipeline: invalid variable keys fail the pipeline save', async () => {
    const res = await call(world(), 'POST', `${APP}/pipeline`, 'dev', {
      ref: 'master',
      variables: [{ key: 'BAD-KEY', value: '1' }],
    });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({
      message: {
        base: [
          "Failed to persist the pipeline: Validation failed: Variables key can contain only letters, digits and '_'.",
        ],
      },
    });
  });

  it('POST /projects/:id/pipeline: variables must be an array', async () => {
    const res = await call(world(), 'POST', `${APP}/pipeline`, 'dev', { ref: 'master', variables: 'x' });
    expect(await body(res)).toEqual({ error: 'variables is invalid' });
  });

  it('POST /projects/:id/pipeline: 401, then 400, then 404, then 403', async () => {
    const fx = world();
    expect((await call(fx, 'POST', `${APP}/pipeline`, undefined, {})).status).toBe(401);
    expect((await call(fx, 'POST', '/projects/nope%2Fnope/pipeline', 'dev', {})).status).toBe(400);
    expect(await body(await call(fx, 'POST', '/projects/nope%2Fnope/pipeline', 'dev', { ref: 'x' }))).toEqual(
      {
        message: '404 Project Not Found',
      },
    );
    expect((await call(fx, 'POST', `${APP}/pipeline`, 'rep', { ref: 'nope' })).status).toBe(403);
    expect((await call(fx, 'POST', `${APP}/pipeline`, 'guest', { ref: 'master' })).status).toBe(403);
  });
});

describe('DELETE /projects/:id/pipelines/:pipeline_id', () => {
  it('DELETE: owners and admins delete (204); the pipeline is gone', async () => {
    const fx = world();
    const res = await call(fx, 'DELETE', `${APP}/pipelines/2`, 'owner');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await call(fx, 'GET', `${APP}/pipelines/2`, 'owner')).status).toBe(404);
    expect((await call(fx, 'DELETE', `${APP}/pipelines/1`, 'root')).status).toBe(204);
    expect(await ids(await list(fx))).toEqual([7, 6, 5, 4, 3]);
  });

  it('DELETE: maintainers and developers get 403, unknown ids 404', async () => {
    const fx = world();
    expect(await body(await call(fx, 'DELETE', `${APP}/pipelines/2`, 'maint'))).toEqual({
      message: '403 Forbidden',
    });
    expect((await call(fx, 'DELETE', `${APP}/pipelines/2`, 'dev')).status).toBe(403);
    expect(await body(await call(fx, 'DELETE', `${APP}/pipelines/77`, 'owner'))).toEqual({
      message: '404 Not found',
    });
    expect((await call(fx, 'DELETE', `${APP}/pipelines/2`)).status).toBe(401);
  });

  it('DELETE: If-Unmodified-Since older than the last change is 412 and deletes nothing', async () => {
    const fx = world();
    const res = await fx.app.request(`${APP}/pipelines/2`, {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'owner', 'If-Unmodified-Since': 'Mon, 01 Mar 2021 10:00:00 GMT' },
    });
    expect(res.status).toBe(412);
    expect(await body(res)).toEqual({ message: '412 Precondition Failed' });
    expect((await call(fx, 'GET', `${APP}/pipelines/2`, 'owner')).status).toBe(200);
  });

  it('deleting the project removes its pipelines, variables and refs', async () => {
    const fx = world();
    const before = fx.state.pipelines.size;
    expect((await call(fx, 'DELETE', APP, 'owner')).status).toBe(202);
    expect(fx.state.pipelines.size).toBe(before - 7);
    expect(fx.state.variables.size).toBe(0);
    expect(fx.state.refs.size).toBe(0);
  });
});

describe('GET /projects/:id/pipelines/:pipeline_id/variables', () => {
  it('GET variables: key, value and variable_type when it was given', async () => {
    const res = await call(world(), 'GET', `${APP}/pipelines/1/variables`, 'maint');
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual([
      { key: 'NIGHTLY', value: 'true', variable_type: 'env_var' },
      { key: 'foo', value: 'bar' },
    ]);
  });

  it('GET variables: maintainers, and developers for their own pipelines', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/pipelines/4/variables`, 'dev')).status).toBe(200);
    expect((await call(fx, 'GET', `${APP}/pipelines/1/variables`, 'dev')).status).toBe(403);
    expect((await call(fx, 'GET', `${APP}/pipelines/6/variables`, 'rep')).status).toBe(403);
    expect((await call(fx, 'GET', `${APP}/pipelines/1/variables`, 'root')).status).toBe(200);
  });
});

describe('GET /projects/:id/pipelines/:pipeline_id/test_report', () => {
  it('GET test_report: 404 while junit_pipeline_view is off (the default)', async () => {
    const res = await call(world(), 'GET', `${APP}/pipelines/1/test_report`, 'owner');
    expect(res.status).toBe(404);
    expect(await body(res)).toEqual({ message: '404 Not Found' });
  });

  it('GET test_report: the full report once the flag is on', async () => {
    const fx = world();
    expect((await call(fx, 'POST', '/features/junit_pipeline_view', 'root', { value: true })).status).toBe(
      201,
    );
    const res = await call(fx, 'GET', `${APP}/pipelines/1/test_report`, 'owner');
    expect(res.status).toBe(200);
    const report = await body(res);
    expect(report).toEqual({
      total_time: 2,
      total_count: 5,
      success_count: 2,
      failed_count: 1,
      skipped_count: 1,
      error_count: 1,
      test_suites: [
        {
          name: 'rspec',
          total_time: 1.75,
          total_count: 4,
          success_count: 1,
          failed_count: 1,
          skipped_count: 1,
          error_count: 1,
          test_cases: [
            {
              status: 'error',
              name: 'boom',
              classname: 'spec.app',
              execution_time: 0,
              system_output: null,
              stack_trace: 'at line 3',
            },
            {
              status: 'failed',
              name: 'breaks',
              classname: 'spec.app',
              execution_time: 1.25,
              system_output: 'expected 1, got 2',
              stack_trace: null,
            },
            {
              status: 'success',
              name: 'works',
              classname: 'spec.app',
              execution_time: 0.5,
              system_output: null,
              stack_trace: null,
            },
            {
              status: 'skipped',
              name: 'later',
              classname: 'spec.app',
              execution_time: 0,
              system_output: null,
              stack_trace: null,
            },
          ],
        },
        {
          name: 'jest',
          total_time: 0.25,
          total_count: 1,
          success_count: 1,
          failed_count: 0,
          skipped_count: 0,
          error_count: 0,
          test_cases: [
            {
              status: 'success',
              name: 'renders',
              classname: 'ui',
              execution_time: 0.25,
              system_output: null,
              stack_trace: null,
            },
          ],
        },
      ],
    });
    const empty = await body(await call(fx, 'GET', `${APP}/pipelines/2/test_report`, 'owner'));
    expect(empty).toEqual({
      total_time: 0,
      total_count: 0,
      success_count: 0,
      failed_count: 0,
      skipped_count: 0,
      error_count: 0,
      test_suites: [],
    });
  });

  it('GET test_report: the flag can be on for one project only', async () => {
    const fx = world();
    await call(fx, 'POST', '/features/junit_pipeline_view', 'root', { value: true, project: 'acme/site' });
    expect((await call(fx, 'GET', `${APP}/pipelines/1/test_report`, 'owner')).status).toBe(404);
    const site = await body(
      await call(fx, 'POST', '/projects/acme%2Fsite/pipeline', 'owner', { ref: 'master' }),
    );
    const res = await call(fx, 'GET', `/projects/acme%2Fsite/pipelines/${site.id}/test_report`, 'owner');
    expect(res.status).toBe(200);
  });

  it('GET test_report: the flag comes before the pipeline lookup', async () => {
    const fx = world();
    expect(await body(await call(fx, 'GET', `${APP}/pipelines/99/test_report`, 'owner'))).toEqual({
      message: '404 Not Found',
    });
    await call(fx, 'POST', '/features/junit_pipeline_view', 'root', { value: true });
    expect(await body(await call(fx, 'GET', `${APP}/pipelines/99/test_report`, 'owner'))).toEqual({
      message: '404 Not found',
    });
  });
});

describe('GET /projects/:id/pipelines/latest', () => {
  it('GET latest: the newest pipeline of the default branch, or of ?ref', async () => {
    const fx = world();
    expect((await body(await call(fx, 'GET', `${APP}/pipelines/latest`, 'owner'))).id).toBe(7);
    expect((await body(await call(fx, 'GET', `${APP}/pipelines/latest?ref=feature`, 'owner'))).id).toBe(5);
  });

  it('GET latest: a ref without pipelines is 403', async () => {
    const res = await call(world(), 'GET', `${APP}/pipelines/latest?ref=hotfix`, 'owner');
    expect(res.status).toBe(403);
    expect(await body(res)).toEqual({ message: '403 Forbidden' });
  });
});

describe('refs named like Object members', () => {
  it('POST /projects/:id/pipeline: `constructor`, `__proto__`, `toString` are no refs of a project', async () => {
    const fx = world();
    for (const ref of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const res = await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref });
      expect([res.status, await body(res)]).toEqual([400, { message: { base: ['Reference not found'] } }]);
    }
    expect(fx.state.pipelines.size).toBe(7);
  });

  it('POST /__fauxlab/push: a branch named __proto__ is an ordinary branch', async () => {
    const fx = world();
    const push = await call(fx, 'POST', '/__fauxlab/push', undefined, {
      project: 'acme/app',
      ref: '__proto__',
    });
    expect(push.status).toBe(201);
    const res = await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref: '__proto__' });
    expect(res.status).toBe(201);
    expect((await body(res)).sha).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
