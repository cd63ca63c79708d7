/**
 * Paths in trees. A change rewrites only the trees on its path (O(changed paths x depth)); comparing two
 * trees skips every subtree whose id is the same on both sides.
 */
import { TREE_MODE, type Mode, type ObjectStore, type TreeEntry } from './objects.js';

/** Deepest path a write may name (git has no limit; every input here has one). */
export const MAX_PATH_DEPTH = 64;

export const splitPath = (path: string): string[] => path.split('/').filter((s) => s !== '');

export interface PathEntry {
  mode: Mode;
  id: string;
}

/** The entry at `path` in the tree `root` (the root itself for an empty path), or undefined. */
export function entryAt(store: ObjectStore, root: string, path: string): PathEntry | undefined {
  let cur: PathEntry = { mode: TREE_MODE, id: root };
  for (const part of splitPath(path)) {
    if (cur.mode !== TREE_MODE) return undefined;
    const e = store.tree(cur.id)?.find((x) => x.name === part);
    if (!e) return undefined;
    cur = e;
  }
  return cur;
}

/** A file's new entry, or null to remove it. */
export type Change = PathEntry | null;

interface Node {
  /** The entries of this directory that change: a subtree's changes, or a file's new entry. */
  dirs: Map<string, Node>;
  files: Map<string, Change>;
}

const node = (): Node => ({ dirs: new Map(), files: new Map() });

/**
 * Writes the trees `changes` (path -> entry or removal) make of `root` (undefined: an empty tree) and
 * returns the new root's id. Directories left empty disappear, as in git.
 */
export function applyChanges(
  store: ObjectStore,
  root: string | undefined,
  changes: ReadonlyMap<string, Change>,
): string {
  const top = node();
  for (const [path, change] of changes) {
    const parts = splitPath(path);
    let n = top;
    for (const part of parts.slice(0, -1)) {
      let next = n.dirs.get(part);
      if (!next) n.dirs.set(part, (next = node()));
      n = next;
    }
    n.files.set(parts[parts.length - 1]!, change);
  }
  return write(store, root, top) ?? store.putTree([]);
}

/** The id of the rewritten tree, or undefined when it ends up empty. */
function write(store: ObjectStore, id: string | undefined, n: Node): string | undefined {
  const entries = new Map<string, TreeEntry>();
  for (const e of (id && store.tree(id)) || []) entries.set(e.name, e);
  for (const [name, sub] of n.dirs) {
    const old = entries.get(name);
    const written = write(store, old?.mode === TREE_MODE ? old.id : undefined, sub);
    if (written === undefined) entries.delete(name);
    else entries.set(name, { mode: TREE_MODE, name, id: written });
  }
  for (const [name, change] of n.files) {
    if (change === null) entries.delete(name);
    else entries.set(name, { mode: change.mode, name, id: change.id });
  }
  if (entries.size === 0) return undefined;
  return store.putTree([...entries.values()]);
}

export interface ListedEntry extends TreeEntry {
  path: string;
}

/** The entries under `path` (recursively: every entry below, trees before their contents, git's order). */
export function listTree(store: ObjectStore, dir: string, prefix: string, recursive: boolean): ListedEntry[] {
  const out: ListedEntry[] = [];
  const visit = (id: string, at: string) => {
    for (const e of store.tree(id) ?? []) {
      const path = at ? `${at}/${e.name}` : e.name;
      // Every field in one literal: `{ ...e, path }` gave each entry a hidden class of its own in V8.
      out.push({ mode: e.mode, name: e.name, id: e.id, path });
      if (recursive && e.mode === TREE_MODE) visit(e.id, path);
    }
  };
  visit(dir, prefix);
  return out;
}

export interface Delta {
  path: string;
  /** The old path of a file moved with its content unchanged (git's exact rename detection). */
  from?: string;
  old?: PathEntry;
  new?: PathEntry;
}

/** The files that differ between two trees (undefined: empty), in path order. */
export function diffTrees(store: ObjectStore, a: string | undefined, b: string | undefined): Delta[] {
  const out: Delta[] = [];
  const files = (id: string | undefined) =>
    new Map((id ? (store.tree(id) ?? []) : []).map((e) => [e.name, e]));
  const visit = (x: string | undefined, y: string | undefined, at: string) => {
    if (x === y) return;
    const left = files(x);
    const right = files(y);
    const names = [...new Set([...left.keys(), ...right.keys()])].sort();
    for (const name of names) {
      const l = left.get(name);
      const r = right.get(name);
      if (l?.id === r?.id && l?.mode === r?.mode) continue;
      const path = at ? `${at}/${name}` : name;
      const lt = l?.mode === TREE_MODE ? l : undefined;
      const rt = r?.mode === TREE_MODE ? r : undefined;
      if (lt || rt) visit(lt?.id, rt?.id, path);
      const lf = l && !lt ? l : undefined;
      const rf = r && !rt ? r : undefined;
      if (lf || rf) out.push({ path, ...(lf && { old: lf }), ...(rf && { new: rf }) });
    }
  };
  visit(a, b, '');
  return renames(out).sort((p, q) => (p.path < q.path ? -1 : p.path > q.path ? 1 : 0));
}

/** Pairs a removed file with an added one of the same content into one rename. */
function renames(deltas: Delta[]): Delta[] {
  const removed = new Map<string, Delta>();
  for (const d of deltas) if (d.old && !d.new && !removed.has(d.old.id)) removed.set(d.old.id, d);
  const paired = new Set<Delta>();
  const out: Delta[] = [];
  for (const d of deltas) {
    if (!d.new || d.old) continue;
    const r = removed.get(d.new.id);
    if (r && !paired.has(r)) {
      paired.add(r);
      out.push({ path: d.path, from: r.path, old: r.old!, new: d.new });
    } else out.push(d);
  }
  for (const d of deltas) if (d.old && (d.new || !paired.has(d))) out.push(d);
  return out;
}
