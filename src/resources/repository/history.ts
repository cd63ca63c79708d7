/**
 * Walking commits: `git log`'s order (newest commit time first, a commit after every child that the
 * walk has seen), first-parent walks, ancestry and merge bases. Walks are bounded.
 */
import type { ObjectStore } from './objects.js';
import { entryAt } from './tree.js';

/** The most commits one walk visits. */
export const WALK_LIMIT = 20_000;

export interface WalkOptions {
  firstParent?: boolean;
  /** Only commits that change this path (against their first parent). */
  path?: string;
  /** Stop after visiting this many commits. */
  limit?: number;
}

/** Commit ids reachable from `starts`, newest first. */
export function walk(store: ObjectStore, starts: readonly string[], o: WalkOptions = {}): string[] {
  const seen = new Set<string>();
  const queue: string[] = [];
  const time = (id: string) => store.commit(id)?.committer.time ?? 0;
  const push = (id: string) => {
    if (seen.has(id) || !store.commit(id)) return;
    seen.add(id);
    // Insert by time, newest at the end (popped first); ties keep insertion order.
    const t = time(id);
    let i = queue.length;
    while (i > 0 && time(queue[i - 1]!) > t) i--;
    queue.splice(i, 0, id);
  };
  for (const s of starts) push(s);
  const out: string[] = [];
  const limit = o.limit ?? WALK_LIMIT;
  let visited = 0;
  while (queue.length > 0 && visited < limit) {
    const id = queue.pop()!;
    visited++;
    const c = store.commit(id)!;
    if (o.path === undefined || touches(store, c.tree, c.parents[0], o.path)) out.push(id);
    const parents = o.firstParent ? c.parents.slice(0, 1) : c.parents;
    for (const p of parents) push(p);
  }
  return out;
}

function touches(store: ObjectStore, tree: string, parent: string | undefined, path: string): boolean {
  const now = entryAt(store, tree, path);
  const before = parent ? entryAt(store, store.commit(parent)?.tree ?? '', path) : undefined;
  return now?.id !== before?.id || now?.mode !== before?.mode;
}

/** The ids reachable from `id` (itself included), bounded. */
export function ancestors(store: ObjectStore, id: string): Set<string> {
  const out = new Set<string>();
  const stack = [id];
  while (stack.length > 0 && out.size < WALK_LIMIT) {
    const c = stack.pop()!;
    if (out.has(c)) continue;
    const commit = store.commit(c);
    if (!commit) continue;
    out.add(c);
    stack.push(...commit.parents);
  }
  return out;
}

export const isAncestor = (store: ObjectStore, a: string, b: string): boolean => ancestors(store, b).has(a);

/** `git merge-base`: the newest common ancestor, or undefined. */
export function mergeBase(store: ObjectStore, a: string, b: string): string | undefined {
  const left = ancestors(store, a);
  for (const id of walk(store, [b])) if (left.has(id)) return id;
  return undefined;
}
