/**
 * Answers to repeated GETs, kept while the world they were computed from stands. A GET's answer is a
 * function of the request (URL and headers), the state and, when it read it, the clock: instance
 * options are fixed and faults bypass it. The state is one immutable immer root, so "the world has not
 * changed" is one identity check; any write, reset or restore starts the memo over. An answer that read
 * the clock is replayed only at the same instant, so a frozen clock keeps it and a running one does not.
 *
 * Only answers the instance holds as bytes are kept (`jsonResponse`, `jsonChunks`): errors, streams and
 * responses with `Headers` are computed each time.
 */

import { FrequencySketch, hashString } from './render-cache.js';

export interface MemoOptions {
  /** Answers kept (default 200,000); when full, the oldest eighth makes room. */
  entries?: number;
  /**
   * Characters of keys and bytes of bodies kept (default 128 MiB). Bodies held as bytes or pieces count
   * too: a body may be a rendering that the renderings' own budget has dropped since, and then the
   * answer kept here is all that holds it.
   */
  bytes?: number;
}

/** A kept answer: what is sent, and what the journal says of it. */
export interface Kept {
  /** The key it is kept under (the request as one string, see `ResponseMemo.key`). */
  readonly key: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body, whole or in pieces (as `jsonChunks` has it). */
  readonly body: string | Uint8Array<ArrayBuffer> | readonly Uint8Array<ArrayBuffer>[];
  readonly size: number;
  readonly route: string | null;
  readonly user: string | null;
  readonly sudoFrom: string | undefined;
  readonly explain: string | undefined;
  /** The instant the answer was computed at, when it read the clock. */
  readonly clockMs: number | undefined;
}

export const DEFAULT_MEMO_ENTRIES = 200_000;
/**
 * Enough for every page of a 100,000-user world read at random (5,000 pages of 20 users as an admin
 * sees them, 19 KB each: 96 MB). At 48 MiB half of them fit, and reads spread evenly over the rest were
 * computed: 10-11k pages a second over HTTP against 16-18k with all of them kept. Held only while no
 * write happens, and only as far as clients ask for that many distinct answers.
 */
export const DEFAULT_MEMO_BYTES = 128 * 1024 * 1024;

/**
 * What an answer holds: its key and its body (a list's pieces counted whole, though records share them).
 * The entries bound covers what each answer holds besides.
 */
const heldBy = (key: string, kept: Kept) => key.length + kept.size;

export class ResponseMemo {
  readonly #entries: number;
  readonly #bytes: number;
  #map = new Map<string, Kept>();
  #size = 0;
  #root: unknown;

  constructor(options: MemoOptions = {}) {
    this.#entries = options.entries ?? DEFAULT_MEMO_ENTRIES;
    this.#bytes = options.bytes ?? DEFAULT_MEMO_BYTES;
    for (const [k, v] of [
      ['entries', this.#entries],
      ['bytes', this.#bytes],
    ] as const)
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`responseCache ${k} must be an integer >= 1`);
  }

  /**
   * The key of a request: its URL, then each header's name and value as sent (a Node server's raw list,
   * else the `Headers`), one per line (neither can hold a line break), so that anything a route may read
   * of the request is part of it, and the request can be read back from it.
   */
  key(request: Request, rawHeaders: readonly string[] | undefined): string {
    let k = request.url;
    if (rawHeaders) for (let i = 0; i < rawHeaders.length; i++) k += '\n' + rawHeaders[i];
    else for (const [name, value] of request.headers) k += '\n' + name + '\n' + value;
    return k;
  }

  /** The request a key was made from: its URL and its headers' names and values, in turn. */
  static request(key: string): { url: string; headers: string[] } {
    const lines = key.split('\n');
    return { url: lines[0]!, headers: lines.slice(1) };
  }

  /** How often each request was asked for lately (every `get` counts one). */
  readonly #sketch = new FrequencySketch();
  #lastKey: string | undefined;
  #lastHash = 0;

  #hash(key: string): number {
    if (key !== this.#lastKey) {
      this.#lastKey = key;
      this.#lastHash = hashString(key);
    }
    return this.#lastHash;
  }

  /**
   * Whether an answer of `size` under `key` is worth keeping: always while there is room; when full, only
   * if it was asked for more often lately than the answer it would drop. Requests that are each new (a
   * header that changes every time) then pass through instead of pushing out what is asked again.
   */
  admits(key: string, size: number): boolean {
    if (this.#map.size < this.#entries && this.#size + key.length + size <= this.#bytes) return true;
    const oldest = this.#map.keys().next();
    if (oldest.done) return true;
    // The oldest answer stays the oldest until it is dropped: its key is hashed once, not on every ask.
    if (oldest.value !== this.#oldestKey) {
      this.#oldestKey = oldest.value;
      this.#oldestHash = hashString(oldest.value);
    }
    return this.#sketch.frequency(this.#hash(key)) > this.#sketch.frequency(this.#oldestHash);
  }

  #oldestKey: string | undefined;
  #oldestHash = 0;

  /** The answer kept for `key`, if it was computed from `root` and still holds at `nowMs`. */
  get(key: string, root: unknown, nowMs: () => number): Kept | undefined {
    this.#sketch.record(this.#hash(key));
    if (root !== this.#root) {
      this.#restart(root);
      return undefined;
    }
    const kept = this.#map.get(key);
    if (kept === undefined) return undefined;
    return kept.clockMs === undefined || kept.clockMs === nowMs() ? kept : undefined;
  }

  /** Keeps an answer computed from `root` (callers make sure the request wrote nothing). */
  set(key: string, root: unknown, kept: Kept): void {
    if (root !== this.#root) this.#restart(root);
    const held = heldBy(key, kept);
    if (held > this.#bytes) return;
    const old = this.#map.get(key);
    if (old) {
      this.#size -= heldBy(key, old);
      this.#map.delete(key);
    }
    if (this.#map.size >= this.#entries || this.#size + held > this.#bytes) this.#evict(held);
    this.#map.set(key, kept);
    this.#size += held;
  }

  /**
   * Drops the oldest answers: an eighth of the entries at least (a little at a time, so that no request
   * waits long on it), and until `room` more bytes fit.
   */
  #evict(room: number): void {
    const keepEntries = Math.floor((this.#entries * 7) / 8);
    const keepBytes = this.#bytes - room;
    for (const [k, v] of this.#map) {
      if (this.#map.size <= keepEntries && this.#size <= keepBytes) break;
      this.#map.delete(k);
      this.#size -= heldBy(k, v);
    }
  }

  /** Answers kept now. */
  get size(): number {
    return this.#map.size;
  }

  #restart(root: unknown): void {
    this.#map = new Map();
    this.#size = 0;
    this.#root = root;
  }
}
