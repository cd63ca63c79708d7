/** The security headers every response carries. */
import type { C } from './env.js';

/** Header values must be ByteStrings; reasons may quote user input. */
export const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/g, (ch) => encodeURIComponent(ch));

export const securityHeaders = (c: C) => {
  c.header('X-Frame-Options', 'SAMEORIGIN');
  c.header('X-Content-Type-Options', 'nosniff');
};

/**
 * The security headers on a finished response, where the handler did not set them itself (the full
 * path sets them before the handler, which may override them). A response with immutable headers is
 * copied first.
 */
export function withSecurityHeaders(res: Response): Response {
  const add = (r: Response) => {
    const h = r.headers;
    if (!h.has('x-frame-options')) h.set('X-Frame-Options', 'SAMEORIGIN');
    if (!h.has('x-content-type-options')) h.set('X-Content-Type-Options', 'nosniff');
    return r;
  };
  try {
    return add(res);
  } catch {
    return add(new Response(res.body, res));
  }
}
