/**
 * Deletes that reach into other areas: when a project or a group goes, each area removes what it keeps
 * for it. Areas declare their cleanup in their descriptor (`cascade`), the area list registers the
 * cleanups here when it is loaded, and the projects area deletes through `cascadeProject` /
 * `cascadeGroup` without naming any area. Only functions are kept here, the same for every instance.
 */
import type { Draft } from 'immer';
import type { PlatformState } from './state.js';

type S = Draft<PlatformState>;

export interface Cascade {
  /** Removes the area's records of a project that is being deleted (the project record still exists). */
  project?(st: S, projectId: number): void;
  /** The same for a group (its subgroups and projects are already gone). */
  group?(st: S, groupId: number): void;
}

const registered: Cascade[] = [];

/** Adds cleanups, in order; one already registered is not added twice. */
export function registerCascades(list: readonly Cascade[]): void {
  for (const c of list) if (!registered.includes(c)) registered.push(c);
}

export function cascadeProject(st: S, projectId: number): void {
  for (const c of registered) c.project?.(st, projectId);
}

export function cascadeGroup(st: S, groupId: number): void {
  for (const c of registered) c.group?.(st, groupId);
}
