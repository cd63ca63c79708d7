/** Issue writes. */
import { type Draft } from 'immer';
import { nextId, type PlatformState } from '../../../core/state.js';
import { idelete, iget, iset, mget, mremove, tdelete, tget, tset } from '../../../core/table.js';
import { type Project } from '../../projects/record.js';
import { chunkAdd, chunkRemove, iidKey, type IssueRecord, type IssueState } from '../store.js';
import { longDate } from '../text.js';
import { removeAward } from './awards.js';
import { projectMeta } from './meta.js';
import { unlinkEpicIssue } from './snippets.js';
import { type Target, assigneesNote, labelsNote, resourceEvent, systemNote } from './notes.js';
import type { IssuableDraft } from './drafts.js';
import { type NewIssuable, closeOrReopen, issuableFields, setLocked, setText } from './shared.js';

type S = Draft<PlatformState>;

/** `RelativePositioning::START_POSITION` and `IDEAL_DISTANCE` (13.x). */
export const START_POSITION = 1_073_741_823;
export const POSITION_GAP = 511;
// ---------------------------------------------------------------------------------------------------
// Issues

export interface NewIssue extends NewIssuable {
  confidential?: boolean;
  discussion_locked?: boolean | null;
  due_date?: string | null;
  weight?: number | null;
  state?: IssueState;
  user_agent?: string | null;
  ip_address?: string | null;
  issue_type?: 'issue' | 'incident';
}

export const issueIdByIid = (st: PlatformState, projectId: number, iid: number) =>
  iget(st.issuables.idx.iids, iidKey('i', projectId, iid));

/** Creates an issue; the caller has checked that a given iid is free. Returns the id. */
export function createIssue(st: S, input: NewIssue, now: string): number {
  const meta = projectMeta(st, input.project_id);
  const iid = input.iid ?? meta.issue_iid + 1;
  // `move_to_end`: after the project's last issue.
  const position = meta.last_position === 0 ? START_POSITION : meta.last_position + POSITION_GAP;
  meta.last_position = position;
  meta.issue_iid = Math.max(meta.issue_iid, iid);
  const id = nextId(st, 'issues');
  const state = input.state ?? 'opened';
  // Added to the shared fields' literal, not spread into a new one (see `issuableFields`).
  const rec: IssueRecord = Object.assign(
    issuableFields(id, iid, input, state, input.discussion_locked ?? null, now),
    {
      confidential: input.confidential ?? false,
      due_date: input.due_date ?? null,
      weight: input.weight ?? null,
      relative_position: position,
      moved_to_id: null,
      issue_type: input.issue_type ?? 'issue',
      health_status: null,
      merge_requests_count: 0,
      user_agent: input.user_agent ?? null,
      ip_address: input.ip_address ?? null,
    },
  );
  tset(st.issuables.issues, id, rec);
  iset(st.issuables.idx.iids, iidKey('i', input.project_id, iid), id);
  chunkAdd(st.issuables.idx.byProject, 'i', input.project_id, iid, id);
  if (state === 'opened') bumpOpenIssues(st, input.project_id, 1);
  return id;
}

function bumpOpenIssues(st: S, projectId: number, by: number): void {
  const p = tget(st.projects, projectId) as Draft<Project> | undefined;
  if (p) p.open_issues_count = Math.max(0, (p.open_issues_count ?? 0) + by);
}

export interface IssueChanges {
  title?: string;
  description?: string | null;
  assignee_ids?: readonly number[];
  label_ids?: readonly number[];
  milestone_id?: number | null;
  confidential?: boolean;
  discussion_locked?: boolean;
  due_date?: string | null;
  weight?: number | null;
  state_event?: 'close' | 'reopen';
  updated_at?: string;
}

/**
 * `Issues::UpdateService`: applies the changes that change something, records them (system notes,
 * resource events) as `userId`, and touches `updated_at` when anything changed. A state event that
 * does not apply (closing a closed issue) is a silent no-op.
 */
export function updateIssue(st: S, id: number, ch: IssueChanges, userId: number, now: string): void {
  const issue = tget(st.issuables.issues, id)!;
  const t: Target = { type: 'Issue', id, project_id: issue.project_id };
  let changed = setText(st, issue, t, ch, userId, now);
  if (ch.assignee_ids !== undefined)
    changed = setAssignees(st, issue, t, ch.assignee_ids, userId, now) || changed;
  if (ch.label_ids !== undefined) changed = setLabels(st, issue, t, ch.label_ids, userId, now) || changed;
  if (ch.milestone_id !== undefined)
    changed = setMilestone(st, issue, t, ch.milestone_id, userId, now) || changed;
  if (ch.confidential !== undefined && ch.confidential !== issue.confidential) {
    issue.confidential = ch.confidential;
    systemNote(
      st,
      t,
      userId,
      ch.confidential ? 'made the issue confidential' : 'made the issue visible to everyone',
      now,
    );
    changed = true;
  }
  if (ch.discussion_locked !== undefined)
    changed = setLocked(st, issue, t, ch.discussion_locked, 'issue', userId, now) || changed;
  if (ch.due_date !== undefined && ch.due_date !== issue.due_date) {
    issue.due_date = ch.due_date;
    systemNote(
      st,
      t,
      userId,
      ch.due_date ? `changed due date to ${longDate(ch.due_date)}` : 'removed due date',
      now,
    );
    changed = true;
  }
  if (ch.weight !== undefined && ch.weight !== issue.weight) {
    issue.weight = ch.weight;
    resourceEvent(st, t, userId, now, { kind: 'weight', weight: ch.weight });
    changed = true;
  }
  const moved = closeOrReopen(st, issue, t, ch.state_event, userId, now);
  if (moved) {
    bumpOpenIssues(st, issue.project_id, moved === 'closed' ? -1 : 1);
    changed = true;
  }
  if (changed) issue.updated_at = ch.updated_at ?? now;
  projectMeta(st, issue.project_id);
}

/** Closes an open issue (merging a merge request that closes it). */
export function closeIssue(st: S, issue: Draft<IssueRecord>, userId: number, now: string): void {
  closeOrReopen(
    st,
    issue,
    { type: 'Issue', id: issue.id, project_id: issue.project_id },
    'close',
    userId,
    now,
  );
  bumpOpenIssues(st, issue.project_id, -1);
}

export function setAssignees(
  st: S,
  rec: IssuableDraft,
  t: Target,
  ids: readonly number[],
  userId: number,
  now: string,
): boolean {
  const before = [...rec.assignee_ids];
  const same = before.length === ids.length && before.every((id, i) => id === ids[i]);
  if (same) return false;
  rec.assignee_ids = [...ids];
  const body = assigneesNote(st, before, ids);
  if (body) systemNote(st, t, userId, body, now);
  return true;
}

export function setLabels(
  st: S,
  rec: IssuableDraft,
  t: Target,
  ids: readonly number[],
  userId: number,
  now: string,
): boolean {
  const before = [...rec.label_ids];
  const body = labelsNote(before, ids);
  if (!body) return false;
  rec.label_ids = [...ids];
  systemNote(st, t, userId, body, now);
  // `ResourceEvents::ChangeLabelsService`: one event per label added or removed.
  for (const id of ids)
    if (!before.includes(id))
      resourceEvent(st, t, userId, now, { kind: 'label', label_id: id, action: 'add' });
  for (const id of before)
    if (!ids.includes(id))
      resourceEvent(st, t, userId, now, { kind: 'label', label_id: id, action: 'remove' });
  return true;
}

export function setMilestone(
  st: S,
  rec: IssuableDraft,
  t: Target,
  id: number | null,
  userId: number,
  now: string,
): boolean {
  if (rec.milestone_id === id) return false;
  // `ResourceEvents::ChangeMilestoneService`: one event per change, `add` of the new milestone, or
  // `remove` of the old one when none is left (a change from one to another is a single `add`).
  resourceEvent(st, t, userId, now, {
    kind: 'milestone',
    milestone_id: id ?? rec.milestone_id!,
    action: id === null ? 'remove' : 'add',
    issuable_state: rec.state,
  });
  rec.milestone_id = id;
  return true;
}

/** Removes an issue and what hangs off it. */
export function deleteIssue(st: S, id: number): void {
  const issue = tget(st.issuables.issues, id);
  if (!issue) return;
  removeTargetSatellites(st, 'Issue', id);
  for (const l of mget(st.issuables.idx.owned, `ie${id}`)) unlinkEpicIssue(st, l);
  for (const linkId of mget(st.issuables.idx.links, String(id))) removeIssueLink(st, linkId);
  for (const mrId of mget(st.issuables.idx.closing, `i${id}`))
    mremove(st.issuables.idx.closing, `m${mrId}`, id);
  idelete(st.issuables.idx.closing, `i${id}`);
  idelete(st.issuables.idx.iids, iidKey('i', issue.project_id, issue.iid));
  chunkRemove(st.issuables.idx.byProject, 'i', issue.project_id, issue.iid, id);
  if (issue.state === 'opened') bumpOpenIssues(st, issue.project_id, -1);
  projectMeta(st, issue.project_id);
  tdelete(st.issuables.issues, id);
}

/** Removes a relation between two issues from both of them. */
export function removeIssueLink(st: S, linkId: number): void {
  const l = tget(st.issuables.links, linkId);
  if (!l) return;
  mremove(st.issuables.idx.links, String(l.source_id), linkId);
  mremove(st.issuables.idx.links, String(l.target_id), linkId);
  tdelete(st.issuables.links, linkId);
}

/** Notes, award emoji, subscriptions, todos and resource events of an issue or merge request. */
export function removeTargetSatellites(st: S, type: 'Issue' | 'MergeRequest' | 'Epic', id: number): void {
  const ix = st.issuables.idx;
  for (const noteId of mget(ix.notes, `${type}:${id}`)) {
    for (const a of mget(ix.awards, `Note:${noteId}`)) removeAward(st, a);
    tdelete(st.issuables.notes, noteId);
  }
  idelete(ix.notes, `${type}:${id}`);
  for (const a of mget(ix.awards, `${type}:${id}`)) removeAward(st, a);
  for (const sid of mget(ix.byTarget, `s${type}:${id}`)) {
    const s = tget(st.issuables.subscriptions, sid)!;
    idelete(ix.userTarget, `${type}:${id}:${s.user_id}`);
    tdelete(st.issuables.subscriptions, sid);
  }
  for (const tid of mget(ix.byTarget, `t${type}:${id}`)) {
    const td = tget(st.issuables.todos, tid)!;
    idelete(ix.userTarget, `${type}:${id}:${td.user_id}:marked`);
    mremove(ix.byTarget, `tu${td.user_id}`, tid);
    tdelete(st.issuables.todos, tid);
  }
  for (const eid of mget(ix.byTarget, `e${type}:${id}`)) tdelete(st.issuables.events, eid);
  for (const p of ['s', 't', 'e']) idelete(ix.byTarget, `${p}${type}:${id}`);
}
