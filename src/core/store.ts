import { createHash } from 'node:crypto';
import { produce, type Draft } from 'immer';
import { completeState, type AreaSlice, type PlatformState } from './state.js';

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
    this.#state = produce(this.#state, (draft) => {
      out = fn(draft);
    });
    return out;
  }

  /** Replaces the whole root (restore, reset, scenario load). */
  replace(state: PlatformState): void {
    this.#state = produce(completeState(state, this.#areas), () => {});
  }
}

export const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');
