/** States saved by an earlier fauxlab: their tables and indexes read into the current layout. */
import { emptyIndex, iset } from './table-index.js';
import { emptyTable, tset } from './table.js';

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
