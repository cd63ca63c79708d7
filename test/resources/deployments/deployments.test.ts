import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, loadScenario, ScenarioError } from '../../../src/index.js';
import { body, call, deployFx, deployWorld, SHOP } from './world.js';

const DEPLOY = { environment: 'review/x', sha: 'c'.repeat(40), ref: 'master', tag: false, status: 'running' };

type Fx = ReturnType<typeof deployFx>;
const list = async (fx: Fx, query = '', who = 'dev') =>
  body(await call(fx, 'GET', `${SHOP}/deployments${query}`, who)) as Promise<Record<string, any>[]>;

describe('deployments: reads', () => {
  it('GET /projects/:id/deployments: the entity, the jobs’ deployments created with the pipeline', async () => {
    const fx = deployFx();
    const all = await list(fx);
    expect(all.map((d) => [d.id, d.iid, d.status, d.environment.name, d.deployable?.name ?? null])).toEqual([
      [1, 1, 'created', 'staging', 'stage'],
      [2, 2, 'created', 'production', 'ship'],
      [3, 3, 'success', 'staging', null],
    ]);
    expect(Object.keys(all[0]!)).toEqual([
      'id',
      'iid',
      'ref',
      'sha',
      'created_at',
      'updated_at',
      'user',
      'environment',
      'deployable',
      'status',
    ]);
    expect(all[0]).toMatchObject({
      ref: 'master',
      created_at: '2021-03-01T12:00:00.000Z',
      user: { username: 'dev' },
      environment: { id: 1, name: 'staging', slug: 'staging', external_url: 'https://staging.example.com' },
      deployable: { id: expect.any(Number), status: 'created', stage: 'deploy', pipeline: { id: 8 } },
    });
    expect(Object.keys(all[0]!.user)).toEqual(['id', 'name', 'username', 'state', 'avatar_url', 'web_url']);
    // The job's environment was made with the pipeline; `staging` was the scenario's.
    const envs = (await body(await call(fx, 'GET', `${SHOP}/environments`, 'dev'))) as { name: string }[];
    expect(envs.map((e) => e.name)).toEqual(['staging', 'production']);
  });

  it('GET /projects/:id/deployments: 401 without a user, 403 for a guest, 404 for a non-member', async () => {
    const fx = deployFx();
    const statuses = [];
    for (const who of [undefined, 'guest', 'outsider', 'rep'])
      statuses.push((await call(fx, 'GET', `${SHOP}/deployments`, who)).status);
    expect(statuses).toEqual([401, 403, 404, 200]);
    const bad = await call(fx, 'GET', `${SHOP}/deployments?status=blocked`, 'dev');
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'status does not have a valid value' }]);
    const order = await call(fx, 'GET', `${SHOP}/deployments?order_by=name`, 'dev');
    expect([order.status, await body(order)]).toEqual([
      400,
      { error: 'order_by does not have a valid value' },
    ]);
  });

  it('GET /projects/:id/deployments/:deployment_id: one deployment; 404 for another project’s', async () => {
    const fx = deployFx();
    const res = await call(fx, 'GET', `${SHOP}/deployments/3`, 'rep');
    expect(await body(res)).toMatchObject({
      id: 3,
      status: 'success',
      user: { username: 'maint' },
      deployable: null,
      created_at: '2021-03-01T09:00:00.000Z',
      updated_at: '2021-03-01T09:05:00.000Z',
    });
    const missing = await call(fx, 'GET', `${SHOP}/deployments/99`, 'dev');
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Not found' }]);
    const other = await call(fx, 'GET', `/api/v4/projects/acme%2Fapp/deployments/1`, 'dev');
    expect(other.status).toBe(404);
  });
});

describe('deployments: with their jobs on the clock', () => {
  it('a job’s deployment runs and succeeds with the job, at the job’s times', async () => {
    const fx = deployFx();
    fx.clock.advance(31_000);
    const running = (await list(fx))[0]!;
    expect([running.status, running.updated_at]).toEqual(['running', '2021-03-01T12:00:30.000Z']);
    fx.clock.advance(10_000);
    const done = (await list(fx))[0]!;
    expect([done.status, done.updated_at, done.deployable.status]).toEqual([
      'success',
      '2021-03-01T12:00:35.000Z',
      'success',
    ]);
    // A manual job waits: its deployment stays created.
    expect((await list(fx))[1]!.status).toBe('created');
  });

  it('a played manual job deploys; the environment’s last_deployment is its newest success', async () => {
    const fx = deployFx();
    fx.clock.advance(40_000);
    const ship = (await list(fx))[1]!;
    const play = await call(fx, 'POST', `${SHOP}/jobs/${ship.deployable.id}/play`, 'maint');
    expect(play.status).toBe(200);
    fx.clock.advance(1000);
    expect((await list(fx))[1]!.status).toBe('running');
    fx.clock.advance(5000);
    const after = await list(fx);
    // The deployment keeps the user who created the job; the job has its player.
    expect(after[1]).toMatchObject({
      status: 'success',
      updated_at: '2021-03-01T12:00:45.000Z',
      user: { username: 'dev' },
      deployable: { user: { username: 'maint' } },
    });
    const env = await body(await call(fx, 'GET', `${SHOP}/environments/2`, 'dev'));
    expect(env.last_deployment).toMatchObject({ id: 2, status: 'success' });
    expect(Object.keys(env.last_deployment)).not.toContain('environment');
    // Before any success, no last deployment.
    const fresh = deployFx();
    expect(
      (await body(await call(fresh, 'GET', `${SHOP}/environments/2`, 'dev'))).last_deployment,
    ).toBeNull();
  });

  it('a retried deploy job gets a deployment of its own; the first keeps its status', async () => {
    const fx = deployFx();
    fx.clock.advance(40_000);
    const stage = (await list(fx))[0]!;
    const retry = await call(fx, 'POST', `${SHOP}/jobs/${stage.deployable.id}/retry`, 'dev');
    expect(retry.status).toBe(201);
    const retried = (await body(retry)) as { id: number };
    const all = await list(fx);
    expect(all.map((d) => [d.id, d.iid, d.status, d.deployable?.id ?? null])).toEqual([
      [1, 1, 'success', stage.deployable.id],
      [2, 2, 'created', all[1]!.deployable.id],
      [3, 3, 'success', null],
      [4, 4, 'created', retried.id],
    ]);
  });

  it('DELETE /projects/:id/pipelines/:pipeline_id: its jobs’ deployments stay as they were, without a job', async () => {
    const fx = deployFx();
    fx.clock.advance(40_000);
    expect((await call(fx, 'DELETE', `${SHOP}/pipelines/8`, 'owner')).status).toBe(204);
    fx.clock.advance(60_000);
    const all = await list(fx);
    expect(all.map((d) => [d.id, d.status, d.updated_at, d.deployable])).toEqual([
      [1, 'success', '2021-03-01T12:00:35.000Z', null],
      [2, 'created', '2021-03-01T12:00:00.000Z', null],
      [3, 'success', '2021-03-01T09:05:00.000Z', null],
    ]);
  });

  it('filters and sorts: status, environment, updated_after (which orders by updated_at), order_by ref', async () => {
    const fx = deployFx();
    fx.clock.advance(40_000);
    const ids = async (q: string) => (await list(fx, q)).map((d) => d.id);
    expect(await ids('?status=success')).toEqual([1, 3]);
    expect(await ids('?environment=staging')).toEqual([1, 3]);
    expect(await ids('?environment=nowhere')).toEqual([]);
    expect(await ids('?sort=desc')).toEqual([3, 2, 1]);
    expect(await ids('?order_by=iid&sort=desc')).toEqual([3, 2, 1]);
    expect(await ids('?order_by=updated_at')).toEqual([3, 2, 1]);
    expect(await ids('?updated_after=2021-03-01T10:00:00Z')).toEqual([2, 1]);
    expect(await ids('?updated_before=2021-03-01T12:00:00Z&sort=desc')).toEqual([2, 3]);
    expect(await ids('?per_page=1&page=2')).toEqual([2]);
  });
});

describe('deployments: writes', () => {
  it('POST /projects/:id/deployments: 201, the environment made when missing, the status set', async () => {
    const fx = deployFx();
    const res = await call(fx, 'POST', `${SHOP}/deployments`, 'dev', DEPLOY);
    expect(res.status).toBe(201);
    expect(await body(res)).toMatchObject({
      id: 4,
      iid: 4,
      ref: 'master',
      sha: 'c'.repeat(40),
      status: 'running',
      deployable: null,
      user: { username: 'dev' },
      environment: { id: 3, name: 'review/x', external_url: null },
      created_at: '2021-03-01T12:00:00.000Z',
    });
  });

  it('POST /projects/:id/deployments: Grape’s errors, the model’s, and nothing made', async () => {
    const fx = deployFx();
    const answer = async (who: string, b: unknown) => {
      const res = await call(fx, 'POST', `${SHOP}/deployments`, who, b);
      return [res.status, await body(res)];
    };
    const { tag: _tag, ...noTag } = DEPLOY;
    expect(await answer('dev', noTag)).toEqual([400, { error: 'tag is missing' }]);
    expect(await answer('dev', { ...DEPLOY, status: 'created' })).toEqual([
      400,
      { error: 'status does not have a valid value' },
    ]);
    expect(await answer('dev', { ...DEPLOY, sha: '', ref: ' ' })).toEqual([
      400,
      { message: { sha: ["can't be blank"], ref: ["can't be blank"] } },
    ]);
    expect(await answer('rep', DEPLOY)).toEqual([403, { message: '403 Forbidden' }]);
    // A name the environment model refuses: the platform's endpoint fails there.
    expect(await answer('dev', { ...DEPLOY, environment: '/bad/' })).toEqual([
      500,
      { message: '500 Internal Server Error' },
    ]);
    expect((await list(fx)).length).toBe(3);
    const envs = (await body(await call(fx, 'GET', `${SHOP}/environments`, 'dev'))) as unknown[];
    expect(envs.length).toBe(2);
  });

  it('PUT /projects/:id/deployments/:deployment_id: the state machine’s transitions and its error', async () => {
    const fx = deployFx();
    await call(fx, 'POST', `${SHOP}/deployments`, 'dev', DEPLOY);
    fx.clock.advance(60_000);
    const put = async (status: string, who = 'dev', id = 4) => {
      const res = await call(fx, 'PUT', `${SHOP}/deployments/${id}`, who, { status });
      return [res.status, await body(res)];
    };
    const ok = await put('success');
    expect(ok[0]).toBe(200);
    expect(ok[1]).toMatchObject({ id: 4, status: 'success', updated_at: '2021-03-01T12:01:00.000Z' });
    expect(await put('running')).toEqual([400, { message: { status: ['cannot transition via "run"'] } }]);
    expect(await put('success')).toEqual([400, { message: { status: ['cannot transition via "succeed"'] } }]);
    expect((await put('failed'))[1]).toMatchObject({ status: 'failed' });
    expect(await put('canceled', 'rep')).toEqual([403, { message: '403 Forbidden' }]);
    expect(await put('canceled', 'dev', 1)).toEqual([
      403,
      { message: '403 Forbidden - Deployments created using GitLab CI can not be updated using the API' },
    ]);
    expect(await put('paused')).toEqual([400, { error: 'status does not have a valid value' }]);
  });

  it('DELETE /projects/:id/environments/:environment_id: the environment’s deployments go with it', async () => {
    const fx = deployFx();
    await call(fx, 'POST', `${SHOP}/deployments`, 'dev', DEPLOY);
    await call(fx, 'POST', `${SHOP}/environments/3/stop`, 'dev');
    const del = await call(fx, 'DELETE', `${SHOP}/environments/3`, 'dev');
    expect(del.status).toBe(204);
    expect((await list(fx)).map((d) => d.id)).toEqual([1, 2, 3]);
  });
});

describe('deployments: merge requests', () => {
  it('GET /projects/:id/deployments/:deployment_id/merge_requests: merged into the ref since the last success', async () => {
    const fx = createFauxlab({
      scenario: {
        ...deployWorld,
        projects: deployWorld.projects!.map((p) =>
          p.path === 'acme/shop'
            ? {
                ...p,
                branches: ['a', 'b', 'c'],
                merge_requests: [
                  { title: 'Old', source_branch: 'a', state: 'merged', merged_at: '2021-03-01T08:00:00Z' },
                  { title: 'New', source_branch: 'b', state: 'merged', merged_at: '2021-03-01T11:00:00Z' },
                  { title: 'Open', source_branch: 'c' },
                ],
              }
            : p,
        ),
      },
    });
    const titles = async (id: number) =>
      (
        (await body(await call(fx, 'GET', `${SHOP}/deployments/${id}/merge_requests`, 'rep'))) as {
          title: string;
        }[]
      ).map((m) => m.title);
    // The API's success at 09:05 shipped what was merged before it; the job's (12:00:35) what came after.
    expect(await titles(3)).toEqual(['Old']);
    expect(await titles(1)).toEqual([]);
    fx.clock.advance(40_000);
    expect(await titles(1)).toEqual(['New']);
    expect(await titles(99)).toEqual([]);
    // A review app (an environment in a folder) ships nothing.
    const review = await call(fx, 'POST', `${SHOP}/deployments`, 'dev', { ...DEPLOY, status: 'success' });
    expect(await titles(((await body(review)) as { id: number }).id)).toEqual([]);
  });
});

describe('deployments: scenario', () => {
  it('projects[].deployments and a job’s environment: exported and loaded back, bad names named', () => {
    const fx = deployFx();
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const shop = out.projects!.find((p) => p.path === 'acme/shop')! as Record<string, any>;
    expect(shop.deployments).toEqual([
      {
        environment: 'staging',
        sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        user: 'maint',
        created_at: '2021-03-01T09:00:00.000Z',
        updated_at: '2021-03-01T09:05:00.000Z',
      },
    ]);
    expect(shop.pipelines[0].jobs.map((j: { environment?: string }) => j.environment)).toEqual([
      undefined,
      undefined,
      'staging',
      'production',
    ]);
    let problems: string[] = [];
    try {
      loadScenario({
        users: [{ username: 'a' }],
        projects: [
          {
            path: 'a/p',
            deployments: [{ environment: 'ok', user: 'ghost' }, { environment: 'bad/' }],
            pipelines: [{ jobs: [{ name: 'x', environment: '/x' }] }],
          },
        ],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [];
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        'projects[0].deployments[0].user: no user "ghost"',
        expect.stringMatching(/^projects\[0\]\.deployments\[1\]\.environment: can contain only letters/),
        expect.stringMatching(/^projects\[0\]\.pipelines\[0\]\.jobs\[0\]\.environment: can contain only/),
      ]),
    );
  });
});
