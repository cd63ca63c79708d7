/**
 * The events the records cannot tell afterwards: pushes (fauxlab keeps only where each ref points now).
 * Every other event of the events API is derived from the records that its cause left (src/resources/
 * events/derive.ts). Bounded: past `PUSH_LOG_SIZE` the oldest pushes are forgotten.
 */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { emptyTable, tdelete, tset, tvalues, type Table } from '../../core/table.js';

export const PUSH_LOG_SIZE = 10_000;

export interface PushRecord {
  id: number;
  project_id: number;
  author_id: number;
  ref: string;
  ref_type: 'branch' | 'tag';
  /** `created`, `removed` or `pushed`, as `PushEventPayload#action`. */
  action: 'created' | 'removed' | 'pushed';
  commit_from: string | null;
  commit_to: string | null;
  created_at: string;
}

export interface EventsState {
  pushes: Table<PushRecord>;
  /** The id of the oldest push kept. */
  oldest: number;
}

export const emptyEvents = (): EventsState => ({ pushes: emptyTable(), oldest: 1 });

/** Records a push in the write that moves the ref. */
export function recordPush(st: Draft<PlatformState>, push: Omit<PushRecord, 'id'>): void {
  const id = nextId(st, 'pushes');
  tset(st.events.pushes, id, { id, ...push });
  while (id - st.events.oldest >= PUSH_LOG_SIZE) tdelete(st.events.pushes, st.events.oldest++);
}

/** A deleted project's pushes go with it. */
export function deleteProjectPushes(st: Draft<PlatformState>, projectId: number): void {
  for (const push of tvalues(st.events.pushes))
    if (push.project_id === projectId) tdelete(st.events.pushes, push.id);
}

declare module '../../core/state.js' {
  interface AreaStates {
    events: EventsState;
  }
}
