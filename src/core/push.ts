/**
 * What follows a branch moving: areas that keep records about branches (merge requests, issues closed
 * by commits) declare a `push` hook in their descriptor; the area list registers the hooks here when it
 * is loaded, and whatever moves a branch (the commits, files and branches APIs, merging) calls
 * `branchMoved` inside its one write, without naming any area. Only functions are kept here.
 */
import type { Draft } from 'immer';
import type { PlatformState } from './state.js';

type S = Draft<PlatformState>;

export interface BranchMove {
  projectId: number;
  branch: string;
  /** The head before (undefined: the branch is new) and after (undefined: the branch is gone). */
  before: string | undefined;
  after: string | undefined;
  /** Who pushed, and when (the instance clock). */
  userId: number;
  now: string;
}

export type PushHook = (st: S, move: BranchMove) => void;

const registered: PushHook[] = [];

/** Adds hooks, in order; one already registered is not added twice. */
export function registerPushHooks(list: readonly PushHook[]): void {
  for (const h of list) if (!registered.includes(h)) registered.push(h);
}

/** Runs every hook on the draft of the write that moved the branch. */
export function branchMoved(st: S, move: BranchMove): void {
  if (move.before === move.after) return;
  for (const h of registered) h(st, move);
}
