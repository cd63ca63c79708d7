/**
 * A merge moves branches as a push does: Gitaly's `UserMergeBranch` (`UserFFBranch`) moves the target
 * and `UserDeleteBranch` removes the source when asked, and both run the repository's hooks, so the
 * platform's `PostReceive` takes the moves as it takes a `git push` (`Git::BranchPushService`): the push
 * events, the target branch's push pipeline, the pipelines of merge requests from it, then the push
 * hooks. The merge request's own hooks (`MergeRequests::PostMergeService`) follow.
 */
import type { Draft } from 'immer';
import type { Fx } from '../../core/context.js';
import type { PlatformState } from '../../core/state.js';
import { dispatch } from '../integrations/events.js';
import { announceReceived, postReceive, type Received, type RefChange } from '../repository/post-receive.js';
import type { MergedRef } from './model/merge-requests.js';
import type { MergeRequestRecord } from './store.js';

/** In the merge's write: the post-receive step of each project whose branches the merge moved. */
export function receiveMerged(
  d: Draft<PlatformState>,
  moved: readonly MergedRef[],
  userId: number,
  now: string,
  base: string,
): Received[] {
  const byProject = new Map<number, RefChange[]>();
  for (const m of moved) {
    const list = byProject.get(m.projectId) ?? [];
    list.push({ kind: 'branch', name: m.branch, old: m.old, next: m.next });
    byProject.set(m.projectId, list);
  }
  return [...byProject].map(([projectId, changes]) =>
    postReceive(d, projectId, changes, { userId, now, wasEmpty: false, base }),
  );
}

/**
 * After the write: the pushes' hooks and pipelines' events, then the merge request's `merge` hook
 * (`merged`: the record before the merge).
 */
export function announceMerged(
  fx: Fx,
  base: string,
  userId: number,
  received: readonly Received[],
  merged: MergeRequestRecord,
): void {
  for (const r of received) announceReceived(fx, base, r);
  try {
    dispatch(fx, base, userId, { kind: 'merge_request', id: merged.id, before: merged.state, prev: merged });
  } catch (e) {
    console.error('fauxlab: could not notify integrations and webhooks', e);
  }
}
