/**
 * What a journal entry holds until it is read, and how it is made then: the request's URL, raw headers
 * and body text, and the bytes its response was made of (the same objects, not copies), decoded,
 * filtered and cut only when the journal is read.
 */
import { ResponseMemo } from '../core/memo.js';
import {
  cap,
  FILTERED,
  journalBodyText,
  journalHeaders,
  journalQuery,
  MAY_HOLD_SECRET,
  redact,
  SECRET_JSON_FIELD,
  utf8,
} from './journal-redact.js';

export const DEFAULT_BODY_LIMIT = 4096;

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

/** What an entry shows for a body let go under the journal's byte bound (`bodyBytes`). */
export const BODY_NOT_KEPT = '[body not kept: older than the journal keeps bodies for]';

const TEXTUAL = /json|text\/|xml|javascript|x-www-form-urlencoded/i;

/**
 * A response body as the journal holds it until read: the string or bytes (whole or in pieces) the
 * response was made of, the same objects the response (and the response cache) hold; `null` for a body
 * that is not text, which is described rather than kept.
 */
export type HeldBody = string | Uint8Array | readonly Uint8Array[] | null;

/** Bytes a held body keeps alive (UTF-16 units of a string). */
export function heldSize(b: HeldBody | undefined): number {
  if (b === null || b === undefined) return 0;
  if (typeof b === 'string' || b instanceof Uint8Array) return b.length;
  let n = 0;
  for (const c of b) n += c.length;
  return n;
}

/**
 * What the journal holds of a response body made here (`madeOf`): a reference to its bytes when its type
 * is text, `null` when it is not, undefined when it has none.
 */
export function holdBody(
  body: string | Uint8Array | readonly Uint8Array[],
  size: number,
  type: string,
): HeldBody | undefined {
  if (size === 0) return undefined;
  return TEXTUAL.test(type) ? body : null;
}

/**
 * Reads a response that was not made here (its body a stream) for the journal, and hands back an
 * identical response to send (the body can be read only once; rebuilding from the bytes is cheaper than
 * a clone). The bytes read are held as they are: nothing is decoded until the entry is read.
 */
export async function captureResponse(res: Response): Promise<{ response: Response; body?: HeldBody }> {
  if (res.body === null) return { response: res };
  if (!TEXTUAL.test(res.headers.get('content-type') ?? '')) return { response: res, body: null };
  const bytes = new Uint8Array(await res.arrayBuffer());
  const response = new Response(bytes, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
  return { response, body: bytes.length === 0 ? undefined : bytes };
}

/**
 * A held response body as its entry shows it: text, capped, with secret JSON fields filtered; a body
 * that is not text described (`[type body, N bytes]`). Run when the entry is read, never when written.
 */
export function responseBodyText(
  held: HeldBody,
  headers: Headers,
  limit: number,
): { body?: string; truncated: boolean } {
  if (held === null) {
    const type = headers.get('content-type') ?? '';
    const len = headers.get('content-length');
    return { body: `[${type || 'binary'} body${len ? `, ${len} bytes` : ''}]`, truncated: false };
  }
  let text =
    typeof held === 'string'
      ? held
      : utf8.decode(held instanceof Uint8Array ? held : Buffer.concat(held as Uint8Array[]));
  if (text === '') return { truncated: false };
  if (MAY_HOLD_SECRET.test(text)) {
    try {
      text = JSON.stringify(redact(JSON.parse(text)));
    } catch {
      text = text.replace(SECRET_JSON_FIELD, `$1"${FILTERED}"`);
    }
  }
  const [body, truncated] = cap(text, limit);
  return { body, truncated };
}

/**
 * An entry made when the journal is first read, from what its request held (`PendingEntry`) or from an
 * eager entry and the response body it still holds (`HeldResponse`). `bytes` is what its bodies keep
 * alive; `drop` lets them go (the journal's byte bound), after which the entry says so.
 */
export interface Deferred {
  entry(id: number): JournalEntry;
  readonly bytes: number;
  drop(): void;
}

/** A held response body as its entry shows it, or what shows that it was let go. */
function shownResponse(
  held: HeldBody | undefined,
  dropped: boolean,
  headers: () => Headers,
  limit: number,
): { body?: string; truncated: boolean } | undefined {
  if (held === undefined) return dropped ? { body: BODY_NOT_KEPT, truncated: true } : undefined;
  return responseBodyText(held, headers(), limit);
}

/**
 * What a request leaves for the journal: the raw inputs of its entry (the URL, the request's and the
 * response's headers as they are, the request body's text, the bytes the response was made of), turned
 * into the entry only when the journal is read. Recording then costs a few field copies per request; the
 * parsing, decoding, filtering and copying that make an entry are paid by the reader, for the entries it
 * reads.
 */
export class PendingEntry implements Deferred {
  /** Which bodies were let go under the journal's byte bound. */
  #requestDropped = false;
  #responseDropped = false;

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
    /** The response body, held as it was made (`recordsBody`); capped and filtered when read. */
    public responseBody?: HeldBody,
    /** The request body as read (its text, lower-case content type and the cap), kept when it was read. */
    public requestBody?: { readonly text: string; readonly type: string; readonly limit: number },
    /** The cap of the response body's text. */
    readonly responseLimit = DEFAULT_BODY_LIMIT,
  ) {}

  get bytes(): number {
    return heldSize(this.responseBody) + (this.requestBody?.text.length ?? 0);
  }

  drop(): void {
    if (this.requestBody !== undefined) {
      this.#requestDropped = true;
      this.requestBody = undefined;
    }
    // A body described rather than held (`null`) costs nothing and stays.
    if (this.responseBody !== undefined && this.responseBody !== null) {
      this.#responseDropped = true;
      this.responseBody = undefined;
    }
  }

  /** The entry, exactly as an eagerly recorded one (same fields, same order). */
  entry(id: number): JournalEntry {
    const headers = () =>
      this.responseHeaders instanceof Headers ? this.responseHeaders : new Headers(this.responseHeaders);
    let url = this.url;
    let requestHeaders = this.requestHeaders;
    if (requestHeaders === undefined) ({ url, headers: requestHeaders } = ResponseMemo.request(url));
    const rb = this.requestBody;
    const req = rb
      ? journalBodyText(rb.text, rb.type, rb.limit)
      : this.#requestDropped
        ? { body: BODY_NOT_KEPT, truncated: true }
        : undefined;
    const res = shownResponse(this.responseBody, this.#responseDropped, headers, this.responseLimit);
    // Where an eagerly recorded entry has `truncated`: after the request body when that was cut.
    const truncated: ('body' | 'responseBody')[] = [];
    if (req?.truncated) truncated.push('body');
    if (res?.truncated) truncated.push('responseBody');
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
      responseHeaders: journalHeaders(headers()),
      durationMs: this.durationMs,
      route: this.route,
      user: this.user,
      ...(this.sudoFrom !== undefined && { sudoFrom: this.sudoFrom }),
      ...(this.explain !== undefined && { explain: this.explain }),
      ...(res?.body !== undefined && { responseBody: res.body }),
      ...(!req?.truncated && res?.truncated && { truncated }),
    });
  }
}

/**
 * An entry recorded eagerly (a streamed or refused request body, faults) whose response body is still
 * held: the body is decoded, filtered and cut when the entry is first read.
 */
export class HeldResponse implements Deferred {
  #dropped = false;

  constructor(
    /** The entry without its response body (status and response headers set). */
    readonly base: Omit<JournalEntry, 'id'>,
    readonly headers: Headers,
    public body: HeldBody | undefined,
    readonly limit: number,
  ) {}

  get bytes(): number {
    return heldSize(this.body);
  }

  drop(): void {
    if (this.body === undefined || this.body === null) return;
    this.#dropped = true;
    this.body = undefined;
  }

  entry(id: number): JournalEntry {
    const res = shownResponse(this.body, this.#dropped, () => this.headers, this.limit);
    const truncated = [...(this.base.truncated ?? []), ...(res?.truncated ? ['responseBody' as const] : [])];
    return Object.freeze({
      id,
      ...this.base,
      ...(res?.body !== undefined && { responseBody: res.body }),
      ...(truncated.length > 0 && { truncated }),
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
