/**
 * The job and deployment events of a pipeline that moves on the instance clock. The platform sends a
 * Job Hook on each change of a job's status (and one as `created` when the job is made), and a
 * Deployment Hook when the job's deployment starts running and when it finishes. The watcher reads the
 * jobs at each tick and compares them with what it last saw; when the clock jumped over several
 * changes, each one is reported, in the order the job went through them.
 */
import type { PipelineRecord, PlatformState } from '../../core/state.js';
import { iget, tget } from '../../core/table.js';
import { liveBuilds, type BuildRecord, type LiveBuild } from '../ci/builds.js';
import { deploymentFromJob } from '../deployments/model.js';
import type { DeploymentRecord } from '../deployments/store.js';
import type { JobState } from './payloads-ci.js';

/** One reported change: the job in that status, and its deployment's change with it, if any. */
export interface JobStep {
  build: BuildRecord;
  job: JobState;
  deployment?: { record: DeploymentRecord; status: string; at: string };
}

const WAITING = ['created', 'pending', 'running'] as const;

/** The statuses a job passes through from `from` (undefined: not seen yet) to `to`. */
export function statusPath(from: string | undefined, to: string): string[] {
  if (from === to) return [];
  const start = from === undefined ? -1 : Math.max(0, WAITING.indexOf(from as (typeof WAITING)[number]));
  const path: string[] = [];
  const upTo = (i: number) => {
    for (let k = start + 1; k <= i; k++) path.push(WAITING[k]!);
  };
  if ((WAITING as readonly string[]).includes(to)) upTo(WAITING.indexOf(to as (typeof WAITING)[number]));
  else if (to === 'success' || to === 'failed') {
    upTo(2);
    path.push(to);
  } else {
    // Skipped, manual and canceled come straight from where the job was.
    if (from === undefined) path.push('created');
    path.push(to);
  }
  return path;
}

/** The job as it stood in a status it went through on its way to `l`. */
function stateAt(status: string, l: LiveBuild): JobState {
  if (status === 'created' || status === 'pending' || status === 'manual' || status === 'skipped')
    return { status, started_at: null, finished_at: null };
  if (status === 'running') return { status, started_at: l.started_at, finished_at: null };
  return { status, started_at: l.started_at, finished_at: l.finished_at };
}

const DEPLOYMENT_HOOKED: ReadonlySet<string> = new Set(['running', 'success', 'failed', 'canceled']);

/**
 * The changes of the pipeline's jobs since `seen` (job id -> status last reported), which it updates.
 * Jobs of earlier attempts that were replaced are reported up to the status they were left in.
 */
export function jobSteps(
  st: PlatformState,
  pl: PipelineRecord,
  now: number,
  seen: Map<number, string>,
): JobStep[] {
  const builds = pl.builds ?? [];
  const live = liveBuilds(builds, pl.run_at, now);
  // When each stage could start: its jobs that wait (manual) or are skipped took that status then.
  const ready = new Map<number, number>();
  builds.forEach((b, i) => {
    const end = live[i]!.finished_at;
    if (b.retried || end === null) return;
    for (const x of builds)
      if (x.stage_idx > b.stage_idx)
        ready.set(x.stage_idx, Math.max(ready.get(x.stage_idx) ?? 0, Date.parse(end)));
  });
  const steps: (JobStep & { ms: number; n: number })[] = [];
  builds.forEach((b, i) => {
    const l = live[i]!;
    const path = statusPath(seen.get(b.id), l.status);
    if (!path.length) return;
    seen.set(b.id, l.status);
    const depId = iget(st.deployments.idx.byJob, String(b.id));
    const dep = depId === undefined ? undefined : tget(st.deployments.records, depId);
    let ms = Date.parse(b.created_at);
    for (const status of path) {
      const job = stateAt(status, l);
      // When the job took the status, so that jobs' changes interleave as they happened.
      const at = status === 'pending' ? l.queued_at : status === 'running' ? l.started_at : job.finished_at;
      if (at !== null) ms = Math.max(ms, Date.parse(at));
      if (status === 'manual' || status === 'skipped') ms = Math.max(ms, ready.get(b.stage_idx) ?? 0);
      const step: JobStep & { ms: number; n: number } = { build: b, job, ms, n: steps.length };
      if (dep && DEPLOYMENT_HOOKED.has(status)) {
        const d = deploymentFromJob(dep, { ...job, queued_at: null, status: status as LiveBuild['status'] });
        step.deployment = { record: dep, status: d.status, at: d.updated_at };
      }
      steps.push(step);
    }
  });
  return steps
    .sort((x, y) => x.ms - y.ms || x.n - y.n)
    .map(({ build, job, deployment }) => ({ build, job, ...(deployment && { deployment }) }));
}
