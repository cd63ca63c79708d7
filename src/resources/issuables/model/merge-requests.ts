/** Merge request writes: diff versions, mergeability checks, merging. */
import { type Draft } from 'immer';
import { nextId, type PlatformState } from '../../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../../core/table.js';
import { type Project } from '../../projects/record.js';
import {
  chunkAdd,
  chunkRemove,
  iidKey,
  type DiffCommit,
  type DiffFile,
  type DiffVersionRecord,
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
  /** Files the generated diff touches (default 1 to 3, from the id). */
  changes?: number;
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

function diffFor(
  mrId: number,
  source: string,
  target: string,
  n: number,
  title: string,
  author: { name: string; email: string },
  now: string,
): Omit<DiffVersionRecord, 'id'> {
  const base = sha(`base:${mrId}:${target}`);
  const commits: DiffCommit[] = [];
  let parent = base;
  const count = 1 + (mrId % 3);
  for (let i = 0; i < count; i++) {
    const id = sha(`commit:${mrId}:${source}:${i}:${parent}`);
    const msg = i === count - 1 ? title : `Update ${source} (${i + 1})`;
    commits.unshift({
      id,
      short_id: id.slice(0, 8),
      title: msg,
      message: msg,
      author_name: author.name,
      author_email: author.email,
      created_at: now,
    });
    parent = id;
  }
  const files: DiffFile[] = [];
  for (let i = 0; i < n; i++) {
    const path = i === 0 ? 'README.md' : `src/${source.replace(/[^A-Za-z0-9_-]/g, '_')}_${i}.rb`;
    files.push({
      old_path: path,
      new_path: path,
      a_mode: i === 0 ? '100644' : '0',
      b_mode: '100644',
      new_file: i !== 0,
      renamed_file: false,
      deleted_file: false,
      diff: i === 0 ? `@@ -1 +1,2 @@\n # Project\n+${title}\n` : `@@ -0,0 +1 @@\n+# ${source}\n`,
    });
  }
  return {
    merge_request_id: mrId,
    head_commit_sha: parent,
    base_commit_sha: base,
    start_commit_sha: base,
    created_at: now,
    state: 'collected',
    real_size: String(n),
    commits,
    files,
  };
}

function addDiffVersion(
  st: S,
  mr: Draft<MergeRequestRecord> | MergeRequestRecord,
  now: string,
  changes?: number,
): number {
  const id = nextId(st, 'merge_request_diffs');
  const author = tget(st.users, mr.author_id);
  const n = changes ?? 1 + (mr.id % 3);
  tset(st.issuables.diffs, id, {
    id,
    ...diffFor(
      mr.id,
      mr.source_branch,
      mr.target_branch,
      n,
      mr.title,
      { name: author?.name ?? 'Ghost User', email: author?.email ?? 'ghost@example.com' },
      now,
    ),
  });
  madd(st.issuables.idx.diffs, String(mr.id), id);
  return id;
}

export function createMergeRequest(st: S, input: NewMergeRequest, now: string): number {
  const meta = projectMeta(st, input.project_id);
  const iid = input.iid ?? meta.mr_iid + 1;
  meta.mr_iid = Math.max(meta.mr_iid, iid);
  const id = nextId(st, 'merge_requests');
  const created = input.created_at ?? now;
  const state = input.state ?? 'opened';
  const rec: MergeRequestRecord = {
    ...issuableFields(id, iid, input, state, null, now),
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
  };
  tset(st.issuables.mergeRequests, id, rec);
  const draft = tget(st.issuables.mergeRequests, id)!;
  draft.diff_id = addDiffVersion(st, draft, created, input.changes);
  if (state === 'merged') draft.merge_commit_sha = sha(`merge:${id}`);
  iset(st.issuables.idx.iids, iidKey('m', input.project_id, iid), id);
  chunkAdd(st.issuables.idx.byProject, 'm', input.project_id, iid, id);
  if (state === 'opened') {
    indexOpen(st, draft, true);
    cacheClosingIssues(st, draft);
  }
  return id;
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
    for (const iid of closingIssueIids(`${mr.title}\n${mr.description ?? ''}`)) {
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
  if (ch.title !== undefined && isWip(mr.title) !== isWip(ch.title))
    systemNote(
      st,
      t,
      userId,
      isWip(ch.title) ? 'marked as a **Work In Progress**' : 'unmarked as a **Work In Progress**',
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
    mr.merge_status = 'unchecked';
    mr.merge_check_due_at = null;
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

export function requestMergeCheck(st: S, id: number, nowMs: number): void {
  const mr = tget(st.issuables.mergeRequests, id);
  if (!mr || mr.state !== 'opened' || mr.merge_status !== 'unchecked' || mr.merge_check_due_at !== null)
    return;
  mr.merge_check_due_at = new Date(nowMs + MERGE_CHECK_MS).toISOString();
  projectMeta(st, mr.project_id);
}

/** The merge status a client sees: a requested check has completed once its time has come. */
export function effectiveMergeStatus(mr: MergeRequestRecord, nowMs: number): MergeStatus {
  if (mr.merge_status !== 'unchecked' || mr.merge_check_due_at === null) return mr.merge_status;
  if (mr.state !== 'opened') return mr.merge_status;
  return nowMs >= Date.parse(mr.merge_check_due_at) ? checkedStatus(mr) : 'unchecked';
}

const checkedStatus = (mr: MergeRequestRecord): MergeStatus =>
  mr.conflicts ? 'cannot_be_merged' : 'can_be_merged';

/** `check_mergeability` run synchronously (as merging does): an unchecked status is decided now. */
export const checkedMergeStatus = (mr: MergeRequestRecord): MergeStatus =>
  mr.merge_status === 'unchecked' ? checkedStatus(mr) : mr.merge_status;

/** `MergeRequests::MergeService`: merged, and the issues it closes closed. */
export function mergeMergeRequest(
  st: S,
  id: number,
  userId: number,
  now: string,
  opts: { squash?: boolean; should_remove_source_branch?: boolean },
): void {
  const mr = tget(st.issuables.mergeRequests, id)!;
  const t: Target = { type: 'MergeRequest', id, project_id: mr.project_id };
  if (opts.squash !== undefined) mr.squash = opts.squash;
  indexOpen(st, mr, false);
  mr.merge_status = checkedStatus(mr);
  mr.state = 'merged';
  mr.merged_by_id = userId;
  mr.merged_at = now;
  mr.updated_at = now;
  mr.merge_commit_sha = sha(`merge:${id}`);
  if (mr.squash) mr.squash_commit_sha = sha(`squash:${id}`);
  if (opts.should_remove_source_branch !== undefined)
    mr.should_remove_source_branch = opts.should_remove_source_branch;
  resourceEvent(st, t, userId, now, { kind: 'state', state: 'merged' });
  const project = tget(st.projects, mr.project_id) as Project | undefined;
  if (project?.autoclose_referenced_issues !== false)
    for (const issueId of mget(st.issuables.idx.closing, `m${id}`)) {
      const issue = tget(st.issuables.issues, issueId);
      if (issue && issue.state === 'opened') {
        closeIssue(st, issue, userId, now);
        issue.updated_at = now;
        projectMeta(st, issue.project_id);
      }
    }
  projectMeta(st, mr.project_id);
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
  idelete(st.issuables.idx.iids, iidKey('m', mr.project_id, mr.iid));
  chunkRemove(st.issuables.idx.byProject, 'm', mr.project_id, mr.iid, id);
  projectMeta(st, mr.project_id);
  tdelete(st.issuables.mergeRequests, id);
}
