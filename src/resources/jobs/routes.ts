/**
 * The jobs API (`lib/api/jobs.rb`, `lib/api/job_artifacts.rb`, and the pipeline's job and bridge lists).
 * Check order, as the platform's: the user (jobs routes `authenticate!`; artifact downloads and pipeline
 * lists only for writes), the project (404), the ability on the project (403), the job (404 `Not found`),
 * then the job's own rules. Every response reads the clock once.
 */
import { findProject } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import {
  apiError,
  badRequest,
  forbidden,
  notFound,
  recordNotFound,
  unauthorized,
} from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, type ParamValue } from '../../core/params.js';
import { pathParam, type ApiRouter } from '../../core/router.js';
import type { PipelineRecord, ProjectRecord } from '../../core/state.js';
import { iget, tget } from '../../core/table.js';
import { authorizeCi, canCi } from '../ci/access.js';
import { jobIdOfToken } from '../ci/job-tokens.js';
import { PIPELINE_STATUSES, livePipeline } from '../ci/model.js';
import { catchUpPipelines, emitEvent } from '../integrations/events.js';
import { artifactsZip, JobRenderer } from './entities.js';
import { runnerJobsRoutes } from './runner-jobs.js';
import {
  cancelJob,
  deleteArtifacts,
  erasable,
  eraseJob,
  findJob,
  hasArtifacts,
  keepArtifacts,
  latestSuccessfulJob,
  playable,
  playJob,
  projectJobs,
  retryable,
  retryJob,
  traceText,
  type JobRef,
} from './model.js';

const project = (c: Ctx) => findProject(c, c.req.param('id') ?? '');

const jobShape = { job_id: p.int().required() };
const pipelineShape = { pipeline_id: p.int().required() };

/**
 * `scope` as the jobs API coerces it (a string, an array, or a hash's values; anything else matches no
 * status), checked against `CommitStatus::AVAILABLE_STATUSES`.
 */
function scopeFilter(raw: ParamValue | undefined): ReadonlySet<string> | null {
  if (raw === undefined) return null;
  const list: unknown[] =
    typeof raw === 'string'
      ? [raw]
      : Array.isArray(raw)
        ? raw
        : raw !== null && typeof raw === 'object' && !(raw instanceof File)
          ? Object.values(raw)
          : ['unknown'];
  if (list.length === 0) return null;
  const known: readonly string[] = PIPELINE_STATUSES;
  if (list.some((s) => typeof s !== 'string' || !known.includes(s)))
    throw apiError(400, 'Scope contains invalid value(s)');
  return new Set(list as string[]);
}

function job(c: Ctx, proj: ProjectRecord, id: number): JobRef {
  const ref = findJob(state(c), proj.id, id);
  if (!ref) throw recordNotFound('no job with this id in the project');
  return ref;
}

/** `user_project.all_pipelines.find`. */
function pipelineOf(c: Ctx, proj: ProjectRecord, id: number): PipelineRecord {
  const pl = tget(state(c).pipelines, id);
  if (!pl || pl.project_id !== proj.id) throw recordNotFound('no pipeline with this id in the project');
  return pl;
}

function listJobs(c: Ctx, proj: ProjectRecord, refs: JobRef[], r = new JobRenderer(c)): Response {
  const scope = scopeFilter(c.get('params').scope);
  const shown = scope ? refs.filter((x) => scope.has(r.live.of(x).status)) : refs;
  return paginate(c, shown, (x) => r.full(x, proj));
}

/** A job's entity after a write, at the instant the write used. */
function sendJob(c: Ctx, proj: ProjectRecord, id: number, status: 200 | 201, now: number): Response {
  const ref = findJob(state(c), proj.id, id)!;
  return c.json(new JobRenderer(c, now).full(ref, proj), status);
}

/** `Artifacts::Path#valid?`: no NUL byte, and nothing that climbs out of the archive. */
const validPath = (path: string) => !path.includes('\0') && !path.split('/').includes('..');

const MIME: Record<string, string> = {
  txt: 'text/plain',
  log: 'text/plain',
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'application/javascript',
  png: 'image/png',
  jpg: 'image/jpeg',
  svg: 'image/svg+xml',
  zip: 'application/zip',
  gz: 'application/gzip',
};

/** One file of the archive as Workhorse sends it: by extension, an attachment; Go's 404 when absent. */
function sendEntry(c: Ctx, ref: JobRef, path: string): Response {
  const file = ref.build.artifacts.find((f) => f.path === path);
  if (!file)
    return c.body('404 page not found\n', 404, {
      'Content-Type': 'text/plain; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
    });
  const base = path.slice(path.lastIndexOf('/') + 1);
  const ext = base.includes('.') ? base.slice(base.lastIndexOf('.') + 1).toLowerCase() : '';
  return c.body(new TextEncoder().encode(file.content), 200, {
    'Content-Type': MIME[ext] ?? 'application/octet-stream',
    'Content-Disposition': `attachment; filename="${base.replace(/"/g, '\\"')}"`,
  });
}

/** `present_carrierwave_file!` of the archive: 404 without one. */
function sendArchive(c: Ctx, ref: JobRef | undefined, now: number, r: JobRenderer): Response {
  if (!ref || !hasArtifacts(ref.build, r.live.of(ref), now)) throw notFound();
  return c.body(artifactsZip(ref), 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': `attachment; filename="artifacts.zip"; filename*=UTF-8''artifacts.zip`,
    'Content-Transfer-Encoding': 'binary',
  });
}

const refShape = { job: p.str().required() };

/**
 * The job a request's job token stands for (`current_authenticated_job`), or null for other
 * credentials. The token is good only while its job runs: 401 otherwise, as for an unknown token.
 */
function authenticatedJob(c: Ctx): JobRef | null {
  const token = c.get('viewer').token;
  if (token?.kind !== 'job') return null;
  const st = state(c);
  const id = jobIdOfToken(token.name);
  const pid = id === undefined ? undefined : iget(st.ciJobs.byId, String(id));
  const pl = pid === undefined ? undefined : tget(st.pipelines, pid);
  const ref = pl && findJob(st, pl.project_id, id!);
  if (!ref || new JobRenderer(c).live.of(ref).status !== 'running') throw unauthorized();
  return ref;
}

/** `latest_successful_build_for_ref!`: a record 404 when there is none. */
function jobForRef(c: Ctx, proj: ProjectRecord, refName: string, name: string, r: JobRenderer): JobRef {
  const found = latestSuccessfulJob(
    state(c),
    proj.id,
    refName,
    name,
    r.now,
    (x) => r.live.of(x),
    (pl) => livePipeline(pl, r.now).status,
  );
  if (!found) throw recordNotFound(`no successful job ${name} with artifacts for this ref`);
  return found;
}

export function jobsRoutes(r: ApiRouter): void {
  runnerJobsRoutes(r);
  // `GET /job`: the job whose token authenticates the request; other credentials find no job.
  r.get('/job', { auth: 'required', jobToken: true }, (c) => {
    const ref = authenticatedJob(c);
    if (!ref) throw notFound('Job');
    const proj = tget(state(c).projects, ref.pipeline.project_id)!;
    return c.json(new JobRenderer(c).full(ref, proj));
  });

  // ---- Pipelines' jobs and bridges (the pipelines API: reads need no user on public projects)
  r.get(
    '/projects/:id/pipelines/:pipeline_id/jobs',
    { params: { ...paginationParams, ...pipelineShape, include_retried: p.bool().default(false) } },
    (c, prm) => {
      const proj = project(c);
      authorizeCi(c, proj, 'read_pipeline');
      const pl = pipelineOf(c, proj, prm.pipeline_id);
      const builds = (pl.builds ?? []).filter((b) => prm.include_retried || !b.retried);
      return listJobs(
        c,
        proj,
        builds.map((build) => ({ pipeline: pl, build })),
      );
    },
  );

  r.get(
    '/projects/:id/pipelines/:pipeline_id/bridges',
    { params: { ...paginationParams, ...pipelineShape } },
    (c, prm) => {
      const proj = project(c);
      authorizeCi(c, proj, 'read_pipeline');
      pipelineOf(c, proj, prm.pipeline_id);
      scopeFilter(c.get('params').scope);
      // Bridges are the jobs that trigger other pipelines; fauxlab's pipelines have none.
      return paginate(c, [], () => null);
    },
  );

  // ---- Artifacts by ref and job name (before `:job_id`, which `artifacts` would otherwise fill)
  r.get(
    '/projects/:id/jobs/artifacts/:ref_name{.+}/download',
    { params: refShape, jobToken: true },
    (c, prm) => {
      authenticatedJob(c);
      const proj = project(c);
      authorizeCi(c, proj, 'read_pipeline');
      const rr = new JobRenderer(c);
      return sendArchive(c, jobForRef(c, proj, c.req.param('ref_name') ?? '', prm.job, rr), rr.now, rr);
    },
  );

  r.get(
    '/projects/:id/jobs/artifacts/:ref_name{.+}/raw/:artifact_path{.+}',
    { params: { ...refShape, artifact_path: p.str() } },
    (c, prm) => {
      const proj = project(c);
      authorizeCi(c, proj, 'read_pipeline');
      const rr = new JobRenderer(c);
      const ref = jobForRef(c, proj, c.req.param('ref_name') ?? '', prm.job, rr);
      const path = pathParam(c, 'artifact_path');
      if (!validPath(path)) throw badRequest();
      return sendEntry(c, ref, path);
    },
  );

  // ---- Jobs of a project (`authenticate!` first)
  r.get('/projects/:id/jobs', { auth: 'required', params: paginationParams }, (c) => {
    const proj = project(c);
    authorizeCi(c, proj, 'read_pipeline');
    return listJobs(c, proj, projectJobs(state(c), proj.id));
  });

  r.get('/projects/:id/jobs/:job_id', { auth: 'required', params: jobShape }, (c, prm) => {
    const proj = project(c);
    authorizeCi(c, proj, 'read_pipeline');
    const rr = new JobRenderer(c);
    return c.json(rr.full(job(c, proj, prm.job_id), proj));
  });

  r.get('/projects/:id/jobs/:job_id/trace', { auth: 'required', params: jobShape }, (c, prm) => {
    const proj = project(c);
    authorizeCi(c, proj, 'read_pipeline');
    const ref = job(c, proj, prm.job_id);
    const rr = new JobRenderer(c);
    return c.body(traceText(ref.build, rr.live.of(ref), rr.now, rr.runnerOf(ref, proj)), 200, {
      'Content-Type': 'text/plain',
      'Content-Disposition': `infile; filename="${ref.build.id}.log"`,
    });
  });

  r.post('/projects/:id/jobs/:job_id/cancel', { params: jobShape }, (c, prm) => {
    const proj = project(c);
    authorizeCi(c, proj, 'update_pipeline');
    const ref = job(c, proj, prm.job_id);
    const now = c.get('fx').clock.ms();
    catchUpPipelines(c);
    write(c, (d) => cancelJob(d, ref, now));
    emitEvent(c, { kind: 'pipeline', id: ref.pipeline.id });
    return sendJob(c, proj, ref.build.id, 201, now);
  });

  r.post('/projects/:id/jobs/:job_id/retry', { params: jobShape }, (c, prm) => {
    const proj = project(c);
    authorizeCi(c, proj, 'update_pipeline');
    const ref = job(c, proj, prm.job_id);
    const now = c.get('fx').clock.ms();
    if (!retryable(ref.build, new JobRenderer(c, now).live.of(ref))) throw forbidden('Job is not retryable');
    catchUpPipelines(c);
    const id = write(c, (d) => retryJob(d, ref, now, c.get('viewer').user!.id));
    emitEvent(c, { kind: 'pipeline', id: ref.pipeline.id });
    return sendJob(c, proj, id, 201, now);
  });

  r.post('/projects/:id/jobs/:job_id/erase', { params: jobShape }, (c, prm) => {
    const proj = project(c);
    authorizeCi(c, proj, 'update_pipeline');
    const ref = job(c, proj, prm.job_id);
    const user = c.get('viewer').user!;
    // `erase_build`: maintainers, and developers for their own jobs.
    if (!canCi(c, proj, 'admin_build') && ref.build.user_id !== user.id) throw forbidden();
    const now = c.get('fx').clock.ms();
    if (!erasable(ref.build, new JobRenderer(c, now).live.of(ref))) throw forbidden('Job is not erasable!');
    write(c, (d) => eraseJob(d, ref, now, user.id));
    return sendJob(c, proj, ref.build.id, 201, now);
  });

  r.post('/projects/:id/jobs/:job_id/play', { params: jobShape }, (c, prm) => {
    const proj = project(c);
    authorizeCi(c, proj, 'read_pipeline');
    const ref = job(c, proj, prm.job_id);
    authorizeCi(c, proj, 'update_pipeline');
    const now = c.get('fx').clock.ms();
    const live = new JobRenderer(c, now).live.of(ref);
    if (!playable(ref.build, live)) throw badRequest('Unplayable Job');
    catchUpPipelines(c);
    write(c, (d) => playJob(d, ref, live, now, c.get('viewer').user!.id));
    emitEvent(c, { kind: 'pipeline', id: ref.pipeline.id });
    return sendJob(c, proj, ref.build.id, 200, now);
  });

  // ---- Artifacts of one job (`authenticate_non_get!`)
  r.get('/projects/:id/jobs/:job_id/artifacts', { params: jobShape, jobToken: true }, (c, prm) => {
    authenticatedJob(c);
    const proj = project(c);
    authorizeCi(c, proj, 'read_pipeline');
    const ref = job(c, proj, prm.job_id);
    const rr = new JobRenderer(c);
    return sendArchive(c, ref, rr.now, rr);
  });

  r.post('/projects/:id/jobs/:job_id/artifacts/keep', { params: jobShape }, (c, prm) => {
    const proj = project(c);
    authorizeCi(c, proj, 'update_pipeline');
    const ref = job(c, proj, prm.job_id);
    const now = c.get('fx').clock.ms();
    if (!hasArtifacts(ref.build, new JobRenderer(c, now).live.of(ref), now)) throw notFound();
    write(c, (d) => keepArtifacts(d, ref));
    return sendJob(c, proj, ref.build.id, 200, now);
  });

  r.delete('/projects/:id/jobs/:job_id/artifacts', { params: jobShape }, (c, prm) => {
    const proj = project(c);
    authorizeCi(c, proj, 'admin_build');
    const ref = job(c, proj, prm.job_id);
    write(c, (d) => deleteArtifacts(d, ref));
    return c.body(null, 204);
  });

  r.get(
    '/projects/:id/jobs/:job_id/artifacts/:artifact_path{.+}',
    { params: { ...jobShape, artifact_path: p.str() } },
    (c, prm) => {
      const proj = project(c);
      authorizeCi(c, proj, 'read_pipeline');
      const ref = job(c, proj, prm.job_id);
      const rr = new JobRenderer(c);
      if (!hasArtifacts(ref.build, rr.live.of(ref), rr.now)) throw notFound();
      const path = pathParam(c, 'artifact_path');
      if (!validPath(path)) throw badRequest();
      return sendEntry(c, ref, path);
    },
  );
}
