import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { statusPath } from '../../../src/resources/hooks/transitions.js';
import { listen } from '../hooks/receivers.js';
import { body, call, deployWorld, SHOP } from './world.js';

type Fx = ReturnType<typeof createFauxlab>;

/** The delivery log as `[event header, action]` pairs, oldest first. */
const events = (fx: Fx) =>
  deliveries(fx.clock)
    .list()
    .map((d) => [d.request.headers['X-Gitlab-Event'], d.action]);

const jobId = async (fx: Fx, name: string) =>
  ((await body(await call(fx, 'GET', `${SHOP}/jobs`, 'dev'))) as { id: number; name: string }[]).find(
    (j) => j.name === name,
  )!.id;

/** The world with hooks allowed to post to 127.0.0.1, and `hooks` on acme/shop. */
function hookedWorld(hooks: { url: string; push_events?: boolean; releases_events?: boolean }[]) {
  return createFauxlab({
    scenario: {
      ...deployWorld,
      settings: { allow_local_requests_from_web_hooks_and_services: true },
      projects: deployWorld.projects!.map((p) => (p.path === 'acme/shop' ? { ...p, hooks } : p)),
    },
  });
}

describe('webhooks: job and deployment events', () => {
  it('job statuses: every status a job passed through, in order, when the clock jumps', () => {
    expect(statusPath(undefined, 'success')).toEqual(['created', 'pending', 'running', 'success']);
    expect(statusPath('pending', 'failed')).toEqual(['running', 'failed']);
    expect(statusPath('manual', 'running')).toEqual(['pending', 'running']);
    expect(statusPath('created', 'skipped')).toEqual(['skipped']);
    expect(statusPath(undefined, 'manual')).toEqual(['created', 'manual']);
    expect(statusPath('running', 'canceled')).toEqual(['canceled']);
    expect(statusPath('success', 'success')).toEqual([]);
  });

  it('POST /projects/:id/hooks with job_events: a running pipeline’s jobs report each change from then on', async () => {
    const r = await listen();
    const fx = hookedWorld([]);
    const made = await call(fx, 'POST', `${SHOP}/hooks`, 'maint', {
      url: r.url,
      push_events: false,
      job_events: true,
    });
    expect(made.status).toBe(201);
    fx.clock.advance(12_000);
    await deliveries(fx.clock).settled();
    expect(events(fx)).toEqual([
      ['Job Hook', 'running'],
      ['Job Hook', 'success'],
      ['Job Hook', 'pending'],
      ['Job Hook', 'running'],
    ]);
    const bodies = r.received.map((x) => x.body as Record<string, any>);
    const done = bodies.find((b) => b.build_name === 'compile' && b.build_status === 'success')!;
    expect(Object.keys(done)).toEqual([
      'object_kind',
      'ref',
      'tag',
      'before_sha',
      'sha',
      'build_id',
      'build_name',
      'build_stage',
      'build_status',
      'build_created_at',
      'build_started_at',
      'build_finished_at',
      'build_duration',
      'build_allow_failure',
      'build_failure_reason',
      'pipeline_id',
      'runner',
      'project_id',
      'project_name',
      'user',
      'commit',
      'repository',
      'environment',
    ]);
    expect(done).toMatchObject({
      object_kind: 'build',
      ref: 'master',
      build_stage: 'build',
      build_created_at: '2021-03-01 12:00:00 UTC',
      build_started_at: '2021-03-01 12:00:00 UTC',
      build_finished_at: '2021-03-01 12:00:10 UTC',
      build_duration: 10,
      build_failure_reason: null,
      pipeline_id: 8,
      project_name: 'acme / shop',
      user: { username: 'dev' },
      commit: { id: 8, status: 'running', author_name: 'Dev User' },
      environment: null,
    });
    const running = bodies.find((b) => b.build_name === 'compile' && b.build_status === 'running')!;
    expect([running.build_finished_at, running.build_duration]).toEqual([null, null]);
    expect(r.received.every((x) => x.headers['x-gitlab-event'] === 'Job Hook')).toBe(true);
  });

  it('POST /projects/:id/pipeline: each job’s Job Hook as created, then the first stage’s as pending', async () => {
    const r = await listen();
    const fx = hookedWorld([]);
    await call(fx, 'POST', `${SHOP}/hooks`, 'maint', { url: r.url, push_events: false, job_events: true });
    const made = await call(fx, 'POST', `${SHOP}/pipeline`, 'dev', { ref: 'master' });
    expect(made.status).toBe(201);
    await deliveries(fx.clock).settled();
    const mine = deliveries(fx.clock)
      .list()
      .map((d) => d.request.body as Record<string, any>)
      .filter((b) => b.pipeline_id === 9)
      .map((b) => `${b.build_name} ${b.build_status}`);
    expect(mine).toEqual(['build created', 'build pending', 'test created', 'deploy created']);
  });

  it('a deploying job’s Deployment Hooks: running and success, with the job', async () => {
    const r = await listen();
    const fx = hookedWorld([]);
    await call(fx, 'POST', `${SHOP}/hooks`, 'maint', {
      url: r.url,
      push_events: false,
      deployment_events: true,
    });
    fx.clock.advance(40_000);
    await deliveries(fx.clock).settled();
    expect(events(fx)).toEqual([
      ['Deployment Hook', 'running'],
      ['Deployment Hook', 'success'],
    ]);
    const stage = await jobId(fx, 'stage');
    const [, success] = r.received.map((x) => x.body as Record<string, any>);
    expect(Object.keys(success!)).toEqual([
      'object_kind',
      'status',
      'status_changed_at',
      'deployable_id',
      'deployable_url',
      'environment',
      'project',
      'short_sha',
      'user',
      'user_url',
      'commit_url',
      'commit_title',
    ]);
    expect(success).toMatchObject({
      object_kind: 'deployment',
      status: 'success',
      status_changed_at: '2021-03-01 12:00:35 UTC',
      deployable_id: stage,
      deployable_url: `http://localhost/acme/shop/-/jobs/${stage}`,
      environment: 'staging',
      project: { path_with_namespace: 'acme/shop' },
      user: { username: 'dev' },
      user_url: 'http://localhost/dev',
    });
    expect(success!.commit_url).toMatch(/^http:\/\/localhost\/acme\/shop\/-\/commit\/[0-9a-f]{40}$/);
  });

  it('POST and PUT /projects/:id/deployments: a Deployment Hook of the status set', async () => {
    const r = await listen();
    const fx = hookedWorld([{ url: 'http://127.0.0.1:1/x', push_events: false }]);
    await call(fx, 'POST', `${SHOP}/hooks`, 'maint', {
      url: r.url,
      push_events: false,
      deployment_events: true,
    });
    const made = await call(fx, 'POST', `${SHOP}/deployments`, 'dev', {
      environment: 'review/x',
      sha: 'c'.repeat(40),
      ref: 'master',
      tag: false,
      status: 'running',
    });
    const id = ((await body(made)) as { id: number }).id;
    fx.clock.advance(5000);
    await call(fx, 'PUT', `${SHOP}/deployments/${id}`, 'maint', { status: 'failed' });
    await deliveries(fx.clock).settled();
    expect(events(fx)).toEqual([
      ['Deployment Hook', 'running'],
      ['Deployment Hook', 'failed'],
    ]);
    expect(r.received.map((x) => x.body)).toEqual([
      expect.objectContaining({
        status: 'running',
        deployable_id: null,
        deployable_url: null,
        short_sha: 'cccccccc',
        user: expect.objectContaining({ username: 'dev' }),
      }),
      expect.objectContaining({ status: 'failed', status_changed_at: '2021-03-01 12:00:05 UTC' }),
    ]);
  });
});

describe('delivery: a pipeline from build to release', () => {
  it('three stages on an advancing clock, a growing log, a played deploy, a deployment and a release: the hooks hear it all in order', async () => {
    const r = await listen();
    // Release Hooks are a setting of the UI in 13.12: this hook has it from the scenario.
    const fx = hookedWorld([{ url: `${r.url}?releases`, push_events: false, releases_events: true }]);
    const hook = await call(fx, 'POST', `${SHOP}/hooks`, 'maint', {
      url: r.url,
      push_events: false,
      pipeline_events: true,
      job_events: true,
      deployment_events: true,
    });
    expect(hook.status).toBe(201);
    const compile = await jobId(fx, 'compile');
    const trace = async () => (await call(fx, 'GET', `${SHOP}/jobs/${compile}/trace`, 'dev')).text();

    // The log grows as the job runs: half its lines at half its time, then all with the ending.
    fx.clock.advance(5000);
    const half = await trace();
    expect(half).toContain('one\ntwo\n');
    expect(half).not.toContain('three');
    fx.clock.advance(35_000);
    const whole = await trace();
    expect(whole).toContain('one\ntwo\nthree\nfour\n');
    expect(whole).toMatch(/Job succeeded\n$/);
    const pipeline = await body(await call(fx, 'GET', `${SHOP}/pipelines/8`, 'dev'));
    expect([pipeline.status, pipeline.finished_at]).toEqual(['success', '2021-03-01T12:00:35.000Z']);

    // The manual deploy to production, played by a maintainer.
    const ship = await jobId(fx, 'ship');
    expect((await call(fx, 'POST', `${SHOP}/jobs/${ship}/play`, 'maint')).status).toBe(200);
    fx.clock.advance(6000);
    const env = await body(await call(fx, 'GET', `${SHOP}/environments/2`, 'dev'));
    expect(env).toMatchObject({
      name: 'production',
      last_deployment: { id: 2, status: 'success', deployable: { id: ship, status: 'success' } },
    });

    // The release of the tag the pipeline shipped.
    const release = await call(fx, 'POST', `${SHOP}/releases`, 'maint', {
      tag_name: 'v1.0',
      description: 'Shipped',
    });
    expect(release.status).toBe(201);
    await deliveries(fx.clock).settled();

    const jobName = new Map<unknown, string>();
    for (const name of ['compile', 'unit', 'stage', 'ship']) jobName.set(await jobId(fx, name), name);
    const seen = deliveries(fx.clock)
      .list()
      .map((d) => {
        const b = d.request.body as Record<string, any>;
        const what =
          b.object_kind === 'build'
            ? jobName.get(b.build_id)
            : (b.environment ?? b.tag ?? b.object_attributes?.id);
        return `${d.request.headers['X-Gitlab-Event']} ${what} ${d.action}`;
      });
    expect(seen).toEqual([
      'Job Hook compile running',
      'Job Hook compile success',
      'Job Hook unit pending',
      'Job Hook unit running',
      'Job Hook unit success',
      'Job Hook stage pending',
      'Job Hook stage running',
      'Deployment Hook staging running',
      // The manual job waits as soon as its stage starts.
      'Job Hook ship manual',
      'Job Hook stage success',
      'Deployment Hook staging success',
      'Pipeline Hook 8 success',
      // Played: the pipeline runs again.
      'Pipeline Hook 8 running',
      'Job Hook ship pending',
      'Job Hook ship running',
      'Deployment Hook production running',
      'Job Hook ship success',
      'Deployment Hook production success',
      'Pipeline Hook 8 success',
      'Release Hook v1.0 create',
    ]);
    // The receiver got every one of them (the log's order; the network may reorder what arrives).
    expect(r.received.length).toBe(seen.length);
    expect(
      deliveries(fx.clock)
        .list()
        .every((d) => d.status === 'delivered'),
    ).toBe(true);
    const rel = r.received.find((x) => x.headers['x-gitlab-event'] === 'Release Hook')!;
    expect(rel.path).toBe('/hook?releases');
    expect(rel.body).toMatchObject({
      object_kind: 'release',
      action: 'create',
      tag: 'v1.0',
      name: 'v1.0',
      description: 'Shipped',
      url: 'http://localhost/acme/shop/-/releases/v1.0',
      assets: {
        count: 4,
        links: [],
        sources: expect.arrayContaining([expect.objectContaining({ format: 'zip' })]),
      },
      project: { path_with_namespace: 'acme/shop' },
    });
  });
});
