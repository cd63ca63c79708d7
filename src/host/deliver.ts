/** HTTP delivery for Node servers: a response in pieces written straight to the server's response. */
import { chunksOf, materialize, plainHeaders } from '../core/respond.js';

/**
 * The raw header list of the Node request behind `request`, when it is the server's own request: not
 * when the instance is mounted in another app, whose middleware may have changed the headers since.
 * The journal keeps it rather than @hono/node-server's lazy headers, which hold on to the whole Node
 * request; the response cache builds its key from it.
 */
export function rawHeadersOf(request: Request, env: object | undefined): readonly string[] | undefined {
  if (env === undefined || MOUNTED in env) return undefined;
  const raw = (env as { incoming?: { rawHeaders?: unknown } }).incoming?.rawHeaders;
  return Array.isArray(raw) && request.headers.constructor.name === 'RequestHeaders'
    ? (raw as string[])
    : undefined;
}

/**
 * What the instance answers @hono/node-server when it has written the response itself: a native
 * `Response` (the server's own lightweight one would be written again) marked as already sent.
 */
export const ALREADY_SENT = (() => {
  const proto = Object.getPrototypeOf(Response) as unknown;
  const Native = (
    typeof proto === 'function' && proto !== Function.prototype ? proto : Response
  ) as typeof Response;
  return new Native(null, { headers: { 'x-hono-already-sent': '1' } });
})();

/** Marks the env of a request that reached the instance through `app` mounted in another Hono app. */
export const MOUNTED = Symbol('fauxlab.mounted');

export interface NodeOutgoing {
  headersSent: boolean;
  writableEnded: boolean;
  destroyed: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  cork(): void;
  uncork(): void;
  write(chunk: Uint8Array): boolean;
  end(chunk?: Uint8Array): unknown;
}

/** Bodies in pieces up to this many bytes are joined and written once. */
const JOIN_BELOW = 1024 * 1024;

/**
 * What to hand back for a response: a `jsonChunks` one is written straight to the Node server's
 * response (joined into one write, or for a large body one gathered write without a copy) when the request came from a Node server that
 * can take it, else joined (`materialize`); any other response as it is.
 */
export function deliver(res: Response, env: object | undefined): Response {
  const c = chunksOf(res);
  if (!c) return res;
  const out = (env as { outgoing?: Partial<NodeOutgoing> } | undefined)?.outgoing;
  const headers = plainHeaders(res);
  const direct =
    !(env && MOUNTED in env) &&
    headers !== undefined &&
    typeof out?.cork === 'function' &&
    typeof out.writeHead === 'function' &&
    !out.headersSent &&
    !out.writableEnded &&
    !out.destroyed;
  if (!direct) return materialize(res);
  const o = out as NodeOutgoing;
  // Copied by assignment, as respond.ts builds them: a spread with a member added after cost V8 about a
  // microsecond.
  const head: Record<string, string> = {};
  for (const k in headers) head[k] = headers[k]!;
  head['content-length'] = String(c.size);
  o.writeHead(res.status, head);
  // Joined first up to a size: every chunk handed to Node's stream costs more than copying its bytes
  // (a page of 20 kept renderings, 41 pieces, went out at two thirds of the rate of one joined body).
  if (c.size <= JOIN_BELOW) {
    o.end(Buffer.concat(c.chunks, c.size));
    return ALREADY_SENT;
  }
  o.cork();
  for (const chunk of c.chunks) o.write(chunk);
  o.end();
  o.uncork();
  return ALREADY_SENT;
}
