/**
 * Renderings kept across requests within a byte budget, least recently used dropped first. A rendering
 * pays while clients ask for it again; a client walking a large world once would otherwise leave every
 * record's JSON behind (about 7 KB a project, 700 MB at 100,000), and the collector would trace it on
 * every major pause. Entries are linked in place (no map lookup on a hit) and say themselves what
 * dropping them means (forgetting every reference a renderer keeps to them).
 *
 * Each instance has its budget (`fx.renderings`). Renderings are kept by record identity, and two
 * instances may hold the same records (a snapshot restored into another): an entry belongs to the budget
 * that admitted it, and another instance may serve it (it is valid for the same record and tables) but
 * neither moves nor drops it.
 */

import { keptBytes } from './respond.js';

/**
 * How often keys were asked for lately (TinyLFU's sketch, one counter per hashed key, halved as time goes
 * on). A cache that is full admits a newcomer only when it was asked for more often than what it would
 * drop: under reads spread evenly over a world larger than the budget, nothing then enters and leaves
 * the cache on every request. Such churn costs more than the few hits it buys: each dropped rendering is
 * old-generation garbage, and the major collections it brings stall every request behind them.
 */
export class FrequencySketch {
  #counts: Uint8Array;
  #bits: number;
  readonly #maxBits: number;
  /**
   * Asks since the counts were last halved. The table grows before its first halving (at as many asks as
   * it has counters, against eight times as many), so while it grows this is every ask since it was made.
   */
  #added = 0;

  /**
   * Counters for up to `2 ** maxBits` hashed keys. The table starts at 256 counters and doubles whenever
   * it has been asked as many times as it has counters: an instance that serves a few requests (a test's)
   * holds a few hundred bytes rather than the full table (128 KB at 17 bits, two per instance).
   */
  constructor(maxBits = 17) {
    this.#maxBits = maxBits;
    this.#bits = Math.min(8, maxBits);
    this.#counts = new Uint8Array(1 << this.#bits);
  }

  /** Bytes the counters take now. */
  get bytes(): number {
    return this.#counts.length;
  }

  #slot(h: number): number {
    return Math.imul(h, 0x9e3779b1) >>> (32 - this.#bits);
  }

  /** Counts one more ask for hashed key `h`. */
  record(h: number): void {
    const i = this.#slot(h);
    if (this.#counts[i]! < 255) this.#counts[i]!++;
    ++this.#added;
    if (this.#bits < this.#maxBits) {
      if (this.#added >= 1 << this.#bits) this.#grow();
    } else if (this.#added >= 8 << this.#bits) this.#age();
  }

  /** Asks counted lately for hashed key `h` (collisions may add some). */
  frequency(h: number): number {
    return this.#counts[this.#slot(h)]!;
  }

  /**
   * Doubles the counters. A key's slot is the top bits of its mixed hash, so its new slot's top bits are
   * its old slot: each new counter starts at the old one's count, which every key it holds was counted
   * in, and no key is counted less than before.
   */
  #grow(): void {
    const old = this.#counts;
    const next = new Uint8Array(old.length * 2);
    for (let j = 0; j < next.length; j++) next[j] = old[j >>> 1]!;
    this.#counts = next;
    this.#bits++;
  }

  /** Halves every count: what was asked for long ago weighs less than what is asked for now. */
  #age(): void {
    this.#added = 0;
    const c = this.#counts;
    for (let i = 0; i < c.length; i++) c[i]! >>>= 1;
  }
}

/** A 32-bit hash of a string (FNV-1a over its UTF-16 units). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/** What a cache holds: the entry links itself here, and `drop` forgets it wherever it is kept. */
export interface CacheEntry {
  /** A number that names what it renders (a record's id), for the admission sketch. */
  readonly hash: number;
  /** Bytes it is charged (an estimate of what dropping it frees). */
  held: number;
  older: CacheEntry | null;
  newer: CacheEntry | null;
  /** Whether it is in a cache now. */
  cached: boolean;
  /** The cache it is in (null when in none). */
  owner: RenderCache | null;
  drop(): void;
}

/** Default budget of the project renderings: about 10,000 projects' JSON (single and list). */
export const DEFAULT_RENDER_CACHE_BYTES = 64 * 1024 * 1024;

export class RenderCache {
  #limit: number;
  #bytes = 0;
  #count = 0;
  /** Most recently used. */
  #newest: CacheEntry | null = null;
  #oldest: CacheEntry | null = null;

  constructor(limit = DEFAULT_RENDER_CACHE_BYTES) {
    this.#limit = checked(limit);
  }

  /** The budget in bytes; lowering it drops the oldest entries at once. */
  get limit(): number {
    return this.#limit;
  }
  set limit(bytes: number) {
    this.#limit = checked(bytes);
    this.#evict(null);
  }

  /** Bytes charged now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Entries kept now. */
  get size(): number {
    return this.#count;
  }

  readonly #sketch = new FrequencySketch();

  /**
   * Keeps `e`, charged `held` bytes, as the newest, older entries making room, unless the cache is full
   * and `e` was asked for no more often lately than the oldest entry: then it is not kept (false). An
   * entry another budget holds is not taken (false); `counted`: this ask was counted already (`ask`).
   */
  add(e: CacheEntry, held: number, counted = false): boolean {
    if (e.owner === this) this.#unlink(e);
    else if (e.owner !== null) return false;
    if (!counted) this.#sketch.record(e.hash);
    const oldest = this.#oldest;
    if (
      this.#bytes + held > this.#limit &&
      oldest !== null &&
      this.#sketch.frequency(e.hash) <= this.#sketch.frequency(oldest.hash)
    )
      return false;
    e.held = held;
    e.cached = true;
    e.owner = this;
    this.#count++;
    this.#bytes += held;
    this.#linkNewest(e);
    this.#evict(e);
    return true;
  }

  /** Counts an ask for what hashes to `hash` (not kept yet) and says how often it was asked lately. */
  ask(hash: number): number {
    this.#sketch.record(hash);
    return this.#sketch.frequency(hash);
  }

  /** Marks `e` as just used. */
  touch(e: CacheEntry): void {
    this.#sketch.record(e.hash);
    if (e.owner !== this || this.#newest === e) return;
    this.#unlinkOnly(e);
    this.#linkNewest(e);
  }

  /** Charges `e` `delta` more bytes (what it keeps grew or shrank); older entries make room. */
  charge(e: CacheEntry, delta: number): void {
    if (e.owner !== this) {
      // Grown while another instance served it: the budget that holds it pays.
      e.owner?.charge(e, delta);
      return;
    }
    e.held += delta;
    this.#bytes += delta;
    this.#evict(e);
  }

  /** Drops every entry. */
  clear(): void {
    while (this.#oldest) this.#dropOldest();
  }

  #linkNewest(e: CacheEntry): void {
    e.newer = null;
    e.older = this.#newest;
    if (this.#newest) this.#newest.newer = e;
    this.#newest = e;
    this.#oldest ??= e;
  }

  #unlinkOnly(e: CacheEntry): void {
    if (e.older) e.older.newer = e.newer;
    else this.#oldest = e.newer;
    if (e.newer) e.newer.older = e.older;
    else this.#newest = e.older;
    e.older = e.newer = null;
  }

  #unlink(e: CacheEntry): void {
    this.#unlinkOnly(e);
    e.cached = false;
    e.owner = null;
    this.#count--;
    this.#bytes -= e.held;
  }

  #dropOldest(): void {
    const e = this.#oldest!;
    this.#unlink(e);
    e.drop();
  }

  /** Drops the oldest entries until the budget holds; `keep` (the one being used) goes last. */
  #evict(keep: CacheEntry | null): void {
    while (this.#bytes > this.#limit && this.#oldest && this.#oldest !== keep) this.#dropOldest();
  }
}

function checked(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0)
    throw new RangeError('renderCache bytes must be an integer >= 0');
  return bytes;
}

/** One rendering of a record: the view it is for, what it was made from, its JSON (a string or its UTF-8 bytes). */
interface KeptView {
  readonly key: string;
  readonly deps: readonly unknown[];
  readonly json: string | Buffer<ArrayBuffer>;
  /** Bytes charged for it beyond VIEW_OVERHEAD. */
  readonly size: number;
}

/** Bytes a kept view costs beyond its JSON (the object, its array slot, the key and deps). */
const VIEW_OVERHEAD = 160;
/** Bytes a kept record entry costs beyond its views. */
const ENTRY_OVERHEAD = 120;
/** Views kept per record: a record read by more viewers or options than this starts over. */
const VIEWS_PER_RECORD = 4;

class KeptRecord<R extends object> implements CacheEntry {
  held = 0;
  older: CacheEntry | null = null;
  newer: CacheEntry | null = null;
  cached = false;
  owner: RenderCache | null = null;
  views: KeptView[] = [];

  constructor(
    readonly map: WeakMap<R, KeptRecord<R>>,
    readonly record: R,
    readonly hash: number,
  ) {}

  drop(): void {
    if (this.map.get(this.record) === this) this.map.delete(this.record);
    this.views = [];
  }
}

const sameDeps = (a: readonly unknown[], b: readonly unknown[]): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * `s` as one run of characters. A string built by concatenation is a tree of its pieces (a user's JSON of
 * 1 KB: about 7 KB in 60 pieces); a response cache keeping it would keep them all, and every write of it
 * walks them. Finding its UTF-8 length flattens a string in place, and cannot be optimised away.
 */
function flat(s: string): string {
  Buffer.byteLength(s, 'utf8');
  return s;
}

/**
 * A view of `s` to keep: its bytes, or the string itself made flat (a string built by concatenation is a
 * tree of its pieces, and kept as such it would hold every piece and be flattened on every write).
 */
function keptView(
  key: string,
  deps: readonly unknown[],
  s: string,
  asString: boolean,
  // `byteLength` flattens the string in place: what is kept is one run of characters.
  byteLength = Buffer.byteLength(s, 'utf8'),
): KeptView {
  return { key, deps, json: asString ? s : keptBytes(s, byteLength), size: byteLength + key.length * 2 };
}

/**
 * The renderings of one kind of record (users, groups, issues, ...) in one instance's budget: an entity's
 * JSON per record and view, kept while the record (immer keeps unchanged records identical) and whatever
 * else the view was made from (`deps`: tables, settings, the viewer, compared by identity) stand. Any
 * write that replaces one of them makes the next read build afresh: a kept rendering is never stale.
 */
export class RecordRenderings<R extends { readonly id: number }> {
  readonly #byRecord = new WeakMap<R, KeptRecord<R>>();
  /** Told apart from other kinds' records of the same id in the budget's admission counts. */
  readonly #salt: number;
  readonly #keysByBase = new Map<string, Map<string, string>>();

  constructor(
    readonly cache: RenderCache,
    name: string,
  ) {
    this.#salt = hashString(name);
  }

  /**
   * A table for the view keys a renderer makes for base URL `base` (its own choice of key to key), the
   * same table for every request: a key made once is the same string in every request, which a kept
   * view's key equals by identity, where a key made per request is a new string compared character by
   * character. Bounded: past 64 base URLs (clients name their host) the tables start over.
   */
  keysFor(base: string): Map<string, string> {
    let keys = this.#keysByBase.get(base);
    if (keys === undefined) {
      if (this.#keysByBase.size >= 64) this.#keysByBase.clear();
      this.#keysByBase.set(base, (keys = new Map()));
    }
    return keys;
  }

  /**
   * `record`'s JSON for view `key` as UTF-8 bytes: the kept one when it was made for the same key from
   * the same `deps`, else `build()`'s, kept when the budget admits the record.
   */
  bytes(record: R, key: string, deps: readonly unknown[], build: () => string): Buffer<ArrayBuffer> {
    const json = this.#json(record, key, deps, build, false);
    return typeof json === 'string' ? Buffer.from(json) : json;
  }

  /**
   * `record`'s JSON for view `key` as a response body, a string or bytes: the kept one when it was made
   * for the same key from the same `deps`, else `build()`'s string, kept (as a string) when the budget
   * admits the record; always a flat string (see `flat`). A string body is written with the response's
   * head in one write; bytes are only worth making for what is kept as bytes already.
   */
  json(record: R, key: string, deps: readonly unknown[], build: () => string): string | Buffer<ArrayBuffer> {
    return this.#json(record, key, deps, build, true);
  }

  /** The kept view, or a new one; `asString`: what a new view keeps, the string or its bytes. */
  #json(
    record: R,
    key: string,
    deps: readonly unknown[],
    build: () => string,
    asString: boolean,
  ): string | Buffer<ArrayBuffer> {
    const cache = this.cache;
    let e = this.#byRecord.get(record);
    if (e !== undefined) {
      const views = e.views;
      for (let i = 0; i < views.length; i++) {
        const v = views[i]!;
        if (v.key === key && sameDeps(v.deps, deps)) {
          cache.touch(e);
          return v.json;
        }
      }
    }
    if (e === undefined) {
      const hash = (Math.imul(record.id, 31) + this.#salt) | 0;
      // Kept from the second ask on: a record read once (a client walking the world) costs no more than
      // rendering it, and leaves nothing for the collector to trace.
      if (cache.ask(hash) < 2) return asString ? flat(build()) : build();
      const s = build();
      const byteLength = Buffer.byteLength(s, 'utf8');
      e = new KeptRecord(this.#byRecord, record, hash);
      // Not admitted: this request's rendering only, and nothing keeps it.
      if (!cache.add(e, ENTRY_OVERHEAD + VIEW_OVERHEAD + byteLength + key.length * 2, true)) return s;
      const view = keptView(key, deps, s, asString, byteLength);
      e.views.push(view);
      this.#byRecord.set(record, e);
      return view.json;
    }
    const view = keptView(key, deps, build(), asString);
    const views = e.views;
    let delta = VIEW_OVERHEAD + view.size;
    const i = views.findIndex((v) => v.key === key);
    if (i >= 0) {
      delta -= VIEW_OVERHEAD + views[i]!.size;
      views[i] = view;
    } else if (views.length >= VIEWS_PER_RECORD) {
      for (const v of views) delta -= VIEW_OVERHEAD + v.size;
      e.views = [view];
    } else views.push(view);
    cache.touch(e);
    cache.charge(e, delta);
    return view.json;
  }
}

/**
 * An instance's renderings: one byte budget (`renderCacheBytes`) shared by every kind of record, so that
 * what clients read most stays, whatever its kind.
 */
export class Renderings {
  readonly budget: RenderCache;
  readonly #kinds = new Map<string, RecordRenderings<never>>();

  constructor(limit = DEFAULT_RENDER_CACHE_BYTES) {
    this.budget = new RenderCache(limit);
  }

  /** The renderings of one kind of record (one name per entity family: `user`, `issue`, ...). */
  kind<R extends { readonly id: number }>(name: string): RecordRenderings<R> {
    let k = this.#kinds.get(name) as RecordRenderings<R> | undefined;
    if (!k) {
      k = new RecordRenderings<R>(this.budget, name);
      this.#kinds.set(name, k as unknown as RecordRenderings<never>);
    }
    return k;
  }
}
