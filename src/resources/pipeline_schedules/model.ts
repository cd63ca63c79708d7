/**
 * Pipeline schedule records and their rules: the model's validations, `next_run_at` as 13.12 computes it
 * (the cron line's next time, moved onto the next run of the hourly schedule worker at minute 19), the
 * background job that starts a schedule's pipelines on the instance clock, and the variables.
 */
import type { Draft } from 'immer';
import { cancelJobs, scheduleJob } from '../../core/jobs.js';
import { nextId, type PlatformState } from '../../core/state.js';
import { madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { defaultBuildSpecs, newBuilds, queueFirstStage } from '../ci/builds.js';
import { BLANK_SHA, createPipeline, DEFAULT_RUN_SECONDS } from '../ci/model.js';
import { findRef } from '../ci/refs.js';
import { nextTime, parseCron, validTimezone } from './cron.js';
import type { ScheduleRecord, ScheduleVariable } from './store.js';

type S = Draft<PlatformState>;

/** The job kind of a schedule's run. */
export const RUN_JOB = 'pipeline-schedule-run';

/** `Settings.cron_jobs['pipeline_schedule_worker']['cron']`: the worker that starts due schedules. */
const WORKER = parseCron('19 * * * *')!;

/**
 * How many runs a schedule catches up when the clock jumps past several of its times: the platform's
 * worker starts one pipeline per due time it sees; past this many, the schedule moves on to its next
 * time after the clock.
 */
export const MAX_CATCH_UP = 50;

export interface ScheduleFields {
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  active: boolean;
}

/** The model's validations, in its order: the errors hash, empty when valid. */
export function scheduleErrors(f: Omit<ScheduleFields, 'active'>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  // `CronValidator` and `CronTimezoneValidator` write their message with a leading space.
  if (!parseCron(f.cron)) add('cron', ' is invalid syntax');
  if (f.cron.trim() === '') add('cron', "can't be blank");
  if (!validTimezone(f.cron_timezone)) add('cron_timezone', ' is invalid syntax');
  if (f.cron_timezone.trim() === '') add('cron_timezone', "can't be blank");
  if (f.ref.trim() === '') add('ref', "can't be blank");
  if (f.description.trim() === '') add('description', "can't be blank");
  return errors;
}

/**
 * `CronSchedulable#set_next_run_at`: the line's next time after `from`, unless the worker runs then
 * too, moved to the worker's first run after it (Fugit's next times are strictly after).
 */
export function nextRunAt(s: Pick<ScheduleRecord, 'cron' | 'cron_timezone'>, from: number): number | null {
  const cron = parseCron(s.cron);
  if (!cron || !validTimezone(s.cron_timezone)) return null;
  const ideal = nextTime(cron, s.cron_timezone, from);
  if (ideal === null) return null;
  if (ideal === nextTime(WORKER, 'UTC', from)) return ideal;
  return nextTime(WORKER, 'UTC', ideal);
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Queues the schedule's next run (dropping any queued before), when it has one and is active. */
function queueNext(st: S, s: ScheduleRecord): void {
  cancelJobs(st, (j) => j.kind === RUN_JOB && j.payload.schedule_id === s.id && j.payload.play !== true);
  if (!s.active || s.next_run_at === null) return;
  scheduleJob(st, RUN_JOB, Date.parse(s.next_run_at), { schedule_id: s.id, at: s.next_run_at, behind: 0 });
}

export function createSchedule(
  st: S,
  projectId: number,
  f: ScheduleFields,
  ownerId: number | null,
  now: number,
  variables: ScheduleVariable[] = [],
): number {
  const id = nextId(st, 'pipeline_schedules');
  const rec: ScheduleRecord = {
    id,
    project_id: projectId,
    ...f,
    owner_id: ownerId,
    next_run_at: iso(nextRunAt(f, now)),
    created_at: iso(now)!,
    updated_at: iso(now)!,
    variables,
    pipeline_ids: [],
  };
  tset(st.pipelineSchedules.records, id, rec);
  madd(st.pipelineSchedules.idx.byProject, String(projectId), id);
  queueNext(st, tget(st.pipelineSchedules.records, id)!);
  return id;
}

/** A save: the changes, `next_run_at` from now again (`before_save`), the next run queued anew. */
export function updateSchedule(
  st: S,
  id: number,
  ch: Partial<ScheduleFields> & { owner_id?: number },
  now: number,
): void {
  const s = tget(st.pipelineSchedules.records, id)!;
  Object.assign(s, ch);
  s.next_run_at = iso(nextRunAt(s, now));
  s.updated_at = iso(now)!;
  queueNext(st, s);
}

export function deleteSchedule(st: S, id: number): void {
  const s = tget(st.pipelineSchedules.records, id);
  if (!s) return;
  cancelJobs(st, (j) => j.kind === RUN_JOB && j.payload.schedule_id === id);
  mremove(st.pipelineSchedules.idx.byProject, String(s.project_id), id);
  tdelete(st.pipelineSchedules.records, id);
}

export function deleteProjectSchedules(st: S, projectId: number): void {
  for (const id of mget(st.pipelineSchedules.idx.byProject, String(projectId))) deleteSchedule(st, id);
}

export const projectSchedules = (st: PlatformState, projectId: number): ScheduleRecord[] =>
  mget(st.pipelineSchedules.idx.byProject, String(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.pipelineSchedules.records, id)!);

/** `POST .../play`: a run now, by the player, that leaves the schedule's next time as it is. */
export function queuePlay(st: S, id: number, userId: number, now: number): void {
  scheduleJob(st, RUN_JOB, now, { schedule_id: id, play: true, user_id: userId });
}

/**
 * Starts the schedule's pipeline at `at` (ms) on its ref, by `userId`, as `Ci::CreatePipelineService`
 * does with the default jobs; nothing when the ref is gone (the platform's save fails then).
 */
function startScheduled(st: S, s: ScheduleRecord, at: number, userId: number | null): void {
  const project = tget(st.projects, s.project_id);
  if (!project) return;
  const branchSha = findRef(st, project, 'branch', s.ref);
  const sha = branchSha ?? findRef(st, project, 'tag', s.ref);
  if (sha === undefined) return;
  const created = iso(at)!;
  const builds = newBuilds(defaultBuildSpecs(DEFAULT_RUN_SECONDS, 'success'), undefined, {
    created_at: created,
    user_id: userId,
  });
  const queueMs = st.ciJobs.queue_ms;
  if (queueMs > 0) queueFirstStage(builds, created);
  const pid = createPipeline(st, {
    project_id: project.id,
    ref: s.ref,
    tag: branchSha === undefined,
    sha,
    before_sha: BLANK_SHA,
    user_id: userId,
    yaml_errors: null,
    coverage: null,
    created_at: created,
    status: 'pending',
    run_at: iso(at + queueMs)!,
    run_seconds: DEFAULT_RUN_SECONDS,
    outcome: 'success',
    started_at: null,
    finished_at: null,
    updated_at: created,
    duration: null,
    variables: [],
    test_suites: null,
    builds,
  });
  s.pipeline_ids.push(pid);
}

/**
 * The run job: a play starts a pipeline; a due time of an active schedule (still the one it was queued
 * for) starts one as the owner, and queues the next time after it. A schedule far behind the clock
 * catches up at most `MAX_CATCH_UP` runs, then continues from the clock.
 */
export function runSchedule(st: S, payload: Record<string, unknown>, due: number, now: number): void {
  const s = tget(st.pipelineSchedules.records, Number(payload.schedule_id));
  if (!s) return;
  if (payload.play === true) {
    startScheduled(st, s, due, typeof payload.user_id === 'number' ? payload.user_id : s.owner_id);
    return;
  }
  if (!s.active || s.next_run_at !== payload.at) return;
  startScheduled(st, s, due, s.owner_id);
  let behind = Number(payload.behind) || 0;
  let next = nextRunAt(s, due);
  if (next !== null && next <= now && ++behind >= MAX_CATCH_UP) {
    next = nextRunAt(s, now);
    behind = 0;
  }
  s.next_run_at = iso(next);
  if (next !== null) scheduleJob(st, RUN_JOB, next, { schedule_id: s.id, at: s.next_run_at, behind });
}

// ---------------------------------------------------------------------------------------------------
// Variables

const KEY_FORMAT = /^[a-zA-Z0-9_]+$/;

/** `Ci::PipelineScheduleVariable` validations: the key's, then its uniqueness in the schedule. */
export function variableErrors(
  s: ScheduleRecord,
  v: ScheduleVariable,
  self?: string,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (v.key === '') add('key', "can't be blank");
  if (v.key.length > 255) add('key', 'is too long (maximum is 255 characters)');
  if (!KEY_FORMAT.test(v.key)) add('key', "can contain only letters, digits and '_'.");
  if (s.variables.some((o) => o.key === v.key && o.key !== self))
    add('key', `(${v.key}) has already been taken`);
  return errors;
}

/** Writes a variable: a new one, or in place of the one with key `self`. */
export function putVariable(st: S, id: number, v: ScheduleVariable, self?: string): void {
  const s = tget(st.pipelineSchedules.records, id)!;
  const i = self === undefined ? -1 : s.variables.findIndex((o) => o.key === self);
  if (i >= 0) s.variables[i] = v;
  else s.variables.push(v);
}

export function deleteVariable(st: S, id: number, key: string): void {
  const s = tget(st.pipelineSchedules.records, id)!;
  s.variables = s.variables.filter((o) => o.key !== key);
}
