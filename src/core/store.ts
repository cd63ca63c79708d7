import { createHash } from 'node:crypto';
import { Immer, produce, type Draft } from 'immer';
import { completeState, type AreaSlice, type PlatformState } from './state.js';
import { directTop, freezeNew, sealDirect } from './table.js';

/**
 * immer's own deep freeze of a write's result asks `Object.isFrozen` of every child of every copied
 * object, and for a frozen bucket (a dictionary-mode object) V8 answers that by visiting each of its
 * keys: at 100k records that was most of a write. Writes therefore commit unfrozen and `freezeNew`
 * freezes what they made, telling new from old by extensibility, which is one check whatever the size.
 */
const writer = new Immer({ autoFreeze: false });

/** What immer keeps of a draft (its internal state): the fields `freezeWritten` reads. */
interface DraftState {
  type_: number;
  modified_: boolean;
  copy_: Record<string | number, unknown> | null;
  assigned_?: Map<string | number, boolean>;
  /** Set by immer's array-methods plugin when a method (`sort`, `reverse`) moved every item. */
  allIndicesReassigned_?: boolean;
}

/** The key under which immer keeps a draft's state (immer's `DRAFT_STATE`). */
const DRAFT_STATE = Symbol.for('immer-state');
/** immer's type tag of a draft of an array. */
const ARRAY_DRAFT = 1;

/**
 * The states of the drafts a write made so far (read at the end of its recipe, before immer revokes
 * them), or undefined when immer does not keep them as this expects.
 */
function draftStates(draft: object): DraftState[] | undefined {
  const scope = (draft as { [DRAFT_STATE]?: { scope_?: { drafts_?: unknown } } })[DRAFT_STATE]?.scope_;
  const drafts = scope?.drafts_;
  if (!Array.isArray(drafts)) return undefined;
  const out: DraftState[] = [];
  for (const d of drafts as { [DRAFT_STATE]?: DraftState }[]) {
    const st = d[DRAFT_STATE];
    if (!st || typeof st.modified_ !== 'boolean') return undefined;
    out.push(st);
    // A table whose path this write copied without immer: frozen now, so that immer's look for drafts in
    // what was assigned stops at its top (see `tsetDirect`).
    if (st.type_ !== ARRAY_DRAFT && st.assigned_?.get('buckets') === true) {
      const top = directTop(d);
      if (top) sealDirect(top);
    }
  }
  return out;
}

/**
 * Freezes what a write made, from the drafts it modified: each such draft's copy is an object of the new
 * state, which is frozen without visiting its keys (a table's arrays hold 16 or 64 slots, and a write
 * copies a few of them per table it touches), and only the values assigned into it (new records, replaced
 * fields, new table nodes) are walked, by `freezeNew`. Everything else reachable is an old, frozen object.
 */
function freezeWritten(states: readonly DraftState[]): void {
  for (const st of states) {
    const copy = st.copy_;
    if (!st.modified_ || copy === null || !Object.isExtensible(copy)) continue;
    Object.freeze(copy);
    if (st.type_ === ARRAY_DRAFT && (st.allIndicesReassigned_ === true || !st.assigned_)) {
      const items = copy as unknown as unknown[];
      for (let i = 0; i < items.length; i++) freezeNew(items[i]);
    } else if (st.assigned_) {
      // Every store into a draft, an array's included, goes through immer's traps, which note the key.
      for (const [k, set] of st.assigned_) if (set) freezeNew(copy[k]);
    }
  }
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
    let states: DraftState[] | undefined;
    const next = writer.produce(this.#state, (draft) => {
      out = fn(draft);
      states = draftStates(draft);
    });
    if (states) freezeWritten(states);
    // Where immer keeps its drafts otherwise: the new state walked by extensibility, as before.
    this.#state = freezeNew(next);
    return out;
  }

  /** Replaces the whole root (restore, reset, scenario load). */
  replace(state: PlatformState): void {
    this.#state = produce(completeState(state, this.#areas), () => {});
  }
}

export const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');
