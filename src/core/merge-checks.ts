/**
 * What else a merge request needs before it can be merged (`MergeRequest#mergeable?` of the paid tiers:
 * approvals): areas declare a `mergeCheck` in their descriptor; the area list registers them here, and
 * the merge route asks `mergeBlocked` without naming any area. Only functions are kept here.
 */
import type { PlatformState } from './state.js';

/** True when the check blocks merging the merge request `mrId` (a record of the issuables area). */
export type MergeCheck = (st: PlatformState, mrId: number) => boolean;

const registered: MergeCheck[] = [];

/** Adds checks, in order; one already registered is not added twice. */
export function registerMergeChecks(list: readonly MergeCheck[]): void {
  for (const h of list) if (!registered.includes(h)) registered.push(h);
}

export function mergeBlocked(st: PlatformState, mrId: number): boolean {
  return registered.some((h) => h(st, mrId));
}
