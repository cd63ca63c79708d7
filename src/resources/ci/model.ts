/**
 * CI records: project variables and pipelines, their validation as the platform's models do it, and the
 * pipeline clock. Shared by the API, scenario loading and project deletion.
 */
import type { Draft } from 'immer';
import {
  nextId,
  type PipelineRecord,
  type PipelineStatus,
  type PlatformState,
  type VariableRecord,
} from '../../core/state.js';
import { idelete, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { CANCELABLE, liveRun, settleBuilds, type BuildRecord } from './builds.js';
import { addJobToken, removeJobToken } from './job-tokens.js';
import { removeRefs } from './refs.js';
import { deployBuild } from '../deployments/model.js';

type S = Draft<PlatformState>;

export const PIPELINE_STATUSES = [
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
] as const satisfies readonly PipelineStatus[];

/** A pipeline's run length when nobody gave one, in seconds. */
export const DEFAULT_RUN_SECONDS = 60;

export const BLANK_SHA = '0000000000000000000000000000000000000000';

// ---------------------------------------------------------------------------------------------------
// Variables

const KEY_FORMAT = /^[a-zA-Z0-9_]+$/;
const KEY_MESSAGE = "can contain only letters, digits and '_'.";
/** `Ci::Maskable::REGEX`: one line of at least 8 characters of the Base64 alphabet plus `@:.~`. */
const MASKABLE = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/;
const SCOPE_FORMAT = /^[a-zA-Z0-9_/${}. \-*]+$/;
const SCOPE_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces";

export const variablesKey = (projectId: number) => `p${projectId}`;

/** The project's variables, in id order. */
export function projectVariables(st: PlatformState, projectId: number): VariableRecord[] {
  return mget(st.idx.variablesBy, variablesKey(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.variables, id)!);
}

export type VariableInput = Omit<VariableRecord, 'id' | 'project_id'>;

/**
 * `Ci::Variable` validations, in the model's order (key, masked value, environment scope, then key
 * uniqueness per project and scope): the errors hash, empty when valid. `self` is the variable being
 * updated, which does not collide with itself.
 */
export function variableErrors(
  v: VariableInput,
  siblings: readonly Pick<VariableRecord, 'id' | 'key' | 'environment_scope'>[],
  self?: number,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (v.key === '') add('key', "can't be blank");
  if (v.key.length > 255) add('key', 'is too long (maximum is 255 characters)');
  if (!KEY_FORMAT.test(v.key)) add('key', KEY_MESSAGE);
  if (v.masked && !MASKABLE.test(v.value)) add('value', 'is invalid');
  if (v.environment_scope === '') add('environment_scope', "can't be blank");
  if (!SCOPE_FORMAT.test(v.environment_scope)) add('environment_scope', SCOPE_MESSAGE);
  if (siblings.some((o) => o.id !== self && o.key === v.key && o.environment_scope === v.environment_scope))
    add('key', `(${v.key}) has already been taken`);
  return errors;
}

export function createVariable(st: S, projectId: number, v: VariableInput): number {
  const id = nextId(st, 'variables');
  tset(st.variables, id, { id, project_id: projectId, ...v });
  madd(st.idx.variablesBy, variablesKey(projectId), id);
  return id;
}

export function deleteVariable(st: S, id: number): void {
  const v = tget(st.variables, id);
  if (!v) return;
  mremove(st.idx.variablesBy, variablesKey(v.project_id), id);
  tdelete(st.variables, id);
}

/** `Ci::PipelineVariable` key validation, as the messages a failed pipeline save reports. */
export function pipelineVariableProblems(vars: readonly { key: string }[]): string[] {
  const out: string[] = [];
  for (const v of vars) {
    if (v.key === '') out.push("Variables key can't be blank");
    if (v.key.length > 255) out.push('Variables key is too long (maximum is 255 characters)');
    if (!KEY_FORMAT.test(v.key)) out.push(`Variables key ${KEY_MESSAGE}`);
  }
  return [...new Set(out)];
}

// ---------------------------------------------------------------------------------------------------
// Pipelines

export type NewPipeline = Omit<PipelineRecord, 'id'>;

export function createPipeline(st: S, p: NewPipeline): number {
  const id = nextId(st, 'pipelines');
  // Job ids are the instance's: jobs brought along (an import) are numbered again.
  const builds = p.builds?.map((b) => ({ ...b, id: nextId(st, 'builds') }));
  tset(st.pipelines, id, { id, ...p, ...(builds && { builds }) });
  madd(st.idx.pipelinesBy, String(p.project_id), id);
  const saved = tget(st.pipelines, id)!;
  for (const b of saved.builds ?? []) {
    iset(st.ciJobs.byId, String(b.id), id);
    addJobToken(st, b);
    deployBuild(st, saved, b);
  }
  return id;
}

/** Adds a job to a pipeline (a retry), under a new id. */
export function addBuild(st: S, pipelineId: number, b: Omit<BuildRecord, 'id'>): BuildRecord {
  const id = nextId(st, 'builds');
  const p = tget(st.pipelines, pipelineId)!;
  (p.builds ??= []).push({ ...b, id });
  iset(st.ciJobs.byId, String(id), pipelineId);
  const added = p.builds[p.builds.length - 1]!;
  addJobToken(st, added);
  deployBuild(st, p, added);
  return added;
}

export function deletePipeline(st: S, id: number): void {
  const p = tget(st.pipelines, id);
  if (!p) return;
  for (const b of p.builds ?? []) {
    idelete(st.ciJobs.byId, String(b.id));
    removeJobToken(st, b);
  }
  mremove(st.idx.pipelinesBy, String(p.project_id), id);
  tdelete(st.pipelines, id);
}

/** The project's pipeline ids, ascending. */
export const projectPipelineIds = (st: PlatformState, projectId: number) =>
  mget(st.idx.pipelinesBy, String(projectId)).sort((a, b) => a - b);

/** Removes a project's variables, pipelines and refs (`deleteProject` cascades through this). */
export function deleteProjectCi(st: S, projectId: number): void {
  for (const id of mget(st.idx.variablesBy, variablesKey(projectId))) deleteVariable(st, id);
  for (const id of mget(st.idx.pipelinesBy, String(projectId))) deletePipeline(st, id);
  removeRefs(st, projectId);
}

/** What the clock makes of a pipeline at an instant. */
export interface LivePipeline {
  status: PipelineStatus;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  duration: number | null;
}

/** An instant (ms) as the API writes times. */
export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A pipeline as it stands at `now` (ms). A run queued at `run_at` (stored status `pending`) is pending at
 * that instant and running right after it; one stored as `running` runs from `run_at` on. Either started
 * at `run_at` and reaches its outcome `run_seconds` later (finished then, with that duration). Until a
 * rerun starts or finishes, the previous run's timestamps stay, as on the platform, where only those
 * transitions set them.
 */
export function livePipeline(p: PipelineRecord, now: number): LivePipeline {
  if (p.builds && p.run_at !== null) return liveRun(p.builds, p.run_at, p, now);
  if (p.run_at === null)
    return {
      status: p.status,
      started_at: p.started_at,
      finished_at: p.finished_at,
      updated_at: p.updated_at,
      duration: p.duration,
    };
  const t0 = Date.parse(p.run_at);
  if (now <= t0 && p.status === 'pending')
    return {
      status: 'pending',
      started_at: p.started_at,
      finished_at: p.finished_at,
      updated_at: p.run_at,
      duration: p.duration,
    };
  const end = t0 + p.run_seconds * 1000;
  if (now < end)
    return {
      status: 'running',
      started_at: p.run_at,
      finished_at: p.finished_at,
      updated_at: p.run_at,
      duration: p.duration,
    };
  return {
    status: p.outcome,
    started_at: p.run_at,
    finished_at: iso(end),
    updated_at: iso(end),
    duration: p.run_seconds,
  };
}

const FINISHED: ReadonlySet<PipelineStatus> = new Set(['success', 'failed', 'canceled', 'skipped']);

/**
 * Stores the pipeline's state at `now` (its jobs' and its own) and anchors its clock there, so that a
 * write can change what happens from now on. Returns the pipeline as it stood.
 */
export function settlePipeline(p: Draft<PipelineRecord>, now: number): LivePipeline {
  const live = livePipeline(p, now);
  if (!p.builds) return live;
  settleBuilds(p.builds, p.run_at, now);
  Object.assign(p, live);
  if (p.run_at !== null) p.run_at = iso(now);
  return live;
}

/** A new attempt of a job, created now and waiting for its stage (or queued, when `status` says so). */
export const nextAttempt = (
  b: BuildRecord,
  now: number,
  userId: number | null,
  status: 'created' | 'pending' = 'created',
): Omit<BuildRecord, 'id'> => ({
  ...b,
  user_id: userId,
  created_at: iso(now),
  status,
  queued_at: status === 'pending' ? iso(now) : null,
  started_at: null,
  finished_at: null,
  retried: false,
  erased_at: null,
  erased_by: null,
});

/**
 * `POST .../retry`: the pipeline is queued again now (`pending`), whatever its state; each of its jobs
 * runs again as a new attempt.
 */
export function retryPipeline(st: S, id: number, now: number, userId: number | null = null): void {
  const p = tget(st.pipelines, id)!;
  const live = settlePipeline(p, now);
  for (const b of [...(p.builds ?? [])]) {
    if (b.retried) continue;
    b.retried = true;
    addBuild(st, id, nextAttempt(b, now, userId ?? b.user_id));
  }
  Object.assign(p, {
    started_at: live.started_at,
    finished_at: live.finished_at,
    duration: live.duration,
    status: 'pending',
    run_at: iso(now),
    updated_at: iso(now),
  });
}

/**
 * `POST .../cancel`: the pipeline is `canceled`, whatever its state, and its unfinished jobs with it. A
 * pipeline still at work finishes now; one that had finished keeps its times.
 */
export function cancelPipeline(st: S, id: number, now: number): void {
  const p = tget(st.pipelines, id)!;
  const live = livePipeline(p, now);
  if (live.status === 'canceled' && p.run_at === null) return;
  settlePipeline(p, now);
  for (const b of p.builds ?? [])
    if (!b.retried && CANCELABLE.has(b.status))
      Object.assign(b, { status: 'canceled', finished_at: iso(now) });
  const done = FINISHED.has(live.status);
  const running = live.status === 'running' && live.started_at !== null;
  Object.assign(p, {
    status: 'canceled',
    run_at: null,
    started_at: live.started_at,
    finished_at: done ? live.finished_at : iso(now),
    duration: running ? Math.floor((now - Date.parse(live.started_at!)) / 1000) : live.duration,
    updated_at: iso(now),
  });
}
