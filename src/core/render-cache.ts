/**
 * Renderings kept across requests within a byte budget, least recently used dropped first. A rendering
 * pays while clients ask for it again; a client walking a large world once would otherwise leave every
 * record's JSON behind (about 7 KB a project, 700 MB at 100,000), and the collector would trace it on
 * every major pause. Entries are linked in place (no map lookup on a hit) and say themselves what
 * dropping them means (forgetting every reference a renderer keeps to them).
 *
 * Process-wide, as the renderings are: they are kept by record identity, which every instance of the
 * process shares through the route table.
 */

/**
 * How often keys were asked for lately (TinyLFU's sketch, one counter per hashed key, halved as time goes
 * on). A cache that is full admits a newcomer only when it was asked for more often than what it would
 * drop: under reads spread evenly over a world larger than the budget, nothing then enters and leaves
 * the cache on every request. Such churn costs more than the few hits it buys: each dropped rendering is
 * old-generation garbage, and the major collections it brings stall every request behind them.
 */
export class FrequencySketch {
  readonly #counts: Uint8Array;
  readonly #shift: number;
  #added = 0;
  readonly #period: number;

  constructor(bits = 17) {
    this.#counts = new Uint8Array(1 << bits);
    this.#shift = 32 - bits;
    this.#period = 8 << bits;
  }

  #slot(h: number): number {
    return Math.imul(h, 0x9e3779b1) >>> this.#shift;
  }

  /** Counts one more ask for hashed key `h`. */
  record(h: number): void {
    const i = this.#slot(h);
    if (this.#counts[i]! < 255) this.#counts[i]!++;
    if (++this.#added >= this.#period) this.#age();
  }

  /** Asks counted lately for hashed key `h` (collisions may add some). */
  frequency(h: number): number {
    return this.#counts[this.#slot(h)]!;
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
   * and `e` was asked for no more often lately than the oldest entry: then it is not kept (false).
   */
  add(e: CacheEntry, held: number): boolean {
    if (e.cached) this.#unlink(e);
    this.#sketch.record(e.hash);
    const oldest = this.#oldest;
    if (
      this.#bytes + held > this.#limit &&
      oldest !== null &&
      this.#sketch.frequency(e.hash) <= this.#sketch.frequency(oldest.hash)
    )
      return false;
    e.held = held;
    e.cached = true;
    this.#count++;
    this.#bytes += held;
    this.#linkNewest(e);
    this.#evict(e);
    return true;
  }

  /** Marks `e` as just used. */
  touch(e: CacheEntry): void {
    this.#sketch.record(e.hash);
    if (!e.cached || this.#newest === e) return;
    this.#unlinkOnly(e);
    this.#linkNewest(e);
  }

  /** Charges `e` `delta` more bytes (what it keeps grew or shrank); older entries make room. */
  charge(e: CacheEntry, delta: number): void {
    if (!e.cached) return;
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

/** The projects' renderings (src/resources/projects/entities.ts). */
export const projectRenderings = new RenderCache();
