/**
 * Bucketed collections for the immer root.
 *
 * immer copies every object a draft touches, and on finalising it visits every child of each copied
 * object, so one flat map of n records makes each write O(n), and even two levels stay O(√n). A table
 * nests records three levels deep by bits of the id (64 × 64 × 64 per top-level key), so a write copies
 * and visits about 200 slots whatever the size. Plain objects keep the state JSON-serialisable as it
 * is, and integer keys iterate in ascending order, which gives id order for free.
 */
const BITS = 6;
const MASK = (1 << BITS) - 1;

/**
 * A bucket: an object without a prototype, which V8 keeps as a hash table from the start. Buckets
 * created as `{}` would each get a hidden class per set of keys they hold (hundreds of thousands in a
 * large world, each string key of an index making its own), and a heap full of those makes every garbage
 * collection, and so every request, slower; immer copies a prototype-less object as one too.
 */
const bucket = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

type Leaf<T> = Record<string, T>;
type Mid<T> = Record<string, Leaf<T>>;

export interface Table<T> {
  size: number;
  buckets: Record<string, Mid<T>>;
}

export function emptyTable<T>(): Table<T> {
  return { size: 0, buckets: bucket() };
}

export function tget<T>(t: Table<T>, id: number): T | undefined {
  return t.buckets[id >> (2 * BITS)]?.[(id >> BITS) & MASK]?.[id];
}

export function tset<T>(t: Table<T>, id: number, rec: T): void {
  const mid = (t.buckets[id >> (2 * BITS)] ??= bucket());
  const leaf = (mid[(id >> BITS) & MASK] ??= bucket());
  if (!(id in leaf)) t.size++;
  leaf[id] = rec;
}

export function tdelete<T>(t: Table<T>, id: number): boolean {
  const top = id >> (2 * BITS);
  const m = (id >> BITS) & MASK;
  const leaf = t.buckets[top]?.[m];
  if (!leaf || !(id in leaf)) return false;
  delete leaf[id];
  t.size--;
  if (isEmpty(leaf)) {
    const mid = t.buckets[top]!;
    delete mid[m];
    if (isEmpty(mid)) delete t.buckets[top];
  }
  return true;
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/**
 * The leaf buckets (up to 64 records each) in ascending id order, with a stable key: for caches that
 * reuse per-bucket work while a bucket keeps its identity (immer copies only changed buckets).
 */
export function* tleaves<T>(t: Table<T>): Generator<[string, Leaf<T>]> {
  for (const top of Object.keys(t.buckets)) {
    const mid = t.buckets[top]!;
    for (const m of Object.keys(mid)) yield [`${top}:${m}`, mid[m]!];
  }
}

/** Every record, in ascending id order. */
export function tvalues<T>(t: Table<T>): T[] {
  const out: T[] = [];
  for (const top of Object.keys(t.buckets)) {
    const mid = t.buckets[top]!;
    for (const m of Object.keys(mid)) {
      const leaf = mid[m]!;
      for (const k of Object.keys(leaf)) out.push(leaf[k]!);
    }
  }
  return out;
}

/**
 * A string-keyed index (username -> id, token digest -> id, ...), laid out like a table by an 18-bit
 * hash of the key, for the same reason.
 */
export interface Index<V = number> {
  buckets: Record<string, Record<string, Record<string, V>>>;
}

export function emptyIndex<V = number>(): Index<V> {
  return { buckets: bucket() };
}

function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & 0x3ffff;
}

export function iget<V>(ix: Index<V>, key: string): V | undefined {
  const h = hashKey(key);
  return ix.buckets[h >> (2 * BITS)]?.[(h >> BITS) & MASK]?.[key];
}

export function iset<V>(ix: Index<V>, key: string, id: V): void {
  const h = hashKey(key);
  const mid = (ix.buckets[h >> (2 * BITS)] ??= bucket());
  (mid[(h >> BITS) & MASK] ??= bucket())[key] = id;
}

export function idelete<V>(ix: Index<V>, key: string): void {
  const h = hashKey(key);
  const top = h >> (2 * BITS);
  const m = (h >> BITS) & MASK;
  const leaf = ix.buckets[top]?.[m];
  if (!leaf || !(key in leaf)) return;
  delete leaf[key];
  if (isEmpty(leaf)) {
    const mid = ix.buckets[top]!;
    delete mid[m];
    if (isEmpty(mid)) delete ix.buckets[top];
  }
}

/**
 * A one-to-many index (a project's members, a group's subgroups, a user's stars): key -> set of ids.
 * Each set is its own small object, so adding to one copies only that set and its path.
 */
export type MultiIndex = Index<Record<string, 1>>;

export function madd(ix: MultiIndex, key: string, id: number): void {
  const set = iget(ix, key);
  if (set) set[id] = 1;
  else {
    const fresh = bucket<1>();
    fresh[id] = 1;
    iset(ix, key, fresh);
  }
}

export function mremove(ix: MultiIndex, key: string, id: number): void {
  const set = iget(ix, key);
  if (!set || !(id in set)) return;
  delete set[id];
  if (isEmpty(set)) idelete(ix, key);
}

/** The ids under a key, ascending. */
export function mget(ix: MultiIndex, key: string): number[] {
  const set = iget(ix, key);
  return set ? Object.keys(set).map(Number) : [];
}
