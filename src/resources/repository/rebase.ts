/**
 * Rebasing a branch onto another (Gitaly's `UserRebaseConfirmable`, which `Repository#rebase` runs for
 * `MergeRequests::RebaseService`): each commit of the branch that the upstream does not reach, oldest
 * first, applied again on the upstream's head, its author and message kept and the user as committer.
 * A commit whose change the upstream already has is dropped, merge commits are not replayed (as `git
 * rebase` without `--rebase-merges`), and a path both sides changed differently is a conflict, with
 * paths compared whole as the cherry-pick API does (`pick.ts`).
 */
import { ancestors, isAncestor, walk } from './history.js';
import type { ObjectStore, Signature } from './objects.js';
import { applyChanges, diffTrees, entryAt, type Change, type PathEntry } from './tree.js';

const same = (a: PathEntry | undefined, b: PathEntry | undefined) => a?.id === b?.id && a?.mode === b?.mode;

/**
 * The rebased head, `head` itself when the upstream is already in the branch (nothing to do), or
 * undefined on a conflict.
 */
export function rebaseOnto(
  store: ObjectStore,
  head: string,
  onto: string,
  committer: Signature,
): string | undefined {
  if (isAncestor(store, onto, head)) return head;
  const upstream = ancestors(store, onto);
  const picks = walk(store, [head])
    .filter((id) => !upstream.has(id))
    .reverse();
  let current = onto;
  for (const id of picks) {
    const commit = store.commit(id)!;
    if (commit.parents.length > 1) continue;
    const parent = commit.parents[0];
    const before = parent === undefined ? undefined : store.commit(parent)?.tree;
    const base = store.commit(current)!.tree;
    const changes = new Map<string, Change>();
    for (const d of diffTrees(store, before, commit.tree)) {
      const moves: [string, PathEntry | undefined, PathEntry | undefined][] =
        d.from === undefined
          ? [[d.path, d.old, d.new]]
          : [
              [d.from, d.old, undefined],
              [d.path, undefined, d.new],
            ];
      for (const [path, from, to] of moves) {
        const here = entryAt(store, base, path);
        if (same(here, to)) continue;
        if (!same(here, from)) return undefined;
        changes.set(path, to ? { mode: to.mode, id: to.id } : null);
      }
    }
    // Already applied upstream: the commit would be empty, and is left out.
    if (changes.size === 0) continue;
    const tree = applyChanges(store, base, changes);
    current = store.putCommit({
      tree,
      parents: [current],
      author: commit.author,
      committer,
      message: commit.message,
    });
  }
  return current;
}
