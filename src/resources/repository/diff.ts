/**
 * Line diffs as git prints them: Myers' shortest edit script, unified hunks with three lines of context,
 * and the entity the platform gives each changed file (`Entities::Diff`). Bounded: past MAX_EDITS a file
 * is shown as all removed and all added, which is still a correct diff.
 */
import { TREE_MODE, type ObjectStore } from './objects.js';
import type { Delta } from './tree.js';

const MAX_EDITS = 2_000;
const CONTEXT = 3;

type Op = [kind: ' ' | '-' | '+', line: string];

export function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

/** The edit script turning `a` into `b`. */
export function editScript(a: readonly string[], b: readonly string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const x = a.slice(start, endA);
  const y = b.slice(start, endB);
  const middle = myers(x, y) ?? [...x.map((l): Op => ['-', l]), ...y.map((l): Op => ['+', l])];
  return [
    ...a.slice(0, start).map((l): Op => [' ', l]),
    ...middle,
    ...a.slice(endA).map((l): Op => [' ', l]),
  ];
}

function myers(a: readonly string[], b: readonly string[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, d);
    }
  }
  return undefined;
}

function backtrack(
  trace: Int32Array[],
  a: readonly string[],
  b: readonly string[],
  offset: number,
  dEnd: number,
): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push([' ', a[--x]!]);
      y--;
    }
    if (x === prevX) ops.push(['+', b[--y]!]);
    else ops.push(['-', a[--x]!]);
  }
  while (x > 0 && y > 0) {
    ops.push([' ', a[--x]!]);
    y--;
  }
  return ops.reverse();
}

/** Unified hunks (`@@ -a,b +c,d @@`) of an edit script; changes up to six unchanged lines apart share one. */
function hunks(ops: readonly Op[]): string {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let c = i;
    while (c < ops.length && ops[c]![0] === ' ') c++;
    if (c >= ops.length) break;
    const start = Math.max(i, c - CONTEXT);
    let last = c;
    for (let j = c; j < ops.length && j - last <= 2 * CONTEXT; j++) if (ops[j]![0] !== ' ') last = j;
    const end = Math.min(ops.length, last + 1 + CONTEXT);
    let aStart = 0;
    let bStart = 0;
    for (let j = 0; j < start; j++) {
      if (ops[j]![0] !== '+') aStart++;
      if (ops[j]![0] !== '-') bStart++;
    }
    const body = ops.slice(start, end);
    const aLen = body.filter((o) => o[0] !== '+').length;
    const bLen = body.filter((o) => o[0] !== '-').length;
    const range = (s: number, len: number) => (len === 1 ? `${s + 1}` : `${len === 0 ? s : s + 1},${len}`);
    out.push(`@@ -${range(aStart, aLen)} +${range(bStart, bLen)} @@\n`);
    for (const [k, l] of body) out.push(`${k}${l}\n`);
    i = end;
  }
  return out.join('');
}

export const isBinary = (b: Buffer) => b.subarray(0, 8000).includes(0);

export interface FileDiff {
  diff: string;
  additions: number;
  deletions: number;
}

/** The diff of one file between two blobs (undefined: absent). */
export function fileDiff(store: ObjectStore, oldId: string | undefined, newId: string | undefined): FileDiff {
  const a = oldId ? (store.raw(oldId, 'blob') ?? Buffer.alloc(0)) : Buffer.alloc(0);
  const b = newId ? (store.raw(newId, 'blob') ?? Buffer.alloc(0)) : Buffer.alloc(0);
  if (isBinary(a) || isBinary(b)) return { diff: 'Binary files differ\n', additions: 0, deletions: 0 };
  const ops = editScript(lines(a.toString('utf8')), lines(b.toString('utf8')));
  return {
    diff: hunks(ops),
    additions: ops.filter((o) => o[0] === '+').length,
    deletions: ops.filter((o) => o[0] === '-').length,
  };
}

const mode = (m: string | undefined) => (m === undefined ? '0' : m === TREE_MODE ? '040000' : m);

/** `Entities::Diff` of one changed path. */
export function diffEntity(store: ObjectStore, d: Delta) {
  const { diff } = fileDiff(store, d.old?.id, d.new?.id);
  return {
    old_path: d.from ?? d.path,
    new_path: d.path,
    a_mode: mode(d.old?.mode),
    b_mode: mode(d.new?.mode),
    new_file: d.old === undefined,
    renamed_file: d.from !== undefined,
    deleted_file: d.new === undefined,
    diff,
  };
}

/** `Entities::CommitStats` of a set of changes. */
export function stats(store: ObjectStore, deltas: readonly Delta[]) {
  let additions = 0;
  let deletions = 0;
  for (const d of deltas) {
    const f = fileDiff(store, d.old?.id, d.new?.id);
    additions += f.additions;
    deletions += f.deletions;
  }
  return { additions, deletions, total: additions + deletions };
}
