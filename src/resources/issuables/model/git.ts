/**
 * Merge requests over the real repository: the heads a diff version records, its commits and file
 * diffs (a snapshot, as `MergeRequestDiff` keeps them), conflicts, and the commits merging writes.
 * Every walk is bounded.
 */
import type { Draft } from 'immer';
import type { PlatformState, ProjectRecord } from '../../../core/state.js';
import { tget } from '../../../core/table.js';
import { diffEntity } from '../../repository/diff.js';
import { ancestors, mergeBase } from '../../repository/history.js';
import type { ObjectStore, Signature } from '../../repository/objects.js';
import { peel, refTarget, setRef } from '../../repository/refs.js';
import { objectsFor, objectsOf } from '../../repository/store.js';
import { applyChanges, diffTrees, type Change, type Delta } from '../../repository/tree.js';
import type { DiffCommit, DiffFile, DiffVersionRecord, MergeRequestRecord } from '../store.js';

type S = Draft<PlatformState>;

/** The most commits and files a diff version keeps (`MergeRequestDiff`'s safe limits). */
export const MAX_VERSION_COMMITS = 1_000;
export const MAX_VERSION_FILES = 1_000;
/** Commits visited from the source head before the exact (whole-history) exclusion is used. */
const QUICK_WALK = 500;

/** A branch's head commit (an annotated tag peeled), or undefined when the branch does not exist. */
export function branchHead(st: PlatformState, projectId: number, name: string): string | undefined {
  const p = tget(st.projects, projectId) as ProjectRecord | undefined;
  if (!p) return undefined;
  const id = refTarget(st, p, 'branch', name);
  return id === undefined ? undefined : peel(objectsOf(st), id);
}

export interface Heads {
  head: string;
  start: string;
  base: string;
}

/** Source head, target head and their merge base, or undefined when a branch is missing. */
export function headsOf(
  st: PlatformState,
  mr: Pick<MergeRequestRecord, 'source_project_id' | 'source_branch' | 'project_id' | 'target_branch'>,
): Heads | undefined {
  const head = branchHead(st, mr.source_project_id, mr.source_branch);
  const start = branchHead(st, mr.project_id, mr.target_branch);
  if (head === undefined || start === undefined) return undefined;
  const store = objectsOf(st);
  const base =
    (reaches(store, head, start) ? start : reaches(store, start, head) ? head : undefined) ??
    mergeBase(store, head, start) ??
    start;
  return { head, start, base };
}

/**
 * Whether `to` is among the first QUICK_WALK ancestors of `from`: the usual branch a few commits ahead
 * of (or behind) its target, decided without walking a long history.
 */
function reaches(store: ObjectStore, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0 && seen.size < QUICK_WALK) {
    const id = stack.pop()!;
    if (id === to) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(store.commit(id)?.parents ?? []));
  }
  return false;
}

/**
 * `git log start..head`, newest first. Usually the walk from the head meets the merge base on every
 * path quickly; when it does not (a branch that merged its target in), every ancestor of the target's
 * head is excluded exactly.
 */
export function commitsBetween(store: ObjectStore, h: Heads): string[] {
  const quick = new Set<string>();
  const stack = [h.head];
  let exact = false;
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === h.base || id === h.start || quick.has(id)) continue;
    const c = store.commit(id);
    if (!c || c.parents.length === 0 || quick.size >= QUICK_WALK) {
      exact = c !== undefined;
      if (exact) break;
      continue;
    }
    quick.add(id);
    stack.push(...c.parents);
  }
  let ids: string[];
  if (!exact) ids = [...quick];
  else {
    const excluded = ancestors(store, h.start);
    ids = [...ancestors(store, h.head)].filter((id) => !excluded.has(id));
  }
  const time = (id: string) => store.commit(id)?.committer.time ?? 0;
  // Newest first; a child before its parents when the times are equal (the walk saw children first).
  const order = new Map(ids.map((id, i) => [id, i]));
  return ids.sort((a, b) => time(b) - time(a) || order.get(a)! - order.get(b)!).slice(0, MAX_VERSION_COMMITS);
}

const treeOf = (store: ObjectStore, id: string) => store.commit(id)?.tree;

/** The files the source changed since the merge base. */
export function sourceDeltas(store: ObjectStore, h: Heads): Delta[] {
  return diffTrees(store, treeOf(store, h.base), treeOf(store, h.head));
}

/** Paths a set of deltas touches, with what each leaves there (undefined: removed). */
function touched(deltas: readonly Delta[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of deltas) {
    if (d.from !== undefined) out.set(d.from, '-');
    out.set(d.path, d.new ? `${d.new.mode}:${d.new.id}` : '-');
  }
  return out;
}

/** Both sides changed a path since the merge base, to different results. */
export function hasConflicts(store: ObjectStore, h: Heads): boolean {
  if (h.base === h.start || h.base === h.head) return false;
  const ours = touched(diffTrees(store, treeOf(store, h.base), treeOf(store, h.start)));
  for (const [path, result] of touched(sourceDeltas(store, h))) {
    const other = ours.get(path);
    if (other !== undefined && other !== result) return true;
  }
  return false;
}

/** The tree merging gives: the target's tree with the source's changes (no conflicts assumed). */
export function mergedTree(store: ObjectStore, h: Heads): string {
  const changes = new Map<string, Change>();
  for (const d of sourceDeltas(store, h)) {
    if (d.from !== undefined) changes.set(d.from, null);
    changes.set(d.path, d.new ?? null);
  }
  return applyChanges(store, treeOf(store, h.start), changes);
}

const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The snapshot a diff version keeps: its shas, commits and file diffs. */
export function versionSnapshot(
  st: PlatformState,
  h: Heads | undefined,
): Pick<
  DiffVersionRecord,
  'head_commit_sha' | 'base_commit_sha' | 'start_commit_sha' | 'real_size' | 'commits' | 'files'
> {
  if (!h)
    return {
      head_commit_sha: null,
      base_commit_sha: null,
      start_commit_sha: null,
      real_size: '0',
      commits: [],
      files: [],
    };
  const store = objectsOf(st);
  const commits: DiffCommit[] = commitsBetween(store, h).map((id) => {
    const c = store.commit(id)!;
    return {
      id,
      short_id: id.slice(0, 8),
      title: c.message.split('\n', 1)[0]!,
      message: c.message,
      author_name: c.author.name,
      author_email: c.author.email,
      created_at: isoOf(c.committer.time),
    };
  });
  const deltas = sourceDeltas(store, h);
  const files: DiffFile[] = deltas.slice(0, MAX_VERSION_FILES).map((d) => diffEntity(store, d));
  return {
    head_commit_sha: h.head,
    base_commit_sha: h.base,
    start_commit_sha: h.start,
    real_size: deltas.length > MAX_VERSION_FILES ? `${MAX_VERSION_FILES}+` : String(deltas.length),
    commits,
    files,
  };
}

/** Writes a commit object (no ref moves). */
export function putCommit(
  st: S,
  tree: string,
  parents: string[],
  author: Signature,
  committer: Signature,
  message: string,
): string {
  return objectsFor(st).putCommit({ tree, parents, author, committer, message });
}

/** Moves (or, with null, removes) a branch of a project on the draft. */
export function moveRef(st: S, projectId: number, branch: string, id: string | null): void {
  const p = tget(st.projects, projectId) as ProjectRecord | undefined;
  if (p) setRef(st, p, 'branch', branch, id);
}

const safeName = (branch: string) => branch.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * The commits a declared merge request's source branch holds when the scenario does not write it: on
 * top of the target's head, `count` commits (the last titled as the merge request) that change `files`
 * files, the first the README. Deterministic: the same declaration gives the same ids everywhere.
 */
export function declaredSourceHead(
  st: S,
  mr: MergeRequestRecord,
  files: number,
  count: number,
): string | undefined {
  const start = branchHead(st, mr.project_id, mr.target_branch);
  if (start === undefined) return undefined;
  const store = objectsFor(st);
  const u = tget(st.users, mr.author_id);
  const time = Math.floor(Date.parse(mr.created_at) / 1000);
  const who: Signature = {
    name: u?.name ?? 'Ghost User',
    email: u ? (u.commit_email ?? u.email) : 'ghost@example.com',
    time,
  };
  const readme = (tree: string | undefined) => {
    const blob = tree === undefined ? undefined : store.tree(tree)?.find((e) => e.name === 'README.md');
    return blob ? (store.raw(blob.id, 'blob') ?? Buffer.alloc(0)) : Buffer.alloc(0);
  };
  const paths: string[] = [];
  for (let i = 0; i < files; i++)
    paths.push(i === 0 ? 'README.md' : `src/${safeName(mr.source_branch)}_${i}.rb`);
  let parent = start;
  let tree = store.commit(start)?.tree;
  for (let k = 0; k < count; k++) {
    const last = k === count - 1;
    const mine = paths.filter((_, i) => (last ? i >= k : i === k));
    const changes = new Map<string, Change>();
    for (const path of mine) {
      const content =
        path === 'README.md'
          ? Buffer.concat([readme(tree), Buffer.from(`${mr.title}\n`)])
          : Buffer.from(`# ${mr.source_branch}\n`);
      changes.set(path, { mode: '100644', id: store.putBlob(content) });
    }
    tree = applyChanges(store, tree, changes);
    const message = last ? `${mr.title}\n` : `Update ${mr.source_branch} (${k + 1})\n`;
    parent = store.putCommit({ tree, parents: [parent], author: who, committer: who, message });
  }
  return parent;
}
