import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { APP, body, call, runnersFx, runnersWorld } from './world.js';

describe("the job's runner (Entities::Ci::Job#runner)", () => {
  it('the oldest runner the project may use when the job started; none before it starts', async () => {
    const fx = runnersFx();
    const jobs = await body(await call(fx, 'GET', `${APP}/jobs?per_page=100`, 'maint'));
    const byRunner = (id: number) => jobs.filter((j: any) => j.runner?.id === id).map((j: any) => j.id);
    // Pipeline 1 ran at 10:00, before the instance runner was registered: the group runner took it.
    const first = jobs.find((j: any) => j.pipeline.id === 1);
    expect(first.runner).toEqual({
      id: 2,
      description: 'acme-group',
      ip_address: null,
      active: true,
      is_shared: false,
      name: null,
      online: true,
      status: 'online',
    });
    for (const j of jobs) expect(j.runner === null).toBe(j.started_at === null);
    // The instance runner (registered at 11:59) takes what starts from then on.
    const expected = (j: any) => (Date.parse(j.started_at) < Date.parse('2021-03-01T11:59:00Z') ? 2 : 1);
    for (const j of jobs.filter((x: any) => x.started_at !== null)) expect(j.runner.id).toBe(expected(j));
    expect(byRunner(1).length).toBeGreaterThan(0);
    expect(byRunner(2).length).toBeGreaterThan(0);
  });

  it('the trace names the runner that took the job', async () => {
    const fx = runnersFx();
    const res = await call(fx, 'GET', `${APP}/jobs/1/trace`, 'maint');
    expect((await res.text()).split('\n').slice(0, 2)).toEqual([
      'Running with gitlab-runner 13.12.0 (7a6612da)',
      '  on acme-group grouptok',
    ]);
  });

  it('a project that allows no shared runners is not served by the instance runner', async () => {
    const fx = createFauxlab({
      scenario: {
        ...runnersWorld,
        runners: runnersWorld.runners!.filter((r) => r.type === undefined),
        projects: runnersWorld.projects!.map((p) => ({ ...p, shared_runners_enabled: false })),
      },
    });
    fx.clock.advance(1000);
    const jobs = await body(await call(fx, 'GET', `${APP}/pipelines/5/jobs`, 'maint'));
    expect(jobs.length).toBeGreaterThan(0);
    for (const j of jobs) expect(j.runner).toBeNull();
  });
});

describe('GET /runners/:id/jobs (Ci::RunnerJobsFinder)', () => {
  it('the jobs the runner took, with their project, by id; order_by=id sorts desc by default', async () => {
    const fx = runnersFx();
    const res = await call(fx, 'GET', '/runners/2/jobs?per_page=100', 'owner');
    expect(res.status).toBe(200);
    const list = await body(res);
    expect(list.length).toBeGreaterThan(0);
    const listed = list.map((j: any) => j.id);
    expect(listed).toEqual([...listed].sort((a: number, b: number) => a - b));
    expect(list[0].project).toEqual({
      id: 1,
      description: '',
      name: 'app',
      name_with_namespace: 'acme / app',
      path: 'app',
      path_with_namespace: 'acme/app',
      created_at: '2021-03-01T12:00:00.000Z',
    });
    expect(list[0]).not.toHaveProperty('runner');
    const mine = await body(await call(fx, 'GET', `${APP}/jobs?per_page=100`, 'maint'));
    expect(listed).toEqual(
      mine
        .filter((j: any) => j.runner?.id === 2)
        .map((j: any) => j.id)
        .sort((a: number, b: number) => a - b),
    );
    const desc = await body(await call(fx, 'GET', '/runners/2/jobs?order_by=id&per_page=100', 'owner'));
    expect(desc.map((j: any) => j.id)).toEqual([...listed].reverse());
    const sortOnly = await body(await call(fx, 'GET', '/runners/2/jobs?sort=desc&per_page=100', 'owner'));
    expect(sortOnly.map((j: any) => j.id)).toEqual(listed);
    const ok = await body(await call(fx, 'GET', '/runners/2/jobs?status=success&per_page=100', 'owner'));
    expect(ok.length).toBeGreaterThan(0);
    for (const j of ok) expect(j.status).toBe('success');
  });

  it('400 for an unknown status or order, 404 Not found, 403 No access granted (instance runners too)', async () => {
    const fx = runnersFx();
    const bad = await call(fx, 'GET', '/runners/2/jobs?status=done', 'owner');
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'status does not have a valid value' }]);
    const order = await call(fx, 'GET', '/runners/2/jobs?order_by=name', 'owner');
    expect([order.status, await body(order)]).toEqual([
      400,
      { error: 'order_by does not have a valid value' },
    ]);
    expect((await call(fx, 'GET', '/runners/99/jobs', 'owner')).status).toBe(404);
    const shared = await call(fx, 'GET', '/runners/1/jobs', 'owner');
    expect([shared.status, await body(shared)]).toEqual([
      403,
      { message: '403 Forbidden - No access granted' },
    ]);
    expect((await call(fx, 'GET', '/runners/1/jobs', 'root')).status).toBe(200);
    expect((await call(fx, 'GET', '/runners/2/jobs')).status).toBe(401);
  });
});
