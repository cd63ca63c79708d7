/** Merge request writes: diff versions, mergeability checks, merging. */
import { type Draft } from 'immer';
import type { BranchMove } from '../../../core/push.js';
import { cancelJobs } from '../../../core/jobs.js';
import { branchMoved } from '../../../core/push.js';
import { nextId, type PlatformState } from '../../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../../core/table.js';
import { type Project } from '../../projects/record.js';
import { protectionsOf } from '../../repository/access.js';
import { keepAround } from '../../repository/keep.js';
import { BLANK_SHA, setOtherRef } from '../../repository/refs.js';
import { objectsOf } from '../../repository/store.js';
import {
  chunkAdd,
  chunkIds,
  chunkRemove,
  iidKey,
  type MergeRequestRecord,
  type MergeRequestState,
  type MergeStatus,
} from '../store.js';
import { closingIssueIids, isWip, sha, toSentence } from '../text.js';
import {
  closeIssue,
  issueIdByIid,
  removeTargetSatellites,
  setAssignees,
  setLabels,
  setMilestone,
} from './issues.js';
import {
  branchHead,
  declaredSourceHead,
  hasConflicts,
  headsOf,
  mergedTree,
  moveRef,
  putCommit,
  versionSnapshot,
  type Heads,
} from './git.js';
import { projectMeta } from './meta.js';
import { type Target, resourceEvent, systemNote, userRef } from './notes.js';
import { type NewIssuable, closeOrReopen, issuableFields, setLocked, setText } from './shared.js';

type S = Draft<PlatformState>;

// ---------------------------------------------------------------------------------------------------
// Merge requests

export interface NewMergeRequest extends NewIssuable {
  source_project_id?: number;
  source_branch: string;
  target_branch: string;
  reviewer_ids?: readonly number[];
  state?: MergeRequestState;
  merge_status?: MergeStatus;
  conflicts?: boolean;
  squash?: boolean;
  force_remove_source_branch?: boolean | null;
  allow_collaboration?: boolean;
  merged_by_id?: number | null;
  merged_at?: string | null;
  /**
   * A declared merge request whose source branch does not exist gets one (`realizeDeclared`): commits
   * changing this many files (default 1 to 3, from the id).
   */
  changes?: number;
  /** False: no diff version yet (a scenario's are made once every repository is built). */
  version?: boolean;
}

export const mergeRequestIdByIid = (st: PlatformState, projectId: number, iid: number) =>
  iget(st.issuables.idx.iids, iidKey('m', projectId, iid));

const openKey = (
  mr: Pick<MergeRequestRecord, 'project_id' | 'source_project_id' | 'source_branch' | 'target_branch'>,
) => `open:${mr.project_id}:${mr.source_project_id}:${mr.source_branch}\u0000${mr.target_branch}`;

/** An open merge request of the project with the same source and target branch (`validate_branches`). */
export function duplicateMergeRequest(
  st: PlatformState,
  projectId: number,
  sourceProjectId: number,
  source: string,
  target: string,
  exceptId?: number,
): MergeRequestRecord | undefined {
  const id = iget(
    st.issuables.idx.userTarget,
    openKey({
      project_id: projectId,
      source_project_id: sourceProjectId,
      source_branch: source,
      target_branch: target,
    }),
  );
  const mr = id === undefined || id === exceptId ? undefined : tget(st.issuables.mergeRequests, id);
  return mr?.state === 'opened' ? mr : undefined;
}

/** Keeps the open-branches index in step with a merge request's state and branches. */
function indexOpen(st: S, mr: MergeRequestRecord, open: boolean): void {
  const key = openKey(mr);
  if (open) iset(st.issuables.idx.userTarget, key, mr.id);
  else if (iget(st.issuables.idx.userTarget, key) === mr.id) idelete(st.issuables.idx.userTarget, key);
}

/**
 * A new diff version (`MergeRequestDiff`): the heads of both branches now, with a snapshot of the commits
 * and files between them.
 */
export function addDiffVersion(
  st: S,
  mr: Draft<MergeRequestRecord> | MergeRequestRecord,
  now: string,
  heads: Heads | undefined = headsOf(st as PlatformState, mr),
): number {
  const id = nextId(st, 'merge_request_diffs');
  tset(st.issuables.diffs, id, {
    id,
    merge_request_id: mr.id,
    created_at: now,
    state: 'collected',
    ...versionSnapshot(st as PlatformState, heads),
  });
  madd(st.issuables.idx.diffs, String(mr.id), id);
  // `MergeRequest#fetch_ref!`: the target project keeps the source head at `ref_path`
  // (`refs/merge-requests/:iid/head`), a fork's commits included, moved with every version.
  const target = tget(st.projects, mr.project_id);
  if (heads && target) setOtherRef(st, target, `refs/merge-requests/${mr.iid}/head`, heads.head);
  return id;
}

/**
 * `MergeRequestDiff#keep_around_commits` (from `save_git_content`, unless importing): the version's
 * start, head and base commits stay in the target's repository and the source's (a fork's), under
 * `refs/keep-around/<sha>`. Versions of merge requests a scenario or an import brings are left alone.
 */
export function keepDiffCommits(st: S, mr: MergeRequestRecord): void {
  const diff = tget(st.issuables.diffs, mr.diff_id);
  if (!diff) return;
  const shas = [diff.start_commit_sha, diff.head_commit_sha, diff.base_commit_sha];
  keepAround(st, mr.project_id, shas);
  if (mr.source_project_id !== mr.project_id) keepAround(st, mr.source_project_id, shas);
}

export function createMergeRequest(st: S, input: NewMergeRequest, now: string): number {
  const meta = projectMeta(st, input.project_id);
  const iid = input.iid ?? meta.mr_iid + 1;
  meta.mr_iid = Math.max(meta.mr_iid, iid);
  const id = nextId(st, 'merge_requests');
  const created = input.created_at ?? now;
  const state = input.state ?? 'opened';
  // Added to the shared fields' literal, not spread into a new one (see `issuableFields`).
  const rec: MergeRequestRecord = Object.assign(issuableFields(id, iid, input, state, null, now), {
    source_project_id: input.source_project_id ?? input.project_id,
    source_branch: input.source_branch,
    target_branch: input.target_branch,
    reviewer_ids: input.reviewer_ids ?? [],
    merged_by_id: state === 'merged' ? (input.merged_by_id ?? null) : null,
    merged_at: state === 'merged' ? (input.merged_at ?? input.updated_at ?? created) : null,
    merge_status: input.merge_status ?? (state === 'merged' ? 'can_be_merged' : 'unchecked'),
    merge_check_due_at: null,
    conflicts: input.conflicts ?? false,
    merge_when_pipeline_succeeds: false,
    merge_commit_sha: null,
    squash_commit_sha: null,
    squash: input.squash ?? false,
    force_remove_source_branch: input.force_remove_source_branch ?? null,
    should_remove_source_branch: null,
    allow_collaboration: input.allow_collaboration ?? false,
    merge_error: null,
    diff_id: 0,
    approvals_before_merge: null,
  });
  tset(st.issuables.mergeRequests, id, rec);
  const draft = tget(st.issuables.mergeRequests, id)!;
  if (input.version !== false) draft.diff_id = addDiffVersion(st, draft, created);
  if (state === 'merged') draft.merge_commit_sha = sha(`merge:${id}`);
  iset(st.issuables.idx.iids, iidKey('m', input.project_id, iid), id);
  chunkAdd(st.issuables.idx.byProject, 'm', input.project_id, iid, id);
  if (state === 'opened') {
    indexOpen(st, draft, true);
    cacheClosingIssues(st, draft);
  }
  return id;
}

/** `closes_issues`' text: the title, the description and the messages of the latest version's commits. */
function closingText(st: S, mr: MergeRequestRecord): string {
  const commits = tget(st.issuables.diffs, mr.diff_id)?.commits ?? [];
  return [mr.title, mr.description ?? '', ...commits.map((c) => c.message)].join('\n');
}

/**
 * The first diff version of a declared merge request (scenario files, generated worlds), made once the
 * repositories are built. A source branch the repository lacks is made: `files` files changed by 1 to 3
 * commits on top of the target's head (a merged one keeps its commits without a branch).
 */
export function realizeDeclared(st: S, id: number, files?: number): void {
  const mr = tget(st.issuables.mergeRequests, id)!;
  const count = 1 + (id % 3);
  let heads = headsOf(st as PlatformState, mr);
  if (!heads && branchHead(st as PlatformState, mr.source_project_id, mr.source_branch) === undefined) {
    const head = declaredSourceHead(st, mr, files ?? count, count);
    const start = branchHead(st as PlatformState, mr.project_id, mr.target_branch);
    if (head !== undefined && start !== undefined) {
      if (mr.state !== 'merged') moveRef(st, mr.source_project_id, mr.source_branch, head);
      heads = { head, start, base: start };
    }
  }
  mr.diff_id = addDiffVersion(st, mr, mr.created_at, heads);
  if (mr.state === 'opened') cacheClosingIssues(st, mr);
}

/**
 * `cache_merge_request_closes_issues!`: the issues an open merge request into the default branch will
 * close, from `Closes #N` in its title and description.
 */
export function cacheClosingIssues(st: S, mr: Draft<MergeRequestRecord>): void {
  const ix = st.issuables.idx.closing;
  const project = tget(st.projects, mr.project_id) as Project | undefined;
  const wanted = new Set<number>();
  if (project && mr.target_branch === project.default_branch && project.issues_access_level !== 'disabled')
    for (const iid of closingIssueIids(closingText(st, mr))) {
      const issueId = issueIdByIid(st, mr.project_id, iid);
      if (issueId !== undefined) wanted.add(issueId);
    }
  const current = mget(ix, `m${mr.id}`);
  for (const issueId of current)
    if (!wanted.has(issueId)) {
      mremove(ix, `m${mr.id}`, issueId);
      mremove(ix, `i${issueId}`, mr.id);
      const issue = tget(st.issuables.issues, issueId);
      if (issue && issue.merge_requests_count > 0) issue.merge_requests_count--;
    }
  for (const issueId of wanted)
    if (!current.includes(issueId)) {
      madd(ix, `m${mr.id}`, issueId);
      madd(ix, `i${issueId}`, mr.id);
      const issue = tget(st.issuables.issues, issueId);
      if (issue) {
        issue.merge_requests_count++;
        projectMeta(st, issue.project_id);
      }
    }
}

export interface MergeRequestChanges {
  title?: string;
  description?: string | null;
  target_branch?: string;
  assignee_ids?: readonly number[];
  reviewer_ids?: readonly number[];
  label_ids?: readonly number[];
  milestone_id?: number | null;
  discussion_locked?: boolean;
  squash?: boolean;
  force_remove_source_branch?: boolean;
  allow_collaboration?: boolean;
  state_event?: 'close' | 'reopen';
}

/** `MergeRequests::UpdateService`; a merged merge request is never reopened. */
export function updateMergeRequest(
  st: S,
  id: number,
  ch: MergeRequestChanges,
  userId: number,
  now: string,
): void {
  const mr = tget(st.issuables.mergeRequests, id)!;
  const t: Target = { type: 'MergeRequest', id, project_id: mr.project_id };
  if (mr.state === 'opened') indexOpen(st, mr, false);
  // The draft-status note comes before the title's.
  if (ch.title !== undefined && isWip(mr.title, st.version) !== isWip(ch.title, st.version))
    systemNote(
      st,
      t,
      userId,
      isWip(ch.title, st.version) ? 'marked as a **Work In Progress**' : 'unmarked as a **Work In Progress**',
      now,
    );
  let changed = setText(st, mr, t, ch, userId, now);
  if (ch.target_branch !== undefined && ch.target_branch !== mr.target_branch) {
    systemNote(
      st,
      t,
      userId,
      `changed target branch from \`${mr.target_branch}\` to \`${ch.target_branch}\``,
      now,
    );
    mr.target_branch = ch.target_branch;
    mr.merge_status = 'unchecked';
    mr.merge_check_due_at = null;
    mr.diff_id = addDiffVersion(st, mr, now);
    keepDiffCommits(st, mr);
    changed = true;
  }
  if (ch.assignee_ids !== undefined)
    changed = setAssignees(st, mr, t, ch.assignee_ids, userId, now) || changed;
  if (ch.reviewer_ids !== undefined) {
    const added = ch.reviewer_ids.filter((r) => !mr.reviewer_ids.includes(r));
    const same = added.length === 0 && ch.reviewer_ids.length === mr.reviewer_ids.length;
    if (!same) {
      if (added.length)
        systemNote(
          st,
          t,
          userId,
          `requested review from ${toSentence(added.map((r) => userRef(st, r)))}`,
          now,
        );
      mr.reviewer_ids = [...ch.reviewer_ids];
      changed = true;
    }
  }
  if (ch.label_ids !== undefined) changed = setLabels(st, mr, t, ch.label_ids, userId, now) || changed;
  if (ch.milestone_id !== undefined)
    changed = setMilestone(st, mr, t, ch.milestone_id, userId, now) || changed;
  if (ch.discussion_locked !== undefined)
    changed = setLocked(st, mr, t, ch.discussion_locked, 'merge request', userId, now) || changed;
  for (const k of ['squash', 'force_remove_source_branch', 'allow_collaboration'] as const) {
    const v = ch[k];
    if (v !== undefined && v !== mr[k]) {
      mr[k] = v;
      changed = true;
    }
  }
  const moved = closeOrReopen(st, mr, t, ch.state_event, userId, now);
  if (moved === 'reopened') {
    // `ReopenService`: the diff is reloaded (a new version of the branches as they are now).
    markUnchecked(mr);
    mr.diff_id = addDiffVersion(st, mr, now);
    keepDiffCommits(st, mr);
  }
  if (moved) changed = true;
  if (changed) mr.updated_at = now;
  if (mr.state === 'opened') {
    indexOpen(st, mr, true);
    cacheClosingIssues(st, mr);
  }
  projectMeta(st, mr.project_id);
}

/** Asks for a mergeability check, which completes `MERGE_CHECK_MS` later on the instance clock. */
export const MERGE_CHECK_MS = 1000;

/**
 * What a mergeability check finds now: a missing branch (a broken merge request) or paths both sides
 * changed differently since the merge base make it unmergeable; so does a declared conflict.
 */
export function unmergeable(st: PlatformState, mr: MergeRequestRecord): boolean {
  if (mr.conflicts) return true;
  const h = headsOf(st, mr);
  return h === undefined || hasConflicts(objectsOf(st), h);
}

export function requestMergeCheck(st: S, id: number, nowMs: number): void {
  const mr = tget(st.issuables.mergeRequests, id);
  if (!mr || mr.state !== 'opened' || mr.merge_status !== 'unchecked' || mr.merge_check_due_at !== null)
    return;
  mr.merge_check_due_at = new Date(nowMs + MERGE_CHECK_MS).toISOString();
  // The outcome is decided against the repository as it is now; a later push marks it unchecked again.
  mr.checked_conflicts = unmergeable(st as PlatformState, mr);
  projectMeta(st, mr.project_id);
}

/** The merge status a client sees: a requested check has completed once its time has come. */
export function effectiveMergeStatus(mr: MergeRequestRecord, nowMs: number): MergeStatus {
  if (mr.merge_status !== 'unchecked' || mr.merge_check_due_at === null) return mr.merge_status;
  if (mr.state !== 'opened') return mr.merge_status;
  return nowMs >= Date.parse(mr.merge_check_due_at) ? checkedStatus(mr) : 'unchecked';
}

const checkedStatus = (mr: MergeRequestRecord): MergeStatus =>
  mr.conflicts || mr.checked_conflicts === true ? 'cannot_be_merged' : 'can_be_merged';

/** `check_mergeability` run synchronously (as merging does): an unchecked status is decided now. */
export const checkedMergeStatus = (st: PlatformState, mr: MergeRequestRecord): MergeStatus =>
  mr.merge_status !== 'unchecked'
    ? mr.merge_status
    : unmergeable(st, mr)
      ? 'cannot_be_merged'
      : 'can_be_merged';

/** Marks open merge requests of a project unchecked (their branches moved). */
function markUnchecked(mr: Draft<MergeRequestRecord>): void {
  mr.merge_status = 'unchecked';
  mr.merge_check_due_at = null;
  delete mr.checked_conflicts;
}

const toSentenceOxford = (items: string[]) =>
  items.length <= 2
    ? items.join(' and ')
    : `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;

/**
 * `MergeRequest#default_merge_commit_message`: the branches, the title, the issues it closes (those the
 * merging user can see) and the merge request's full reference.
 */
export function defaultMergeCommitMessage(
  st: PlatformState,
  mr: MergeRequestRecord,
  closes: readonly number[],
  fullRef: string,
): string {
  const parts = [`Merge branch '${mr.source_branch}' into '${mr.target_branch}'`, mr.title];
  const refs = closes
    .map((id) => tget(st.issuables.issues, id))
    .filter((i) => i !== undefined)
    .map((i) => `#${i.iid}`);
  if (refs.length > 0) parts.push(`Closes ${toSentenceOxford(refs)}`);
  parts.push(`See merge request ${fullRef}`);
  return parts.join('\n\n');
}

export interface MergeOptions {
  squash?: boolean;
  should_remove_source_branch?: boolean;
  /** The merge commit's message (the default one when the caller gives none). */
  message: string;
  squash_message?: string;
  /** The issues the merge closes, as the merging user sees them. */
  closes: readonly number[];
}

/** A branch merging moved (`next` blank: removed), for the post-receive step the caller runs. */
export interface MergedRef {
  projectId: number;
  branch: string;
  old: string;
  next: string;
}

/**
 * `MergeRequests::MergeService`: the commits (a squash commit, then a merge commit or a fast-forward),
 * the target branch moved, the merge request merged, the issues it closes closed, and the source branch
 * removed when asked. The caller has checked that the merge is possible. Returns the branches moved:
 * Gitaly's `UserMergeBranch` (`UserFFBranch`) and `UserDeleteBranch` run the post-receive hooks, which
 * the caller runs on them as a push's (`Git::BranchPushService`).
 */
export function mergeMergeRequest(
  st: S,
  id: number,
  userId: number,
  now: string,
  opts: MergeOptions,
): MergedRef[] {
  const moved: MergedRef[] = [];
  const mr = tget(st.issuables.mergeRequests, id)!;
  const t: Target = { type: 'MergeRequest', id, project_id: mr.project_id };
  const project = tget(st.projects, mr.project_id) as Project | undefined;
  if (opts.squash !== undefined) mr.squash = opts.squash;
  const h = headsOf(st as PlatformState, mr);
  const user = tget(st.users, userId);
  const time = Math.floor(Date.parse(now) / 1000);
  const who = (u: typeof user) =>
    u
      ? { name: u.name, email: u.commit_email ?? u.email, time }
      : { name: 'Ghost User', email: 'ghost@example.com', time };
  let newHead: string | undefined;
  mr.merge_commit_sha = null;
  mr.squash_commit_sha = null;
  if (h) {
    const store = objectsOf(st as PlatformState);
    const tree = mergedTree(store, h);
    let source = h.head;
    if (mr.squash) {
      const author = who(tget(st.users, mr.author_id));
      source = putCommit(st, tree, [h.start], author, who(user), opts.squash_message ?? mr.title);
      mr.squash_commit_sha = source;
    }
    if (project?.merge_method === 'ff') newHead = source;
    else {
      newHead = putCommit(st, tree, [h.start, source], who(user), who(user), opts.message);
      mr.merge_commit_sha = newHead;
    }
    moveRef(st, mr.project_id, mr.target_branch, newHead);
  }
  indexOpen(st, mr, false);
  mr.merge_status = 'can_be_merged';
  mr.state = 'merged';
  mr.merged_by_id = userId;
  mr.merged_at = now;
  mr.updated_at = now;
  if (opts.should_remove_source_branch !== undefined)
    mr.should_remove_source_branch = opts.should_remove_source_branch;
  resourceEvent(st, t, userId, now, { kind: 'state', state: 'merged' });
  if (project?.autoclose_referenced_issues !== false)
    for (const issueId of opts.closes) {
      const issue = tget(st.issuables.issues, issueId);
      if (issue && issue.state === 'opened') {
        closeIssue(st, issue, userId, now);
        issue.updated_at = now;
        projectMeta(st, issue.project_id);
      }
    }
  projectMeta(st, mr.project_id);
  if (h && newHead !== undefined && newHead !== h.start)
    moved.push({ projectId: mr.project_id, branch: mr.target_branch, old: h.start, next: newHead });
  if (h && newHead !== undefined)
    branchMoved(st, {
      projectId: mr.project_id,
      branch: mr.target_branch,
      before: h.start,
      after: newHead,
      userId,
      now,
    });
  // `MergeRequests::MergeService#delete_source_branch?`: the merge's own `should_remove_source_branch`
  // when it gave one (`params.fetch('should_remove_source_branch', force_remove_source_branch?)`), so
  // an explicit `false` keeps a branch the merge request was set to remove.
  const remove = mr.should_remove_source_branch ?? mr.force_remove_source_branch === true;
  const sourceProject = tget(st.projects, mr.source_project_id) as Project | undefined;
  if (
    remove &&
    h &&
    sourceProject &&
    sourceProject.default_branch !== mr.source_branch &&
    protectionsOf(st as PlatformState, sourceProject.id, mr.source_branch).length === 0
  ) {
    moveRef(st, sourceProject.id, mr.source_branch, null);
    moved.push({ projectId: sourceProject.id, branch: mr.source_branch, old: h.head, next: BLANK_SHA });
    branchMoved(st, {
      projectId: sourceProject.id,
      branch: mr.source_branch,
      before: h.head,
      after: undefined,
      userId,
      now,
    });
  }
  return moved;
}

/**
 * `MergeRequests::MergeToRefService` as the mergeability check runs it: the merge of the source head
 * into the target's, committed by the merge request's author with its default merge commit message,
 * kept in the target project as `refs/merge-requests/:iid/merge` (`merge_ref_path`); the target branch
 * does not move. Returns the commit, or undefined when a branch is missing.
 */
export function updateMergeRef(st: S, id: number, now: string, message: string): string | undefined {
  const mr = tget(st.issuables.mergeRequests, id)!;
  const h = headsOf(st as PlatformState, mr);
  const project = tget(st.projects, mr.project_id);
  if (!h || !project) return undefined;
  const author = tget(st.users, mr.author_id);
  const time = Math.floor(Date.parse(now) / 1000);
  const who = author
    ? { name: author.name, email: author.commit_email ?? author.email, time }
    : { name: 'Ghost User', email: 'ghost@example.com', time };
  const tree = mergedTree(objectsOf(st as PlatformState), h);
  const commit = putCommit(st, tree, [h.start, h.head], who, who, message);
  setOtherRef(st, project, `refs/merge-requests/${mr.iid}/merge`, commit);
  return commit;
}

/**
 * Diff versions and mergeability after a push: open merge requests from the pushed branch get a new
 * version (`reload_diff`), and every open merge request from or into it is checked again.
 */
/** The open merge requests whose source is this branch of this project (a fork's into its parent too). */
export function openMergeRequestsFrom(
  st: PlatformState,
  projectId: number,
  branch: string,
): MergeRequestRecord[] {
  const out: MergeRequestRecord[] = [];
  const projectIds = new Set([projectId]);
  const project = tget(st.projects, projectId) as Project | undefined;
  if (project?.forked_from_project_id) projectIds.add(project.forked_from_project_id);
  for (const pid of projectIds) {
    const meta = tget(st.issuables.projectMeta, pid);
    if (!meta) continue;
    for (const id of chunkIds(st.issuables.idx.byProject, 'm', pid, meta.mr_iid)) {
      const mr = tget(st.issuables.mergeRequests, id);
      if (mr && mr.state === 'opened' && mr.source_project_id === projectId && mr.source_branch === branch)
        out.push(mr);
    }
  }
  return out;
}

/** The job that merges a merge request whose pipeline finished (merge when pipeline succeeds). */
export const MWPS_JOB = 'merge_when_pipeline_succeeds';

/**
 * `MergeRequests::RefreshService#abort_auto_merges`: a push to the source branch of a merge request
 * set to merge when the pipeline succeeds aborts it, unless the push brought the very head the merge
 * was asked for (`merge_params['sha']`: a push option's own push, `PushOptionsHandlerService`).
 */
function abortAutoMergeOnPush(st: S, mr: Draft<MergeRequestRecord>, move: BranchMove): void {
  if (!mr.merge_when_pipeline_succeeds) return;
  const job = st.jobs.find((j) => j.kind === MWPS_JOB && j.payload.mr === mr.id);
  if (job !== undefined && job.payload.sha === move.after) return;
  mr.merge_when_pipeline_succeeds = false;
  mr.updated_at = move.now;
  const t: Target = { type: 'MergeRequest', id: mr.id, project_id: mr.project_id };
  systemNote(st, t, move.userId, 'aborted the automatic merge because source branch was updated', move.now);
  cancelJobs(st, (j) => j.kind === MWPS_JOB && j.payload.mr === mr.id);
}

export function mergeRequestsAfterPush(st: S, move: BranchMove): void {
  const projectIds = new Set([move.projectId]);
  const project = tget(st.projects, move.projectId) as Project | undefined;
  if (project?.forked_from_project_id) projectIds.add(project.forked_from_project_id);
  for (const pid of projectIds) {
    const meta = tget(st.issuables.projectMeta, pid);
    if (!meta) continue;
    for (const id of chunkIds(st.issuables.idx.byProject, 'm', pid, meta.mr_iid)) {
      const mr = tget(st.issuables.mergeRequests, id);
      if (!mr || mr.state !== 'opened') continue;
      const fromIt = mr.source_project_id === move.projectId && mr.source_branch === move.branch;
      const intoIt = mr.project_id === move.projectId && mr.target_branch === move.branch;
      if (!fromIt && !intoIt) continue;
      if (fromIt && move.after !== undefined) {
        abortAutoMergeOnPush(st, mr, move);
        mr.diff_id = addDiffVersion(st, mr, move.now);
        keepDiffCommits(st, mr);
        mr.merge_error = null;
        cacheClosingIssues(st, mr);
      }
      markUnchecked(mr);
      projectMeta(st, pid);
    }
  }
}

export function deleteMergeRequest(st: S, id: number): void {
  const mr = tget(st.issuables.mergeRequests, id);
  if (!mr) return;
  removeTargetSatellites(st, 'MergeRequest', id);
  indexOpen(st, mr, false);
  for (const issueId of mget(st.issuables.idx.closing, `m${id}`)) {
    mremove(st.issuables.idx.closing, `i${issueId}`, id);
    const issue = tget(st.issuables.issues, issueId);
    if (issue && issue.merge_requests_count > 0) issue.merge_requests_count--;
  }
  idelete(st.issuables.idx.closing, `m${id}`);
  for (const d of mget(st.issuables.idx.diffs, String(id))) tdelete(st.issuables.diffs, d);
  idelete(st.issuables.idx.diffs, String(id));
  if (st.issuables.contextCommits) tdelete(st.issuables.contextCommits, id);
  idelete(st.issuables.idx.iids, iidKey('m', mr.project_id, mr.iid));
  chunkRemove(st.issuables.idx.byProject, 'm', mr.project_id, mr.iid, id);
  projectMeta(st, mr.project_id);
  tdelete(st.issuables.mergeRequests, id);
}
