/**
 * Deployment records and their rules: creation (by the API, or by a pipeline for each job that names an
 * environment), the state machine the API's updates go through, and the status a job gives its
 * deployment at an instant.
 */
import type { Draft } from 'immer';
import { nextId, type PipelineRecord, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { liveBuilds, type BuildRecord, type LiveBuild } from '../ci/builds.js';
import { createEnvironment, environmentErrors } from '../environments/model.js';
import { createDeploymentRef } from '../repository/keep.js';
import type { DeploymentRecord, DeploymentStatus } from './store.js';

type S = Draft<PlatformState>;

export interface NewDeployment {
  project_id: number;
  environment_id: number;
  ref: string;
  tag: boolean;
  sha: string;
  user_id: number | null;
  deployable_id: number | null;
  status: DeploymentStatus;
  created_at: string;
  updated_at?: string;
  finished_at?: string | null;
}

export function createDeployment(st: S, d: NewDeployment): number {
  const id = nextId(st, 'deployments');
  const key = String(d.project_id);
  const iid = (iget(st.deployments.idx.iids, key) ?? 0) + 1;
  iset(st.deployments.idx.iids, key, iid);
  const rec: DeploymentRecord = {
    id,
    iid,
    project_id: d.project_id,
    environment_id: d.environment_id,
    ref: d.ref,
    tag: d.tag,
    sha: d.sha,
    user_id: d.user_id,
    deployable_id: d.deployable_id,
    status: d.status,
    created_at: d.created_at,
    updated_at: d.updated_at ?? d.created_at,
    finished_at: d.finished_at ?? null,
  };
  tset(st.deployments.records, id, rec);
  madd(st.deployments.idx.byProject, key, id);
  madd(st.deployments.idx.byEnvironment, String(d.environment_id), id);
  if (d.deployable_id !== null) iset(st.deployments.idx.byJob, String(d.deployable_id), id);
  // `after_create :create_ref`: `refs/environments/<slug>/deployments/<iid>` at the deployed commit.
  const env = tget(st.environments.records, d.environment_id);
  if (env) createDeploymentRef(st, d.project_id, env.slug, iid, d.sha);
  return id;
}

/** `find_or_create_by_name`: the environment's id, or null when that name cannot be an environment's. */
export function environmentNamed(st: S, projectId: number, name: string, now: string): number | null {
  const found = iget(st.environments.idx.names, `${projectId}:${name}`);
  if (found !== undefined) return found;
  const fields = { name, external_url: null };
  if (Object.keys(environmentErrors(st, projectId, fields)).length) return null;
  return createEnvironment(st, projectId, fields, now);
}

/**
 * `Gitlab::Ci::Pipeline::Seed::Deployment`: a job that names an environment gets a deployment in
 * `created` when it is created (the environment too, when the project has none of that name). The
 * deployment's user is the job's creator, kept when somebody else plays the job, as on the platform.
 */
export function deployBuild(st: S, pipeline: PipelineRecord, b: BuildRecord): void {
  if (b.environment === undefined) return;
  const envId = environmentNamed(st, pipeline.project_id, b.environment, b.created_at);
  if (envId === null) return;
  createDeployment(st, {
    project_id: pipeline.project_id,
    environment_id: envId,
    ref: pipeline.ref,
    tag: pipeline.tag,
    sha: pipeline.sha,
    user_id: b.user_id,
    deployable_id: b.id,
    status: 'created',
    created_at: b.created_at,
  });
}

export function deleteDeployment(st: S, id: number): void {
  const d = tget(st.deployments.records, id);
  if (!d) return;
  mremove(st.deployments.idx.byProject, String(d.project_id), id);
  mremove(st.deployments.idx.byEnvironment, String(d.environment_id), id);
  if (d.deployable_id !== null) idelete(st.deployments.idx.byJob, String(d.deployable_id));
  tdelete(st.deployments.records, id);
}

/** `has_many :deployments, dependent: :destroy` of an environment. */
export function deleteEnvironmentDeployments(st: S, environmentId: number): void {
  for (const id of mget(st.deployments.idx.byEnvironment, String(environmentId))) deleteDeployment(st, id);
}

/** Removes a project's deployments (`deleteProject` cascades through this). */
export function deleteProjectDeployments(st: S, projectId: number): void {
  for (const id of mget(st.deployments.idx.byProject, String(projectId))) deleteDeployment(st, id);
  idelete(st.deployments.idx.iids, String(projectId));
}

/** The project's deployments in id order. */
export const projectDeployments = (st: PlatformState, projectId: number): DeploymentRecord[] =>
  mget(st.deployments.idx.byProject, String(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.deployments.records, id)!);

/** What the clock makes of a deployment. */
export interface LiveDeployment {
  status: DeploymentStatus;
  updated_at: string;
  finished_at: string | null;
}

/** The deployment's job, with the pipeline it runs in. */
export function deployableOf(
  st: PlatformState,
  d: DeploymentRecord,
): { pipeline: PipelineRecord; build: BuildRecord } | undefined {
  if (d.deployable_id === null) return undefined;
  const pid = iget(st.ciJobs.byId, String(d.deployable_id));
  const pipeline = pid === undefined ? undefined : tget(st.pipelines, pid);
  const build = pipeline?.builds?.find((b) => b.id === d.deployable_id);
  return build && pipeline && { pipeline, build };
}

/**
 * The job's transitions as its deployment's events (`Ci::Build`'s `after_transition`s): running runs it,
 * success succeeds, failed drops, canceled cancels, skipped skips; until the job runs the deployment
 * stays `created`, a manual job waiting included.
 */
export function deploymentFromJob(d: DeploymentRecord, l: LiveBuild): LiveDeployment {
  switch (l.status) {
    case 'running':
      return { status: 'running', updated_at: l.started_at ?? d.updated_at, finished_at: null };
    case 'success':
    case 'failed':
    case 'canceled': {
      const at = l.finished_at ?? d.updated_at;
      return { status: l.status, updated_at: at, finished_at: at };
    }
    case 'skipped':
      return { status: 'skipped', updated_at: d.updated_at, finished_at: null };
    default:
      return { status: 'created', updated_at: d.updated_at, finished_at: null };
  }
}

/** Deployments at one clock reading: each pipeline's jobs are worked out once. */
export class LiveDeployments {
  readonly #jobs = new Map<number, Map<number, LiveBuild>>();
  constructor(
    readonly st: PlatformState,
    readonly now: number,
  ) {}

  job(pipeline: PipelineRecord, build: BuildRecord): LiveBuild {
    let m = this.#jobs.get(pipeline.id);
    if (!m) {
      const builds = pipeline.builds ?? [];
      const live = liveBuilds(builds, pipeline.run_at, this.now);
      m = new Map(builds.map((b, i) => [b.id, live[i]!]));
      this.#jobs.set(pipeline.id, m);
    }
    return m.get(build.id)!;
  }

  of(d: DeploymentRecord): LiveDeployment {
    const ref = deployableOf(this.st, d);
    if (!ref) return { status: d.status, updated_at: d.updated_at, finished_at: d.finished_at };
    return deploymentFromJob(d, this.job(ref.pipeline, ref.build));
  }

  /** `Environment#last_deployment`: the environment's newest successful deployment. */
  lastOf(environmentId: number): DeploymentRecord | undefined {
    const ids = mget(this.st.deployments.idx.byEnvironment, String(environmentId)).sort((a, b) => b - a);
    for (const id of ids) {
      const d = tget(this.st.deployments.records, id)!;
      if (this.of(d).status === 'success') return d;
    }
    return undefined;
  }
}

/** The state machine's events, by the status the API asks for (`Deployment#update_status`). */
const EVENT: Record<string, string> = {
  running: 'run',
  success: 'succeed',
  failed: 'drop',
  canceled: 'cancel',
};

/**
 * Whether the event may fire from `from`: `run` only from `created`; `succeed`, `drop` and `cancel`
 * from any other status than their own.
 */
export function transitionAllowed(from: DeploymentStatus, to: DeploymentStatus): boolean {
  if (to === 'running') return from === 'created';
  return from !== to;
}

/** state_machines' error for an event that cannot fire. */
export const transitionError = (to: string) => ({
  status: [`cannot transition via "${EVENT[to] ?? to}"`],
});

/** Fires the event: the status, `updated_at`, and `finished_at` on a finish (`before_transition`). */
export function setDeploymentStatus(st: S, id: number, to: DeploymentStatus, now: string): void {
  const d = tget(st.deployments.records, id)!;
  d.status = to;
  d.updated_at = now;
  if (to === 'success' || to === 'failed' || to === 'canceled') d.finished_at = now;
}

/**
 * A pipeline is deleted: its jobs' deployments stay, with the status they had then (`deployable` is
 * null from now on, as the platform's dangling `deployable_id` reads).
 */
export function keepJobDeployments(st: S, pipeline: PipelineRecord, now: number): void {
  const live = new LiveDeployments(st as PlatformState, now);
  for (const b of pipeline.builds ?? []) {
    const id = iget(st.deployments.idx.byJob, String(b.id));
    const d = id === undefined ? undefined : tget(st.deployments.records, id);
    if (!d) continue;
    const l = live.of(d);
    Object.assign(d, { status: l.status, updated_at: l.updated_at, finished_at: l.finished_at });
  }
}
