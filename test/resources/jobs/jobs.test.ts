import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, loadScenario, ScenarioError } from '../../../src/index.js';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { crc32 } from '../../../src/resources/jobs/zip.js';
import { receiver } from '../settings/world.js';
import { APP, body, call, jobsFx, jobsWorld, NOW, WEB } from './world.js';

type Job = { id: number; name: string; status: string; [k: string]: unknown };

const jobsOf = async (fx: ReturnType<typeof jobsFx>, pipeline = 8, q = '') =>
  (await body(await call(fx, 'GET', `${WEB}/pipelines/${pipeline}/jobs${q}`, 'dev'))) as Job[];
const states = async (fx: ReturnType<typeof jobsFx>, pipeline = 8) =>
  Object.fromEntries((await jobsOf(fx, pipeline)).map((j) => [j.name, j.status]));
const pipelineStatus = async (fx: ReturnType<typeof jobsFx>, id = 8) =>
  (await body(await call(fx, 'GET', `${WEB}/pipelines/${id}`, 'dev'))).status;
const idOf = async (fx: ReturnType<typeof jobsFx>, name: string) =>
  (await jobsOf(fx)).find((j) => j.name === name)!.id;

/** The entries of a zip archive written without compression: name, and content checked against its CRC. */
function unzipStored(buf: Uint8Array): Record<string, string> {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: Record<string, string> = {};
  let at = 0;
  while (v.getUint32(at, true) === 0x04034b50) {
    const crc = v.getUint32(at + 14, true);
    const size = v.getUint32(at + 18, true);
    const nameLen = v.getUint16(at + 26, true);
    const name = new TextDecoder().decode(buf.subarray(at + 30, at + 30 + nameLen));
    const data = buf.subarray(at + 30 + nameLen, at + 30 + nameLen + size);
    if (crc32(data) !== crc) throw new Error(`bad CRC for ${name}`);
    out[name] = new TextDecoder().decode(data);
    at += 30 + nameLen + size;
  }
  if (v.getUint32(buf.length - 22, true) !== 0x06054b50) throw new Error('no end of central directory');
  return out;
}

describe('jobs: the pipeline clock', () => {
  it('GET /projects/:id/pipelines/:pipeline_id/jobs: the Job entity, fields in the platform order', async () => {
    const fx = jobsFx();
    const [compile] = await jobsOf(fx);
    expect(Object.keys(compile!)).toEqual([
      'id',
      'status',
      'stage',
      'name',
      'ref',
      'tag',
      'coverage',
      'allow_failure',
      'created_at',
      'started_at',
      'finished_at',
      'duration',
      'queued_duration',
      'user',
      'commit',
      'pipeline',
      'web_url',
      'artifacts',
      'runner',
      'artifacts_expire_at',
      'tag_list',
    ]);
    expect(compile).toMatchObject({
      status: 'pending',
      stage: 'build',
      name: 'compile',
      ref: 'master',
      tag: false,
      allow_failure: false,
      created_at: NOW,
      started_at: null,
      user: { username: 'dev' },
      pipeline: { id: 8, status: 'pending' },
      web_url: `http://localhost/acme/web/-/jobs/${compile!.id}`,
    });
  });

  it('jobs move stage by stage; the pipeline status is their composite (allowed failure, manual block)', async () => {
    const fx = jobsFx();
    expect(await states(fx)).toEqual({
      compile: 'pending',
      lint: 'created',
      unit: 'created',
      deploy: 'created',
    });
    fx.clock.advance(1000);
    expect(await states(fx)).toMatchObject({ compile: 'running', lint: 'created' });
    expect(await pipelineStatus(fx)).toBe('running');
    fx.clock.advance(11_000);
    expect(await states(fx)).toEqual({
      compile: 'success',
      lint: 'running',
      unit: 'running',
      deploy: 'created',
    });
    fx.clock.advance(19_000);
    expect(await states(fx)).toEqual({
      compile: 'success',
      lint: 'failed',
      unit: 'success',
      deploy: 'manual',
    });
    // deploy is manual and may not fail: the pipeline is blocked on it.
    expect(await pipelineStatus(fx)).toBe('manual');
    const lint = (await jobsOf(fx)).find((j) => j.name === 'lint')!;
    expect(lint).toMatchObject({
      started_at: '2021-03-01T12:00:10.000Z',
      finished_at: '2021-03-01T12:00:15.000Z',
      duration: 5,
      queued_duration: 0,
    });
  });

  it('POST /projects/:id/jobs/:job_id/play: the manual job runs; the pipeline succeeds', async () => {
    const fx = jobsFx();
    fx.clock.advance(31_000);
    const deploy = await idOf(fx, 'deploy');
    const res = await call(fx, 'POST', `${WEB}/jobs/${deploy}/play`, 'maint');
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ id: deploy, status: 'pending', user: { username: 'maint' } });
    fx.clock.advance(1000);
    expect(await pipelineStatus(fx)).toBe('running');
    fx.clock.advance(5000);
    expect((await states(fx)).deploy).toBe('success');
    expect(await body(await call(fx, 'GET', `${WEB}/pipelines/8`, 'dev'))).toMatchObject({
      status: 'success',
      started_at: NOW,
      finished_at: '2021-03-01T12:00:36.000Z',
      duration: 35,
    });
  });

  it('POST /projects/:id/jobs/:job_id/play: a job that is not manual is 400 Unplayable Job', async () => {
    const fx = jobsFx();
    const res = await call(fx, 'POST', `${WEB}/jobs/${await idOf(fx, 'compile')}/play`, 'dev');
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ message: '400 Bad request - Unplayable Job' });
  });

  it('POST /projects/:id/jobs/:job_id/retry: a new attempt runs; include_retried lists the old one', async () => {
    const fx = jobsFx();
    fx.clock.advance(31_000);
    const lint = await idOf(fx, 'lint');
    const res = await call(fx, 'POST', `${WEB}/jobs/${lint}/retry`, 'dev');
    expect(res.status).toBe(201);
    const again = await body(res);
    expect(again).toMatchObject({ name: 'lint', status: 'pending', user: { username: 'dev' } });
    expect(again.id).toBeGreaterThan(lint);
    expect((await jobsOf(fx)).map((j) => j.id)).not.toContain(lint);
    const all = await jobsOf(fx, 8, '?include_retried=true');
    expect(all.filter((j) => j.name === 'lint').map((j) => [j.id, j.status])).toEqual([
      [lint, 'failed'],
      [again.id, 'pending'],
    ]);
    fx.clock.advance(6000);
    expect((await states(fx)).lint).toBe('failed');
  });

  it('POST /projects/:id/jobs/:job_id/retry: a job still at work is 403 Job is not retryable', async () => {
    const fx = jobsFx();
    const res = await call(fx, 'POST', `${WEB}/jobs/${await idOf(fx, 'compile')}/retry`, 'dev');
    expect(res.status).toBe(403);
    expect(await body(res)).toEqual({ message: '403 Forbidden - Job is not retryable' });
  });

  it('POST /projects/:id/jobs/:job_id/cancel: the job ends now; later stages are skipped', async () => {
    const fx = jobsFx();
    fx.clock.advance(4000);
    const compile = await idOf(fx, 'compile');
    const res = await call(fx, 'POST', `${WEB}/jobs/${compile}/cancel`, 'dev');
    expect(res.status).toBe(201);
    expect(await body(res)).toMatchObject({
      status: 'canceled',
      started_at: NOW,
      finished_at: '2021-03-01T12:00:04.000Z',
      duration: 4,
    });
    fx.clock.advance(60_000);
    expect(await states(fx)).toEqual({
      compile: 'canceled',
      lint: 'skipped',
      unit: 'skipped',
      deploy: 'skipped',
    });
    expect(await pipelineStatus(fx)).toBe('canceled');
    // A finished job stays as it is.
    const again = await call(fx, 'POST', `${WEB}/jobs/${compile}/cancel`, 'dev');
    expect((await body(again)).finished_at).toBe('2021-03-01T12:00:04.000Z');
  });

  it('POST /projects/:id/pipelines/:pipeline_id/cancel: unfinished jobs are canceled with it', async () => {
    const fx = jobsFx();
    fx.clock.advance(12_000);
    await call(fx, 'POST', `${WEB}/pipelines/8/cancel`, 'dev');
    expect(await states(fx)).toEqual({
      compile: 'success',
      lint: 'canceled',
      unit: 'canceled',
      deploy: 'canceled',
    });
  });

  it('POST /projects/:id/pipeline: the default jobs build, test and deploy share the minute', async () => {
    const fx = jobsFx();
    const pl = await body(await call(fx, 'POST', `${APP}/pipeline`, 'dev', { ref: 'master' }));
    fx.clock.advance(60_000);
    const jobs = (await body(await call(fx, 'GET', `${APP}/pipelines/${pl.id}/jobs`, 'dev'))) as Job[];
    expect(jobs.map((j) => [j.name, j.stage, j.status, j.duration])).toEqual([
      ['build', 'build', 'success', 20],
      ['test', 'test', 'success', 20],
      ['deploy', 'deploy', 'success', 20],
    ]);
  });
});

describe('jobs: lists, trace, erase', () => {
  it('GET /projects/:id/jobs: newest first, scope filters by status, an unknown scope is 400', async () => {
    const fx = jobsFx();
    const all = (await body(await call(fx, 'GET', `${WEB}/jobs`, 'dev'))) as Job[];
    expect(all.map((j) => j.id)).toEqual([...all.map((j) => j.id)].sort((a, b) => b - a));
    expect(all).toHaveLength(5);
    const some = (await body(
      await call(fx, 'GET', `${WEB}/jobs?scope[]=pending&scope[]=success`, 'dev'),
    )) as Job[];
    expect(some.map((j) => j.status).sort()).toEqual(['pending', 'success']);
    const one = (await body(await call(fx, 'GET', `${WEB}/jobs?scope=created`, 'dev'))) as Job[];
    expect(one.map((j) => j.name)).toEqual(['deploy', 'unit', 'lint']);
    const bad = await call(fx, 'GET', `${WEB}/jobs?scope[]=pending&scope[]=nope`, 'dev');
    expect(bad.status).toBe(400);
    expect(await body(bad)).toEqual({ message: 'Scope contains invalid value(s)' });
  });

  it('GET /projects/:id/jobs: 401 without a user even on a public project; 403 for a guest of a private one', async () => {
    const fx = jobsFx();
    expect(await body(await call(fx, 'GET', `${WEB}/jobs`))).toEqual({ message: '401 Unauthorized' });
    expect((await call(fx, 'GET', '/api/v4/projects/acme%2Fsite/jobs')).status).toBe(401);
    // `acme/closed` keeps its jobs from non-members (public_jobs off).
    expect((await call(fx, 'GET', '/api/v4/projects/acme%2Fclosed/jobs', 'outsider')).status).toBe(403);
    expect(await body(await call(fx, 'GET', `${WEB}/jobs/9999`, 'dev'))).toEqual({
      message: '404 Not found',
    });
  });

  it('GET /projects/:id/jobs/:job_id/trace: plain text that grows while the job runs', async () => {
    const fx = jobsFx();
    const compile = await idOf(fx, 'compile');
    const trace = async () => {
      const res = await call(fx, 'GET', `${WEB}/jobs/${compile}/trace`, 'dev');
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.headers.get('content-disposition')).toBe(`infile; filename="${compile}.log"`);
      return res.text();
    };
    expect(await trace()).toBe('');
    fx.clock.advance(5000);
    const half = await trace();
    expect(half).toContain('step 2\n');
    expect(half).not.toContain('step 3');
    fx.clock.advance(5000);
    const done = await trace();
    expect(done).toContain('step 4\n');
    expect(done.endsWith('Job succeeded\n')).toBe(true);
  });

  it('POST /projects/:id/jobs/:job_id/erase: trace and artifacts go; unfinished jobs are not erasable', async () => {
    const fx = jobsFx();
    const compile = await idOf(fx, 'compile');
    const early = await call(fx, 'POST', `${WEB}/jobs/${compile}/erase`, 'maint');
    expect(early.status).toBe(403);
    expect(await body(early)).toEqual({ message: '403 Forbidden - Job is not erasable!' });
    fx.clock.advance(10_000);
    // `erase_build`: a developer erases only their own jobs (compile was started by dev).
    expect((await call(fx, 'POST', `${WEB}/jobs/${compile}/erase`, 'rep')).status).toBe(403);
    const res = await call(fx, 'POST', `${WEB}/jobs/${compile}/erase`, 'dev');
    expect(res.status).toBe(201);
    expect(await body(res)).toMatchObject({ artifacts: [], status: 'success' });
    expect(await (await call(fx, 'GET', `${WEB}/jobs/${compile}/trace`, 'dev')).text()).toBe('');
    expect((await call(fx, 'GET', `${WEB}/jobs/${compile}/artifacts`, 'dev')).status).toBe(404);
  });

  it('GET /projects/:id/pipelines/:pipeline_id/bridges: none; 404 for another project’s pipeline', async () => {
    const fx = jobsFx();
    expect(await body(await call(fx, 'GET', `${WEB}/pipelines/8/bridges`, 'dev'))).toEqual([]);
    expect(await body(await call(fx, 'GET', `${WEB}/pipelines/1/bridges`, 'dev'))).toEqual({
      message: '404 Not found',
    });
  });
});

describe('jobs: artifacts', () => {
  it('GET /projects/:id/jobs/:job_id/artifacts: a zip of the files once the job succeeded', async () => {
    const fx = jobsFx();
    const compile = await idOf(fx, 'compile');
    expect(await body(await call(fx, 'GET', `${WEB}/jobs/${compile}/artifacts`, 'dev'))).toEqual({
      message: '404 Not Found',
    });
    fx.clock.advance(10_000);
    const res = await call(fx, 'GET', `${WEB}/jobs/${compile}/artifacts`, 'dev');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="artifacts.zip"/);
    const zip = new Uint8Array(await res.arrayBuffer());
    expect(unzipStored(zip)).toEqual({ 'bin/app.txt': 'hello', 'reports/result.json': '{"ok":true}' });
    const entity = await body(await call(fx, 'GET', `${WEB}/jobs/${compile}`, 'dev'));
    expect(entity.artifacts_file).toEqual({ filename: 'artifacts.zip', size: zip.length });
    expect(entity.artifacts.map((a: { file_type: string }) => a.file_type)).toEqual([
      'archive',
      'metadata',
      'trace',
    ]);
  });

  it('crc32: the check value of the zip polynomial', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('GET /projects/:id/jobs/:job_id/artifacts/*artifact_path: one file; a missing one 404, a climbing path 400', async () => {
    const fx = jobsFx();
    const compile = await idOf(fx, 'compile');
    fx.clock.advance(10_000);
    const res = await call(fx, 'GET', `${WEB}/jobs/${compile}/artifacts/bin/app.txt`, 'dev');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="app.txt"');
    expect(await res.text()).toBe('hello');
    const missing = await call(fx, 'GET', `${WEB}/jobs/${compile}/artifacts/nope.txt`, 'dev');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('404 page not found\n');
    expect((await call(fx, 'GET', `${WEB}/jobs/${compile}/artifacts/a/..%2F..%2Fsecret`, 'dev')).status).toBe(
      400,
    );
  });

  it('GET /projects/:id/jobs/:job_id/artifacts/*artifact_path: a file named .json keeps its name (`format: false`)', async () => {
    const fx = jobsFx();
    const compile = await idOf(fx, 'compile');
    fx.clock.advance(10_000);
    const res = await call(fx, 'GET', `${WEB}/jobs/${compile}/artifacts/reports/result.json`, 'dev');
    expect([res.status, await res.text()]).toEqual([200, '{"ok":true}']);
  });

  it('GET /projects/:id/jobs/artifacts/:ref_name/download: the named job of the ref’s newest successful pipeline', async () => {
    const fx = jobsFx();
    const res = await call(fx, 'GET', `${WEB}/jobs/artifacts/master/download?job=compile`, 'dev');
    expect(res.status).toBe(200);
    expect(unzipStored(new Uint8Array(await res.arrayBuffer()))).toEqual({ 'bin/app.txt': 'v0' });
    const raw = await call(fx, 'GET', `${WEB}/jobs/artifacts/master/raw/bin/app.txt?job=compile`, 'dev');
    expect(await raw.text()).toBe('v0');
    // Only the newest successful pipeline of the ref counts: a newer one without the job hides it.
    await call(fx, 'POST', `${WEB}/pipeline`, 'dev', { ref: 'master' });
    fx.clock.advance(60_000);
    const gone = await call(fx, 'GET', `${WEB}/jobs/artifacts/master/download?job=compile`, 'dev');
    expect(gone.status).toBe(404);
    expect(
      await body(await call(fx, 'GET', `${WEB}/jobs/artifacts/master/download?job=nope`, 'dev')),
    ).toEqual({
      message: '404 Not found',
    });
    expect(await body(await call(fx, 'GET', `${WEB}/jobs/artifacts/master/download`, 'dev'))).toEqual({
      error: 'job is missing',
    });
  });

  it('POST /projects/:id/jobs/:job_id/artifacts/keep and DELETE .../artifacts', async () => {
    const fx = jobsFx();
    const compile = await idOf(fx, 'compile');
    expect((await call(fx, 'POST', `${WEB}/jobs/${compile}/artifacts/keep`, 'dev')).status).toBe(404);
    fx.clock.advance(10_000);
    const kept = await call(fx, 'POST', `${WEB}/jobs/${compile}/artifacts/keep`, 'dev');
    expect(kept.status).toBe(200);
    expect((await body(kept)).artifacts_expire_at).toBeNull();
    expect((await call(fx, 'DELETE', `${WEB}/jobs/${compile}/artifacts`, 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${WEB}/jobs/${compile}/artifacts`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', `${WEB}/jobs/${compile}/artifacts`, 'dev')).status).toBe(404);
    // The trace stays.
    expect(await (await call(fx, 'GET', `${WEB}/jobs/${compile}/trace`, 'dev')).text()).toContain('step 4');
  });
});

describe('jobs: integrations', () => {
  it('POST /projects/:id/jobs/:job_id/play: the pipeline it unblocks notifies chat integrations when it passes', async () => {
    const r = await receiver();
    try {
      const fx = createFauxlab({
        scenario: { ...jobsWorld, settings: { allow_local_requests_from_web_hooks_and_services: true } },
      });
      const put = await call(fx, 'PUT', `${WEB}/services/slack`, 'maint', {
        webhook: r.url,
        pipeline_events: true,
        notify_only_broken_pipelines: false,
      });
      expect(put.status).toBe(200);
      fx.clock.advance(31_000);
      await call(fx, 'POST', `${WEB}/jobs/${await idOf(fx, 'deploy')}/play`, 'dev');
      fx.clock.advance(6000);
      await call(fx, 'GET', `${WEB}/pipelines/8`, 'dev');
      await deliveries(fx.clock).settled();
      expect(r.received.map((x) => x.body.text)).toEqual([
        '<http://localhost/acme/web|acme / web>: Pipeline <http://localhost/acme/web/-/pipelines/8|#8> ' +
          'of branch <http://localhost/acme/web/-/commits/master|master> by Dev User (dev) passed in 00:35',
      ]);
    } finally {
      await r.close();
    }
  });
});

describe('jobs: CI_JOB_TOKEN', () => {
  const tokenOf = async (fx: ReturnType<typeof jobsFx>, id: number) =>
    (await body(await call(fx, 'GET', `/__fauxlab/jobs/${id}/token`))).token as string;
  const withJobToken = (fx: ReturnType<typeof jobsFx>, path: string, token: string) =>
    fx.app.request(path, { headers: { 'JOB-TOKEN': token } });

  it('GET /job: the running job of the token; other credentials find no job', async () => {
    const fx = jobsFx();
    const compile = await idOf(fx, 'compile');
    const token = await tokenOf(fx, compile);
    expect(token).toMatch(/^[0-9a-f]{20}$/);
    fx.clock.advance(1000);
    const res = await withJobToken(fx, '/api/v4/job', token);
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ id: compile, status: 'running', user: { username: 'dev' } });
    expect(await body(await fx.app.request(`/api/v4/job?job_token=${token}`))).toMatchObject({ id: compile });
    expect(await body(await call(fx, 'GET', '/job', 'dev'))).toEqual({ message: '404 Job Not Found' });
    expect((await call(fx, 'GET', '/job')).status).toBe(401);
  });

  it('GET /job: a token is good only while its job runs (401 before and after)', async () => {
    const fx = jobsFx();
    const token = await tokenOf(fx, await idOf(fx, 'compile'));
    expect(await body(await withJobToken(fx, '/api/v4/job', token))).toEqual({ message: '401 Unauthorized' });
    fx.clock.advance(10_000);
    expect((await withJobToken(fx, '/api/v4/job', token)).status).toBe(401);
    expect((await withJobToken(fx, '/api/v4/job', 'f'.repeat(20))).status).toBe(401);
  });

  it('GET /projects/:id/jobs/artifacts/:ref_name/download: a running job downloads with its token as its user', async () => {
    const fx = jobsFx();
    const token = await tokenOf(fx, await idOf(fx, 'compile'));
    fx.clock.advance(1000);
    const res = await withJobToken(fx, `${WEB}/jobs/artifacts/master/download?job=compile`, token);
    expect(res.status).toBe(200);
    expect(unzipStored(new Uint8Array(await res.arrayBuffer()))).toEqual({ 'bin/app.txt': 'v0' });
    // A route that does not take job tokens ignores the header: the project is hidden from anonymous.
    expect((await withJobToken(fx, `${WEB}/pipelines`, token)).status).toBe(404);
  });
});

describe('jobs: queue time', () => {
  it('ci.queue_time: a new pipeline stays pending that long, then runs its full minute', async () => {
    const fx = createFauxlab({ scenario: { ...jobsWorld, ci: { queue_time: '5s' } } });
    const pl = await body(await call(fx, 'POST', `${WEB}/pipeline`, 'dev', { ref: 'master' }));
    expect(pl).toMatchObject({ status: 'pending', updated_at: NOW });
    const get = async () => body(await call(fx, 'GET', `${WEB}/pipelines/${pl.id}`, 'dev'));
    fx.clock.advance(5000);
    expect(await get()).toMatchObject({ status: 'pending', started_at: null, updated_at: NOW });
    fx.clock.advance(1);
    expect(await get()).toMatchObject({ status: 'running', started_at: '2021-03-01T12:00:05.000Z' });
    const [build] = (await body(await call(fx, 'GET', `${WEB}/pipelines/${pl.id}/jobs`, 'dev'))) as Job[];
    expect(build).toMatchObject({ name: 'build', queued_duration: 5 });
    fx.clock.advance(60_000);
    expect(await get()).toMatchObject({
      status: 'success',
      duration: 60,
      finished_at: '2021-03-01T12:01:05.000Z',
    });
  });

  it('ci.queue_time: without it a new pipeline waits 3 s of instance time for a runner', async () => {
    const { ci: _ci, ...noQueue } = jobsWorld;
    const fx = createFauxlab({ scenario: noQueue });
    expect(await body(await call(fx, 'GET', '/__fauxlab/ci'))).toEqual({ queue_time_ms: 3000 });
    const pl = await body(await call(fx, 'POST', `${WEB}/pipeline`, 'dev', { ref: 'master' }));
    const get = async () => body(await call(fx, 'GET', `${WEB}/pipelines/${pl.id}`, 'dev'));
    fx.clock.advance(3000);
    expect(await get()).toMatchObject({ status: 'pending', started_at: null });
    fx.clock.advance(1);
    expect(await get()).toMatchObject({ status: 'running', started_at: '2021-03-01T12:00:03.000Z' });
    expect(exportScenario(fx.state, { now: fx.clock.iso() }).ci).toBeUndefined();
  });

  it('PUT /__fauxlab/ci: sets the queue time; a bad value is 400 and changes nothing', async () => {
    const fx = jobsFx();
    expect(await body(await call(fx, 'GET', '/__fauxlab/ci'))).toEqual({ queue_time_ms: 0 });
    expect(await body(await call(fx, 'PUT', '/__fauxlab/ci', undefined, { queue_time: '2s' }))).toEqual({
      queue_time_ms: 2000,
    });
    const bad = await call(fx, 'PUT', '/__fauxlab/ci', undefined, { queue_time: '2 weeks' });
    expect(bad.status).toBe(400);
    expect(await body(await call(fx, 'GET', '/__fauxlab/ci'))).toEqual({ queue_time_ms: 2000 });
    const pl = await body(await call(fx, 'POST', `${WEB}/pipeline`, 'dev', { ref: 'master' }));
    fx.clock.advance(1500);
    expect((await body(await call(fx, 'GET', `${WEB}/pipelines/${pl.id}`, 'dev'))).status).toBe('pending');
  });
});

describe('jobs: scenario', () => {
  it('projects[].pipelines[].jobs: a run longer than a year, or a path that climbs out, is refused by field', () => {
    let problems: string[] = [];
    try {
      loadScenario({
        projects: [
          {
            path: 'root/app',
            pipelines: [
              {
                jobs: [
                  { name: 'forever', duration: 1e300 },
                  { name: 'sneaky', artifacts: [{ path: '../etc/passwd', content: '' }] },
                ],
              },
            ],
          },
        ],
        users: [{ username: 'root' }],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [];
    }
    expect(problems.join('\n')).toContain('projects[0].pipelines[0].jobs[0].duration');
    expect(problems.join('\n')).toContain('projects[0].pipelines[0].jobs[1].artifacts[0].path');
  });
});
