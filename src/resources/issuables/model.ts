/**
 * Writes on issues, merge requests, notes, milestones and their satellites, shared by the API, scenario
 * loading and the generator. Every function works on a draft (or a state being built) and touches a few
 * buckets only, whatever the size of the world.
 *
 * Changes produce what the platform records for them: system notes for assignees, labels, title,
 * description, confidentiality, due date and locking; resource events for state, milestone and weight.
 */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { Project } from '../projects/record.js';
import {
  chunkAdd,
  chunkIds,
  chunkRemove,
  iidKey,
  type AwardableType,
  type AwardEmojiRecord,
  type DiffCommit,
  type DiffFile,
  type DiffVersionRecord,
  type EpicRecord,
  type GroupMeta,
  type IssueRecord,
  type IssueState,
  type LabelRecord,
  type MergeRequestRecord,
  type MergeRequestState,
  type MergeStatus,
  type MilestoneRecord,
  type NoteableType,
  type NoteRecord,
  type ProjectMeta,
  type SnippetRecord,
} from './store.js';
import { closingIssueIids, isWip, longDate, markedChange, sha, toSentence } from './text.js';

type S = Draft<PlatformState>;

/** `RelativePositioning::START_POSITION` and `IDEAL_DISTANCE` (13.x). */
const START_POSITION = 1_073_741_823;
const POSITION_GAP = 511;

// ---------------------------------------------------------------------------------------------------
// Per-project and per-group meta

/** The project's meta record, created on first use; bumps its version (every caller is a write). */
export function projectMeta(st: S, projectId: number): Draft<ProjectMeta> {
  let m = tget(st.issuables.projectMeta, projectId);
  if (!m) {
    tset(st.issuables.projectMeta, projectId, {
      id: projectId,
      issue_iid: 0,
      mr_iid: 0,
      milestone_iid: 0,
      last_position: 0,
      version: 0,
    });
    m = tget(st.issuables.projectMeta, projectId)!;
  }
  m.version++;
  return m;
}

export function groupMeta(st: S, groupId: number): Draft<GroupMeta> {
  let m = tget(st.issuables.groupMeta, groupId);
  if (!m) {
    tset(st.issuables.groupMeta, groupId, { id: groupId, milestone_iid: 0, epic_iid: 0, version: 0 });
    m = tget(st.issuables.groupMeta, groupId)!;
  }
  m.version++;
  return m;
}

// ---------------------------------------------------------------------------------------------------
// Labels

export interface LabelInput {
  title: string;
  color?: string;
  description?: string | null;
  priority?: number | null;
}

/** `Label::DEFAULT_COLOR` of 13.x. */
export const DEFAULT_LABEL_COLOR = '#428BCA';

export function createLabel(
  st: S,
  owner: { project_id: number } | { group_id: number },
  input: LabelInput,
  now: string,
): number {
  const id = nextId(st, 'labels');
  const rec: LabelRecord = {
    id,
    project_id: 'project_id' in owner ? owner.project_id : null,
    group_id: 'group_id' in owner ? owner.group_id : null,
    title: input.title,
    color: input.color ?? DEFAULT_LABEL_COLOR,
    description: input.description ?? null,
    priority: input.priority ?? null,
    created_at: now,
  };
  tset(st.issuables.labels, id, rec);
  madd(st.issuables.idx.owned, 'project_id' in owner ? `lp${owner.project_id}` : `lg${owner.group_id}`, id);
  return id;
}

/** Labels available in a project: its own, then its groups' (nearest first). */
export function availableLabels(st: PlatformState, project: Project): LabelRecord[] {
  const out: LabelRecord[] = [];
  for (const id of mget(st.issuables.idx.owned, `lp${project.id}`)) out.push(tget(st.issuables.labels, id)!);
  if (project.namespace_kind === 'group')
    for (
      let g = tget(st.groups, project.namespace_id);
      g;
      g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
    )
      for (const id of mget(st.issuables.idx.owned, `lg${g.id}`)) out.push(tget(st.issuables.labels, id)!);
  return out;
}

/**
 * `Labels::FindOrCreateService` for a list of titles: existing labels by exact title, else (when the
 * caller may create labels) new project labels. Titles that can be neither are dropped.
 */
export function labelIdsFor(
  st: S,
  project: Project,
  titles: readonly string[],
  canCreate: boolean,
  now: string,
): number[] {
  const out: number[] = [];
  const available = availableLabels(st, project);
  for (const raw of titles) {
    const title = raw.trim();
    if (title === '') continue;
    let label = available.find((l) => l.title === title);
    if (!label && canCreate) {
      const id = createLabel(st, { project_id: project.id }, { title }, now);
      label = tget(st.issuables.labels, id)!;
      available.push(label);
    }
    if (label && !out.includes(label.id)) out.push(label.id);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Notes, system notes and resource events

export interface NewNote {
  noteable_type: NoteableType;
  noteable_id: number;
  project_id: number | null;
  group_id?: number | null;
  author_id: number;
  body: string;
  system?: boolean;
  confidential?: boolean;
  created_at?: string;
  updated_at?: string;
}

export function createNote(st: S, input: NewNote, now: string): number {
  const id = nextId(st, 'notes');
  const created = input.created_at ?? now;
  const rec: NoteRecord = {
    id,
    noteable_type: input.noteable_type,
    noteable_id: input.noteable_id,
    project_id: input.project_id,
    group_id: input.group_id ?? null,
    author_id: input.author_id,
    body: input.body,
    system: input.system ?? false,
    confidential: input.confidential ?? false,
    created_at: created,
    updated_at: input.updated_at ?? created,
  };
  tset(st.issuables.notes, id, rec);
  madd(st.issuables.idx.notes, `${input.noteable_type}:${input.noteable_id}`, id);
  const target = issuableDraft(st, input.noteable_type, input.noteable_id);
  if (target) {
    if (!rec.system) {
      target.user_notes_count++;
      // A comment touches its noteable (`touch_noteable`).
      if (now > target.updated_at) target.updated_at = now;
    }
    projectMeta(st, target.project_id);
  }
  return id;
}

export function deleteNote(st: S, noteId: number): void {
  const n = tget(st.issuables.notes, noteId);
  if (!n) return;
  mremove(st.issuables.idx.notes, `${n.noteable_type}:${n.noteable_id}`, noteId);
  for (const id of mget(st.issuables.idx.awards, `Note:${noteId}`)) removeAward(st, id);
  const target = issuableDraft(st, n.noteable_type, n.noteable_id);
  if (target) {
    if (!n.system && target.user_notes_count > 0) target.user_notes_count--;
    projectMeta(st, target.project_id);
  }
  tdelete(st.issuables.notes, noteId);
}

function issuableDraft(st: S, type: string, id: number): IssuableDraft | undefined {
  if (type === 'Issue') return tget(st.issuables.issues, id);
  if (type === 'MergeRequest') return tget(st.issuables.mergeRequests, id);
  return undefined;
}

type Target = { type: 'Issue' | 'MergeRequest'; id: number; project_id: number };

function systemNote(st: S, t: Target, userId: number, body: string, now: string): void {
  createNote(
    st,
    {
      noteable_type: t.type,
      noteable_id: t.id,
      project_id: t.project_id,
      author_id: userId,
      body,
      system: true,
    },
    now,
  );
}

function resourceEvent(
  st: S,
  t: Target,
  userId: number,
  now: string,
  e: {
    kind: 'state' | 'milestone' | 'weight';
    state?: string;
    milestone_id?: number;
    action?: 'add' | 'remove';
    weight?: number | null;
  },
): void {
  const id = nextId(st, 'resource_events');
  tset(st.issuables.events, id, {
    id,
    kind: e.kind,
    target_type: t.type,
    target_id: t.id,
    user_id: userId,
    created_at: now,
    state: e.state ?? null,
    milestone_id: e.milestone_id ?? null,
    action: e.action ?? null,
    weight: e.weight ?? null,
  });
  madd(st.issuables.idx.byTarget, `e${t.type}:${t.id}`, id);
}

const userRef = (st: PlatformState, id: number) => `@${tget(st.users, id)?.username ?? 'ghost'}`;

/** `SystemNoteService.change_issuable_assignees`. */
function assigneesNote(st: S, before: readonly number[], after: readonly number[]): string | null {
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  const parts: string[] = [];
  if (added.length) parts.push(`assigned to ${toSentence(added.map((id) => userRef(st, id)))}`);
  if (removed.length) parts.push(`unassigned ${toSentence(removed.map((id) => userRef(st, id)))}`);
  return parts.length ? parts.join(' and ') : null;
}

/** `SystemNoteService.change_label`: `added ~1 ~2 labels and removed ~3 label`. */
function labelsNote(before: readonly number[], after: readonly number[]): string | null {
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  const part = (verb: string, ids: number[]) =>
    `${verb} ${ids.map((id) => `~${id}`).join(' ')} ${ids.length === 1 ? 'label' : 'labels'}`;
  const parts: string[] = [];
  if (added.length) parts.push(part('added', added));
  if (removed.length) parts.push(part('removed', removed));
  return parts.length ? parts.join(' and ') : null;
}

// ---------------------------------------------------------------------------------------------------
// What issues and merge requests share

/** The input fields of an issue or a merge request. */
interface NewIssuable {
  project_id: number;
  author_id: number;
  title: string;
  description?: string | null;
  iid?: number;
  assignee_ids?: readonly number[];
  label_ids?: readonly number[];
  milestone_id?: number | null;
  created_at?: string;
  updated_at?: string;
  closed_at?: string | null;
  closed_by_id?: number | null;
}

/** The record fields issues and merge requests share, in the records' key order; `state` last. */
function issuableFields<St extends string>(
  id: number,
  iid: number,
  input: NewIssuable,
  state: St,
  discussionLocked: boolean | null,
  now: string,
) {
  const created = input.created_at ?? now;
  return {
    id,
    iid,
    project_id: input.project_id,
    title: input.title,
    description: input.description ?? null,
    author_id: input.author_id,
    assignee_ids: input.assignee_ids ?? [],
    label_ids: input.label_ids ?? [],
    milestone_id: input.milestone_id ?? null,
    created_at: created,
    updated_at: input.updated_at ?? created,
    closed_at: state === 'closed' ? (input.closed_at ?? input.updated_at ?? created) : null,
    closed_by_id: state === 'closed' ? (input.closed_by_id ?? null) : null,
    discussion_locked: discussionLocked,
    time_estimate: 0,
    total_time_spent: 0,
    upvotes: 0,
    downvotes: 0,
    user_notes_count: 0,
    state,
  };
}

type IssuableDraft = Draft<IssueRecord> | Draft<MergeRequestRecord>;

/** A changed title and description, with their system notes. */
function setText(
  st: S,
  rec: IssuableDraft,
  t: Target,
  ch: { title?: string; description?: string | null },
  userId: number,
  now: string,
): boolean {
  let changed = false;
  if (ch.title !== undefined && ch.title !== rec.title) {
    const [from, to] = markedChange(rec.title, ch.title);
    systemNote(st, t, userId, `changed title from **${from}** to **${to}**`, now);
    rec.title = ch.title;
    changed = true;
  }
  if (ch.description !== undefined && (ch.description ?? '') !== (rec.description ?? '')) {
    rec.description = ch.description;
    systemNote(st, t, userId, 'changed the description', now);
    changed = true;
  }
  return changed;
}

/** Locks or unlocks the discussion (`noun`: `issue`, `merge request`). */
function setLocked(
  st: S,
  rec: IssuableDraft,
  t: Target,
  locked: boolean,
  noun: string,
  userId: number,
  now: string,
): boolean {
  if (locked === (rec.discussion_locked ?? false)) return false;
  rec.discussion_locked = locked;
  systemNote(st, t, userId, `${locked ? 'locked' : 'unlocked'} this ${noun}`, now);
  return true;
}

/** A `close` or `reopen` state event that applies (closing a closed one does not), with its resource event. */
function closeOrReopen(
  st: S,
  rec: IssuableDraft,
  t: Target,
  event: 'close' | 'reopen' | undefined,
  userId: number,
  now: string,
): 'closed' | 'reopened' | null {
  let to: 'closed' | 'reopened';
  if (event === 'close' && rec.state === 'opened') {
    rec.state = 'closed';
    rec.closed_at = now;
    rec.closed_by_id = userId;
    to = 'closed';
  } else if (event === 'reopen' && rec.state === 'closed') {
    rec.state = 'opened';
    rec.closed_at = null;
    rec.closed_by_id = null;
    to = 'reopened';
  } else return null;
  resourceEvent(st, t, userId, now, { kind: 'state', state: to });
  return to;
}

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
  const rec: IssueRecord = {
    ...issuableFields(id, iid, input, state, input.discussion_locked ?? null, now),
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
  };
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
function closeIssue(st: S, issue: Draft<IssueRecord>, userId: number, now: string): void {
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

function setAssignees(
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

function setLabels(
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
  return true;
}

function setMilestone(
  st: S,
  rec: IssuableDraft,
  t: Target,
  id: number | null,
  userId: number,
  now: string,
): boolean {
  if (rec.milestone_id === id) return false;
  if (rec.milestone_id !== null)
    resourceEvent(st, t, userId, now, {
      kind: 'milestone',
      milestone_id: rec.milestone_id,
      action: 'remove',
    });
  if (id !== null) resourceEvent(st, t, userId, now, { kind: 'milestone', milestone_id: id, action: 'add' });
  rec.milestone_id = id;
  return true;
}

/** Removes an issue and what hangs off it. */
export function deleteIssue(st: S, id: number): void {
  const issue = tget(st.issuables.issues, id);
  if (!issue) return;
  removeTargetSatellites(st, 'Issue', id);
  for (const mrId of mget(st.issuables.idx.closing, `i${id}`))
    mremove(st.issuables.idx.closing, `m${mrId}`, id);
  idelete(st.issuables.idx.closing, `i${id}`);
  idelete(st.issuables.idx.iids, iidKey('i', issue.project_id, issue.iid));
  chunkRemove(st.issuables.idx.byProject, 'i', issue.project_id, issue.iid, id);
  if (issue.state === 'opened') bumpOpenIssues(st, issue.project_id, -1);
  projectMeta(st, issue.project_id);
  tdelete(st.issuables.issues, id);
}

/** Notes, award emoji, subscriptions, todos and resource events of an issue or merge request. */
function removeTargetSatellites(st: S, type: 'Issue' | 'MergeRequest', id: number): void {
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

// ---------------------------------------------------------------------------------------------------
// Award emoji, subscriptions, todos

export function addAward(
  st: S,
  type: AwardableType,
  targetId: number,
  userId: number,
  name: string,
  now: string,
): number {
  const id = nextId(st, 'award_emoji');
  const rec: AwardEmojiRecord = {
    id,
    name,
    user_id: userId,
    awardable_type: type,
    awardable_id: targetId,
    created_at: now,
    updated_at: now,
  };
  tset(st.issuables.awards, id, rec);
  madd(st.issuables.idx.awards, `${type}:${targetId}`, id);
  countVote(st, type, targetId, name, 1);
  return id;
}

/** Keeps an issuable's vote counters in step with its `thumbsup` and `thumbsdown` awards. */
function countVote(st: S, type: AwardableType, targetId: number, name: string, by: 1 | -1): void {
  const target = issuableDraft(st, type, targetId);
  if (!target) return;
  if (name === 'thumbsup') target.upvotes = Math.max(0, target.upvotes + by);
  if (name === 'thumbsdown') target.downvotes = Math.max(0, target.downvotes + by);
  projectMeta(st, target.project_id);
}

export function removeAward(st: S, id: number): void {
  const a = tget(st.issuables.awards, id);
  if (!a) return;
  mremove(st.issuables.idx.awards, `${a.awardable_type}:${a.awardable_id}`, id);
  countVote(st, a.awardable_type, a.awardable_id, a.name, -1);
  tdelete(st.issuables.awards, id);
}

/** The user's award of `name` on the target, if any. */
export function findAward(
  st: PlatformState,
  type: AwardableType,
  targetId: number,
  userId: number,
  name: string,
): AwardEmojiRecord | undefined {
  for (const id of mget(st.issuables.idx.awards, `${type}:${targetId}`)) {
    const a = tget(st.issuables.awards, id)!;
    if (a.user_id === userId && a.name === name) return a;
  }
  return undefined;
}

/** Records an explicit subscription state of a user on an issue or merge request. */
export function setSubscription(
  st: S,
  type: 'Issue' | 'MergeRequest',
  targetId: number,
  projectId: number,
  userId: number,
  subscribed: boolean,
): void {
  const key = `${type}:${targetId}:${userId}`;
  const existing = iget(st.issuables.idx.userTarget, key);
  if (existing !== undefined) {
    tget(st.issuables.subscriptions, existing)!.subscribed = subscribed;
    return;
  }
  const id = nextId(st, 'subscriptions');
  tset(st.issuables.subscriptions, id, {
    id,
    target_type: type,
    target_id: targetId,
    user_id: userId,
    project_id: projectId,
    subscribed,
  });
  iset(st.issuables.idx.userTarget, key, id);
  madd(st.issuables.idx.byTarget, `s${type}:${targetId}`, id);
}

/** A `marked` todo for the user; the caller checked that none is pending. Returns its id. */
export function markTodo(
  st: S,
  type: 'Issue' | 'MergeRequest',
  target: IssueRecord | MergeRequestRecord,
  userId: number,
  now: string,
): number {
  const id = nextId(st, 'todos');
  tset(st.issuables.todos, id, {
    id,
    user_id: userId,
    author_id: userId,
    project_id: target.project_id,
    target_type: type,
    target_id: target.id,
    action: 'marked',
    state: 'pending',
    body: target.title,
    created_at: now,
    updated_at: now,
  });
  iset(st.issuables.idx.userTarget, `${type}:${target.id}:${userId}:marked`, id);
  madd(st.issuables.idx.byTarget, `t${type}:${target.id}`, id);
  madd(st.issuables.idx.byTarget, `tu${userId}`, id);
  return id;
}

// ---------------------------------------------------------------------------------------------------
// Milestones

export interface NewMilestone {
  title: string;
  description?: string | null;
  state?: 'active' | 'closed';
  due_date?: string | null;
  start_date?: string | null;
  created_at?: string;
  updated_at?: string;
}

export function createMilestone(
  st: S,
  owner: { project_id: number } | { group_id: number },
  input: NewMilestone,
  now: string,
): number {
  const id = nextId(st, 'milestones');
  const projectId = 'project_id' in owner ? owner.project_id : null;
  const groupId = 'group_id' in owner ? owner.group_id : null;
  const meta = projectId !== null ? projectMeta(st, projectId) : groupMeta(st, groupId!);
  const iid = ++meta.milestone_iid;
  const created = input.created_at ?? now;
  const rec: MilestoneRecord = {
    id,
    iid,
    project_id: projectId,
    group_id: groupId,
    title: input.title,
    description: input.description ?? null,
    state: input.state ?? 'active',
    due_date: input.due_date ?? null,
    start_date: input.start_date ?? null,
    created_at: created,
    updated_at: input.updated_at ?? created,
  };
  tset(st.issuables.milestones, id, rec);
  madd(st.issuables.idx.owned, projectId !== null ? `p${projectId}` : `g${groupId}`, id);
  return id;
}

/** Milestone titles are unique per project and per group. */
export function milestoneTitleTaken(
  st: PlatformState,
  owner: { project_id: number } | { group_id: number },
  title: string,
  exceptId?: number,
): boolean {
  const key = 'project_id' in owner ? `p${owner.project_id}` : `g${owner.group_id}`;
  return mget(st.issuables.idx.owned, key).some(
    (id) => id !== exceptId && tget(st.issuables.milestones, id)?.title === title,
  );
}

/** Deletes a milestone; its issues and merge requests lose it (`Milestones::DestroyService`). */
export function deleteMilestone(st: S, id: number, userId: number, now: string): void {
  const m = tget(st.issuables.milestones, id);
  if (!m) return;
  for (const projectId of milestoneProjects(st, m)) {
    const meta = tget(st.issuables.projectMeta, projectId);
    if (!meta) continue;
    for (const kind of ['i', 'm'] as const) {
      const table = kind === 'i' ? st.issuables.issues : st.issuables.mergeRequests;
      for (const rid of chunkIds(
        st.issuables.idx.byProject,
        kind,
        projectId,
        kind === 'i' ? meta.issue_iid : meta.mr_iid,
      )) {
        const rec = tget(table as typeof st.issuables.issues, rid) as Draft<IssueRecord> | undefined;
        if (rec?.milestone_id === id) {
          const t: Target = { type: kind === 'i' ? 'Issue' : 'MergeRequest', id: rid, project_id: projectId };
          setMilestone(st, rec, t, null, userId, now);
          projectMeta(st, projectId);
        }
      }
    }
  }
  mremove(st.issuables.idx.owned, m.project_id !== null ? `p${m.project_id}` : `g${m.group_id}`, id);
  tdelete(st.issuables.milestones, id);
}

/** The projects whose issuables may use a milestone: its project, or every project under its group. */
export function milestoneProjects(st: PlatformState, m: MilestoneRecord): number[] {
  if (m.project_id !== null) return [m.project_id];
  const out: number[] = [];
  const groups = [m.group_id!];
  for (let i = 0; i < groups.length; i++) {
    for (const pid of mget(st.idx.projectsByNamespace, `group:${groups[i]}`)) out.push(pid);
    for (const child of mget(st.idx.subgroups, String(groups[i]))) groups.push(child);
  }
  return out;
}

/**
 * `Milestones::PromoteService`: a group milestone with the project milestone's title takes over the
 * issues and merge requests of every same-titled milestone in the group's projects, which are deleted.
 */
export function promoteMilestone(st: S, id: number, groupId: number, now: string): number {
  const m = tget(st.issuables.milestones, id)!;
  const groupMs = createMilestone(
    st,
    { group_id: groupId },
    {
      title: m.title,
      description: m.description,
      state: m.state,
      due_date: m.due_date,
      start_date: m.start_date,
    },
    now,
  );
  const group = milestoneProjects(st, tget(st.issuables.milestones, groupMs)!);
  const merged = new Set<number>();
  for (const pid of group)
    for (const mid of mget(st.issuables.idx.owned, `p${pid}`)) {
      const pm = tget(st.issuables.milestones, mid)!;
      if (pm.title === m.title) merged.add(mid);
    }
  for (const pid of group) {
    const meta = tget(st.issuables.projectMeta, pid);
    if (!meta) continue;
    let touched = false;
    for (const rid of chunkIds(st.issuables.idx.byProject, 'i', pid, meta.issue_iid)) {
      const rec = tget(st.issuables.issues, rid)!;
      if (rec.milestone_id !== null && merged.has(rec.milestone_id)) {
        rec.milestone_id = groupMs;
        touched = true;
      }
    }
    for (const rid of chunkIds(st.issuables.idx.byProject, 'm', pid, meta.mr_iid)) {
      const rec = tget(st.issuables.mergeRequests, rid)!;
      if (rec.milestone_id !== null && merged.has(rec.milestone_id)) {
        rec.milestone_id = groupMs;
        touched = true;
      }
    }
    if (touched) projectMeta(st, pid);
  }
  for (const mid of merged) {
    const pm = tget(st.issuables.milestones, mid)!;
    mremove(st.issuables.idx.owned, `p${pm.project_id}`, mid);
    tdelete(st.issuables.milestones, mid);
  }
  return groupMs;
}

// ---------------------------------------------------------------------------------------------------
// Snippets and epics (as far as notes need them)

export function createSnippet(st: S, input: Omit<SnippetRecord, 'id'>): number {
  const id = nextId(st, 'snippets');
  tset(st.issuables.snippets, id, { id, ...input });
  if (input.project_id !== null) madd(st.issuables.idx.owned, `sp${input.project_id}`, id);
  madd(st.issuables.idx.owned, `su${input.author_id}`, id);
  return id;
}

export function createEpic(st: S, input: Omit<EpicRecord, 'id' | 'iid'>): number {
  const id = nextId(st, 'epics');
  const meta = groupMeta(st, input.group_id);
  const iid = ++meta.epic_iid;
  tset(st.issuables.epics, id, { id, iid, ...input });
  madd(st.issuables.idx.owned, `eg${input.group_id}`, id);
  return id;
}

// ---------------------------------------------------------------------------------------------------
// Project deletion

/** Everything of a project's: called by `deleteProject`. */
export function deleteProjectIssuables(st: S, projectId: number): void {
  const meta = tget(st.issuables.projectMeta, projectId);
  if (meta) {
    for (const id of chunkIds(st.issuables.idx.byProject, 'm', projectId, meta.mr_iid))
      deleteMergeRequest(st, id);
    for (const id of chunkIds(st.issuables.idx.byProject, 'i', projectId, meta.issue_iid))
      deleteIssue(st, id);
  }
  for (const id of mget(st.issuables.idx.owned, `p${projectId}`)) tdelete(st.issuables.milestones, id);
  idelete(st.issuables.idx.owned, `p${projectId}`);
  for (const id of mget(st.issuables.idx.owned, `lp${projectId}`)) tdelete(st.issuables.labels, id);
  idelete(st.issuables.idx.owned, `lp${projectId}`);
  for (const id of mget(st.issuables.idx.owned, `sp${projectId}`)) {
    for (const n of mget(st.issuables.idx.notes, `Snippet:${id}`)) tdelete(st.issuables.notes, n);
    idelete(st.issuables.idx.notes, `Snippet:${id}`);
    mremove(st.issuables.idx.owned, `su${tget(st.issuables.snippets, id)!.author_id}`, id);
    tdelete(st.issuables.snippets, id);
  }
  idelete(st.issuables.idx.owned, `sp${projectId}`);
  tdelete(st.issuables.projectMeta, projectId);
}
