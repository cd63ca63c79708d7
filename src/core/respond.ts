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

/** The plain headers of the responses made here: the journal reads them without touching the response. */
const made = new WeakMap<Response, Readonly<Record<string, string>>>();

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
  const all: Record<string, string> = { 'content-type': 'application/json' };
  if (headers) for (const k in headers) all[k] = headers[k]!;
  all['x-content-type-options'] = 'nosniff';
  all['x-frame-options'] = 'SAMEORIGIN';
  return plainResponse(body, status, all);
}

/** A response built from plain headers, which are remembered for `plainHeaders`. */
function plainResponse(
  body: string | Uint8Array<ArrayBuffer>,
  status: number,
  headers: Readonly<Record<string, string>>,
): Response {
  const res = new Response(body, { status, headers });
  made.set(res, headers);
  return res;
}

/** The plain headers a response was built from, when `jsonResponse` made it. */
export const plainHeaders = (res: Response): Readonly<Record<string, string>> | undefined => made.get(res);

/** The pieces of the responses `jsonChunks` made, until they are written or joined. */
const chunked = new WeakMap<Response, { chunks: readonly Uint8Array<ArrayBuffer>[]; size: number }>();

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
  const res = jsonResponse('', status, headers);
  chunked.set(res, { chunks, size });
  return res;
}

/** The pieces of a `jsonChunks` response. */
export const chunksOf = (res: Response) => chunked.get(res);

/** A `jsonChunks` response as an ordinary one (its pieces joined); any other response as it is. */
export function materialize(res: Response): Response {
  const c = chunked.get(res);
  if (!c) return res;
  return plainResponse(Buffer.concat(c.chunks, c.size), res.status, made.get(res)!);
}
