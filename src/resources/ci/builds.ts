/**
 * A pipeline's jobs (the platform's `Ci::Build`) and the clock that moves them. The jobs live in their
 * pipeline's record; while the pipeline's `run_at` is set, each job's state at an instant is worked out
 * from what was stored at `run_at` (the anchor), as `Ci::PipelineProcessing::AtomicProcessingService`
 * would have moved it: a stage's jobs are processed once every earlier stage is complete, by their
 * `when` and the earlier stages' composite status; an enqueued job is pending, then runs for its
 * `run_seconds` and ends with its `outcome`. Any write to a job first stores the states of the moment
 * (`settleBuilds`) and moves the anchor there, so the clock never has to replay history.
 */
import type { PipelineStatus } from '../../core/state.js';

export type BuildStatus = PipelineStatus;
export type BuildWhen = 'on_success' | 'on_failure' | 'always' | 'manual';

export interface ArtifactFile {
  path: string;
  content: string;
}

/** What a job does, as a scenario (or the default set) describes it. */
export interface BuildSpec {
  name: string;
  stage: string;
  when: BuildWhen;
  allow_failure: boolean;
  /** How long the job runs once a runner takes it, in seconds. */
  run_seconds: number;
  outcome: 'success' | 'failed';
  /** The script's output; the trace wraps it in the runner's first and last lines. */
  log: string;
  /** The files of the job's artifacts archive; empty when it has none. */
  artifacts: ArtifactFile[];
  artifacts_expire_at: string | null;
  /** The environment the job deploys to: it gets a deployment there (src/resources/deployments/). */
  environment?: string;
}

export interface BuildRecord extends BuildSpec {
  id: number;
  stage_idx: number;
  user_id: number | null;
  created_at: string;
  /** The job's state at the pipeline's anchor (or for good, when the pipeline has none). */
  status: BuildStatus;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** Replaced by a retry: kept, but no longer counted. */
  retried: boolean;
  erased_at: string | null;
  erased_by: number | null;
}

declare module '../../core/state.js' {
  interface PipelineRecord {
    /** The pipeline's jobs in creation order; absent for pipelines saved before jobs existed. */
    builds?: BuildRecord[];
  }
}

/** What the clock makes of one job at an instant. */
export interface LiveBuild {
  status: BuildStatus;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** `Ci::HasStatus::COMPLETED_STATUSES`. */
export const COMPLETED: ReadonlySet<BuildStatus> = new Set(['success', 'failed', 'canceled', 'skipped']);
/** `Ci::HasStatus::CANCELABLE_STATUSES`. */
export const CANCELABLE: ReadonlySet<BuildStatus> = new Set([
  'running',
  'waiting_for_resource',
  'preparing',
  'pending',
  'created',
  'scheduled',
]);
const WITH_WARNINGS: ReadonlySet<BuildStatus> = new Set(['failed', 'canceled']);
const IGNORED: ReadonlySet<BuildStatus> = new Set(['manual', 'scheduled']);

type Key = BuildStatus | 'success_with_warnings' | 'ignored';

/**
 * `Gitlab::Ci::Status::Composite` with allow_failure: a failed or canceled job allowed to fail counts as
 * a success with warnings, a manual or scheduled one is ignored. Null for no jobs at all.
 */
export function composite(
  jobs: readonly { status: BuildStatus; allow_failure: boolean }[],
): BuildStatus | null {
  if (jobs.length === 0) return null;
  const set = new Set<Key>();
  for (const j of jobs)
    set.add(
      j.allow_failure && WITH_WARNINGS.has(j.status)
        ? 'success_with_warnings'
        : j.allow_failure && IGNORED.has(j.status)
          ? 'ignored'
          : j.status,
    );
  const only = (...names: Key[]) => {
    const n = names.filter((x) => set.has(x)).length;
    return n > 0 && n === set.size;
  };
  const any = (...names: Key[]) => names.some((x) => set.has(x));
  if (only('skipped', 'ignored')) return 'skipped';
  if (only('success', 'skipped', 'success_with_warnings', 'ignored')) return 'success';
  if (only('created', 'success_with_warnings', 'ignored')) return 'created';
  if (only('preparing', 'success_with_warnings', 'ignored')) return 'preparing';
  if (only('canceled', 'success', 'skipped', 'success_with_warnings', 'ignored')) return 'canceled';
  if (only('pending', 'created', 'skipped', 'success_with_warnings', 'ignored')) return 'pending';
  if (any('running', 'pending')) return 'running';
  if (any('waiting_for_resource')) return 'waiting_for_resource';
  if (any('manual')) return 'manual';
  if (any('scheduled')) return 'scheduled';
  if (any('preparing')) return 'preparing';
  if (any('created')) return 'running';
  return 'failed';
}

/** `Ci::ProcessBuildService#valid_statuses_for_build`: whether a job runs after its earlier stages. */
function runsAfter(when: BuildWhen, prior: BuildStatus): boolean {
  if (when === 'on_failure') return prior === 'failed';
  if (when === 'always') return prior === 'success' || prior === 'failed' || prior === 'skipped';
  return prior === 'success' || prior === 'skipped';
}

const stored = (b: BuildRecord): LiveBuild => ({
  status: b.status,
  queued_at: b.queued_at,
  started_at: b.started_at,
  finished_at: b.finished_at,
});

interface Plan {
  queued: number;
  start: number;
  end: number;
  /** Taken by a runner already: running from `start` itself. */
  taken?: boolean;
}

/** A job on its way: pending until `start` (inclusive, unless taken), running until `end`, then its outcome. */
function planned(b: BuildRecord, plan: Plan, now: number): LiveBuild {
  if (now < plan.start || (now === plan.start && !plan.taken))
    return { status: 'pending', queued_at: iso(plan.queued), started_at: null, finished_at: null };
  if (now < plan.end)
    return { status: 'running', queued_at: iso(plan.queued), started_at: iso(plan.start), finished_at: null };
  return {
    status: b.outcome,
    queued_at: iso(plan.queued),
    started_at: iso(plan.start),
    finished_at: iso(plan.end),
  };
}

/** The jobs that count: the newest attempt of each. */
export const latestIndexes = (builds: readonly BuildRecord[]) =>
  builds.flatMap((b, i) => (b.retried ? [] : [i]));

/**
 * Each job's state at `now` (ms), in the order of `builds`. `anchor` is the pipeline's `run_at` (null:
 * nothing moves). Jobs stored as pending start at the anchor; running ones end `run_seconds` after they
 * started; created ones wait for their stage.
 */
export function liveBuilds(builds: readonly BuildRecord[], anchor: string | null, now: number): LiveBuild[] {
  const out = builds.map(stored);
  if (anchor === null) return out;
  const a = Date.parse(anchor);
  const latest = latestIndexes(builds);
  const stages = [...new Set(latest.map((i) => builds[i]!.stage_idx))].sort((x, y) => x - y);
  const prior: { status: BuildStatus; allow_failure: boolean }[] = [];
  let ready = a;
  let blocked = false;
  for (const s of stages) {
    let end = ready;
    const here: { status: BuildStatus; allow_failure: boolean }[] = [];
    for (const i of latest) {
      const b = builds[i]!;
      if (b.stage_idx !== s) continue;
      let plan: Plan | undefined;
      if (b.status === 'created') {
        if (blocked) {
          here.push(b);
          continue;
        }
        const before = composite(prior) ?? 'success';
        let status: BuildStatus | undefined;
        if (!runsAfter(b.when, before)) status = 'skipped';
        else if (b.when === 'manual') status = 'manual';
        if (status) {
          out[i] = { ...out[i]!, status };
          here.push({ status, allow_failure: b.allow_failure });
          continue;
        }
        plan = { queued: ready, start: ready, end: ready + b.run_seconds * 1000 };
      } else if (b.status === 'pending') {
        const queued = b.queued_at === null ? a : Date.parse(b.queued_at);
        plan = { queued, start: a, end: a + b.run_seconds * 1000 };
      } else if (b.status === 'running' && b.started_at !== null) {
        const start = Date.parse(b.started_at);
        const queued = b.queued_at === null ? start : Date.parse(b.queued_at);
        plan = { queued, start, end: start + b.run_seconds * 1000, taken: true };
      }
      if (!plan) {
        here.push(b);
        continue;
      }
      out[i] = planned(b, plan, now);
      end = Math.max(end, plan.end);
      here.push({ status: b.outcome, allow_failure: b.allow_failure });
    }
    prior.push(...here);
    // Later stages wait for this one to end, and for the stages so far to be complete at all.
    if (now < end || !COMPLETED.has(composite(prior) ?? 'success')) blocked = true;
    ready = end;
  }
  return out;
}

/** What the clock makes of a pipeline with jobs, from its jobs. */
export interface LiveRun {
  status: BuildStatus;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  duration: number | null;
}

/** Pipeline states from which the move to `running` sets `started_at` (`Ci::Pipeline` state machine). */
const RESTARTS: ReadonlySet<BuildStatus> = new Set([
  'created',
  'waiting_for_resource',
  'preparing',
  'pending',
]);

/** `Gitlab::Ci::Pipeline::Duration`: the time some job was running, overlaps counted once (seconds). */
function runDuration(periods: [number, number][]): number {
  const sorted = [...periods].sort((x, y) => x[0] - y[0]);
  let total = 0;
  let cur: [number, number] | undefined;
  for (const [s, e] of sorted) {
    if (!cur || s > cur[1]) {
      if (cur) total += cur[1] - cur[0];
      cur = [s, e];
    } else cur[1] = Math.max(cur[1], e);
  }
  if (cur) total += cur[1] - cur[0];
  return Math.floor(total / 1000);
}

/**
 * The pipeline's status (the composite of its latest jobs) and times at `now`, for a pipeline that runs
 * (`anchor` set). `before` is what was stored at the anchor: the status it left, and the times of an
 * earlier run, which stand until this run sets them, as the platform's transitions do.
 */
export function liveRun(
  builds: readonly BuildRecord[],
  anchor: string,
  before: {
    status: BuildStatus;
    started_at: string | null;
    finished_at: string | null;
    duration: number | null;
    updated_at: string;
  },
  now: number,
): LiveRun {
  const live = liveBuilds(builds, anchor, now);
  const a = Date.parse(anchor);
  const latest = latestIndexes(builds).map((i) => ({ b: builds[i]!, l: live[i]! }));
  const status =
    composite(latest.map((x) => ({ status: x.l.status, allow_failure: x.b.allow_failure }))) ?? 'skipped';
  const starts = latest.flatMap((x) => (x.l.started_at ? [Date.parse(x.l.started_at)] : []));
  const newStarts = starts.filter((t) => t >= a);
  const started =
    (before.started_at === null || RESTARTS.has(before.status)) && newStarts.length
      ? iso(Math.min(...newStarts))
      : before.started_at;
  if (COMPLETED.has(status)) {
    const ends = latest.flatMap((x) => (x.l.finished_at ? [Date.parse(x.l.finished_at)] : []));
    const finished = iso(Math.max(a, ...ends));
    const periods = latest.flatMap((x): [number, number][] =>
      x.l.started_at && x.l.finished_at ? [[Date.parse(x.l.started_at), Date.parse(x.l.finished_at)]] : [],
    );
    return {
      status,
      started_at: started,
      finished_at: finished,
      updated_at: finished,
      duration: started === null ? null : runDuration(periods),
    };
  }
  // Running: since this run started; waiting (pending, or blocked on a manual job): since the last change.
  const settled = latest.flatMap((x) => (x.l.finished_at ? [Date.parse(x.l.finished_at)] : []));
  const updated =
    status === 'running' && newStarts.length
      ? Math.min(...newStarts)
      : Math.max(Math.min(a, Date.parse(before.updated_at)), ...settled.filter((t) => t >= a));
  return {
    status,
    started_at: started,
    finished_at: before.finished_at,
    updated_at: iso(updated),
    duration: before.duration,
  };
}

/** Stores every job's state at `now`, so that the pipeline can be anchored there. */
export function settleBuilds(builds: BuildRecord[], anchor: string | null, now: number): void {
  const live = liveBuilds(builds, anchor, now);
  builds.forEach((b, i) => Object.assign(b, live[i]));
}

const spec = (name: string, run: number, outcome: 'success' | 'failed', log: string): BuildSpec => ({
  name,
  stage: name,
  when: 'on_success',
  allow_failure: false,
  run_seconds: run,
  outcome,
  log,
  artifacts: [],
  artifacts_expire_at: null,
});

/**
 * The default jobs: a third of the run each (the last takes the remainder), and the pipeline's outcome
 * on the last job, so that a described run length and outcome are the pipeline's own.
 */
export function defaultBuildSpecs(runSeconds: number, outcome: 'success' | 'failed'): BuildSpec[] {
  const third = Math.floor(runSeconds / 3);
  return [
    spec('build', third, 'success', '$ make build\nBuilding...\nBuild finished\n'),
    spec('test', third, 'success', '$ make test\nRunning tests...\nAll tests passed\n'),
    spec(
      'deploy',
      runSeconds - 2 * third,
      outcome,
      outcome === 'success'
        ? '$ make deploy\nDeploying...\nDeployed\n'
        : '$ make deploy\nDeploying...\nDeploy failed\n',
    ),
  ];
}

/** Stage order: `stages` when given, else the order of first appearance among the jobs. */
export function stageOrder(specs: readonly { stage: string }[], stages?: readonly string[]): string[] {
  const order = [...(stages ?? [])];
  for (const s of specs) if (!order.includes(s.stage)) order.push(s.stage);
  return order;
}

/**
 * Jobs from their specs, all in one state (`created` for a run about to start), numbered when the
 * pipeline is saved.
 */
export function newBuilds(
  specs: readonly BuildSpec[],
  stages: readonly string[] | undefined,
  at: { created_at: string; user_id: number | null; status?: BuildStatus },
): BuildRecord[] {
  const order = stageOrder(specs, stages);
  return specs.map((s) => ({
    id: 0,
    ...s,
    artifacts: s.artifacts.map((f) => ({ ...f })),
    stage_idx: order.indexOf(s.stage),
    user_id: at.user_id,
    created_at: at.created_at,
    status: at.status ?? 'created',
    queued_at: null,
    started_at: null,
    finished_at: null,
    retried: false,
    erased_at: null,
    erased_by: null,
  }));
}

/**
 * Queues the first stage's jobs that run at once (`pending` since `at`): they start when the pipeline's
 * clock starts, so a pipeline anchored later than `at` waits that long for a runner.
 */
export function queueFirstStage(builds: BuildRecord[], at: string): void {
  const first = Math.min(...builds.map((b) => b.stage_idx));
  for (const b of builds)
    if (b.stage_idx === first && (b.when === 'on_success' || b.when === 'always'))
      Object.assign(b, { status: 'pending', queued_at: at });
}
