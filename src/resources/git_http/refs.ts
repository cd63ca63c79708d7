/**
 * The refs a git client sees: HEAD first, then every ref in byte order (branches, tags with their peeled
 * commit, notes, the platform's own refs), less those the platform hides from the service.
 */
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { objectsOf } from '../repository/store.js';
import { names, otherRefs, peel, refTarget } from '../repository/refs.js';
import { PIPELINE_REFS, persistentRefs } from '../ci/persistent-ref.js';

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

/**
 * The refs the platform keeps for itself and git-receive-pack hides (`receive.hideRefs`, which Gitaly
 * sets for its internal prefixes): not advertised to a push, and a push naming one is refused by git
 * with `deny updating a hidden ref`.
 */
export const RECEIVE_HIDDEN = [
  'refs/environments/',
  'refs/keep-around/',
  'refs/merge-requests/',
  'refs/pipelines/',
  'refs/tmp/',
];

/**
 * The refs git-upload-pack hides (`uploadpack.hideRefs`): the keep-around and temporary refs only. The
 * merge request, pipeline and environment refs are advertised and fetchable by name
 * (`git fetch origin refs/merge-requests/1/head`).
 */
export const UPLOAD_HIDDEN = ['refs/keep-around/', 'refs/tmp/'];

export const hiddenBy = (list: readonly string[], ref: string): boolean =>
  list.some((h) => ref.startsWith(h));

const byteOrder = (a: AdvertisedRef, b: AdvertisedRef) =>
  Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));

/**
 * The refs of the project that `hidden` leaves visible, each with its peeled commit when it differs;
 * with the instance clock's `now` (ms), the pipelines' persistent refs of that instant too.
 */
export function listRefs(
  st: PlatformState,
  project: ProjectRecord,
  hidden: readonly string[] = UPLOAD_HIDDEN,
  now?: number,
): RefList {
  const store = objectsOf(st);
  const refs: AdvertisedRef[] = [];
  const add = (name: string, id: string) => {
    const peeled = peel(store, id);
    refs.push(peeled === id ? { name, id } : { name, id, peeled });
  };
  for (const n of names(st, project, 'branch')) {
    const id = refTarget(st, project, 'branch', n);
    if (id !== undefined) refs.push({ name: `refs/heads/${n}`, id });
  }
  for (const n of names(st, project, 'tag')) {
    const id = refTarget(st, project, 'tag', n);
    if (id !== undefined) add(`refs/tags/${n}`, id);
  }
  for (const [name, id] of otherRefs(st, project)) if (!hiddenBy(hidden, name)) add(name, id);
  if (now !== undefined && !hiddenBy(hidden, PIPELINE_REFS))
    for (const [name, id] of persistentRefs(st, project, now)) add(name, id);
  refs.sort(byteOrder);
  const d = project.default_branch;
  const head =
    d === null ? undefined : { target: `refs/heads/${d}`, id: refTarget(st, project, 'branch', d) };
  return { refs, head };
}
