/**
 * A project's branches and tags: just enough of a repository for pipelines (and merge requests) to
 * validate refs and report shas. The default branch always exists without being stored, so a world of
 * 100k projects costs nothing here; scenarios, pipelines and merge requests add the others.
 */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import type { PlatformState, ProjectRecord, RefsRecord } from '../../core/state.js';
import { dict, own } from '../../core/own.js';
import { tdelete, tget, tset } from '../../core/table.js';

type S = Draft<PlatformState>;
export type RefKind = 'branch' | 'tag';

/** The sha of a ref nobody gave one: stable for a project, kind and name. */
export function refSha(projectId: number, kind: RefKind, name: string): string {
  return createHash('sha1').update(`${projectId}\0${kind}\0${name}`).digest('hex');
}

type Names = Record<string, string>;

/**
 * A ref table without a prototype: ref names are the client's (`constructor` and `__proto__` are valid
 * branch names), so any name is an ordinary key, read with `own`.
 */
export const refTable = (from?: Names): Names => Object.assign(dict<string>(), from);

/** The head sha of a branch or tag of the project, or undefined when it has none by that name. */
export function findRef(st: PlatformState, project: ProjectRecord, kind: RefKind, name: string) {
  const refs = tget(st.refs, project.id);
  const stored = own(kind === 'branch' ? refs?.branches : refs?.tags, name);
  if (stored !== undefined) return stored;
  if (kind === 'branch' && name === project.default_branch) return refSha(project.id, kind, name);
  return undefined;
}

/** The project's branch names (the default branch first) or tag names. */
export function refNames(st: PlatformState, project: ProjectRecord, kind: RefKind): string[] {
  const refs = tget(st.refs, project.id);
  const names = Object.keys((kind === 'branch' ? refs?.branches : refs?.tags) ?? {});
  if (kind === 'branch' && project.default_branch && !names.includes(project.default_branch))
    names.unshift(project.default_branch);
  return names;
}

/**
 * Adds a branch or tag (for merge request source branches, scenarios); an existing one keeps its sha
 * unless one is given. Returns the ref's sha.
 */
export function addRef(st: S, projectId: number, kind: RefKind, name: string, sha?: string): string {
  let refs = tget(st.refs, projectId);
  if (!refs) {
    const fresh: RefsRecord = { project_id: projectId, branches: refTable(), tags: refTable() };
    tset(st.refs, projectId, fresh);
    refs = tget(st.refs, projectId)!;
  }
  let table = kind === 'branch' ? refs.branches : refs.tags;
  // A state read back from JSON has plain objects: made prototype-less before a client's name goes in.
  if (Object.getPrototypeOf(table) !== null) {
    table = refTable(table);
    if (kind === 'branch') refs.branches = table;
    else refs.tags = table;
  }
  if (sha !== undefined) table[name] = sha;
  else if (own(table, name) === undefined) table[name] = refSha(projectId, kind, name);
  return table[name]!;
}

export function removeRefs(st: S, projectId: number): void {
  tdelete(st.refs, projectId);
}
