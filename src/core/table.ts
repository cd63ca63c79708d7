/**
 * Bucketed collections for the immer root.
 *
 * immer copies every object a draft touches, and autoFreeze walks the copy, so one flat map of n records
 * makes each write O(n). A table nests records two levels deep (bucket -> id -> record), so a write copies
 * the small outer map and one bucket only. Plain objects keep the state JSON-serialisable as it is, and
 * integer keys iterate in ascending order, which gives id order for free.
 */
export const BUCKET_BITS = 8;

export interface Table<T> {
  size: number;
  buckets: Record<string, Record<string, T>>;
}

export function emptyTable<T>(): Table<T> {
  return { size: 0, buckets: {} };
}

export function tget<T>(t: Table<T>, id: number): T | undefined {
  return t.buckets[id >> BUCKET_BITS]?.[id];
}

export function tset<T>(t: Table<T>, id: number, rec: T): void {
  const b = id >> BUCKET_BITS;
  let bucket = t.buckets[b];
  if (!bucket) bucket = t.buckets[b] = {};
  if (!(id in bucket)) t.size++;
  bucket[id] = rec;
}

export function tdelete<T>(t: Table<T>, id: number): boolean {
  const b = id >> BUCKET_BITS;
  const bucket = t.buckets[b];
  if (!bucket || !(id in bucket)) return false;
  delete bucket[id];
  t.size--;
  if (Object.keys(bucket).length === 0) delete t.buckets[b];
  return true;
}

/** Every record, in ascending id order. */
export function tvalues<T>(t: Table<T>): T[] {
  const out: T[] = [];
  for (const b of Object.keys(t.buckets)) {
    const bucket = t.buckets[b]!;
    for (const k of Object.keys(bucket)) out.push(bucket[k]!);
  }
  return out;
}

/**
 * A string-keyed index (username -> id, token digest -> id, ...), bucketed by a hash of the key for the
 * same reason as tables.
 */
export interface Index {
  buckets: Record<string, Record<string, number>>;
}

export function emptyIndex(): Index {
  return { buckets: {} };
}

function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & 0x3ff;
}

export function iget(ix: Index, key: string): number | undefined {
  return ix.buckets[hashKey(key)]?.[key];
}

export function iset(ix: Index, key: string, id: number): void {
  const b = hashKey(key);
  (ix.buckets[b] ??= {})[key] = id;
}

export function idelete(ix: Index, key: string): void {
  const b = hashKey(key);
  const bucket = ix.buckets[b];
  if (!bucket) return;
  delete bucket[key];
  if (Object.keys(bucket).length === 0) delete ix.buckets[b];
}
