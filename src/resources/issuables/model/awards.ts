/** Award emoji, subscriptions and todos. */
import { type Draft } from 'immer';
import { nextId, type PlatformState } from '../../../core/state.js';
import { iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../../core/table.js';
import {
  type AwardableType,
  type AwardEmojiRecord,
  type EpicRecord,
  type IssueRecord,
  type MergeRequestRecord,
} from '../store.js';
import { projectMeta } from './meta.js';
import { issuableDraft } from './drafts.js';

type S = Draft<PlatformState>;

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
  type: 'Issue' | 'MergeRequest' | 'Epic',
  target: IssueRecord | MergeRequestRecord | EpicRecord,
  userId: number,
  now: string,
): number {
  const id = nextId(st, 'todos');
  const epic = type === 'Epic' ? (target as EpicRecord) : undefined;
  tset(st.issuables.todos, id, {
    id,
    user_id: userId,
    author_id: userId,
    project_id: epic ? null : (target as IssueRecord).project_id,
    group_id: epic ? epic.group_id : null,
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
