/**
 * The immer-aware nodes that tables (core/table.ts), indexes (core/table-index.ts) and id sets
 * (core/id-sets.ts) are made of: the trie's slot types and sizes, and the copies and freezes they make
 * in place of immer's own, where immer would make the same ones more slowly.
 */
export const LEAF_BITS = 6;
export const LEAF = 1 << LEAF_BITS;
export const INNER_BITS = 4;
export const INNER = 1 << INNER_BITS;
export const INNER_MASK = INNER - 1;
export const LEAF_MASK = LEAF - 1;

export type Slot<T> = T | null;
export type Inner<N> = Slot<N>[];

export const nulls = <T>(n: number): Slot<T>[] => {
  const a = new Array<Slot<T>>(n);
  for (let i = 0; i < n; i++) a[i] = null;
  return a;
};

/** The key under which immer keeps a draft's state (immer's `DRAFT_STATE`). */
export const DRAFT_STATE = Symbol.for('immer-state');

/** Whether `node` is an immer draft. */
export const isDraftNode = (node: object) => (node as { [DRAFT_STATE]?: unknown })[DRAFT_STATE] !== undefined;

/** What immer keeps of a draft: the fields its `prepareCopy` sets. */
export interface CopyState {
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
export function primed<N>(node: N): N {
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

/** Whether every slot of `a` but `k` is empty: the node can go once `k` goes. */
export function allNullBut(a: readonly unknown[], k: number): boolean {
  for (let i = 0; i < a.length; i++) if (i !== k && a[i] !== null) return false;
  return true;
}
