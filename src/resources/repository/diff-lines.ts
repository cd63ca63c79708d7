/**
 * The lines of one file's diff as `Gitlab::Diff::Parser` reads its hunks, and the diff that a position on
 * a commit names (`DiffRefs#compare_in`): a diff note's line must be one of these lines (its `line_code`),
 * and the commit comments API shows the line a diff note is on.
 */
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { fileDiff } from './diff.js';
import { TREE_MODE } from './objects.js';
import { resolveCommit } from './refs.js';
import { objectsOf } from './store.js';
import { entryAt } from './tree.js';

export interface DiffLine {
  /** `new` (added), `old` (removed) or null (unchanged). */
  type: 'new' | 'old' | null;
  old_line: number | null;
  new_line: number | null;
}

/** The changed and context lines of unified hunks (the `@@` lines are meta lines, never on a position). */
export function parseDiffLines(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  let a = 0;
  let b = 0;
  for (const l of diff.split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(l);
    if (header) {
      a = Number(header[1]);
      b = Number(header[2]);
    } else if (l.startsWith('+')) out.push({ type: 'new', old_line: null, new_line: b++ });
    else if (l.startsWith('-')) out.push({ type: 'old', old_line: a++, new_line: null });
    else if (l.startsWith(' ')) out.push({ type: null, old_line: a++, new_line: b++ });
  }
  return out;
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
  return parseDiffLines(fileDiff(store, a, b).diff);
}

/** `Gitlab::Diff::File#line_for_position`: the diff line with exactly the position's old and new line. */
export function lineForPosition(lines: readonly DiffLine[], pos: LinePosition): DiffLine | undefined {
  const oldLine = pos.old_line ?? null;
  const newLine = pos.new_line ?? null;
  return lines.find((l) => l.old_line === oldLine && l.new_line === newLine);
}
