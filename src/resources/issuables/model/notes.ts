/** Notes, and the system notes and resource events that changes record. */
import { type Draft } from 'immer';
import { nextId, type PlatformState } from '../../../core/state.js';
import { madd, mget, mremove, tdelete, tget, tset } from '../../../core/table.js';
import { type DiffPosition, type NoteableType, type NoteRecord, type ResourceEventRecord } from '../store.js';
import { sha, toSentence } from '../text.js';
import { removeAward } from './awards.js';
import { projectMeta } from './meta.js';
import { issuableDraft } from './drafts.js';
import { keepAround } from '../../repository/keep.js';

type S = Draft<PlatformState>;

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
  /** A reply joins this discussion; a new thread or individual note starts its own. */
  discussion_id?: string;
  type?: NoteRecord['type'];
  position?: DiffPosition;
  /** A commit note's commit (its `noteable_id` is then the project's id). */
  commit_id?: string;
  legacy_line?: NoteRecord['legacy_line'];
  resolved_at?: string | null;
  resolved_by_id?: number | null;
}

/** A new discussion's id: 40 hex digits, as the platform's SHA-1 ids, derived from the note. */
const discussionIdFor = (input: NewNote, id: number) =>
  sha(`discussion:${input.noteable_type}:${input.commit_id ?? input.noteable_id}:${id}`);

/**
 * `Note#keep_around_commit` (a commit note's commit) and `DiffNote#keep_around_commits` (its
 * position's base, start and head), after a note is saved through the API (not when imported): the
 * commits stay in the project's repository under `refs/keep-around/<sha>`.
 */
export function keepNoteCommits(st: S, noteId: number): void {
  const note = tget(st.issuables.notes, noteId);
  if (!note || note.project_id === null) return;
  const p = note.position;
  keepAround(st, note.project_id, [note.commit_id, p?.base_sha, p?.start_sha, p?.head_sha]);
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
    discussion_id: input.discussion_id ?? discussionIdFor(input, id),
    type: input.type ?? null,
  };
  if (input.commit_id !== undefined) rec.commit_id = input.commit_id;
  if (input.position) rec.position = input.position;
  if (input.legacy_line) rec.legacy_line = input.legacy_line;
  if (input.resolved_at) {
    rec.resolved_at = input.resolved_at;
    rec.resolved_by_id = input.resolved_by_id ?? null;
  }
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
  } else if (input.noteable_type === 'Commit') projectMeta(st, input.noteable_id);
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
  } else if (n.noteable_type === 'Commit') projectMeta(st, n.noteable_id);
  tdelete(st.issuables.notes, noteId);
}

/** `Note#resolvable?`: a thread's note (not a system one) on a merge request. */
export const isResolvable = (n: NoteRecord) => !!n.type && !n.system && n.noteable_type === 'MergeRequest';

export type Target = { type: 'Issue' | 'MergeRequest'; id: number; project_id: number };

export function systemNote(st: S, t: Target, userId: number, body: string, now: string): void {
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

export function resourceEvent(
  st: S,
  t: Pick<Target, 'id'> & { type: Target['type'] | 'Epic' },
  userId: number,
  now: string,
  e: {
    kind: 'state' | 'milestone' | 'weight' | 'label';
    state?: string;
    milestone_id?: number;
    label_id?: number;
    issuable_state?: string;
    action?: 'add' | 'remove';
    weight?: number | null;
  },
): void {
  const id = nextId(st, 'resource_events');
  const rec: ResourceEventRecord = {
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
  };
  if (e.label_id !== undefined) rec.label_id = e.label_id;
  if (e.issuable_state !== undefined) rec.issuable_state = e.issuable_state;
  tset(st.issuables.events, id, rec);
  madd(st.issuables.idx.byTarget, `e${t.type}:${t.id}`, id);
}

/**
 * What `Issuable::CommonSystemNotesService` records for a new issue or merge request (`is_update:
 * false`): a label event per label it was created with (`create_labels_note`, against no old labels) and
 * a milestone event when it has one (`create_milestone_change_event`), as the author, at creation.
 */
export function createdEvents(
  st: S,
  t: Target,
  userId: number,
  now: string,
  labelIds: readonly number[],
  milestoneId: number | null,
  issuableState: string,
): void {
  for (const id of labelIds)
    resourceEvent(st, t, userId, now, { kind: 'label', label_id: id, action: 'add' });
  if (milestoneId !== null)
    resourceEvent(st, t, userId, now, {
      kind: 'milestone',
      milestone_id: milestoneId,
      action: 'add',
      issuable_state: issuableState,
    });
}

export const userRef = (st: PlatformState, id: number) => `@${tget(st.users, id)?.username ?? 'ghost'}`;

/** `SystemNoteService.change_issuable_assignees`. */
export function assigneesNote(st: S, before: readonly number[], after: readonly number[]): string | null {
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  const parts: string[] = [];
  if (added.length) parts.push(`assigned to ${toSentence(added.map((id) => userRef(st, id)))}`);
  if (removed.length) parts.push(`unassigned ${toSentence(removed.map((id) => userRef(st, id)))}`);
  return parts.length ? parts.join(' and ') : null;
}

/** `SystemNoteService.change_label`: `added ~1 ~2 labels and removed ~3 label`. */
export function labelsNote(before: readonly number[], after: readonly number[]): string | null {
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  const part = (verb: string, ids: number[]) =>
    `${verb} ${ids.map((id) => `~${id}`).join(' ')} ${ids.length === 1 ? 'label' : 'labels'}`;
  const parts: string[] = [];
  if (added.length) parts.push(part('added', added));
  if (removed.length) parts.push(part('removed', removed));
  return parts.length ? parts.join(' and ') : null;
}
