import { createHash } from 'node:crypto';
import { Immer, produce, type Draft } from 'immer';
import { completeState, type AreaSlice, type PlatformState } from './state.js';

/**
 * immer's own deep freeze of a write's result asks `Object.isFrozen` of every child of every copied
 * object, and for a frozen bucket (a dictionary-mode object) V8 answers that by visiting each of its
 * keys: at 100k records that was most of a write. Writes therefore commit unfrozen and `freezeNew`
 * freezes what they made, telling new from old by extensibility, which is one check whatever the size.
 */
const writer = new Immer({ autoFreeze: false });

/**
 * Freezes `value` and everything reachable from it that is not frozen yet. Everything already in a
 * committed state is frozen (deeply), so a non-extensible object is taken as frozen with all it holds,
 * as immer's deep freeze takes an `isFrozen` one.
 */
export function freezeNew<T>(value: T): T {
  if (typeof value !== 'object' || value === null || !Object.isExtensible(value)) return value;
  Object.freeze(value);
  // A key loop: `Object.values` of a dictionary-mode object costs several times more.
  const o = value as Record<string, unknown>;
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'object' && v !== null && Object.isExtensible(v)) freezeNew(v);
  }
  return value;
}

/**
 * Holds the immer root of one instance. Every write is one `produce`: a write that throws leaves the
 * state exactly as it was, and unchanged records keep their identity (which makes them cacheable).
 */
export class Store {
  #state: PlatformState;
  /** The areas whose slices a replaced root must have (an older saved state may lack some). */
  readonly #areas: readonly AreaSlice[];

  constructor(initial: PlatformState, areas: readonly AreaSlice[] = []) {
    this.#areas = areas;
    this.#state = produce(initial, () => {});
  }

  get state(): PlatformState {
    return this.#state;
  }

  /** Runs `fn` on a draft and commits the result atomically; returns what `fn` returned. */
  write<R>(fn: (draft: Draft<PlatformState>) => R): R {
    let out!: R;
    this.#state = freezeNew(
      writer.produce(this.#state, (draft) => {
        out = fn(draft);
      }),
    );
    return out;
  }

  /** Replaces the whole root (restore, reset, scenario load). */
  replace(state: PlatformState): void {
    this.#state = produce(completeState(state, this.#areas), () => {});
  }
}

export const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');
