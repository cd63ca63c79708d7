/**
 * The instance's events (`Event` records), derived from what their causes left: a project's creation,
 * memberships (joined), issues and merge requests (opened, and their state events: closed, reopened,
 * merged), comments and the push log. Milestones keep no author, so their events are not derived. One list per state, in time order
 * and numbered from 1, computed once for each state the API is asked about.
 */
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
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

export interface EventRow {
  id: number;
  project_id: number;
  action: EventAction;
  author_id: number;
  created_at: string;
  target_type: 'Issue' | 'MergeRequest' | 'Milestone' | 'Note' | 'DiffNote' | null;
  target_id: number | null;
  push?: PushRecord;
}

type Draft = Omit<EventRow, 'id'> & { order: number };

const cache = new WeakMap<PlatformState, EventRow[]>();

export function allEvents(st: PlatformState): EventRow[] {
  let list = cache.get(st);
  if (!list) cache.set(st, (list = derive(st)));
  return list;
}

function derive(st: PlatformState): EventRow[] {
  const out: Draft[] = [];
  let order = 0;
  const add = (e: Omit<Draft, 'order'>) => out.push({ ...e, order: order++ });
  for (const p of tvalues(st.projects))
    add({
      project_id: p.id,
      action: 'created',
      author_id: p.creator_id,
      created_at: p.created_at,
      target_type: null,
      target_id: null,
    });
  for (const m of tvalues(st.members))
    if (m.source === 'project' && tget(st.projects, m.source_id))
      add({
        project_id: m.source_id,
        action: 'joined',
        author_id: m.user_id,
        created_at: m.created_at,
        target_type: null,
        target_id: null,
      });
  const stateEvents = new Set<string>();
  for (const ev of tvalues(st.issuables.events)) {
    if (ev.kind !== 'state' || !ev.state) continue;
    const target =
      ev.target_type === 'Issue'
        ? tget(st.issuables.issues, ev.target_id)
        : tget(st.issuables.mergeRequests, ev.target_id);
    const action = (
      { closed: 'closed', reopened: 'reopened', merged: 'merged' } as Record<string, EventAction>
    )[ev.state];
    if (!target || !action) continue;
    stateEvents.add(`${ev.target_type}:${ev.target_id}`);
    add({
      project_id: target.project_id,
      action,
      author_id: ev.user_id,
      created_at: ev.created_at,
      target_type: ev.target_type,
      target_id: target.id,
    });
  }
  const issuable = (type: 'Issue' | 'MergeRequest', x: IssueRecord | MergeRequestRecord) => {
    add({
      project_id: x.project_id,
      action: 'created',
      author_id: x.author_id,
      created_at: x.created_at,
      target_type: type,
      target_id: x.id,
    });
    if (stateEvents.has(`${type}:${x.id}`)) return;
    // Records a scenario made closed or merged have no state events: their own fields tell.
    const mr = type === 'MergeRequest' ? (x as MergeRequestRecord) : undefined;
    if (mr?.state === 'merged' && mr.merged_at)
      add({
        project_id: x.project_id,
        action: 'merged',
        author_id: mr.merged_by_id ?? x.author_id,
        created_at: mr.merged_at,
        target_type: type,
        target_id: x.id,
      });
    else if (x.state === 'closed' && x.closed_at)
      add({
        project_id: x.project_id,
        action: 'closed',
        author_id: x.closed_by_id ?? x.author_id,
        created_at: x.closed_at,
        target_type: type,
        target_id: x.id,
      });
  };
  for (const i of tvalues(st.issuables.issues)) issuable('Issue', i);
  for (const m of tvalues(st.issuables.mergeRequests)) issuable('MergeRequest', m);
  for (const n of tvalues(st.issuables.notes))
    if (
      !n.system &&
      n.project_id !== null &&
      (n.noteable_type === 'Issue' || n.noteable_type === 'MergeRequest' || n.noteable_type === 'Snippet')
    )
      add({
        project_id: n.project_id,
        action: 'commented',
        author_id: n.author_id,
        created_at: n.created_at,
        target_type: (n as { type?: string }).type === 'DiffNote' ? 'DiffNote' : 'Note',
        target_id: n.id,
      });
  for (const push of tvalues(st.events.pushes))
    add({
      project_id: push.project_id,
      action: 'pushed',
      author_id: push.author_id,
      created_at: push.created_at,
      target_type: null,
      target_id: null,
      push,
    });
  out.sort((a, b) =>
    a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.order - b.order,
  );
  return out.map(({ order: _order, ...e }, i) => ({ id: i + 1, ...e }));
}
