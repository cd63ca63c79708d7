/**
 * The instance's events (`Event` records), derived from what their causes left: a project's creation,
 * its memberships (joined), issues and merge requests (opened, and their state events: closed, reopened,
 * merged), comments (on commits too) and the push log. Milestones keep no author, so their events are not derived.
 *
 * A project's events come from its own records through the indexes, so that a project's list costs what
 * the project holds. An event's id is made from the record it comes from (16 × the record's id plus its
 * kind), the same in every list and stable while the record stands; lists are in time order.
 */
import type { PlatformState } from '../../core/state.js';
import { iget, mget, tget, tvalues } from '../../core/table.js';
import { projectSet } from '../issuables/finder.js';
import type { IssueRecord, MergeRequestRecord } from '../issuables/store.js';
import type { PushRecord } from './store.js';

export type EventAction =
  | 'created'
  | 'updated'
  | 'closed'
  | 'reopened'
  | 'pushed'
  | 'commented'
  | 'merged'
  | 'joined'
  | 'left'
  | 'destroyed'
  | 'expired'
  | 'approved';

/** The classes of notes an event names. */
export type NoteClass = 'Note' | 'DiscussionNote' | 'DiffNote' | 'LegacyDiffNote';
export const isNoteClass = (t: string | null): t is NoteClass =>
  t === 'Note' || t === 'DiscussionNote' || t === 'DiffNote' || t === 'LegacyDiffNote';

export interface EventRow {
  id: number;
  project_id: number;
  action: EventAction;
  author_id: number;
  created_at: string;
  target_type: 'Issue' | 'MergeRequest' | NoteClass | null;
  target_id: number | null;
  push?: PushRecord;
}

/** The kind part of an event's id. */
const KIND = {
  project: 1,
  member: 2,
  issue: 3,
  mergeRequest: 4,
  stateEvent: 5,
  issueClosed: 6,
  mergeRequestEnded: 7,
  note: 8,
  push: 9,
} as const;

const eventId = (kind: keyof typeof KIND, recordId: number) => recordId * 16 + KIND[kind];

/**
 * An event row, every field in one literal: rows made as `{ ...base, id, ... }` each got a hidden class
 * of their own in V8 (a literal that spreads an object and then adds keys), a cost per row of a project
 * that holds thousands.
 */
const row = (
  projectId: number,
  targetType: EventRow['target_type'],
  targetId: number | null,
  id: number,
  action: EventAction,
  authorId: number,
  createdAt: string,
): EventRow => ({
  id,
  project_id: projectId,
  action,
  author_id: authorId,
  created_at: createdAt,
  target_type: targetType,
  target_id: targetId,
});

/** Time order; events of the same instant by id. */
export const byTime = (a: EventRow, b: EventRow) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id;

const STATE_ACTION: Readonly<Record<string, EventAction>> = {
  closed: 'closed',
  reopened: 'reopened',
  merged: 'merged',
};

/** The events of one project, oldest first. */
function deriveProject(st: PlatformState, pid: number): EventRow[] {
  const p = tget(st.projects, pid);
  if (!p) return [];
  const out: EventRow[] = [];
  out.push(row(pid, null, null, eventId('project', pid), 'created', p.creator_id, p.created_at));
  for (const mid of mget(st.idx.membersBySource, `project:${pid}`)) {
    const m = tget(st.members, mid);
    if (m) out.push(row(pid, null, null, eventId('member', m.id), 'joined', m.user_id, m.created_at));
  }
  const notesOf = (type: string, id: number) => {
    for (const nid of mget(st.issuables.idx.notes, `${type}:${id}`)) {
      const n = tget(st.issuables.notes, nid);
      if (!n || n.system) continue;
      // The note's own class: a thread's notes are `DiscussionNote`s, a diff thread's `DiffNote`s.
      const cls = (n as { type?: NoteClass | null }).type ?? 'Note';
      out.push(row(pid, cls, n.id, eventId('note', n.id), 'commented', n.author_id, n.created_at));
    }
  };
  const issuable = (type: 'Issue' | 'MergeRequest', x: IssueRecord | MergeRequestRecord) => {
    const kind = type === 'Issue' ? 'issue' : 'mergeRequest';
    out.push(row(pid, type, x.id, eventId(kind, x.id), 'created', x.author_id, x.created_at));
    let stateEvents = 0;
    for (const eid of mget(st.issuables.idx.byTarget, `e${type}:${x.id}`)) {
      const ev = tget(st.issuables.events, eid);
      const action = ev && ev.kind === 'state' && ev.state ? STATE_ACTION[ev.state] : undefined;
      if (!ev || !action) continue;
      stateEvents++;
      out.push(row(pid, type, x.id, eventId('stateEvent', ev.id), action, ev.user_id, ev.created_at));
    }
    notesOf(type, x.id);
    if (stateEvents) return;
    // Records a scenario made closed or merged have no state events: their own fields tell.
    const mr = type === 'MergeRequest' ? (x as MergeRequestRecord) : undefined;
    if (mr?.state === 'merged' && mr.merged_at)
      out.push(
        row(
          pid,
          type,
          x.id,
          eventId('mergeRequestEnded', x.id),
          'merged',
          mr.merged_by_id ?? x.author_id,
          mr.merged_at,
        ),
      );
    else if (x.state === 'closed' && x.closed_at) {
      const ended = eventId(mr ? 'mergeRequestEnded' : 'issueClosed', x.id);
      out.push(row(pid, type, x.id, ended, 'closed', x.closed_by_id ?? x.author_id, x.closed_at));
    }
  };
  for (const i of projectSet<IssueRecord>(st, 'i', pid).all) issuable('Issue', i);
  for (const m of projectSet<MergeRequestRecord>(st, 'm', pid).all) issuable('MergeRequest', m);
  for (const sid of mget(st.issuables.idx.owned, `sp${pid}`)) notesOf('Snippet', sid);
  // The project's comments on commits (their notes keep the project's id as their noteable's).
  notesOf('Commit', pid);
  for (const push of tvalues(st.events.pushes))
    if (push.project_id === pid)
      out.push(
        Object.assign(
          row(pid, null, null, eventId('push', push.id), 'pushed', push.author_id, push.created_at),
          {
            push,
          },
        ),
      );
  return out.sort(byTime);
}

/**
 * What a project's events are made from, by identity: its record, its issuables' meta (its version moves
 * with every write to its issues, merge requests and their comments and state events), its members and
 * the push log. While none of them changes, the project's list is kept across states.
 */
interface Kept {
  meta: unknown;
  members: unknown;
  pushes: unknown;
  rows: EventRow[];
}

const kept = new WeakMap<object, Kept>();

/** One project's events, oldest first. */
export function projectEvents(st: PlatformState, projectId: number): EventRow[] {
  const p = tget(st.projects, projectId);
  if (!p) return [];
  const meta = tget(st.issuables.projectMeta, projectId);
  const members = iget(st.idx.membersBySource, `project:${projectId}`);
  const pushes = st.events.pushes;
  const k = kept.get(p);
  if (k && k.meta === meta && k.members === members && k.pushes === pushes) return k.rows;
  const rows = deriveProject(st, projectId);
  kept.set(p, { meta, members, pushes, rows });
  return rows;
}

/** A user's events in every project, oldest first. */
export function authoredEvents(st: PlatformState, userId: number): EventRow[] {
  const out: EventRow[] = [];
  for (const p of tvalues(st.projects))
    for (const e of projectEvents(st, p.id)) if (e.author_id === userId) out.push(e);
  return out.sort(byTime);
}
