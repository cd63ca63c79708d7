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
const LEAF_BITS = 6;
const LEAF = 1 << LEAF_BITS;
const INNER_BITS = 4;
const INNER = 1 << INNER_BITS;
const INNER_MASK = INNER - 1;
const LEAF_MASK = LEAF - 1;
/** The bits below the top array: three inner levels and the leaf. */
const TOP_SHIFT = 3 * INNER_BITS + LEAF_BITS;
/** Ids are non-negative integers below 2^31 (a larger number finds nothing). */
const MAX_ID = 0x7fffffff;

type Slot<T> = T | null;
/** A leaf: 64 slots, the records of ids `base .. base + 63` (`base` a multiple of 64). */
export type Leaf<T> = readonly Slot<T>[];
type Inner<N> = Slot<N>[];
type Top<T> = Slot<Inner<Inner<Inner<Slot<T>[]>>>>[];

export interface Table<T> {
  size: number;
  buckets: Top<T>;
  /** Never set: names the type of the records for inference through immer's `Draft`. */
  readonly _record?: T;
}

const nulls = <T>(n: number): Slot<T>[] => {
  const a = new Array<Slot<T>>(n);
  for (let i = 0; i < n; i++) a[i] = null;
  return a;
};

export function emptyTable<T>(): Table<T> {
  return { size: 0, buckets: [] };
}

const validId = (id: number) => Number.isInteger(id) && id >= 0 && id <= MAX_ID;

/** The key under which immer keeps a draft's state (immer's `DRAFT_STATE`). */
const DRAFT_STATE = Symbol.for('immer-state');

/** Whether `node` is an immer draft. */
export const isDraftNode = (node: object) => (node as { [DRAFT_STATE]?: unknown })[DRAFT_STATE] !== undefined;

/** What immer keeps of a draft: the fields its `prepareCopy` sets. */
interface CopyState {
  base_: unknown;
  copy_: unknown;
  assigned_?: unknown;
}

/**
 * `node`, after giving it the copy immer would make on its first read or write through a draft. Every
 * array of a committed state is frozen, and V8 slices a frozen array by its slow path (about 20 times
 * slower than a spread at 16 or 64 slots): that copy was most of a write's cost, a few dozen arrays per
 * write. The copy is the one immer makes (the same items, in a fresh unfrozen array, with no keys
 * assigned yet); where immer's draft state is not what this expects, immer copies as before.
 */
function primed<N>(node: N): N {
  const st = (node as { [DRAFT_STATE]?: CopyState })[DRAFT_STATE];
  if (st !== undefined && st.copy_ === null && st.assigned_ === undefined && Array.isArray(st.base_)) {
    st.copy_ = [...(st.base_ as unknown[])];
    st.assigned_ = new Map();
  }
  return node;
}

/**
 * Freezes `value` and everything reachable from it that is not frozen yet. Everything already in a
 * committed state is frozen (deeply), so a non-extensible object is taken as frozen with all it holds,
 * as immer's deep freeze takes an `isFrozen` one.
 */
export function freezeNew<T>(value: T): T {
  if (typeof value !== 'object' || value === null || !Object.isExtensible(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    // An index loop: `for in` over an array makes a string of every index.
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'object' && v !== null && Object.isExtensible(v)) freezeNew(v);
    }
    return value;
  }
  // A key loop: `Object.values` of a dictionary-mode object costs several times more.
  const o = value as Record<string, unknown>;
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'object' && v !== null && Object.isExtensible(v)) freezeNew(v);
  }
  return value;
}

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

function allNullBut(a: readonly unknown[], k: number): boolean {
  for (let i = 0; i < a.length; i++) if (i !== k && a[i] !== null) return false;
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

/**
 * A string-keyed index (username -> id, token digest -> id, ...), laid out like a table by an 18-bit
 * hash of the key: four levels of 16 slots by its top sixteen bits, then a leaf holding the entries of
 * those bits as a flat `[key, value, key, value, ...]` array (one or two entries at 100,000 keys). The
 * keys are compared as strings, never used as property names, so a client's `__proto__` is a key like
 * any other.
 */
export interface Index<V = number> {
  buckets: Slot<Inner<Inner<Inner<unknown[]>>>>[];
  /** Never set: names the type of the values, which the flat leaves do not. */
  readonly _value?: V;
}

export function emptyIndex<V = number>(): Index<V> {
  return { buckets: nulls(INNER) };
}

function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & 0x3ffff;
}

/**
 * What `node` holds at `k`, read without making a draft of it: through an immer draft, its current value
 * (which is a draft only where the write drafted it already). Where immer's draft state is not what this
 * expects, the read goes through the draft.
 */
export function peekAt(node: object, k: string | number): unknown {
  const st = (node as { [DRAFT_STATE]?: CopyState })[DRAFT_STATE];
  if (st === undefined) return (node as Record<string | number, unknown>)[k];
  const src = st.copy_ ?? st.base_;
  return typeof src === 'object' && src !== null
    ? (src as Record<string | number, unknown>)[k]
    : (node as Record<string | number, unknown>)[k];
}

/** The slot of hash `h` in a node at `level` (0: the top array, 4: the leaf). */
const islot = (h: number, level: number) => (level === 0 ? h >>> 14 : (h >>> (14 - 4 * level)) & INNER_MASK);

/**
 * The nodes on the path of hash `h` (top, three inner levels, leaf; `null` from the first missing one),
 * read as `peekAt` reads, or undefined when one of them is a draft.
 */
function ipath<V>(ix: Index<V>, h: number): (unknown[] | null)[] | undefined {
  const path: (unknown[] | null)[] = [];
  let node = peekAt(ix, 'buckets') as unknown[] | null;
  for (let level = 0; level <= 4; level++) {
    if (node !== null && isDraftNode(node)) return undefined;
    path.push(node);
    node = level < 4 && node !== null ? (node[islot(h, level)] as unknown[] | null) : null;
  }
  return path;
}

/**
 * Puts `leaf` (a new, frozen leaf, or null to remove the old one) on the path of hash `h` in an index
 * of a write: committed nodes, which are frozen, are copied and the copies frozen as they are made, so
 * that what the write makes is frozen when it is done; a node this write made and left unfrozen is
 * changed in place. Immer's proxies (a draft, a trap and a copy per level, five levels per key) and a
 * walk of the new nodes for what to freeze were most of the cost of a write that adds a few keys.
 */
function rewrite<V>(
  ix: Index<V>,
  h: number,
  path: (unknown[] | null)[],
  leaf: readonly unknown[] | null,
): void {
  let child: readonly unknown[] | null = leaf;
  for (let level = 3; level >= 0; level--) {
    const node = path[level] ?? null;
    const k = islot(h, level);
    if (child === null && level > 0 && (node === null || allNullBut(node, k))) continue;
    if (node !== null && Object.isExtensible(node)) {
      node[k] = child;
      return;
    }
    const copy = node === null ? nulls(INNER) : [...node];
    copy[k] = child;
    child = Object.freeze(copy);
  }
  // Through immer's trap: the new top is frozen through, so immer's look into it for drafts stops at once.
  (ix as { buckets: unknown }).buckets = child;
}

/** The leaf of hash `h`, or undefined; through a draft, read as `peekAt` reads. */
function ileafOf<V>(ix: Index<V>, h: number): readonly unknown[] | undefined {
  if (isDraftNode(ix)) return ileafOfDraft(ix, h);
  // Outside a write (a committed state, or one being built) no node is a draft.
  const a = ix.buckets[h >>> 14];
  if (!a) return undefined;
  const b = a[(h >>> 10) & INNER_MASK];
  if (!b) return undefined;
  const c = b[(h >>> 6) & INNER_MASK];
  if (!c) return undefined;
  return c[(h >>> 2) & INNER_MASK] ?? undefined;
}

function ileafOfDraft<V>(ix: Index<V>, h: number): readonly unknown[] | undefined {
  const a = peekAt(peekAt(ix, 'buckets') as object, h >>> 14) as object | null;
  if (!a) return undefined;
  const b = peekAt(a, (h >>> 10) & INNER_MASK) as object | null;
  if (!b) return undefined;
  const c = peekAt(b, (h >>> 6) & INNER_MASK) as object | null;
  if (!c) return undefined;
  return (peekAt(c, (h >>> 2) & INNER_MASK) as unknown[] | null) ?? undefined;
}

function find(leaf: readonly unknown[], key: string): number {
  for (let i = 0; i < leaf.length; i += 2) if (leaf[i] === key) return i;
  return -1;
}

/** The value of `key`, as stored (within a write, a value this write did not draft is the committed one). */
export function iget<V>(ix: Index<V>, key: string): V | undefined {
  const leaf = ileafOf(ix, hashKey(key));
  if (!leaf) return undefined;
  const i = find(leaf, key);
  return i < 0 ? undefined : (peekAt(leaf, i + 1) as V);
}

export function iset<V>(ix: Index<V>, key: string, value: V): void {
  const h = hashKey(key);
  // A draft value is left to immer, which finalizes drafts it finds in what is stored into its drafts.
  const path =
    isDraftNode(ix) && !(typeof value === 'object' && value !== null && isDraftNode(value))
      ? ipath(ix, h)
      : undefined;
  if (path === undefined) return isetInPlace(ix, h, key, value);
  const leaf = path[4] ?? null;
  const i = leaf === null ? -1 : find(leaf, key);
  // Setting the value a key has changes nothing, as through immer: no node is copied.
  if (i >= 0 && leaf![i + 1] === value) return;
  if (leaf !== null && Object.isExtensible(leaf)) {
    if (i >= 0) leaf[i + 1] = value;
    else leaf.push(key, value);
    return;
  }
  freezeNew(value);
  const next = leaf === null ? [key, value] : [...leaf];
  if (i >= 0) next[i + 1] = value;
  else if (leaf !== null) next.push(key, value);
  rewrite(ix, h, path, Object.freeze(next));
}

/** `iset` on a plain index being built, or through immer's drafts. */
function isetInPlace<V>(ix: Index<V>, h: number, key: string, value: V): void {
  const a = (primed(ix.buckets)[h >>> 14] ??= nulls(INNER));
  const b = (primed(a)[(h >>> 10) & INNER_MASK] ??= nulls(INNER));
  const c = (primed(b)[(h >>> 6) & INNER_MASK] ??= nulls(INNER));
  const ci = (h >>> 2) & INNER_MASK;
  const leaf = primed(c)[ci];
  if (!leaf) {
    c[ci] = [key, value];
    return;
  }
  const i = find(primed(leaf), key);
  if (i >= 0) leaf[i + 1] = value;
  else leaf.push(key, value);
}

export function idelete<V>(ix: Index<V>, key: string): void {
  const h = hashKey(key);
  const path = isDraftNode(ix) ? ipath(ix, h) : undefined;
  if (path === undefined) return ideleteInPlace(ix, h, key);
  const leaf = path[4] ?? null;
  const i = leaf === null ? -1 : find(leaf, key);
  if (i < 0) return;
  const rest: unknown[] = [];
  for (let j = 0; j < leaf!.length; j += 2) if (j !== i) rest.push(leaf![j], leaf![j + 1]);
  rewrite(ix, h, path, rest.length > 0 ? Object.freeze(rest) : null);
}

/** `idelete` on a plain index being built, or through immer's drafts. */
function ideleteInPlace<V>(ix: Index<V>, h: number, key: string): void {
  const a = primed(ix.buckets)[h >>> 14];
  if (!a) return;
  const ai = (h >>> 10) & INNER_MASK;
  const b = primed(a)[ai];
  if (!b) return;
  const bi = (h >>> 6) & INNER_MASK;
  const c = primed(b)[bi];
  if (!c) return;
  const ci = (h >>> 2) & INNER_MASK;
  const leaf = primed(c)[ci];
  if (!leaf) return;
  const i = find(leaf, key);
  if (i < 0) return;
  const rest: unknown[] = [];
  for (let j = 0; j < leaf.length; j += 2) if (j !== i) rest.push(leaf[j], leaf[j + 1]);
  if (rest.length > 0) c[ci] = rest;
  else if (!allNullBut(c, ci)) c[ci] = null;
  else if (!allNullBut(b, bi)) b[bi] = null;
  else if (!allNullBut(a, ai)) a[ai] = null;
  else ix.buckets[h >>> 14] = null;
}

/** Every entry of an index, by hash and then in the order the keys were added. */
export function* ientries<V>(ix: Index<V>): Generator<[string, V]> {
  for (const a of ix.buckets) {
    if (!a) continue;
    for (const b of a) {
      if (!b) continue;
      for (const c of b) {
        if (!c) continue;
        for (const leaf of c) {
          if (!leaf) continue;
          for (let i = 0; i < leaf.length; i += 2) yield [leaf[i] as string, leaf[i + 1] as V];
        }
      }
    }
  }
}

/**
 * A one-to-many index (a project's members, a group's subgroups, a user's stars): key -> set of ids.
 * Each set is its own value, so that adding to one copies only that set and its path. A set of up to
 * `SMALL_MAX` ids is an ascending array of them; a larger one is chunked (`IdChunks`), so that an add
 * or a removal copies and freezes one chunk of at most `CHUNK_MAX` ids and the spine of chunks, not
 * the whole set (one owner's thousands of projects made every create copy them all). State files
 * saved before hold sets as objects keyed by id (`{"<id>": 1}`), of any size: they are read as they
 * are, and the first write to one stores it in this layout.
 */
export type MultiIndex = Index<IdSet>;

/** A set of ids: an ascending array, chunks, or (read back from an earlier state file) an object. */
export type IdSet = number[] | IdChunks | Record<string, 1>;

/**
 * A large set of ids: `n` ids in ascending chunks (`c`), each an ascending array of 1 to `CHUNK_MAX`
 * ids, every id of a chunk below every id of the next one.
 */
export interface IdChunks {
  n: number;
  c: number[][];
}

/** The most ids an array set holds: one more makes it chunked. */
const SMALL_MAX = 64;
/** A chunked set that shrinks to this many ids is an array again (not at once: no flapping at the border). */
const SMALL_AGAIN = 32;
const CHUNK_MAX = 64;

/** `Object.freeze`, typed as what it was given: frozen arrays are read as the arrays they were. */
const frozenAs = <T extends object>(o: T): T => Object.freeze(o) as T;

const isSmall = (s: IdSet): s is number[] => Array.isArray(s);
const isChunked = (s: IdSet): s is IdChunks => !Array.isArray(s) && Array.isArray((s as Partial<IdChunks>).c);
/** The ids of a set saved by an earlier fauxlab, ascending (integer keys enumerate in ascending order). */
const savedIds = (s: Record<string, 1>): number[] => Object.keys(s).map(Number);

/**
 * The set stored under a key, read for a multi-index operation. Through a draft that read the index
 * (`ientries`), the value may be immer's draft of it: sets are never written through a draft (a write
 * replaces them), so the draft stands for its committed value, which is read instead of drafting chunks.
 */
function setOf(ix: MultiIndex, key: string): IdSet | undefined {
  const set = iget(ix, key);
  if (set === undefined) return undefined;
  const st = (set as { [DRAFT_STATE]?: { base_: IdSet; modified_: boolean } })[DRAFT_STATE];
  return st !== undefined && !st.modified_ ? st.base_ : set;
}

/** The first position in an ascending array whose id is not below `id`. */
function lowerBound(a: readonly number[], id: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The chunk where `id` is or would go: the last one starting at or below it (the first for a smaller id). */
function chunkAt(c: readonly (readonly number[])[], id: number): number {
  let lo = 0;
  let hi = c.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (c[mid]![0]! <= id) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const inserted = (a: readonly number[], j: number, id: number) => [...a.slice(0, j), id, ...a.slice(j)];
const without = (a: readonly number[], j: number) => [...a.slice(0, j), ...a.slice(j + 1)];

/** The set of ascending `ids` (at least one): an array up to `SMALL_MAX`, else full chunks and the rest. */
function setOfIds(ids: number[], frozen: boolean): IdSet {
  if (ids.length <= SMALL_MAX) return frozen ? frozenAs(ids) : ids;
  const c: number[][] = [];
  for (let i = 0; i < ids.length; i += CHUNK_MAX) {
    const chunk = ids.slice(i, i + CHUNK_MAX);
    c.push(frozen ? frozenAs(chunk) : chunk);
  }
  return frozen ? frozenAs({ n: ids.length, c: frozenAs(c) }) : { n: ids.length, c };
}

/**
 * `s` with `id` added. In a write (`frozen`) a new, frozen set sharing every chunk but one; in a build,
 * `s` changed in place. The same layout either way, so that a state built in place equals one written
 * through the store.
 */
function added(s: IdSet, id: number, frozen: boolean): IdSet {
  if (isSmall(s)) {
    const j = lowerBound(s, id);
    if (s[j] === id) return s;
    if (s.length >= SMALL_MAX) return setOfIds(inserted(s, j, id), frozen);
    if (!frozen && Object.isExtensible(s)) {
      s.splice(j, 0, id);
      return s;
    }
    return frozen ? frozenAs(inserted(s, j, id)) : inserted(s, j, id);
  }
  if (!isChunked(s)) {
    if (id in s) return s;
    const ids = savedIds(s);
    return setOfIds(inserted(ids, lowerBound(ids, id), id), frozen);
  }
  const c = s.c;
  const i = chunkAt(c, id);
  const chunk = c[i]!;
  const j = lowerBound(chunk, id);
  if (chunk[j] === id) return s;
  const inPlace = !frozen && Object.isExtensible(s);
  let parts: number[][];
  if (chunk.length < CHUNK_MAX) {
    if (inPlace && Object.isExtensible(chunk)) {
      chunk.splice(j, 0, id);
      s.n++;
      return s;
    }
    parts = [inserted(chunk, j, id)];
  } else if (j === chunk.length && i === c.length - 1) {
    // Ids mostly come in ascending order: a full last chunk stays full, the new id starts the next.
    parts = [chunk, [id]];
  } else {
    const all = inserted(chunk, j, id);
    const half = (all.length + 1) >>> 1;
    parts = [all.slice(0, half), all.slice(half)];
  }
  return respine(s, i, parts, s.n + 1, inPlace);
}

/** `s` with chunk `i` replaced by `parts` (frozen unless `inPlace`), holding `n` ids. */
function respine(s: IdChunks, i: number, parts: number[][], n: number, inPlace: boolean): IdChunks {
  if (inPlace) {
    s.c.splice(i, 1, ...parts);
    s.n = n;
    return s;
  }
  const c = s.c;
  const next = new Array<number[]>(c.length - 1 + parts.length);
  let k = 0;
  for (let x = 0; x < i; x++) next[k++] = c[x]!;
  for (const part of parts) next[k++] = Object.isFrozen(part) ? part : frozenAs(part);
  for (let x = i + 1; x < c.length; x++) next[k++] = c[x]!;
  return frozenAs({ n, c: frozenAs(next) });
}

/** `s` without `id` (as `added` changes or copies), undefined when that empties it. */
function removed(s: IdSet, id: number, frozen: boolean): IdSet | undefined {
  if (isSmall(s)) {
    const j = lowerBound(s, id);
    if (s[j] !== id) return s;
    if (s.length === 1) return undefined;
    if (!frozen && Object.isExtensible(s)) {
      s.splice(j, 1);
      return s;
    }
    return frozen ? frozenAs(without(s, j)) : without(s, j);
  }
  if (!isChunked(s)) {
    if (!(id in s)) return s;
    const ids = savedIds(s);
    return ids.length === 1 ? undefined : setOfIds(without(ids, lowerBound(ids, id)), frozen);
  }
  const c = s.c;
  const i = chunkAt(c, id);
  const chunk = c[i]!;
  const j = lowerBound(chunk, id);
  if (chunk[j] !== id) return s;
  if (s.n - 1 <= SMALL_AGAIN) {
    const ids: number[] = [];
    for (const part of c) for (const x of part) if (x !== id) ids.push(x);
    return frozen ? frozenAs(ids) : ids;
  }
  const inPlace = !frozen && Object.isExtensible(s);
  if (inPlace && chunk.length > 1 && Object.isExtensible(chunk)) {
    chunk.splice(j, 1);
    s.n--;
    return s;
  }
  return respine(s, i, chunk.length === 1 ? [] : [without(chunk, j)], s.n - 1, inPlace);
}

export function madd(ix: MultiIndex, key: string, id: number): void {
  if (!isDraftNode(ix)) return maddInPlace(ix, key, id);
  const set = setOf(ix, key);
  if (set === undefined) return iset(ix, key, frozenAs([id]));
  const next = added(set, id, true);
  if (next !== set) iset(ix, key, next);
}

/** `madd` on an index that is not a draft (one being built): one walk down the key's path. */
function maddInPlace(ix: MultiIndex, key: string, id: number): void {
  const h = hashKey(key);
  const a = (ix.buckets[h >>> 14] ??= nulls(INNER));
  const b = (a[(h >>> 10) & INNER_MASK] ??= nulls(INNER));
  const c = (b[(h >>> 6) & INNER_MASK] ??= nulls(INNER));
  const ci = (h >>> 2) & INNER_MASK;
  const leaf = c[ci];
  const i = leaf ? find(leaf, key) : -1;
  if (i >= 0) {
    const set = leaf![i + 1] as IdSet;
    const next = added(set, id, false);
    if (next !== set) leaf![i + 1] = next;
    return;
  }
  if (leaf) leaf.push(key, [id]);
  else c[ci] = [key, [id]];
}

export function mremove(ix: MultiIndex, key: string, id: number): void {
  const set = setOf(ix, key);
  if (!set) return;
  const next = removed(set, id, isDraftNode(ix));
  if (next === undefined) idelete(ix, key);
  else if (next !== set) iset(ix, key, next);
}

/** The ids under a key, ascending (a new array, the caller's to change). */
export function mget(ix: MultiIndex, key: string): number[] {
  const set = setOf(ix, key);
  if (!set) return [];
  if (isSmall(set)) return set.slice();
  if (!isChunked(set)) return savedIds(set);
  const out = new Array<number>(set.n);
  let k = 0;
  for (const chunk of set.c) for (let j = 0; j < chunk.length; j++) out[k++] = chunk[j]!;
  return out;
}

/** How many ids are under a key, without listing them. */
export function mcount(ix: MultiIndex, key: string): number {
  const set = setOf(ix, key);
  if (!set) return 0;
  if (isSmall(set)) return set.length;
  return isChunked(set) ? set.n : savedIds(set).length;
}

/** Whether `id` is under a key. */
export function mhas(ix: MultiIndex, key: string, id: number): boolean {
  const set = setOf(ix, key);
  if (!set) return false;
  if (isSmall(set)) return set[lowerBound(set, id)] === id;
  if (!isChunked(set)) return id in set;
  const chunk = set.c[chunkAt(set.c, id)]!;
  return chunk[lowerBound(chunk, id)] === id;
}

// ---------------------------------------------------------------------------------------------------
// States saved by an earlier fauxlab

/** Whether `o` is a table or index of the layout before this one (buckets as nested objects). */
const oldLayout = (o: Record<string, unknown>) =>
  typeof o.buckets === 'object' && o.buckets !== null && !Array.isArray(o.buckets);

/** The values of the leaves of an earlier layout (three levels of objects), in its key order. */
function* oldEntries(buckets: object): Generator<[string, unknown]> {
  for (const mid of Object.values(buckets) as object[])
    for (const leaf of Object.values(mid) as object[])
      for (const [k, v] of Object.entries(leaf)) yield [k, v];
}

/**
 * A table or index in this layout, from one of a state file saved by an earlier fauxlab (tables and
 * indexes as nested objects); `o` itself when it is in this layout already.
 */
function upgradeOne(o: Record<string, unknown>): Record<string, unknown> {
  if (!oldLayout(o)) return o;
  const keys = Object.keys(o);
  if (typeof o.size === 'number' && keys.length === 2) {
    const t = emptyTable<unknown>();
    for (const [k, v] of oldEntries(o.buckets as object)) tset(t, Number(k), v);
    return t as unknown as Record<string, unknown>;
  }
  const ix = emptyIndex<unknown>();
  for (const [k, v] of oldEntries(o.buckets as object)) iset(ix, k, v);
  return ix as unknown as Record<string, unknown>;
}

const isTableLike = (o: Record<string, unknown>) =>
  'buckets' in o && Object.keys(o).every((k) => k === 'buckets' || k === 'size');

/**
 * A state read back from a file saved by an earlier fauxlab, with its tables and indexes (found on the
 * root, in its slices and in their `idx` objects) in this layout; the same object when nothing changed.
 */
export function upgradeTables<S extends object>(st: S, depth = 0): S {
  const o = st as unknown as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
    const r = v as Record<string, unknown>;
    const next = isTableLike(r) ? upgradeOne(r) : depth < 2 ? upgradeTables(r, depth + 1) : r;
    if (next !== v)
      (out ??= Object.assign(Object.create(Object.getPrototypeOf(o) as object | null), o))[k] = next;
  }
  return (out ?? st) as S;
}
