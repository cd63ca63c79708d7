/**
 * The names of projects by namespace (`idx.projectNames`), so that a project's name is checked for
 * uniqueness in its namespace without reading every sibling: a key is `<namespace key>:<name>` (the
 * namespace key of `idx.projectsByNamespace`, which ends at its first `:` after the kind), its value
 * the id of the project with that name, or the ascending ids where a scenario or an import made more
 * than one (validation never does, but the check must still see the others when one goes).
 */
import { emptyIndex, idelete, iget, iset, tvalues, type Index, type Table } from './table.js';

export type ProjectNames = Index<number | readonly number[]>;

/** The fields of a project its name key is made of. */
interface Named {
  id: number;
  name: string;
  namespace_kind: 'group' | 'user';
  namespace_id: number;
  owner_id: number | null;
}

/** The key of a project named `name` in the namespace keyed `namespaceKey` (`group:<id>`, `user:<id>`). */
export const projectNameKey = (namespaceKey: string, name: string) => `${namespaceKey}:${name}`;

const keyOf = (p: Named) =>
  projectNameKey(p.namespace_kind === 'group' ? `group:${p.namespace_id}` : `user:${p.owner_id}`, p.name);

/** Indexes a project under its current namespace and name. */
export function indexProjectName(ix: ProjectNames, p: Named): void {
  const key = keyOf(p);
  const v = iget(ix, key);
  if (v === undefined) iset(ix, key, p.id);
  else if (typeof v === 'number') {
    if (v !== p.id) iset(ix, key, Object.freeze(v < p.id ? [v, p.id] : [p.id, v]));
  } else if (!v.includes(p.id)) iset(ix, key, Object.freeze([...v, p.id].sort((a, b) => a - b)));
}

/** Removes a project from the index under its current namespace and name (before either changes). */
export function unindexProjectName(ix: ProjectNames, p: Named): void {
  const key = keyOf(p);
  const v = iget(ix, key);
  if (v === undefined) return;
  if (typeof v === 'number') {
    if (v === p.id) idelete(ix, key);
    return;
  }
  if (!v.includes(p.id)) return;
  const rest = v.filter((id) => id !== p.id);
  iset(ix, key, rest.length === 1 ? rest[0]! : Object.freeze(rest));
}

/** Whether a project other than `selfId` has the name of `key`. */
export function projectNameTaken(ix: ProjectNames, key: string, selfId: number | undefined): boolean {
  const v = iget(ix, key);
  if (v === undefined) return false;
  if (typeof v === 'number') return v !== selfId;
  return v.some((id) => id !== selfId);
}

/** The index of a state that has none (one saved before it existed), from its projects. */
export function projectNamesOf(projects: Table<Named>): ProjectNames {
  const out: ProjectNames = emptyIndex();
  for (const p of tvalues(projects)) indexProjectName(out, p);
  return out;
}
