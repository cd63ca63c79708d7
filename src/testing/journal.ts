/**
 * The request journal: every request an instance answers, with its response, in a fixed-size ring
 * buffer (the oldest entry makes room for the newest, so memory stays flat however long a server runs),
 * whose bodies are bounded by bytes as well (`bodyBytes`: the newest bodies are kept, older entries keep
 * everything else). Recording keeps what the request already has (its URL, its raw headers, its body's
 * text, the bytes its response was made of), references and not copies; decoding, parsing, filtering
 * and cutting happen when an entry is first read. Secrets never leave the journal: credentials in
 * headers, query params and bodies read `[FILTERED]` in every entry, and bodies are capped.
 */
import {
  DEFAULT_BODY_LIMIT,
  HeldResponse,
  PendingEntry,
  rawPathname,
  type Deferred,
  type HeldBody,
  type JournalEntry,
} from './journal-entry.js';
import { compilePath, normalisePath, type PathPattern } from './match.js';

export {
  BODY_NOT_KEPT,
  captureResponse,
  DEFAULT_BODY_LIMIT,
  HeldResponse,
  heldSize,
  holdBody,
  PendingEntry,
  rawPathname,
  responseBodyText,
  type Deferred,
  type HeldBody,
  type JournalEntry,
} from './journal-entry.js';
export {
  FILTERED,
  isSecretKey,
  journalBodyKept,
  journalBodyText,
  journalHeaders,
  journalQuery,
  journalRequestBody,
  redact,
  redactUrl,
  type BodySource,
} from './journal-redact.js';

export interface JournalFilter {
  /** One method or several, case-insensitive. */
  method?: string | readonly string[];
  /** A path pattern (`/api/v4/projects/:id/**`) or RegExp, matched against the normalised path. */
  path?: PathPattern;
  /** A status, several, or a class such as `'4xx'`. */
  status?: number | string | readonly (number | string)[];
  /** Entries after this id (a number), or at or after this instant on the instance clock (ISO time). */
  since?: number | string | Date;
  /** Only the last `limit` matching entries. */
  limit?: number;
}

export interface JournalOptions {
  /** Entries kept (default 1,000); 0 turns the journal off. */
  size?: number;
  /** Characters of each body kept (default 4,096). */
  bodyLimit?: number;
  /**
   * Which response bodies are recorded: `errors` (status 400 and up; the default), `all`, or `none`.
   * Reading back a success body costs more than the rest of the recording (a 60 KB project page is
   * re-read, filtered and rebuilt), and an error body is the one a test usually needs to see.
   */
  responseBodies?: 'errors' | 'all' | 'none';
  /**
   * Bytes of request and response bodies held for entries not read yet (default 8 MiB): past it the
   * oldest entries' bodies are let go (the entry keeps the rest, and says its body was not kept), so
   * that 1,000 pages of 60 KB do not keep 60 MB alive. 0 keeps no body.
   */
  bodyBytes?: number;
}

export const DEFAULT_JOURNAL_SIZE = 1000;
export const DEFAULT_BODY_BYTES = 8 * 1024 * 1024;

/** The status the journal gives a request whose client went away before it was read (nginx's). */
export const CLIENT_CLOSED = 499;

/**
 * Whether a request failed because its client closed the connection mid-request (a Node server's
 * request, destroyed): an everyday event for a server, to journal, not a crash to log.
 */
export function clientClosed(env: unknown): boolean {
  const incoming = (
    env as { incoming?: { aborted?: boolean; errored?: { code?: unknown } | null } } | undefined
  )?.incoming;
  // Not `destroyed`: the body cap destroys the request itself when it stops reading.
  return incoming?.aborted === true || incoming?.errored?.code === 'ECONNRESET';
}

function statusMatcher(status: NonNullable<JournalFilter['status']>): (s: number) => boolean {
  const one = (v: number | string): ((s: number) => boolean) => {
    const str = String(v).toLowerCase();
    if (/^[1-5]xx$/.test(str)) return (s) => Math.floor(s / 100) === Number(str[0]);
    const n = Number(str);
    return (s) => s === n;
  };
  const list = (Array.isArray(status) ? status : [status]) as (number | string)[];
  const tests = list.map(one);
  return (s) => tests.some((t) => t(s));
}

/** Turns a filter into a predicate over entries. */
export function entryFilter(filter: JournalFilter = {}): (e: JournalEntry) => boolean {
  const tests: ((e: JournalEntry) => boolean)[] = [];
  if (filter.method !== undefined) {
    const methods = (Array.isArray(filter.method) ? filter.method : [filter.method]).map((m: string) =>
      m.toUpperCase(),
    );
    tests.push((e) => methods.includes(e.method));
  }
  if (filter.path !== undefined) {
    const re = compilePath(filter.path);
    tests.push((e) => re.test(normalisePath(e.path)));
  }
  if (filter.status !== undefined) {
    const ok = statusMatcher(filter.status);
    tests.push((e) => ok(e.status));
  }
  if (filter.since !== undefined) {
    const since = filter.since;
    if (typeof since === 'number') tests.push((e) => e.id > since);
    else {
      const t = new Date(since).getTime();
      if (Number.isNaN(t)) throw new RangeError(`since: not a time or an entry id: ${String(since)}`);
      tests.push((e) => Date.parse(e.at) >= t);
    }
  }
  return (e) => tests.every((t) => t(e));
}

/** What the CLI's line per request shows of an entry, read without making the entry. */
export interface EntrySummary {
  readonly id: number;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly user: string | null;
}

type Slot = JournalEntry | [number, Deferred] | undefined;

/**
 * A ring buffer of journal entries: `add` is O(1) and the oldest entry is dropped at capacity. The
 * bodies of entries not read yet are bounded by bytes (`bodyBytes`): past the bound the oldest entries'
 * bodies are let go, each once (a cursor moves over them), so that bound costs O(1) a request too.
 */
export class Journal {
  readonly capacity: number;
  readonly bodyLimit: number;
  readonly bodyBytes: number;
  readonly responseBodies: 'errors' | 'all' | 'none';
  /** Entries, or deferred ones with their id (made into entries on first read); entry `id` at `(id - 1) % capacity`. */
  #ring: Slot[];
  #count = 0;
  #seq = 0;
  /** Bytes the deferred entries' bodies hold. */
  #held = 0;
  /** The oldest id whose bodies may still be held (the byte bound lets go from there). */
  #cursor = 1;
  /** Deferred entries made into entries by a read (`bodiesRead`: how many held a body). */
  #made = 0;

  constructor(options: JournalOptions = {}) {
    const size = options.size ?? DEFAULT_JOURNAL_SIZE;
    const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const bytes = options.bodyBytes ?? DEFAULT_BODY_BYTES;
    if (!Number.isInteger(size) || size < 0) throw new RangeError('journal size must be an integer >= 0');
    if (!Number.isInteger(limit) || limit < 0)
      throw new RangeError('journal bodyLimit must be an integer >= 0');
    if (!Number.isInteger(bytes) || bytes < 0)
      throw new RangeError('journal bodyBytes must be an integer >= 0');
    this.capacity = size;
    this.bodyLimit = limit;
    this.bodyBytes = bytes;
    this.responseBodies = options.responseBodies ?? 'errors';
    this.#ring = new Array<Slot>(size);
  }

  /** Whether the body of a response with this status is recorded. */
  recordsBody(status: number): boolean {
    return this.responseBodies === 'all' || (this.responseBodies === 'errors' && status >= 400);
  }

  get enabled(): boolean {
    return this.capacity > 0;
  }

  /** Entries currently held (at most `capacity`). */
  get size(): number {
    return this.#count;
  }

  /** The id of the newest entry (0 before the first, and after `reset`). */
  get lastId(): number {
    return this.#seq;
  }

  /** Bytes of bodies held for entries not read yet (at most `bodyBytes`). */
  get heldBytes(): number {
    return this.#held;
  }

  /** Entries that held a body and were made by a read: what decoding and filtering bodies cost is paid here. */
  get bodiesRead(): number {
    return this.#made;
  }

  /**
   * The bodies entry `id` holds until it is read, as they were handed over (the same objects, not
   * copies); undefined once read, let go or gone. For tests of the journal's own costs.
   */
  held(id: number): { request?: string; response?: HeldBody } | undefined {
    const slot = this.#slotOf(id);
    if (!Array.isArray(slot)) return undefined;
    const d = slot[1];
    if (d instanceof PendingEntry) return { request: d.requestBody?.text, response: d.responseBody };
    if (d instanceof HeldResponse) return { response: d.body };
    return undefined;
  }

  /** Stores an entry, giving it the next id. */
  add(entry: Omit<JournalEntry, 'id'>): JournalEntry {
    const e = Object.freeze({ id: ++this.#seq, ...entry }) as JournalEntry;
    this.#put(e);
    return e;
  }

  /** Stores a deferred entry, giving it the next id; it becomes an entry when the journal is read. */
  addPending(p: Deferred): void {
    const id = ++this.#seq;
    this.#put([id, p]);
  }

  #slotOf(id: number): Slot {
    if (this.capacity === 0 || id < 1 || id > this.#seq || id <= this.#seq - this.#count) return undefined;
    return this.#ring[(id - 1) % this.capacity];
  }

  #put(slot: JournalEntry | [number, Deferred]): void {
    if (this.capacity === 0) return;
    const at = (this.#seq - 1) % this.capacity;
    const old = this.#ring[at];
    if (Array.isArray(old)) this.#held -= old[1].bytes;
    this.#ring[at] = slot;
    if (this.#count < this.capacity) this.#count++;
    if (!Array.isArray(slot)) return;
    const bytes = slot[1].bytes;
    if (bytes === 0) return;
    this.#held += bytes;
    if (this.#held > this.bodyBytes) this.#letGo();
  }

  /** Lets go of the oldest held bodies until those left are within `bodyBytes` (the newest last). */
  #letGo(): void {
    this.#cursor = Math.max(this.#cursor, this.#seq - this.#count + 1);
    while (this.#held > this.bodyBytes && this.#cursor <= this.#seq) {
      const slot = this.#ring[(this.#cursor - 1) % this.capacity];
      if (Array.isArray(slot)) {
        this.#held -= slot[1].bytes;
        slot[1].drop();
      }
      this.#cursor++;
    }
  }

  /** Matching entries, oldest first. */
  list(filter?: JournalFilter): JournalEntry[] {
    const ok = entryFilter(filter);
    const out: JournalEntry[] = [];
    for (let id = this.#seq - this.#count + 1; id <= this.#seq; id++) {
      const at = (id - 1) % this.capacity;
      let e = this.#ring[at]!;
      if (Array.isArray(e)) {
        const bytes = e[1].bytes;
        this.#ring[at] = e = e[1].entry(e[0]);
        this.#held -= bytes;
        if (bytes > 0) this.#made++;
      }
      if (ok(e)) out.push(e);
    }
    const limit = filter?.limit;
    return limit !== undefined && limit >= 0 && out.length > limit ? out.slice(out.length - limit) : out;
  }

  /**
   * Method, path, status, time and user of the entries after `since`, oldest first, without making the
   * entries (the CLI's line per request: reading the journal for it would make every entry at once).
   */
  summaries(since: number): EntrySummary[] {
    const out: EntrySummary[] = [];
    for (let id = Math.max(since + 1, this.#seq - this.#count + 1); id <= this.#seq; id++) {
      const slot = this.#ring[(id - 1) % this.capacity];
      if (!Array.isArray(slot)) {
        if (slot) out.push(slot);
        continue;
      }
      const d = slot[1];
      if (d instanceof PendingEntry) {
        // A replay's URL is the first line of its key.
        const nl = d.requestHeaders === undefined ? d.url.indexOf('\n') : -1;
        const url = nl < 0 ? d.url : d.url.slice(0, nl);
        out.push({
          id,
          method: d.method,
          path: rawPathname(url),
          status: d.status,
          durationMs: d.durationMs,
          user: d.user,
        });
      } else if (d instanceof HeldResponse) out.push({ id, ...d.base });
      else out.push(d.entry(id));
    }
    return out;
  }

  clear(): void {
    this.#ring.fill(undefined);
    this.#count = 0;
    this.#held = 0;
  }

  /** Forgets everything, ids included (an instance reset). */
  reset(): void {
    this.clear();
    this.#seq = 0;
    this.#cursor = 1;
  }
}

/**
 * `instance.requests`: the journal as a function. `fx.requests()` lists every entry, oldest first;
 * `fx.requests({ method: 'POST', path: '/api/v4/users' })` the matching ones.
 */
export interface RequestLog {
  (filter?: JournalFilter): JournalEntry[];
  /** Forgets every entry (ids keep counting). */
  clear(): void;
  /** The most recent matching entry. */
  last(filter?: JournalFilter): JournalEntry | undefined;
  /** Entries held now. */
  readonly size: number;
  /** Entries kept at most. */
  readonly capacity: number;
  /** The id of the newest entry (0 before the first). */
  readonly lastId: number;
  /** Method, path, status, time and user of the entries after id `since`, without making them. */
  summaries(since: number): EntrySummary[];
}

export function requestLog(journal: Journal): RequestLog {
  const log = ((filter?: JournalFilter) => journal.list(filter)) as RequestLog;
  Object.defineProperties(log, {
    clear: { value: () => journal.clear() },
    last: { value: (filter?: JournalFilter) => journal.list({ ...filter, limit: 1 })[0] },
    size: { get: () => journal.size },
    capacity: { value: journal.capacity },
    lastId: { get: () => journal.lastId },
    summaries: { value: (since: number) => journal.summaries(since) },
  });
  return log;
}
