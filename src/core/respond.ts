/**
 * Responses built with plain header objects. A response whose headers are a plain object (not `Headers`)
 * and whose body is a string takes @hono/node-server's fast write path, and nothing has to copy its
 * headers into a `Headers` first; the hot endpoints answer this way.
 */

/** The headers every response carries (the platform's Rails defaults). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
});

/**
 * The UTF-8 bytes of a string that is kept for long (a rendering cached on its record), in memory of
 * their own: `Buffer.from` hands out slices of shared 8 KiB slabs for strings under 4 KiB, and one kept
 * slice holds its whole slab, whatever short-lived buffers shared it: kept renderings then held about four
 * times their size. `byteLength`: the string's UTF-8 length, when known.
 */
export function keptBytes(s: string, byteLength = Buffer.byteLength(s, 'utf8')): Buffer<ArrayBuffer> {
  // Encoded straight into memory of its own: one pass, no pooled copy in between.
  const own = Buffer.allocUnsafeSlow(byteLength);
  own.write(s);
  return own;
}

/** What a response made here was built from, kept on the response itself (cheaper than a WeakMap). */
const MADE = Symbol('fauxlab.made');

/** The parts of a response made here: its plain headers and its body, whole or in pieces. */
export interface Made {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array<ArrayBuffer> | readonly Uint8Array<ArrayBuffer>[];
  /** Bytes of the body (UTF-16 units of a string body). */
  readonly size: number;
}

type Marked = Response & { [MADE]?: Made };

/**
 * A JSON response (a string, or its UTF-8 bytes) with the security headers and `headers` (lower-case
 * names), as a complete response:
 * it replaces whatever `c.header()` prepared, so a handler using it sets no headers through the context.
 */
export function jsonResponse(
  body: string | Uint8Array<ArrayBuffer>,
  status = 200,
  headers?: Record<string, string>,
): Response {
  return plainResponse(body, status, jsonHeaders(headers));
}

/**
 * `c.json(value, status)` as bytes the instance keeps: what an entity route answers, so that the response
 * cache can send the same answer again while the state stands (a `c.json` response is computed each time).
 * Only for handlers that set no headers through the context, which this replaces.
 */
export function sendJson(value: unknown, status = 200, headers?: Record<string, string>): Response {
  return jsonResponse(JSON.stringify(value), status, headers);
}

function jsonHeaders(headers?: Record<string, string>): Record<string, string> {
  const all: Record<string, string> = { 'content-type': 'application/json' };
  if (headers) for (const k in headers) all[k] = headers[k]!;
  all['x-content-type-options'] = 'nosniff';
  all['x-frame-options'] = 'SAMEORIGIN';
  return all;
}

/**
 * The platform's `Response`, whatever a server adapter put in its place: @hono/node-server swaps in a
 * lightweight class of its own whose prototype chain leads to the native one.
 */
const NativeResponse: typeof Response = (() => {
  let R = globalThis.Response;
  while (Object.getPrototypeOf(R) !== Function.prototype && typeof Object.getPrototypeOf(R) === 'function')
    R = Object.getPrototypeOf(R) as typeof Response;
  return R;
})();

const utf8 = new TextEncoder();

/**
 * A `Response` (its prototype is the native one's, so `instanceof Response` holds) that builds the native
 * response only when something needs it (a stream body, `clone`, `blob`, `formData`): `text`, `json` and
 * `arrayBuffer` read the bytes it holds directly. A native response makes a web stream for every body
 * and converts its init through WebIDL: most of an in-process answer's cost. `headers` is built on first
 * read, once.
 */
class LightResponse {
  readonly #body: string | Uint8Array<ArrayBuffer>;
  readonly #status: number;
  readonly #plain: Readonly<Record<string, string>>;
  #headers: Headers | undefined;
  #native: Response | undefined;
  #used = false;

  constructor(
    body: string | Uint8Array<ArrayBuffer>,
    status: number,
    headers: Readonly<Record<string, string>>,
  ) {
    this.#body = body;
    this.#status = status;
    this.#plain = headers;
  }

  #real(): Response {
    if (this.#native) return this.#native;
    const real = new NativeResponse(this.#body, { status: this.#status, headers: this.headers });
    // Read already: the native body is as used up as it would have been.
    if (this.#used) void real.arrayBuffer().catch(() => undefined);
    return (this.#native = real);
  }

  /** The body as its reader gets it, once; a second read fails as the platform's does. */
  #take(): Promise<string | Uint8Array<ArrayBuffer>> {
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    return Promise.resolve(this.#body);
  }

  get status(): number {
    return this.#status;
  }
  get ok(): boolean {
    return this.#status >= 200 && this.#status < 300;
  }
  get statusText(): string {
    return '';
  }
  get type(): ResponseType {
    return 'default';
  }
  get url(): string {
    return '';
  }
  get redirected(): boolean {
    return false;
  }
  get headers(): Headers {
    if (this.#headers) return this.#headers;
    const h = new Headers(this.#plain);
    // What the native constructor adds to a string body that names no type.
    if (typeof this.#body === 'string' && !h.has('content-type'))
      h.set('content-type', 'text/plain;charset=UTF-8');
    return (this.#headers = h);
  }
  get body(): ReadableStream<Uint8Array> | null {
    return this.#real().body;
  }
  get bodyUsed(): boolean {
    return this.#native ? this.#native.bodyUsed : this.#used;
  }
  text(): Promise<string> {
    if (this.#native) return this.#native.text();
    return this.#take().then((b) =>
      typeof b === 'string' ? b : Buffer.from(b.buffer, b.byteOffset, b.length).toString('utf8'),
    );
  }
  json(): Promise<unknown> {
    return this.text().then((t) => JSON.parse(t) as unknown);
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#native) return this.#native.arrayBuffer();
    // A copy of its own: the kept bytes are shared with every other answer of the same rendering.
    return this.#take().then((b) => (typeof b === 'string' ? utf8.encode(b) : new Uint8Array(b)).buffer);
  }
  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.arrayBuffer().then((b) => new Uint8Array(b));
  }
  blob(): Promise<Blob> {
    return this.#real().blob();
  }
  formData(): Promise<FormData> {
    return this.#real().formData();
  }
  clone(): Response {
    if (this.#native || this.#used) return this.#real().clone();
    const copy = new LightResponse(this.#body, this.#status, this.#plain);
    // Headers as they are now, changes included, in an object of the copy's own.
    if (this.#headers) copy.#headers = new Headers(this.#headers);
    (copy as unknown as Marked)[MADE] = (this as unknown as Marked)[MADE];
    return copy as unknown as Response;
  }
}
Object.setPrototypeOf(LightResponse.prototype, NativeResponse.prototype);
Object.defineProperty(LightResponse.prototype, Symbol.for('nodejs.util.inspect.custom'), {
  value(this: LightResponse) {
    return `Response { status: ${this.status}, headers: ${JSON.stringify(Object.fromEntries(this.headers))} }`;
  },
});

/**
 * A response built from plain headers, which are remembered for `plainHeaders`. Under a server adapter
 * that replaced `Response` (@hono/node-server writes its own class's body straight to the socket), its
 * class; anywhere else the light one.
 */
export function plainResponse(
  body: string | Uint8Array<ArrayBuffer>,
  status: number,
  headers: Readonly<Record<string, string>>,
): Response {
  const Current = globalThis.Response;
  const res = (
    Current === NativeResponse
      ? new LightResponse(body, status, headers)
      : new Current(body, { status, headers })
  ) as Marked;
  res[MADE] = { headers, body, size: body.length };
  return res;
}

/** The text a response built elsewhere (an error's `c.json`) was made from, kept on the response. */
const TEXT = Symbol('fauxlab.text');

/**
 * `c.json(value, status)` that remembers its text on the response (`textOf`), so that what reads the body
 * back (the request journal) takes the string rather than reading the response's stream. The same
 * response as `c.json` (Hono's `json` is `body(JSON.stringify(value), status, { 'Content-Type': ... })`).
 */
export function jsonWithText(
  c: { body(data: string, status: number, headers: Record<string, string>): Response },
  value: unknown,
  status: number,
): Response {
  const text = JSON.stringify(value);
  const res = c.body(text, status, { 'Content-Type': 'application/json' });
  (res as Response & { [TEXT]?: string })[TEXT] = text;
  return res;
}

/** The text `jsonWithText` made a response from. */
export const textOf = (res: Response): string | undefined => (res as Response & { [TEXT]?: string })[TEXT];

/** What a response was built from, when `jsonResponse`, `plainResponse` or `jsonChunks` made it. */
export const madeOf = (res: Response): Made | undefined => (res as Marked)[MADE];

/** The plain headers a response was built from, when made here. */
export const plainHeaders = (res: Response): Readonly<Record<string, string>> | undefined =>
  (res as Marked)[MADE]?.headers;

/**
 * A JSON response whose body is `chunks` one after the other (`size` bytes in all). The instance's fetch
 * hands them to a Node server's response as they are, without copying them into one buffer; anywhere
 * else (`materialize`) they are joined first. Until then the response itself has no body: it must not
 * leave the instance's fetch unmaterialized.
 */
export function jsonChunks(
  chunks: readonly Uint8Array<ArrayBuffer>[],
  size: number,
  status = 200,
  headers?: Record<string, string>,
): Response {
  return chunkResponse(chunks, size, status, jsonHeaders(headers));
}

/** A response in pieces from plain headers (see `jsonChunks`). */
export function chunkResponse(
  chunks: readonly Uint8Array<ArrayBuffer>[],
  size: number,
  status: number,
  headers: Readonly<Record<string, string>>,
): Response {
  // In process a light placeholder: a native response would build a stream for a body it never sends.
  const Current = globalThis.Response;
  const res = (
    Current === NativeResponse ? new LightResponse('', status, headers) : new Current('', { status, headers })
  ) as Marked;
  res[MADE] = { headers, body: chunks, size };
  return res;
}

/** The pieces of a `jsonChunks` response. */
export function chunksOf(
  res: Response,
): { chunks: readonly Uint8Array<ArrayBuffer>[]; size: number } | undefined {
  const m = (res as Marked)[MADE];
  return m && Array.isArray(m.body) ? { chunks: m.body, size: m.size } : undefined;
}

/** A `jsonChunks` response as an ordinary one (its pieces joined); any other response as it is. */
export function materialize(res: Response): Response {
  const m = madeOf(res);
  if (!m || !Array.isArray(m.body)) return res;
  return plainResponse(Buffer.concat(m.body, m.size), res.status, m.headers);
}
