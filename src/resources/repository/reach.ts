/**
 * The index of what a project's repository holds: the objects its branches and tags reach (see
 * contents.ts for its uses). It knows no refs: the caller names the tips (refs.ts imports this).
 *
 * Computed once per refs record (immer gives a project a new one exactly when one of its refs moves) and
 * kept by its identity. A push that only adds history on top of what the previous record reached walks
 * the new objects only, stopping at the ones already known.
 */
import { isDraft } from 'immer';
import type { PlatformState, ProjectRecord, RefsRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { ObjectStore } from './objects.js';
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

/**
 * Adds what `starts` reach to `seen` (objects already in it are not walked again) and returns the bytes
 * added. Submodule entries (`160000`) name commits of another repository and are not followed.
 */
export function extend(store: ObjectStore, seen: Set<string>, starts: Iterable<string>): number {
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

/** A reach computed from nothing, not kept. */
function fresh(
  st: PlatformState,
  project: ProjectRecord,
  tipsOf: (st: PlatformState, project: ProjectRecord) => string[],
): Reach {
  const tips = tipsOf(st, project);
  const seen = new Set<string>();
  return { objects: seen, bytes: extend(objectsOf(st), seen, tips), tips };
}

/** The reach of the project's refs; `tipsOf` lists the ids they name (called when not kept). */
export function reachOf(
  st: PlatformState,
  project: ProjectRecord,
  tipsOf: (st: PlatformState, project: ProjectRecord) => string[],
): Reach {
  const refs: RefsRecord | undefined = tget(st.refs, project.id);
  // Inside a write the records are drafts that may still change: computed afresh and not kept.
  if (isDraft(refs) || isDraft(project)) return fresh(st, project, tipsOf);
  const key: object = refs ?? project;
  const hit = byRecord.get(key);
  // An unwritten repository's lazy default branch follows the project record (its default branch).
  if (hit && (refs?.materialized === true || hit.project === project)) return hit;
  const store = objectsOf(st);
  // A staged push's objects may yet be dropped, and refs naming an object the store lacks would reach
  // them: what is computed meanwhile is not kept.
  if (store.staging) return fresh(st, project, tipsOf);
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
