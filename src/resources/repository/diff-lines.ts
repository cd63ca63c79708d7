/**
 * The lines of the diff of one file that a position on a commit names (`DiffRefs#compare_in`): a diff note's line must be one of these lines (its `line_code`),
 * and the commit comments API shows the line a diff note is on. The platform unfolds the diff to an
 * unchanged line outside the hunks (`LinesUnfolder`), so a position's lines are those of the whole edit
 * script: every changed line, and every unchanged one with both its numbers.
 */
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { editScript, isBinary, lines } from './diff.js';
import { TREE_MODE, type ObjectStore } from './objects.js';
import { resolveCommit } from './refs.js';
import { objectsOf } from './store.js';
import { entryAt } from './tree.js';

export interface DiffLine {
  /** `new` (added), `old` (removed) or null (unchanged). */
  type: 'new' | 'old' | null;
  old_line: number | null;
  new_line: number | null;
}

export interface LinePosition {
  start_sha: string;
  head_sha: string;
  old_path: string | null;
  new_path: string | null;
  old_line?: number | null;
  new_line?: number | null;
}

const BLANK = /^0{40}$/;

/**
 * The diff lines of the position's file, from `start_sha` to `head_sha` (a blank start: the head commit's
 * own diff, as on a root commit); undefined when either commit is not the project's or the file did not
 * change between them.
 */
export function positionDiffLines(
  st: PlatformState,
  project: ProjectRecord,
  pos: LinePosition,
): DiffLine[] | undefined {
  const store = objectsOf(st);
  const head = resolveCommit(st, project, pos.head_sha);
  if (head === undefined) return undefined;
  const from = BLANK.test(pos.start_sha)
    ? store.commit(head)?.parents[0]
    : resolveCommit(st, project, pos.start_sha);
  if (from === undefined && !BLANK.test(pos.start_sha)) return undefined;
  const oldPath = pos.old_path ?? pos.new_path;
  const newPath = pos.new_path ?? pos.old_path;
  if (oldPath === null || newPath === null) return undefined;
  const blob = (commit: string | undefined, path: string) => {
    const tree = commit === undefined ? undefined : store.commit(commit)?.tree;
    const e = tree === undefined ? undefined : entryAt(store, tree, path);
    return e && e.mode !== TREE_MODE ? e.id : undefined;
  };
  const a = blob(from, oldPath);
  const b = blob(head, newPath);
  if (a === b) return undefined;
  const key = `${a ?? ''}:${b ?? ''}`;
  const known = kept.get(key);
  if (known) return known;
  const made = blobLines(store, a, b);
  // Blobs never change: a list of notes on one file diffs it once.
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
  kept.set(key, made);
  return made;
}

const KEPT = 64;
const kept = new Map<string, DiffLine[]>();

/** Every line of the edit script from one blob to another (none for a binary file). */
function blobLines(store: ObjectStore, a: string | undefined, b: string | undefined): DiffLine[] {
  const read = (id: string | undefined) =>
    id ? (store.raw(id, 'blob') ?? Buffer.alloc(0)) : Buffer.alloc(0);
  const x = read(a);
  const y = read(b);
  if (isBinary(x) || isBinary(y)) return [];
  const out: DiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const [kind] of editScript(lines(x.toString('utf8')), lines(y.toString('utf8')))) {
    if (kind === '+') out.push({ type: 'new', old_line: null, new_line: newLine++ });
    else if (kind === '-') out.push({ type: 'old', old_line: oldLine++, new_line: null });
    else out.push({ type: null, old_line: oldLine++, new_line: newLine++ });
  }
  return out;
}

/** `Gitlab::Diff::File#line_for_position`: the diff line with exactly the position's old and new line. */
export function lineForPosition(lines: readonly DiffLine[], pos: LinePosition): DiffLine | undefined {
  const oldLine = pos.old_line ?? null;
  const newLine = pos.new_line ?? null;
  return lines.find((l) => l.old_line === oldLine && l.new_line === newLine);
}
