/**
 * Background work on the instance clock: what the platform does in Sidekiq (an import that finishes, an
 * export that starts), as jobs stored in the state with the clock time they fall due. Before every
 * request the instance runs the jobs that are due, each in a write of its own, in due order; so a frozen
 * clock shows the same world until a test advances it, and a snapshot carries the pending work with it.
 */
import type { Draft } from 'immer';
import type { Fx } from './context.js';
import type { JobRecord, PlatformState } from './state.js';

export type { JobRecord } from './state.js';

/**
 * Does a job's work on the draft. `job.due_ms` is the moment it happens (use it for timestamps, not the
 * clock, so that a clock advanced past several steps still dates each step exactly). A runner that
 * throws changes nothing; the job is then dropped and the error logged. A runner may return what is
 * told once its write has committed (hooks, as a request tells them after its write), run before the
 * next job.
 */
export type JobRunner = (draft: Draft<PlatformState>, job: JobRecord, fx: Fx) => void | (() => void);

/** Queues a job; jobs are kept in due order (ties in the order queued). */
export function scheduleJob(
  d: Draft<PlatformState>,
  kind: string,
  dueMs: number,
  payload: Record<string, unknown> = {},
): number {
  const id = (d.seq.jobs = (d.seq.jobs ?? 0) + 1);
  const job: JobRecord = { id, kind, due_ms: dueMs, payload };
  let i = d.jobs.length;
  while (i > 0 && d.jobs[i - 1]!.due_ms > dueMs) i--;
  d.jobs.splice(i, 0, job);
  return id;
}

/** Drops queued jobs that match (e.g. a deleted project's pending import). */
export function cancelJobs(d: Draft<PlatformState>, match: (job: JobRecord) => boolean): void {
  for (let i = d.jobs.length - 1; i >= 0; i--) if (match(d.jobs[i] as JobRecord)) d.jobs.splice(i, 1);
}

/** Jobs one settle may run: a runner that keeps queueing work already due cannot hang a request. */
const MAX_RUNS = 10_000;

/** Runs every job due at the instance's current clock time. Cheap when none is due. */
export function settleJobs(
  fx: Fx,
  runners: ReadonlyMap<string, JobRunner>,
  logger: (msg: string, err?: unknown) => void,
): void {
  const store = fx.store;
  if (store.state.jobs.length === 0) return;
  const now = fx.clock.ms();
  for (let n = 0; n < MAX_RUNS; n++) {
    const job = store.state.jobs[0];
    if (!job || job.due_ms > now) return;
    const runner = runners.get(job.kind);
    let after: (() => void) | undefined;
    try {
      store.write((d) => {
        d.jobs.shift();
        if (!runner) throw new Error(`no runner for job kind "${job.kind}"`);
        after = runner(d, job, fx) ?? undefined;
      });
    } catch (e) {
      logger(`fauxlab: background job ${job.kind} #${job.id} failed`, e);
      store.write((d) => {
        const i = d.jobs.findIndex((j) => j.id === job.id);
        if (i >= 0) d.jobs.splice(i, 1);
      });
      continue;
    }
    try {
      after?.();
    } catch (e) {
      logger(`fauxlab: background job ${job.kind} #${job.id} could not tell its hooks`, e);
    }
  }
}
