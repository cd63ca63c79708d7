/** What issue and merge request writes share: their common fields, text, locking and state events. */
import { type Draft } from 'immer';
import { type PlatformState } from '../../../core/state.js';
import { markedChange } from '../text.js';
import type { IssuableDraft } from './drafts.js';
import { type Target, resourceEvent, systemNote } from './notes.js';

type S = Draft<PlatformState>;

// ---------------------------------------------------------------------------------------------------
// What issues and merge requests share

/** The input fields of an issue or a merge request. */
export interface NewIssuable {
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

/**
 * The record fields issues and merge requests share, in the records' key order; `state` last. A record
 * adds its own fields to this object (`Object.assign`): in V8, a literal that spreads an object and then
 * adds keys gets a hidden class of its own each time, which for 100,000 issues held ~130 MB of shapes
 * and made every read of their fields megamorphic.
 */
export function issuableFields<St extends string>(
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

/** A changed title and description, with their system notes. */
export function setText(
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
export function setLocked(
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
export function closeOrReopen(
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
