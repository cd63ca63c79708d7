import { apiError, type ApiError } from '../core/errors.js';
import { knownBody } from '../core/fetch.js';
import { binding, type C } from './env.js';

/** Default request body cap: above the platform's 50 MB import cap and its 10 MB attachments. */
export const DEFAULT_MAX_BODY_SIZE = 64 * 1024 * 1024;

/**
 * The cap of a git push or fetch (`POST .../git-receive-pack`, `.../git-upload-pack`): a push carries a
 * pack, so it may pass the API's cap, but stays bounded (the whole body is held while it is read).
 */
export const GIT_MAX_BODY_SIZE = 256 * 1024 * 1024;
const GIT_RPC = /\.git\/git-(upload|receive)-pack$/;

/** The body cap's refusals: the journal records such a request without reading its body. */
export const oversized = new WeakSet<ApiError>();

export const tooLarge = () => {
  const e = apiError(413, '413 Request Entity Too Large');
  oversized.add(e);
  return e;
};

/**
 * Caps the request body: a declared length over the cap is refused at once; a body of unknown length is
 * counted as it streams, and reading it fails with the 413 as soon as it passes the cap.
 */
export async function bodySizeMiddleware(c: C, next: () => Promise<void>): Promise<void> {
  const raw = c.req.raw;
  // The method first: reading `body` of @hono/node-server's lightweight request builds a full Request.
  if (raw.method === 'GET' || raw.method === 'HEAD') return next();
  const cap = binding(c).maxBodySize;
  const max = GIT_RPC.test(c.req.path) ? Math.max(cap, GIT_MAX_BODY_SIZE) : cap;
  // A body made in process as a string is measured as it is, without a stream to count it through.
  const known = knownBody(raw);
  if ((known === undefined ? !raw.body : known === null) || !Number.isFinite(max)) return next();
  const declared = c.req.header('content-length');
  if (declared !== undefined) {
    if (!/^\d+$/.test(declared) || Number(declared) > max) throw tooLarge();
    return next();
  }
  // Within the cap, nothing to count (a string's UTF-8 length is at most three bytes a unit). Over it, the
  // body is counted as it streams like any other: reading it fails where a streamed one would.
  if (typeof known === 'string' && (known.length * 3 <= max || Buffer.byteLength(known, 'utf8') <= max))
    return next();
  const reader = raw.body!.getReader();
  let size = 0;
  const counted = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      size += value.byteLength;
      if (size > max) {
        await reader.cancel();
        return controller.error(tooLarge());
      }
      controller.enqueue(value);
    },
  });
  // A fresh request rather than `new Request(raw, …)`: one made from another follows its abort signal
  // through a listener and a finalizer, which pile up between macrotasks (in-process callers in a loop).
  c.req.raw = new Request(raw.url, {
    method: raw.method,
    headers: raw.headers,
    body: counted,
    duplex: 'half',
  } as RequestInit);
  return next();
}
