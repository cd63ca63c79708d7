/**
 * What a project's repository holds: the objects its branches and tags reach. The object store is the
 * instance's, shared by every project, so a bare id (a blob's sha) must be checked against this before
 * it opens anything, and the repository's size is the sum of these objects.
 *
 * Computed once per refs record (immer gives a project a new one exactly when one of its refs moves) and
 * kept by its identity. A push that only adds history on top of what the previous record reached walks
 * the new objects only, stopping at the ones already known.
 */
import type { PlatformState, ProjectRecord, RefsRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { ObjectStore } from './objects.js';
import { initialCommit, names, refTarget } from './refs.js';
import { objectsOf } from './store.js';

export interface Reach {
  /** Every object id the refs reach (tags, commits, trees, blobs). */
  readonly objects: ReadonlySet<string>;
  /** The sum of their payload sizes, in bytes. */
  readonly bytes: number;
  /** The ids the refs name (unpeeled). */
  readonly tips: readonly string[];
}

/** By refs record; a project whose refs were never written is keyed by its own record. */
const byRecord = new WeakMap<object, Reach & { project: ProjectRecord }>();
/** The last reach computed for each project of a store, to extend on the next push. */
const lastOf = new WeakMap<ObjectStore, Map<number, Reach>>();

function tipsOf(st: PlatformState, project: ProjectRecord): string[] {
  const out: string[] = [];
  for (const kind of ['branch', 'tag'] as const)
    for (const n of names(st, project, kind)) {
      const id = refTarget(st, project, kind, n);
      if (id !== undefined) out.push(id);
    }
  return out;
}

/**
 * Adds what `starts` reach to `seen` (objects already in it are not walked again) and returns the bytes
 * added. Submodule entries (`160000`) name commits of another repository and are not followed.
 */
function extend(store: ObjectStore, seen: Set<string>, starts: Iterable<string>): number {
  let bytes = 0;
  const stack = [...starts];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    const type = store.type(id);
    if (type === undefined) continue;
    seen.add(id);
    bytes += store.raw(id)!.length;
    if (type === 'tag') stack.push(store.tag(id)!.object);
    else if (type === 'commit') {
      const c = store.commit(id)!;
      stack.push(c.tree);
      for (const p of c.parents) stack.push(p);
    } else if (type === 'tree') {
      for (const e of store.tree(id)!) if (e.mode !== '160000') stack.push(e.id);
    }
  }
  return bytes;
}

export function reachOf(st: PlatformState, project: ProjectRecord): Reach {
  const refs: RefsRecord | undefined = tget(st.refs, project.id);
  const key: object = refs ?? project;
  const hit = byRecord.get(key);
  // An unwritten repository's lazy default branch follows the project record (its default branch).
  if (hit && (refs?.materialized === true || hit.project === project)) return hit;
  const store = objectsOf(st);
  const tips = tipsOf(st, project);
  let perStore = lastOf.get(store);
  if (!perStore) lastOf.set(store, (perStore = new Map()));
  const last = perStore.get(project.id);
  let reach: Reach | undefined;
  const tipSet = new Set(tips);
  // The previous objects stay only if every previous tip is still reached: then they all are.
  if (last && last.tips.every((id) => tipSet.has(id) || isReachedFrom(store, tips, id, last.objects))) {
    const seen = new Set(last.objects);
    reach = { objects: seen, bytes: last.bytes + extend(store, seen, tips), tips };
  }
  if (!reach) {
    const seen = new Set<string>();
    reach = { objects: seen, bytes: extend(store, seen, tips), tips };
  }
  perStore.set(project.id, reach);
  byRecord.set(key, { ...reach, project });
  return reach;
}

/**
 * Whether `id` (a previous tip) is an ancestor of the new tips, walking only objects outside `known`
 * (the history the previous refs reached): a fast-forward meets the old tip on its way down.
 */
function isReachedFrom(store: ObjectStore, tips: readonly string[], id: string, known: ReadonlySet<string>) {
  const stack = [...tips];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const c = stack.pop()!;
    if (c === id) return true;
    if (seen.has(c) || known.has(c)) continue;
    seen.add(c);
    const type = store.type(c);
    if (type === 'tag') stack.push(store.tag(c)!.object);
    else if (type === 'commit') for (const p of store.commit(c)!.parents) stack.push(p);
  }
  return false;
}

/** Whether the project's refs reach the object (`Gitlab::Git::Blob.raw` finds only the repository's). */
export const inRepository = (st: PlatformState, project: ProjectRecord, id: string): boolean =>
  reachOf(st, project).objects.has(id);

/**
 * The repository's size: the payload bytes of the objects its refs reach. A repository never written
 * to is its initial commit, whose size only its creation time's digits change: counted without storing
 * it, so that ordering a large world by size stores nothing.
 */
export function repositoryBytes(st: PlatformState, project: ProjectRecord): number {
  if (tget(st.refs, project.id) !== undefined) return reachOf(st, project).bytes;
  if (project.default_branch === null) return 0;
  const time = Math.floor(Date.parse(project.created_at) / 1000);
  return INITIAL_BYTES + 2 * String(time).length;
}

/** The initial commit's objects, less the digits of its time (written twice: author and committer). */
const INITIAL_BYTES = (() => {
  const scratch = new ObjectStore();
  const id = initialCommit(scratch, { created_at: '1970-01-01T00:00:00Z' } as ProjectRecord);
  const seen = new Set<string>();
  return extend(scratch, seen, [id]) - 2 * '0'.length;
})();
