/** String-keyed indexes of the immer root, laid out as tables are (core/table.ts). */
import {
  allNullBut,
  DRAFT_STATE,
  freezeNew,
  INNER,
  INNER_MASK,
  isDraftNode,
  nulls,
  primed,
  type CopyState,
  type Inner,
  type Slot,
} from './draft-nodes.js';

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

export function hashKey(key: string): number {
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

export function find(leaf: readonly unknown[], key: string): number {
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
