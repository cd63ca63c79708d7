/** Sets of ids under string keys (core/table-index.ts), copied a chunk at a time. */
import { DRAFT_STATE, INNER, INNER_MASK, isDraftNode, nulls } from './draft-nodes.js';
import { find, hashKey, idelete, iget, iset, type Index } from './table-index.js';

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
