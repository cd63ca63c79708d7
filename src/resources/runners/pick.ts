/**
 * Which runner took a job: `Ci::Runner#can_pick?` (`Gitlab::Ci::Matching::RunnerMatcher`) over the runners
 * the project may use when the job started. fauxlab keeps no queue history, so the record of the moment is
 * worked out from what holds now: a runner registered by then, assigned to the project (or its groups, or
 * the instance's while the project allows shared runners), that takes untagged jobs (fauxlab's jobs carry no
 * tags) and, when `ref_protected`, only jobs of protected branches. Of several, the oldest runner.
 */
import type { PipelineRecord, PlatformState, ProjectRecord } from '../../core/state.js';
import { protectionsOf } from '../repository/access.js';
import { projectRunners } from './model.js';
import type { RunnerRecord } from './store.js';

/** `Ci::Build#protected?`: set when the pipeline was made, from its ref's protection. */
export const jobProtected = (st: PlatformState, pipeline: PipelineRecord): boolean =>
  !pipeline.tag && protectionsOf(st, pipeline.project_id, pipeline.ref).length > 0;

/** `RunnerMatcher#matches?` for a job without tags. */
function canPick(r: RunnerRecord, isProtected: boolean): boolean {
  if (r.access_level === 'ref_protected' && !isProtected) return false;
  return r.run_untagged;
}

export function runnerOfJob(
  st: PlatformState,
  project: ProjectRecord,
  pipeline: PipelineRecord,
  startedAt: number,
): RunnerRecord | undefined {
  const shared =
    (project as ProjectRecord & { shared_runners_enabled?: boolean }).shared_runners_enabled !== false;
  let isProtected: boolean | undefined;
  for (const r of projectRunners(st, project)) {
    if (Date.parse(r.created_at) > startedAt) continue;
    if (r.runner_type === 'instance_type' && !shared) continue;
    isProtected ??= jobProtected(st, pipeline);
    if (canPick(r, isProtected)) return r;
  }
  return undefined;
}
