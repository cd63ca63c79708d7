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

/** What a cache holds: the entry links itself here, and `drop` forgets it wherever it is kept. */
export interface CacheEntry {
  /** Bytes it is charged (an estimate of what dropping it frees). */
  held: number;
  older: CacheEntry | null;
  newer: CacheEntry | null;
  /** Whether it is in a cache now. */
  cached: boolean;
  drop(): void;
}

/** Default budget of the project renderings: about 20,000 projects' JSON. */
export const DEFAULT_RENDER_CACHE_BYTES = 128 * 1024 * 1024;

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

  /** Keeps `e`, charged `held` bytes, as the newest; older entries make room. */
  add(e: CacheEntry, held: number): void {
    if (e.cached) this.#unlink(e);
    e.held = held;
    e.cached = true;
    this.#count++;
    this.#bytes += held;
    this.#linkNewest(e);
    this.#evict(e);
  }

  /** Marks `e` as just used. */
  touch(e: CacheEntry): void {
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
