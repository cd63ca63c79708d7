/**
 * The request journal: every request an instance answers, with its response, in a fixed-size ring
 * buffer (the oldest entry makes room for the newest, so memory stays flat however long a server runs).
 * Secrets are never stored: credentials in headers, query params and bodies are replaced by
 * `[FILTERED]` before anything is kept, and bodies are capped.
 */
import { knownBody } from '../core/fetch.js';
import { ResponseMemo } from '../core/memo.js';
import { dict } from '../core/own.js';
import { checkMultipartParts, parseQuery } from '../core/params.js';
import { compilePath, normalisePath, type PathPattern } from './match.js';

export interface JournalEntry {
  /** Sequence number within the instance, from 1; `clear()` does not restart it. */
  readonly id: number;
  /** When the request arrived, on the instance clock. */
  readonly at: string;
  readonly method: string;
  /** The path as sent, still percent-encoded, without the query string. */
  readonly path: string;
  /** Query params (Rack nesting: `labels[]=a` gives `{ labels: ['a'] }`), secrets filtered. */
  readonly query: Readonly<Record<string, unknown>>;
  /** Request headers (lower-case names), credentials filtered. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The request body: parsed for JSON, form and multipart bodies (files as `{ file, type, size }`),
   * otherwise text; secrets filtered; `undefined` when there was none. A body over the cap is kept as
   * the first `bodyLimit` characters of its (filtered) JSON or text, and `truncated` names it.
   */
  readonly body?: unknown;
  /** 499 (nginx's code) when the client closed the connection before its request was read. */
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  /** The response body as text, capped like the request body; secret fields filtered. */
  readonly responseBody?: string;
  /** Wall-clock milliseconds from arrival to the response (injected latency included). */
  readonly durationMs: number;
  /** The route that answered, as `GET /api/v4/users/:id`; null when none matched. */
  readonly route: string | null;
  /** The acting user's username (after sudo); null for anonymous or failed authentication. */
  readonly user: string | null;
  /** The token owner's username when sudo switched the user. */
  readonly sudoFrom?: string;
  /** Why a 404 happened (no such route, no such object, hidden from this viewer, tier). */
  readonly explain?: string;
  /** Ids of the injected faults that applied to this request. */
  readonly faults?: readonly number[];
  /** Which bodies were cut at the cap. */
  readonly truncated?: readonly ('body' | 'responseBody')[];
}

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
}

export const DEFAULT_JOURNAL_SIZE = 1000;
export const DEFAULT_BODY_LIMIT = 4096;

export const FILTERED = '[FILTERED]';
const SECRET_HEADERS = new Set(['private-token', 'authorization', 'job-token', 'cookie', 'set-cookie']);

/**
 * Param and field names whose values are credentials: `password`, `current_password`,
 * `password_confirmation`, `secret`, `client_secret`, `token`, `runners_token`, `private_token`...
 * (but not `token_expires_at` or `password_expires_at`).
 */
export const isSecretKey = (key: string) => /(?:^|_)(?:password|secret|token)(?:_confirmation)?$/i.test(key);

/** A copy of a parsed body or query with every secret value replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 32 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  // Keys are the client's: `__proto__` must stay an ordinary key of the copy.
  const out = dict<unknown>();
  // A flag such as `reset_password: true` or an empty value gives nothing away.
  for (const [k, v] of Object.entries(value))
    out[k] =
      isSecretKey(k) && typeof v !== 'boolean' && v !== null && v !== '' ? FILTERED : redact(v, depth + 1);
  return out;
}

/** Whether a JSON text may hold a secret field, so that only those are parsed and filtered. */
const MAY_HOLD_SECRET = /"[^"]*(?:password|secret|token)(?:_confirmation)?"\s*:/i;

/** Caps a text; the second value says whether it was cut. */
function cap(text: string, limit: number): [string, boolean] {
  return text.length > limit ? [text.slice(0, limit), true] : [text, false];
}

/** The filtered query of a URL (Rack nesting); a malformed query is kept as its raw text. */
export function journalQuery(url: string): Record<string, unknown> {
  const q = url.indexOf('?');
  if (q < 0 || q === url.length - 1) return {};
  const hash = url.indexOf('#', q);
  const qs = url.slice(q + 1, hash < 0 ? undefined : hash);
  try {
    return redact(parseQuery(qs)) as Record<string, unknown>;
  } catch {
    // Too many params, or a malformed escape: kept as text (its start), each secret value filtered.
    return { '?': redactPairs(qs.length > RAW_QUERY_KEPT ? qs.slice(0, RAW_QUERY_KEPT) : qs, isSecretKey) };
  }
}

/** Characters of a query that cannot be parsed kept in the journal. */
const RAW_QUERY_KEPT = 4096;

/**
 * A pair's name as the platform would read it: percent-decoded, escape by escape, so that a malformed
 * escape elsewhere (`%zz`) does not hide `private%5Ftoken`.
 */
function pairName(raw: string): string {
  return raw.replace(/\+/g, ' ').replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** `a=1&b=2` text with the value of each pair whose (decoded) name is secret replaced, pair by pair. */
function redactPairs(qs: string, secret: (name: string) => boolean): string {
  return qs
    .split(/([&;])/)
    .map((pair) => {
      const eq = pair.indexOf('=');
      // `user[password]=...`: any key of a nested name.
      return eq >= 0 &&
        pairName(pair.slice(0, eq))
          .split(/[[\]]+/)
          .some((k) => k !== '' && secret(k))
        ? `${pair.slice(0, eq)}=${FILTERED}`
        : pair;
    })
    .join('');
}

/** Names that carry a credential in a URL: the secret keys, and OAuth's authorization `code`. */
const isSecretUrlParam = (name: string) => isSecretKey(name) || name.toLowerCase() === 'code';

/**
 * A URL with the credentials of its query and its fragment filtered: an OAuth redirect's
 * `#access_token=...`, `?code=...`, `id_token`, `refresh_token`.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const q = url.indexOf('?');
  const end = hash < 0 ? url.length : hash;
  let out = url.slice(0, q >= 0 && q < end ? q : end);
  if (q >= 0 && q < end) out += `?${redactPairs(url.slice(q + 1, end), isSecretUrlParam)}`;
  if (hash >= 0) out += `#${redactPairs(url.slice(hash + 1), isSecretUrlParam)}`;
  return out;
}

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

/** Headers whose value is a URL that may carry credentials. */
const URL_HEADERS = new Set(['location', 'content-location', 'referer']);

/**
 * A `Link` header with each `<url>` filtered: a page's links repeat the request's query, a
 * `private_token=` included (`Gitlab::Pagination::Base#page_href`).
 */
const redactLinks = (value: string) => value.replace(/<([^>]*)>/g, (_, url: string) => `<${redactUrl(url)}>`);

export function journalHeaders(headers: Headers): Record<string, string> {
  const out = dict<string>();
  headers.forEach(
    (v, k) =>
      (out[k] = SECRET_HEADERS.has(k)
        ? FILTERED
        : URL_HEADERS.has(k)
          ? redactUrl(v)
          : k === 'link'
            ? redactLinks(v)
            : v),
  );
  return out;
}

function fileInfo(f: File) {
  return { file: f.name, type: f.type, size: f.size };
}

/** Where the journal reads a request body from: Hono's request, which caches what the handler read. */
export interface BodySource {
  raw: Request;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  formData(): Promise<FormData>;
}

/**
 * Reads a request body for the journal, after the handler: parsed and filtered where the type allows
 * it, capped. Reading goes through Hono's body cache, so the body is not read twice (no clone). Never
 * throws: a body that cannot be read is described instead.
 */
export async function journalRequestBody(
  req: BodySource,
  limit: number,
): Promise<{ body?: unknown; truncated: boolean }> {
  // The method first: reading `body` of @hono/node-server's lightweight request builds a full Request
  // (with an AbortController), which more than halves a server's throughput.
  if (req.raw.method === 'GET' || req.raw.method === 'HEAD') return { truncated: false };
  // A light request answers without building the native one (whose body is a stream).
  const known = knownBody(req.raw);
  if (known === undefined ? req.raw.body === null : known === null) return { truncated: false };
  const type = (req.raw.headers.get('content-type') ?? '').toLowerCase();
  try {
    if (type.startsWith('multipart/form-data')) {
      // A form with more parts than the platform takes is not parsed for the journal either.
      checkMultipartParts(new Uint8Array(await req.arrayBuffer()), type);
      const form = await req.formData();
      const fields = dict<unknown>();
      for (const [k, v] of form.entries()) {
        const value = typeof v === 'string' ? (isSecretKey(k) ? FILTERED : v) : fileInfo(v);
        const prev = fields[k];
        fields[k] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
      }
      return capParsed(fields, limit);
    }
    // A body far past the cap is decoded only as far as the journal keeps it.
    const declared = Number(req.raw.headers.get('content-length') ?? NaN);
    const text =
      declared > limit * BIG_BODY * 4
        ? utf8.decode(new Uint8Array(await req.arrayBuffer()).subarray(0, limit * BIG_BODY * 4))
        : await req.text();
    return journalBodyText(text, type, limit);
  } catch {
    return NOT_CAPTURED;
  }
}

const NOT_CAPTURED = Object.freeze({ body: '[body not captured]', truncated: false });

/** A parsed body as the journal keeps it: whole, or its JSON cut at the cap. */
function capParsed(parsed: unknown, limit: number): { body?: unknown; truncated: boolean } {
  const json = JSON.stringify(parsed);
  if (json.length <= limit) return { body: parsed, truncated: false };
  return { body: json.slice(0, limit), truncated: true };
}

/**
 * As much of a request body's text as `journalBodyText` reads with cap `limit`: a body far past the cap is
 * kept by a pending entry only as far as its entry will show it (its start and the fact that it goes on),
 * so that a journal of large uploads holds no more than eagerly made entries would.
 */
export function journalBodyKept(text: string, limit: number): string {
  const reads = Math.max(limit * BIG_BODY + 1, limit + 1024, RAW_QUERY_KEPT) + 1;
  return text.length > reads ? text.slice(0, reads) : text;
}

/**
 * A request body that is not multipart, as the journal keeps it, from its text (`type` lower-case):
 * parsed and filtered where the type allows it, capped. Never throws.
 */
export function journalBodyText(
  text: string,
  type: string,
  limit: number,
): { body?: unknown; truncated: boolean } {
  try {
    if (text === '') return { truncated: false };
    if (type.startsWith('application/json') && text.length > limit * BIG_BODY) {
      // Far past the cap: only its start is kept, so only its start is filtered (a megabyte body would
      // be parsed, filtered and serialised again to keep 4 KB of it).
      const [t] = cap(text.slice(0, limit + 1024).replace(SECRET_JSON_FIELD, `$1"${FILTERED}"`), limit);
      return { body: t, truncated: true };
    }
    let parsed: unknown;
    if (type.startsWith('application/json')) {
      try {
        parsed = redact(JSON.parse(text));
      } catch {
        // Not JSON after all: kept as text below, with anything that looks like a secret field cut.
        const [t, cut] = cap(text.replace(SECRET_JSON_FIELD, `$1"${FILTERED}"`), limit);
        return { body: t, truncated: cut };
      }
    } else if (type.startsWith('application/x-www-form-urlencoded') && text.length > limit * BIG_BODY) {
      return { body: { '?': redactPairs(text.slice(0, RAW_QUERY_KEPT), isSecretKey) }, truncated: true };
    } else if (type.startsWith('application/x-www-form-urlencoded')) {
      parsed = journalQuery(`?${text}`);
    } else {
      const [t, cut] = cap(text, limit);
      return { body: t, truncated: cut };
    }
    return capParsed(parsed, limit);
  } catch {
    return NOT_CAPTURED;
  }
}

/** How many times the cap a JSON body may be and still be parsed and filtered whole for the journal. */
const BIG_BODY = 16;

const SECRET_JSON_FIELD = /("[^"]*(?:password|secret|token)(?:_confirmation)?"\s*:\s*)"[^"]*"/gi;
/** Stateless: `decode` without `stream` keeps nothing between calls. */
const utf8 = new TextDecoder();
const TEXTUAL = /json|text\/|xml|javascript|x-www-form-urlencoded/i;

/**
 * Reads a response body for the journal and hands back an identical response to send (the body can be
 * read only once; rebuilding from the bytes is cheaper than a clone). Textual bodies are kept as text,
 * capped, with secret JSON fields filtered; other bodies are described, not read.
 */
export async function captureResponse(
  res: Response,
  limit: number,
): Promise<{ response: Response; body?: string; truncated: boolean }> {
  if (res.body === null) return { response: res, truncated: false };
  const type = res.headers.get('content-type') ?? '';
  if (!TEXTUAL.test(type)) {
    const len = res.headers.get('content-length');
    return {
      response: res,
      body: `[${type || 'binary'} body${len ? `, ${len} bytes` : ''}]`,
      truncated: false,
    };
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  const response = new Response(bytes, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
  let text = utf8.decode(bytes);
  if (text === '') return { response, truncated: false };
  if (MAY_HOLD_SECRET.test(text)) {
    try {
      text = JSON.stringify(redact(JSON.parse(text)));
    } catch {
      text = text.replace(SECRET_JSON_FIELD, `$1"${FILTERED}"`);
    }
  }
  const [body, truncated] = cap(text, limit);
  return { response, body, truncated };
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

/**
 * What a request leaves for the journal when nothing needs reading at once: the raw inputs of its entry
 * (the URL, the request's and the response's headers as they are), turned into the entry only when the
 * journal is read. Recording then costs a few field copies per request; the parsing, filtering and copying
 * that make an entry are paid by the reader, for the entries it reads.
 */
export class PendingEntry {
  constructor(
    /** Arrival, in ms on the instance clock. */
    readonly atMs: number,
    readonly method: string,
    /**
     * The URL; or, when `requestHeaders` is undefined, the request as one string: the URL, then each
     * header's name and value, one per line (`ResponseMemo.key`, which the cache keeps anyway).
     */
    readonly url: string,
    /**
     * The request's headers (read when the entry is made): its `Headers`, or the raw name/value list of
     * the Node request they come from (what @hono/node-server's lazy headers are made of).
     */
    readonly requestHeaders: Headers | readonly string[] | undefined,
    readonly status: number,
    /** The response's headers: its `Headers`, or the plain object it was built from. */
    readonly responseHeaders: Headers | Readonly<Record<string, string>>,
    readonly durationMs: number,
    readonly route: string | null,
    readonly user: string | null,
    readonly sudoFrom: string | undefined,
    readonly explain: string | undefined,
    /** A response body captured when the request was answered (`recordsBody`), with its cut flag. */
    readonly responseBody?: string,
    readonly responseBodyTruncated?: boolean,
    /** The request body as read (its text, lower-case content type and the cap), kept when it was read. */
    readonly requestBody?: { readonly text: string; readonly type: string; readonly limit: number },
  ) {}

  /** The entry, exactly as an eagerly recorded one (same fields, same order). */
  entry(id: number): JournalEntry {
    const headers =
      this.responseHeaders instanceof Headers ? this.responseHeaders : new Headers(this.responseHeaders);
    let url = this.url;
    let requestHeaders = this.requestHeaders;
    if (requestHeaders === undefined) ({ url, headers: requestHeaders } = ResponseMemo.request(url));
    const rb = this.requestBody;
    const req = rb ? journalBodyText(rb.text, rb.type, rb.limit) : undefined;
    // Where an eagerly recorded entry has `truncated`: after the request body when that was cut.
    const truncated: ('body' | 'responseBody')[] = [];
    if (req?.truncated) truncated.push('body');
    if (this.responseBodyTruncated) truncated.push('responseBody');
    return Object.freeze({
      id,
      at: new Date(this.atMs).toISOString(),
      method: this.method,
      path: rawPathname(url),
      query: journalQuery(url),
      headers: journalHeaders(requestHeaders instanceof Headers ? requestHeaders : fromRaw(requestHeaders)),
      ...(req?.body !== undefined && { body: req.body }),
      ...(req?.truncated && { truncated }),
      status: this.status,
      responseHeaders: journalHeaders(headers),
      durationMs: this.durationMs,
      route: this.route,
      user: this.user,
      ...(this.sudoFrom !== undefined && { sudoFrom: this.sudoFrom }),
      ...(this.explain !== undefined && { explain: this.explain }),
      ...(this.responseBody !== undefined && { responseBody: this.responseBody }),
      ...(!req?.truncated && this.responseBodyTruncated && { truncated }),
    });
  }
}

/** Headers from Node's raw list, as @hono/node-server makes them (HTTP/2 pseudo-headers left out). */
function fromRaw(raw: readonly string[]): Headers {
  const h = new Headers();
  for (let i = 0; i < raw.length; i += 2) if (!raw[i]!.startsWith(':')) h.append(raw[i]!, raw[i + 1]!);
  return h;
}

/** The path of a URL as sent (still percent-encoded), without query or fragment. */
export function rawPathname(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  const q = url.search(/[?#]/);
  return url.slice(start, q > start ? q : undefined);
}

/** A ring buffer of journal entries: `add` is O(1) and the oldest entry is dropped at capacity. */
export class Journal {
  readonly capacity: number;
  readonly bodyLimit: number;
  readonly responseBodies: 'errors' | 'all' | 'none';
  /** Entries, or pending ones with their id (made into entries on first read). */
  #ring: (JournalEntry | [number, PendingEntry] | undefined)[];
  /** Where the next entry goes. */
  #head = 0;
  #count = 0;
  #seq = 0;

  constructor(options: JournalOptions = {}) {
    const size = options.size ?? DEFAULT_JOURNAL_SIZE;
    const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    if (!Number.isInteger(size) || size < 0) throw new RangeError('journal size must be an integer >= 0');
    if (!Number.isInteger(limit) || limit < 0)
      throw new RangeError('journal bodyLimit must be an integer >= 0');
    this.capacity = size;
    this.bodyLimit = limit;
    this.responseBodies = options.responseBodies ?? 'errors';
    this.#ring = new Array<JournalEntry | undefined>(size);
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

  /** Stores an entry, giving it the next id. */
  add(entry: Omit<JournalEntry, 'id'>): JournalEntry {
    const e = Object.freeze({ id: ++this.#seq, ...entry }) as JournalEntry;
    this.#put(e);
    return e;
  }

  /** Stores a pending entry, giving it the next id; it becomes an entry when the journal is read. */
  addPending(p: PendingEntry): void {
    const id = ++this.#seq;
    this.#put([id, p]);
  }

  #put(slot: JournalEntry | [number, PendingEntry]): void {
    if (this.capacity === 0) return;
    this.#ring[this.#head] = slot;
    this.#head = (this.#head + 1) % this.capacity;
    if (this.#count < this.capacity) this.#count++;
  }

  /** Matching entries, oldest first. */
  list(filter?: JournalFilter): JournalEntry[] {
    const ok = entryFilter(filter);
    const out: JournalEntry[] = [];
    const start = (this.#head - this.#count + this.capacity) % Math.max(this.capacity, 1);
    for (let i = 0; i < this.#count; i++) {
      const at = (start + i) % this.capacity;
      let e = this.#ring[at]!;
      if (Array.isArray(e)) this.#ring[at] = e = e[1].entry(e[0]);
      if (ok(e)) out.push(e);
    }
    const limit = filter?.limit;
    return limit !== undefined && limit >= 0 && out.length > limit ? out.slice(out.length - limit) : out;
  }

  clear(): void {
    this.#ring.fill(undefined);
    this.#head = 0;
    this.#count = 0;
  }

  /** Forgets everything, ids included (an instance reset). */
  reset(): void {
    this.clear();
    this.#seq = 0;
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
}

export function requestLog(journal: Journal): RequestLog {
  const log = ((filter?: JournalFilter) => journal.list(filter)) as RequestLog;
  Object.defineProperties(log, {
    clear: { value: () => journal.clear() },
    last: { value: (filter?: JournalFilter) => journal.list({ ...filter, limit: 1 })[0] },
    size: { get: () => journal.size },
    capacity: { value: journal.capacity },
  });
  return log;
}
