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
 * times their size.
 */
export function keptBytes(s: string): Buffer<ArrayBuffer> {
  // Encoded straight into memory of its own: one pass, no pooled copy in between.
  const own = Buffer.allocUnsafeSlow(Buffer.byteLength(s, 'utf8'));
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

/** A response built from plain headers, which are remembered for `plainHeaders`. */
export function plainResponse(
  body: string | Uint8Array<ArrayBuffer>,
  status: number,
  headers: Readonly<Record<string, string>>,
): Response {
  const res = new Response(body, { status, headers }) as Marked;
  res[MADE] = { headers, body, size: body.length };
  return res;
}

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
  const res = new Response('', { status, headers }) as Marked;
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
