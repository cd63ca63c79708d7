/**
 * A project's branches and tags as pipelines, merge requests and pushes use them: names and the commit
 * each one is at, backed by the repository (src/resources/repository/). The default branch of a project
 * whose repository was never written exists as its initial commit without anything stored, so a world
 * of 100k projects costs nothing here.
 */
import type { Draft } from 'immer';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { dict } from '../../core/own.js';
import { tdelete, tget } from '../../core/table.js';
import {
  initialCommit,
  names,
  peel,
  refCommit,
  refTarget,
  setRef,
  type RefKind,
} from '../repository/refs.js';
import { objectsFor, objectsOf } from '../repository/store.js';

type S = Draft<PlatformState>;
export type { RefKind } from '../repository/refs.js';

type Names = Record<string, string>;

/**
 * A ref table without a prototype: ref names are the client's (`constructor` and `__proto__` are valid
 * branch names), so any name is an ordinary key, read with `own`.
 */
export const refTable = (from?: Names): Names => Object.assign(dict<string>(), from);

/** The commit a branch or tag of the project is at, or undefined when it has none by that name. */
export function findRef(st: PlatformState, project: ProjectRecord, kind: RefKind, name: string) {
  const id = refTarget(st, project, kind, name);
  return id === undefined ? undefined : peel(objectsOf(st), id);
}

/** The project's branch names (the default branch first) or tag names. */
export function refNames(st: PlatformState, project: ProjectRecord, kind: RefKind): string[] {
  return names(st, project, kind);
}

/**
 * Adds a branch or tag (for merge request source branches, scenarios); an existing one keeps its sha
 * unless one is given. A new one without a sha gets a commit of its own on top of the default branch
 * (its tree unchanged), so that refs nobody gave a sha to still tell their pipelines apart. Returns the
 * sha.
 */
export function addRef(st: S, projectId: number, kind: RefKind, name: string, sha?: string): string {
  const project = tget(st.projects, projectId)!;
  if (sha === undefined) {
    const existing = findRef(st, project, kind, name);
    if (existing !== undefined) return existing;
    const d = project.default_branch;
    const store = objectsFor(st);
    const base = (d !== null && findRef(st, project, 'branch', d)) || initialCommit(store, project);
    sha = refCommit(store, project, base, kind, name);
  }
  setRef(st, project, kind, name, sha);
  return sha;
}

export function removeRefs(st: S, projectId: number): void {
  tdelete(st.refs, projectId);
}
