/**
 * Bucketed collections for the immer root.
 *
 * immer copies every object on the path to what a write touches, so one flat map of n records makes each
 * write O(n). A table is a trie of arrays: a top array by `id >>> 18`, three levels of 16 slots by the
 * next twelve bits, and leaves of 64 slots by the lowest six, so that a write copies one top array (one
 * slot per 262,144 ids), three arrays of 16 and one of 64 whatever the size. Arrays because V8 copies
 * them (immer's `slice`) many times faster than objects keyed by id, which it keeps as hash tables; every
 * slot is set (`null` when empty), so that a lookup never reaches the array prototype and a state read
 * back from JSON is the state that was written. Ascending slots give ascending ids for free.
 */
import {
  DRAFT_STATE,
  allNullBut,
  INNER,
  INNER_BITS,
  INNER_MASK,
  isDraftNode,
  LEAF,
  LEAF_BITS,
  LEAF_MASK,
  nulls,
  primed,
  type Inner,
  type Slot,
} from './draft-nodes.js';

export { freezeNew, isDraftNode } from './draft-nodes.js';
export { emptyIndex, idelete, ientries, iget, iset, peekAt, type Index } from './table-index.js';
export { madd, mcount, mget, mhas, mremove, type IdChunks, type IdSet, type MultiIndex } from './id-sets.js';

/** The bits below the top array: three inner levels and the leaf. */
const TOP_SHIFT = 3 * INNER_BITS + LEAF_BITS;
/** Ids are non-negative integers below 2^31 (a larger number finds nothing). */
const MAX_ID = 0x7fffffff;

/** A leaf: 64 slots, the records of ids `base .. base + 63` (`base` a multiple of 64). */
export type Leaf<T> = readonly Slot<T>[];
type Top<T> = Slot<Inner<Inner<Inner<Slot<T>[]>>>>[];

export interface Table<T> {
  size: number;
  buckets: Top<T>;
  /** Never set: names the type of the records for inference through immer's `Draft`. */
  readonly _record?: T;
}

export function emptyTable<T>(): Table<T> {
  return { size: 0, buckets: [] };
}

const validId = (id: number) => Number.isInteger(id) && id >= 0 && id <= MAX_ID;

/** The leaf holding `id`, or undefined. Reads through a draft draft only the path, as immer does. */
function leafOf<T>(t: Table<T>, id: number): Slot<T>[] | undefined {
  // Outside a write (a committed state, or one being built) no node is a draft, and none is primed.
  const d = isDraftNode(t);
  const top = d ? primed(t.buckets) : t.buckets;
  const ti = id >>> TOP_SHIFT;
  if (ti >= top.length) return undefined;
  const a = top[ti];
  if (!a) return undefined;
  const b = (d ? primed(a) : a)[(id >>> (2 * INNER_BITS + LEAF_BITS)) & INNER_MASK];
  if (!b) return undefined;
  const c = (d ? primed(b) : b)[(id >>> (INNER_BITS + LEAF_BITS)) & INNER_MASK];
  if (!c) return undefined;
  const leaf = (d ? primed(c) : c)[(id >>> LEAF_BITS) & INNER_MASK];
  return leaf ? (d ? primed(leaf) : leaf) : undefined;
}

/** The leaf holding `id` under a top read as it is (no draft made), or undefined. */
function plainLeaf<T>(top: Top<T>, id: number): Slot<T>[] | undefined {
  const ti = id >>> TOP_SHIFT;
  if (ti >= top.length) return undefined;
  const a = top[ti];
  if (!a) return undefined;
  const b = a[(id >>> (2 * INNER_BITS + LEAF_BITS)) & INNER_MASK];
  if (!b) return undefined;
  const c = b[(id >>> (INNER_BITS + LEAF_BITS)) & INNER_MASK];
  if (!c) return undefined;
  return c[(id >>> LEAF_BITS) & INNER_MASK] ?? undefined;
}

// ---------------------------------------------------------------------------------------------------
// Direct writes: a table's path written within a write without immer's proxies

/** What immer keeps of the draft of a table object. */
interface TableDraftState {
  base_: { buckets: unknown };
  copy_: { buckets: unknown } | null;
}

/**
 * How a write holds a draft table's top: `clean` while it is the committed one (frozen, and so is all
 * below it), `direct` once this write made a copy of it without immer (an unfrozen array that is no
 * draft: every unfrozen node under it is this write's, every frozen one committed), `immer` otherwise
 * (immer drafted it, or the base is not a committed one and is left to immer).
 */
const CLEAN = 0;
const DIRECT = 1;
const IMMER = 2;

function topMode(t: object): number {
  const st = (t as { [DRAFT_STATE]?: TableDraftState })[DRAFT_STATE];
  if (st === undefined || typeof st.base_ !== 'object' || st.base_ === null) return IMMER;
  const base = st.base_.buckets;
  const cur = st.copy_ === null ? base : st.copy_.buckets;
  if (!Array.isArray(cur)) return IMMER;
  if (cur === base) return Object.isFrozen(base) ? CLEAN : IMMER;
  return !isDraftNode(cur) && Object.isExtensible(cur) && Array.isArray(base) && Object.isFrozen(base)
    ? DIRECT
    : IMMER;
}

/** A node of the path that this write may change in place: `node` if it is this write's, else a copy. */
const own = <N extends unknown[]>(node: N): N => (Object.isExtensible(node) ? node : ([...node] as N));

/**
 * `tset` on a draft table in the clean or direct mode: the path is copied from the committed, frozen
 * nodes (once per write: a copy is this write's, unfrozen, and changed in place after), and only the new
 * top goes through immer's trap. immer's proxies on the five levels of the path (a draft, a trap and a
 * copy each, and at the end a walk of the new record for drafts) were most of the cost of a write that
 * adds a record. The store freezes the copies at the end of the write (`sealDirect`).
 */
function tsetDirect<T>(t: Table<T>, id: number, rec: T, mode: number): void {
  const st = (t as unknown as { [DRAFT_STATE]: TableDraftState })[DRAFT_STATE];
  const cur = (st.copy_ === null ? st.base_.buckets : st.copy_.buckets) as Top<T>;
  // Setting the value a slot has changes nothing, as through immer: no node is copied.
  if (plainLeaf(cur, id)?.[id & LEAF_MASK] === rec) return;
  const top = mode === DIRECT ? cur : [...cur];
  const ti = id >>> TOP_SHIFT;
  while (top.length <= ti) top.push(null);
  const a = (top[ti] = top[ti] ? own(top[ti]) : nulls(INNER));
  const ai = (id >>> (2 * INNER_BITS + LEAF_BITS)) & INNER_MASK;
  const b = (a[ai] = a[ai] ? own(a[ai]) : nulls(INNER));
  const bi = (id >>> (INNER_BITS + LEAF_BITS)) & INNER_MASK;
  const c = (b[bi] = b[bi] ? own(b[bi]) : nulls(INNER));
  const ci = (id >>> LEAF_BITS) & INNER_MASK;
  const leaf = (c[ci] = c[ci] ? own(c[ci]) : nulls<T>(LEAF));
  const k = id & LEAF_MASK;
  if (leaf[k] === null) t.size++;
  leaf[k] = rec;
  if (top !== cur) t.buckets = top;
}

/**
 * Hands a draft table in the direct mode back to immer: its top becomes the committed one again, and what
 * this write set in it is set once more through immer's drafts. A read that may change a committed
 * record (`tget` through a draft), a delete and a walk of the leaves need immer's drafts of the records.
 */
function materialize<T>(t: Table<T>): void {
  const st = (t as unknown as { [DRAFT_STATE]: TableDraftState })[DRAFT_STATE];
  const fresh = st.copy_!.buckets as Top<T>;
  const base = st.base_.buckets as Top<T>;
  const writes: [number, Slot<T>][] = [];
  diffNodes(fresh, base, 0, 0, writes);
  t.buckets = base;
  for (const [id, v] of writes) setThroughImmer(t, id, v);
}

/**
 * The slots in which `node` differs from `base` (both at `level`, 4 being a leaf, under the slot number
 * `prefix` of the levels above), as ids and the values `node` holds there.
 */
function diffNodes<T>(
  node: readonly unknown[] | null,
  base: readonly unknown[] | null,
  level: number,
  prefix: number,
  out: [number, Slot<T>][],
): void {
  const n = Math.max(node?.length ?? 0, base?.length ?? 0);
  for (let i = 0; i < n; i++) {
    const v = (node?.[i] ?? null) as unknown[] | null;
    const b = (base?.[i] ?? null) as unknown[] | null;
    if (v === b) continue;
    if (level === 4) out.push([prefix * LEAF + i, v as Slot<T>]);
    else diffNodes(v, b, level + 1, prefix * INNER + i, out);
  }
}

/** Sets a slot through immer's drafts of the path, leaving `size` as it is. */
function setThroughImmer<T>(t: Table<T>, id: number, v: Slot<T>): void {
  immerLeaf(t, id)[id & LEAF_MASK] = v;
}

/** The leaf that holds `id` in a draft table, made along with its path through immer's drafts. */
function immerLeaf<T>(t: Table<T>, id: number): Slot<T>[] {
  const top = primed(t.buckets);
  const ti = id >>> TOP_SHIFT;
  while (top.length <= ti) top.push(null);
  const a = primed((top[ti] ??= nulls(INNER)));
  const b = primed((a[(id >>> (2 * INNER_BITS + LEAF_BITS)) & INNER_MASK] ??= nulls(INNER)));
  const c = primed((b[(id >>> (INNER_BITS + LEAF_BITS)) & INNER_MASK] ??= nulls(INNER)));
  return primed((c[(id >>> LEAF_BITS) & INNER_MASK] ??= nulls<T>(LEAF)));
}

/**
 * Freezes what the direct writes of a table made (called by the store at the end of a write's recipe,
 * before immer finalizes): every unfrozen node under `node` that holds no draft. A node holding a draft
 * (a new record that refers to a draft) stays unfrozen for immer, which replaces the draft with its
 * final value and freezes nothing; the store freezes it after. Returns whether `node` holds a draft.
 */
export function sealDirect(node: object): boolean {
  let draft = false;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const v: unknown = node[i];
      if (typeof v !== 'object' || v === null) continue;
      if (isDraftNode(v)) draft = true;
      else if (Object.isExtensible(v) && sealDirect(v)) draft = true;
    }
  } else {
    const o = node as Record<string, unknown>;
    for (const k in o) {
      const v = o[k];
      if (typeof v !== 'object' || v === null) continue;
      if (isDraftNode(v)) draft = true;
      else if (Object.isExtensible(v) && sealDirect(v)) draft = true;
    }
  }
  if (!draft) Object.freeze(node);
  return draft;
}

/** The top of a draft table written directly by this write (see `tsetDirect`), if it is one. */
export function directTop(t: object): unknown[] | undefined {
  if (topMode(t) !== DIRECT) return undefined;
  return (t as unknown as { [DRAFT_STATE]: TableDraftState })[DRAFT_STATE].copy_!.buckets as unknown[];
}

export function tget<T>(t: Table<T>, id: number): T | undefined {
  if (!validId(id)) return undefined;
  if (isDraftNode(t) && topMode(t) === DIRECT) {
    const rec = plainLeaf(t.buckets, id)?.[id & LEAF_MASK] ?? undefined;
    // A record this write made is its own; a committed one is changed through immer's draft of it.
    if (rec === undefined || typeof rec !== 'object' || rec === null || Object.isExtensible(rec)) return rec;
    materialize(t);
  }
  return leafOf(t, id)?.[id & LEAF_MASK] ?? undefined;
}

export function tset<T>(t: Table<T>, id: number, rec: T): void {
  if (!validId(id)) throw new RangeError(`table id out of range: ${id}`);
  if (!isDraftNode(t)) return tsetInPlace(t, id, rec);
  const mode = topMode(t);
  // A draft put into a table is left to immer, which finalizes drafts it finds in its drafts.
  if (typeof rec === 'object' && rec !== null && isDraftNode(rec)) {
    if (mode === DIRECT) materialize(t);
  } else if (mode !== IMMER) return tsetDirect(t, id, rec, mode);
  const leaf = immerLeaf(t, id);
  const k = id & LEAF_MASK;
  if (leaf[k] === null) t.size++;
  leaf[k] = rec;
}

/** `tset` on a table that is not a draft (one being built; a committed one fails as frozen). */
function tsetInPlace<T>(t: Table<T>, id: number, rec: T): void {
  const top = t.buckets;
  const ti = id >>> TOP_SHIFT;
  while (top.length <= ti) top.push(null);
  const a = (top[ti] ??= nulls(INNER));
  const b = (a[(id >>> (2 * INNER_BITS + LEAF_BITS)) & INNER_MASK] ??= nulls(INNER));
  const c = (b[(id >>> (INNER_BITS + LEAF_BITS)) & INNER_MASK] ??= nulls(INNER));
  const leaf = (c[(id >>> LEAF_BITS) & INNER_MASK] ??= nulls<T>(LEAF));
  const k = id & LEAF_MASK;
  if (leaf[k] === null) t.size++;
  leaf[k] = rec;
}

export function tdelete<T>(t: Table<T>, id: number): boolean {
  if (!validId(id)) return false;
  if (isDraftNode(t) && topMode(t) === DIRECT) materialize(t);
  const leaf = leafOf(t, id);
  const k = id & LEAF_MASK;
  if (!leaf || leaf[k] === null) return false;
  t.size--;
  if (!allNullBut(leaf, k)) {
    leaf[k] = null;
    return true;
  }
  // The leaf empties: it goes, and so does each level above that held nothing else.
  const top = t.buckets;
  const ti = id >>> TOP_SHIFT;
  const a = top[ti]!;
  const ai = (id >>> (2 * INNER_BITS + LEAF_BITS)) & INNER_MASK;
  const b = a[ai]!;
  const bi = (id >>> (INNER_BITS + LEAF_BITS)) & INNER_MASK;
  const c = b[bi]!;
  const ci = (id >>> LEAF_BITS) & INNER_MASK;
  if (!allNullBut(c, ci)) c[ci] = null;
  else if (!allNullBut(b, bi)) b[bi] = null;
  else if (!allNullBut(a, ai)) a[ai] = null;
  else {
    top[ti] = null;
    let n = top.length;
    while (n > 0 && top[n - 1] === null) n--;
    if (n < top.length) top.length = n;
  }
  return true;
}

/**
 * The leaves (up to 64 records each, `null` in empty slots) in ascending id order, with a stable key: for
 * caches that reuse per-leaf work while a leaf keeps its identity (immer copies only changed leaves).
 */
export function* tleaves<T>(t: Table<T>): Generator<[string, Leaf<T>]> {
  // Through a draft, the records are read as immer's drafts of them, which may be changed.
  if (isDraftNode(t) && topMode(t) === DIRECT) materialize(t);
  const top = t.buckets;
  for (let ti = 0; ti < top.length; ti++) {
    const a = top[ti];
    if (!a) continue;
    for (let ai = 0; ai < INNER; ai++) {
      const b = a[ai];
      if (!b) continue;
      for (let bi = 0; bi < INNER; bi++) {
        const c = b[bi];
        if (!c) continue;
        for (let ci = 0; ci < INNER; ci++) {
          const leaf = c[ci];
          if (leaf)
            yield [String((((((ti << INNER_BITS) | ai) << INNER_BITS) | bi) << INNER_BITS) | ci), leaf];
        }
      }
    }
  }
}

/** The records of a leaf, in ascending id order. */
export function leafRecords<T>(leaf: Leaf<T>): T[] {
  const out: T[] = [];
  for (let i = 0; i < leaf.length; i++) {
    const r = leaf[i];
    if (r !== null && r !== undefined) out.push(r);
  }
  return out;
}

/** Every record, in ascending id order. */
export function tvalues<T>(t: Table<T>): T[] {
  const out: T[] = [];
  for (const [, leaf] of tleaves(t))
    for (let i = 0; i < leaf.length; i++) {
      const r = leaf[i];
      if (r !== null && r !== undefined) out.push(r);
    }
  return out;
}

/** Every id that holds a record, ascending. */
export function tkeys<T>(t: Table<T>): number[] {
  const out: number[] = [];
  for (const [key, leaf] of tleaves(t)) {
    const base = Number(key) << LEAF_BITS;
    for (let i = 0; i < leaf.length; i++) if (leaf[i] !== null && leaf[i] !== undefined) out.push(base + i);
  }
  return out;
}
