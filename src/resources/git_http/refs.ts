/** The refs a git client sees: branches and tags of the project, HEAD first, peeled tags after them. */
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { objectsOf } from '../repository/store.js';
import { names, peel, refTarget } from '../repository/refs.js';

export interface AdvertisedRef {
  name: string;
  id: string;
  /** What an annotated tag finally names. */
  peeled?: string;
}

export interface RefList {
  refs: AdvertisedRef[];
  /** The branch HEAD names (the default branch), and its commit when it exists. */
  head: { target: string; id: string | undefined } | undefined;
}

const byteOrder = (a: AdvertisedRef, b: AdvertisedRef) =>
  Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));

export function listRefs(st: PlatformState, project: ProjectRecord): RefList {
  const store = objectsOf(st);
  const refs: AdvertisedRef[] = [];
  for (const n of names(st, project, 'branch')) {
    const id = refTarget(st, project, 'branch', n);
    if (id !== undefined) refs.push({ name: `refs/heads/${n}`, id });
  }
  for (const n of names(st, project, 'tag')) {
    const id = refTarget(st, project, 'tag', n);
    if (id === undefined) continue;
    const peeled = peel(store, id);
    refs.push(peeled === id ? { name: `refs/tags/${n}`, id } : { name: `refs/tags/${n}`, id, peeled });
  }
  refs.sort(byteOrder);
  const d = project.default_branch;
  const head =
    d === null ? undefined : { target: `refs/heads/${d}`, id: refTarget(st, project, 'branch', d) };
  return { refs, head };
}
