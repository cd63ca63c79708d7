/**
 * The pipelines API. Statuses follow the instance clock (see `livePipeline`); every response reads the
 * clock once. Check order, as the platform's: writes need a user (401), params (400), the project (404),
 * the pipeline (404 `Not found`), the ability (403), then the ref and the model (400).
 */
import { keepAround } from '../repository/keep.js';
import { findProject } from '../../core/access.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, internalError, notFound, recordNotFound, validationError } from '../../core/errors.js';
import { featureEnabled } from '../../core/features.js';
import { paginate, paginateBytes, paginationParams } from '../../core/pagination.js';
import { p, type ParamValue, type Parsed } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { Draft } from 'immer';
import type { PipelineRecord, PipelineVariable, PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { authorizeCi, canReadPipelineVariables } from './access.js';
import { PipelineRenderer, testReport } from './entities.js';
import {
  BLANK_SHA,
  DEFAULT_RUN_SECONDS,
  PIPELINE_STATUSES,
  cancelPipeline,
  createPipeline,
  deletePipeline,
  pipelineVariableProblems,
  projectPipelineIds,
  projectVariables,
  retryPipeline,
  type LivePipeline,
} from './model.js';
import { defaultBuildSpecs, newBuilds, queueFirstStage, type BuildRecord, type BuildSpec } from './builds.js';
import { findRef, refNames } from './refs.js';
import { ciConfigAt, yamlJobs } from './yaml-pipeline.js';
import { catchUpPipelines, emitEvent } from '../integrations/events.js';
import { keepJobDeployments } from '../deployments/model.js';
import { sendJson } from '../../core/respond.js';

/** The flag behind the test report endpoint, off unless an admin turns it on. */
export const TEST_REPORT_FLAG = 'junit_pipeline_view';

const ORDER_BY = ['id', 'status', 'ref', 'updated_at', 'user_id'] as const;

const listShape = {
  ...paginationParams,
  scope: p.str().values(['running', 'pending', 'finished', 'branches', 'tags']),
  status: p.str().values(PIPELINE_STATUSES),
  ref: p.str(),
  sha: p.str(),
  yaml_errors: p.bool(),
  name: p.str(),
  username: p.str(),
  updated_before: p.datetime(),
  updated_after: p.datetime(),
  order_by: p.str().values(ORDER_BY).default('id'),
  sort: p.str().values(['asc', 'desc']).default('desc'),
};

const pipelineShape = { pipeline_id: p.int().required() };

const createShape = { ref: p.str().required(), variables: p.hashArray() };

const project = (c: Ctx) => findProject(c, c.req.param('id') ?? '');

/** `user_project.ci_pipelines.find(id)`. */
function findPipeline(c: Ctx, projectId: number, id: number): PipelineRecord {
  const pl = tget(state(c).pipelines, id);
  if (!pl || pl.project_id !== projectId) throw recordNotFound('no pipeline with this id in the project');
  return pl;
}

/** Renders a pipeline; after a write, at the instant the write used, so a new pipeline reads `pending`. */
export function sendPipeline(c: Ctx, id: number, status: 200 | 201, now?: number): Response {
  const pl = tget(state(c).pipelines, id)!;
  const proj = tget(state(c).projects, pl.project_id)!;
  return sendJson(new PipelineRenderer(c, now).full(pl, proj), status);
}

/** `finished` scope: what the platform counts as finished there (not `skipped`). */
const FINISHED_SCOPE = new Set(['success', 'failed', 'canceled']);

interface Row {
  pl: PipelineRecord;
  live: LivePipeline;
}

const SORT_KEYS: Record<(typeof ORDER_BY)[number], (x: Row) => string | number> = {
  id: (x) => x.pl.id,
  status: (x) => x.live.status,
  ref: (x) => x.pl.ref,
  updated_at: (x) => Date.parse(x.live.updated_at),
  // NULLs sort last ascending and first descending, as in PostgreSQL.
  user_id: (x) => x.pl.user_id ?? Infinity,
};

function listPipelines(c: Ctx, prm: Parsed<typeof listShape>): Response {
  const st = state(c);
  const proj = project(c);
  authorizeCi(c, proj, 'read_pipeline');
  const r = new PipelineRenderer(c);
  const all = projectPipelineIds(st, proj.id).map((id) => tget(st.pipelines, id)!);
  let rows: Row[] = all.map((pl) => ({ pl, live: r.live(pl) }));

  const scope = prm.scope;
  if (scope === 'running' || scope === 'pending') rows = rows.filter((x) => x.live.status === scope);
  else if (scope === 'finished') rows = rows.filter((x) => FINISHED_SCOPE.has(x.live.status));
  else if (scope === 'branches' || scope === 'tags') {
    // The newest pipeline of each branch (tag) name, among all of the project's pipelines.
    const names = new Set(refNames(st, proj, scope === 'branches' ? 'branch' : 'tag'));
    const latest = new Map<string, number>();
    for (const pl of all) if (names.has(pl.ref)) latest.set(pl.ref, Math.max(latest.get(pl.ref) ?? 0, pl.id));
    const ids = new Set(latest.values());
    rows = rows.filter((x) => ids.has(x.pl.id));
  }
  if (prm.status !== undefined) rows = rows.filter((x) => x.live.status === prm.status);
  if (prm.ref !== undefined) rows = rows.filter((x) => x.pl.ref === prm.ref);
  if (prm.sha !== undefined) rows = rows.filter((x) => x.pl.sha === prm.sha);
  if (prm.name !== undefined || prm.username !== undefined) {
    rows = rows.filter((x) => {
      const u = x.pl.user_id === null ? undefined : tget(st.users, x.pl.user_id);
      if (!u) return false;
      return (
        (prm.name === undefined || u.name === prm.name) &&
        (prm.username === undefined || u.username === prm.username)
      );
    });
  }
  if (prm.yaml_errors !== undefined)
    rows = rows.filter((x) => (x.pl.yaml_errors !== null) === prm.yaml_errors);
  if (prm.updated_before !== undefined) {
    const t = Date.parse(prm.updated_before);
    rows = rows.filter((x) => Date.parse(x.live.updated_at) < t);
  }
  if (prm.updated_after !== undefined) {
    const t = Date.parse(prm.updated_after);
    rows = rows.filter((x) => Date.parse(x.live.updated_at) > t);
  }

  const dir = prm.sort === 'asc' ? 1 : -1;
  const key = SORT_KEYS[prm.order_by];
  const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  rows.sort((a, b) => dir * (cmp(key(a), key(b)) || a.pl.id - b.pl.id));
  return paginateBytes(c, rows, (x) => r.basicBytes(x.pl, proj, x.live));
}

const str = (v: ParamValue | undefined) =>
  v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

export interface PipelineRequest {
  ref: string;
  variables: PipelineVariable[];
  userId: number | null;
  /** `CI_PIPELINE_SOURCE` for the configuration's rules: `api` unless given. */
  source?: string;
}

/**
 * Creates a pipeline for a branch or tag of the project (`Ci::CreatePipelineService` past its ability
 * check): 400 `Reference not found` for any other ref, the model's message for bad variable keys. Returns
 * the new pipeline's id and the instant it was created at. `alongside` writes in the same write, so that
 * the request changes everything or nothing.
 */
export function startPipeline(
  c: Ctx,
  proj: ProjectRecord,
  req: PipelineRequest,
  alongside?: (d: Draft<PlatformState>, now: string) => void,
): { id: number; now: string } {
  const st = state(c);
  const branchSha = findRef(st, proj, 'branch', req.ref);
  const tagSha = branchSha === undefined ? findRef(st, proj, 'tag', req.ref) : undefined;
  const sha = branchSha ?? tagSha;
  if (sha === undefined) throw validationError({ base: ['Reference not found'] });
  // `.gitlab-ci.yml` at the commit, when there is one: its errors refuse the pipeline before anything else.
  let specs = defaultBuildSpecs(DEFAULT_RUN_SECONDS, 'success');
  let stages: string[] | undefined;
  const config = ciConfigAt(st, proj, sha);
  if (config) {
    const vars: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const v of projectVariables(st, proj.id)) vars[v.key] = v.value;
    for (const v of req.variables) vars[v.key] = v.value;
    const jobs = yamlJobs(
      st,
      proj,
      sha,
      config,
      { ref: req.ref, tag: branchSha === undefined, source: req.source ?? 'api' },
      vars,
      c.get('fx').clock.ms(),
    );
    if ('error' in jobs) throw validationError({ base: [jobs.error] });
    ({ specs, stages } = jobs);
  }
  const problems = pipelineVariableProblems(req.variables);
  if (problems.length)
    throw validationError({
      base: [`Failed to persist the pipeline: Validation failed: ${problems.join(', ')}`],
    });
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => {
    alongside?.(d, now);
    return queuePipeline(d, {
      project_id: proj.id,
      ref: req.ref,
      tag: branchSha === undefined,
      sha,
      before_sha: BLANK_SHA,
      user_id: req.userId,
      variables: req.variables,
      specs,
      stages,
      now,
    });
  });
  emitEvent(c, { kind: 'pipeline', id });
  return { id, now };
}

/** What a new pipeline is made of: its ref and commit, who made it, and its jobs. */
export interface NewPipeline {
  project_id: number;
  ref: string;
  tag: boolean;
  sha: string;
  before_sha: string;
  user_id: number | null;
  variables: PipelineVariable[];
  specs: BuildSpec[];
  stages: string[] | undefined;
  now: string;
  /** A merge request's pipeline (`merge_request_event`, its ref `refs/merge-requests/:iid/head`). */
  merge_request_id?: number;
}

/**
 * Writes a new pipeline whose first stage waits for a runner for the instance's queue time, then runs
 * its jobs on the instance clock. Returns its id.
 */
export function queuePipeline(d: Draft<PlatformState>, p: NewPipeline): number {
  const queueMs = d.ciJobs.queue_ms;
  const builds = newBuilds(p.specs, p.stages, { created_at: p.now, user_id: p.user_id });
  if (queueMs > 0) queueFirstStage(builds, p.now);
  return newPipeline(d, p, 'pending', new Date(Date.parse(p.now) + queueMs).toISOString(), builds);
}

/**
 * `Gitlab::Ci::Pipeline::Chain::Skip::SKIP_PATTERN`: a head commit whose message says `[ci skip]` or
 * `[skip ci]` (any case, a space, `_` or `-` between) skips the pipelines of pushes and merge requests.
 */
export const SKIP_PATTERN = /\[(ci[ _-]skip|skip[ _-]ci)\]/i;

/**
 * The pipeline `Chain::Skip` saves (`save_incompleted`, a push's or a merge request's): after the CI
 * file was read and before its workflow rules and jobs, with no job, status `skipped` (the `skip`
 * event, which sets neither `started_at` nor `finished_at`). Returns its id.
 */
export function skipPipeline(d: Draft<PlatformState>, p: Omit<NewPipeline, 'specs' | 'stages'>): number {
  return newPipeline(d, p, 'skipped', null, []);
}

/** The record both make, after `Ci::Pipeline` `after_create :keep_around_commits` (its sha and before_sha). */
function newPipeline(
  d: Draft<PlatformState>,
  p: Omit<NewPipeline, 'specs' | 'stages'>,
  status: 'pending' | 'skipped',
  runAt: string | null,
  builds: BuildRecord[],
): number {
  keepAround(d, p.project_id, [p.sha, p.before_sha]);
  return createPipeline(d, {
    project_id: p.project_id,
    ref: p.ref,
    tag: p.tag,
    sha: p.sha,
    before_sha: p.before_sha,
    user_id: p.user_id,
    yaml_errors: null,
    coverage: null,
    created_at: p.now,
    status,
    run_at: runAt,
    run_seconds: DEFAULT_RUN_SECONDS,
    outcome: 'success',
    started_at: null,
    finished_at: null,
    updated_at: p.now,
    duration: null,
    variables: p.variables,
    test_suites: null,
    builds,
    ...(p.merge_request_id !== undefined && {
      source: 'merge_request_event' as const,
      merge_request_id: p.merge_request_id,
    }),
  });
}

/** `POST /projects/:id/pipeline`: the ref must be a branch or tag of the project. */
function createFromApi(
  c: Ctx,
  proj: ProjectRecord,
  ref: string,
  vars: Record<string, ParamValue>[],
): Response {
  authorizeCi(c, proj, 'create_pipeline');
  const variables: PipelineVariable[] = vars.map((v) => {
    const type = v.variable_type === undefined || v.variable_type === null ? 'env_var' : str(v.variable_type);
    // An unknown enum value raises in the model: the platform answers it with a 500.
    if (type !== 'env_var' && type !== 'file') throw internalError();
    return { key: str(v.key).trim(), value: str(v.value), variable_type: type };
  });
  const { id, now } = startPipeline(c, proj, { ref, variables, userId: c.get('viewer').user!.id });
  return sendPipeline(c, id, 201, Date.parse(now));
}

export function pipelineRoutes(r: ApiRouter): void {
  r.get('/projects/:id/pipelines', { params: listShape }, listPipelines);

  r.post('/projects/:id/pipeline', { params: createShape }, (c, prm) => {
    const proj = project(c);
    return createFromApi(c, proj, prm.ref, prm.variables ?? []);
  });

  // Before `:pipeline_id`, which would take `latest` for an invalid id.
  r.get('/projects/:id/pipelines/latest', { params: { ref: p.str() } }, (c, prm) => {
    const st = state(c);
    const proj = project(c);
    const ref = prm.ref || proj.default_branch;
    let latest: PipelineRecord | undefined;
    for (const id of projectPipelineIds(st, proj.id)) {
      const pl = tget(st.pipelines, id)!;
      if (pl.ref === ref) latest = pl;
    }
    // `authorize! :read_pipeline, nil` when there is none.
    if (!latest) throw forbidden();
    authorizeCi(c, proj, 'read_pipeline');
    return sendPipeline(c, latest.id, 200);
  });

  r.get('/projects/:id/pipelines/:pipeline_id', { params: pipelineShape }, (c, prm) => {
    const proj = project(c);
    const pl = findPipeline(c, proj.id, prm.pipeline_id);
    authorizeCi(c, proj, 'read_pipeline');
    return sendPipeline(c, pl.id, 200);
  });

  r.get('/projects/:id/pipelines/:pipeline_id/variables', { params: pipelineShape }, (c, prm) => {
    const proj = project(c);
    const pl = findPipeline(c, proj.id, prm.pipeline_id);
    if (!canReadPipelineVariables(c, proj, pl)) throw forbidden();
    return paginate(c, pl.variables, (v) =>
      v.variable_type === undefined
        ? { key: v.key, value: v.value }
        : { key: v.key, value: v.value, variable_type: v.variable_type },
    );
  });

  r.get('/projects/:id/pipelines/:pipeline_id/test_report', { params: pipelineShape }, (c, prm) => {
    const proj = project(c);
    if (!featureEnabled(state(c), TEST_REPORT_FLAG, `Project:${proj.id}`))
      throw notFound(undefined, `the ${TEST_REPORT_FLAG} feature flag is off`);
    const pl = findPipeline(c, proj.id, prm.pipeline_id);
    authorizeCi(c, proj, 'read_pipeline');
    return c.json(testReport(pl.test_suites ?? []));
  });

  r.delete('/projects/:id/pipelines/:pipeline_id', { params: pipelineShape }, (c, prm) => {
    const proj = project(c);
    const pl = findPipeline(c, proj.id, prm.pipeline_id);
    authorizeCi(c, proj, 'destroy_pipeline');
    checkUnmodifiedSince(c, new PipelineRenderer(c).live(pl).updated_at);
    const now = c.get('fx').clock.ms();
    write(c, (d) => {
      keepJobDeployments(d, pl, now);
      deletePipeline(d, pl.id);
    });
    return c.body(null, 204);
  });

  // Retry (201, the POST default) and cancel (200, which the platform sets explicitly).
  for (const [action, change, status] of [
    ['retry', retryPipeline, 201],
    ['cancel', cancelPipeline, 200],
  ] as const)
    r.post(`/projects/:id/pipelines/:pipeline_id/${action}`, { params: pipelineShape }, (c, prm) => {
      const proj = project(c);
      const pl = findPipeline(c, proj.id, prm.pipeline_id);
      authorizeCi(c, proj, 'update_pipeline');
      const now = c.get('fx').clock.ms();
      const userId = c.get('viewer').user?.id ?? null;
      catchUpPipelines(c);
      write(c, (d) =>
        change === retryPipeline ? retryPipeline(d, pl.id, now, userId) : change(d, pl.id, now),
      );
      emitEvent(c, { kind: 'pipeline', id: pl.id });
      return sendPipeline(c, pl.id, status, now);
    });
}
