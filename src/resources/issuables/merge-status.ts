/**
 * `detailed_merge_status` (15.6 on): `MergeRequests::Mergeability::DetailedMergeStatusService` over
 * fauxlab's own state. A status not yet checked is `unchecked`, one being checked `checking`; then the
 * first failing `MergeRequest.mergeable_state_checks` (CE's open, draft, broken and discussions checks,
 * EE's approvals after them), the CI check run last: `ci_still_running` while the head pipeline runs,
 * else `ci_must_pass`; `mergeable` when nothing fails.
 */
import { livePipeline } from '../ci/model.js';
import { headPipeline, pipelineActive } from '../ci/mr-pipelines.js';
import { mergeBlocked } from '../../core/merge-checks.js';
import type { PlatformState } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { effectiveMergeStatus, isResolvable } from './model.js';
import { branchHead } from './model/git.js';
import type { MergeRequestRecord } from './store.js';
import { isWip } from './text.js';

export type DetailedMergeStatus =
  | 'unchecked'
  | 'checking'
  | 'not_open'
  | 'draft_status'
  | 'broken_status'
  | 'discussions_not_resolved'
  | 'not_approved'
  | 'ci_still_running'
  | 'ci_must_pass'
  | 'mergeable';

/**
 * `mergeable_discussions_state?`: true unless the project asks for every discussion resolved and a
 * resolvable note of the merge request is not.
 */
export function discussionsResolved(st: PlatformState, mr: MergeRequestRecord, p: Project): boolean {
  if (!p.only_allow_merge_if_all_discussions_are_resolved) return true;
  for (const id of mget(st.issuables.idx.notes, `MergeRequest:${mr.id}`)) {
    const n = tget(st.issuables.notes, id);
    if (n && isResolvable(n) && !n.resolved_at) return false;
  }
  return true;
}

/** `mergeable_ci_state?`: the project asks for a green (or, if allowed, skipped) head pipeline. */
function ciState(st: PlatformState, mr: MergeRequestRecord, p: Project, nowMs: number): boolean {
  if (!p.only_allow_merge_if_pipeline_succeeds) return true;
  const hp = headPipeline(st, mr);
  if (!hp) return false;
  const status = livePipeline(hp, nowMs).status;
  return status === 'success' || (status === 'skipped' && p.allow_merge_on_skipped_pipeline === true);
}

export function detailedMergeStatus(
  st: PlatformState,
  mr: MergeRequestRecord,
  p: Project,
  nowMs: number,
): DetailedMergeStatus {
  const status = effectiveMergeStatus(mr, nowMs);
  // `checking?`: a check asked for and not yet done (13.12's public status shows it as unchecked); no
  // check runs for a merge request that is not open, whose status stays as it was.
  if (status === 'unchecked')
    return mr.state === 'opened' && mr.merge_check_due_at !== null ? 'checking' : 'unchecked';
  if (mr.state !== 'opened') return 'not_open';
  if (isWip(mr.title, st.version)) return 'draft_status';
  // `broken?`: no commits, a branch missing, or conflicts.
  const diff = tget(st.issuables.diffs, mr.diff_id);
  if (
    !diff ||
    diff.commits.length === 0 ||
    branchHead(st, mr.source_project_id, mr.source_branch) === undefined ||
    branchHead(st, mr.project_id, mr.target_branch) === undefined ||
    status === 'cannot_be_merged'
  )
    return 'broken_status';
  if (!discussionsResolved(st, mr, p)) return 'discussions_not_resolved';
  if (mergeBlocked(st, mr.id)) return 'not_approved';
  if (ciState(st, mr, p, nowMs)) return 'mergeable';
  const hp = headPipeline(st, mr);
  return hp && pipelineActive(hp, nowMs) ? 'ci_still_running' : 'ci_must_pass';
}
