import { matchedRoutes } from 'hono/route';
import { ApiError } from '../core/errors.js';
import { journalHeaders, journalQuery, journalRequestBody, rawPathname } from '../testing/journal.js';
import { oversized } from './body-cap.js';
import { binding, isControlPath, type C, type RequestEnv } from './env.js';

/**
 * Prepares the journal entry of every exchange except the control plane's; the instance's fetch adds the
 * response body and stores it (the body is read there, once).
 */
export async function journalMiddleware(c: C, next: () => Promise<void>): Promise<void> {
  const b = binding(c);
  if (!b.journal.enabled || isControlPath(b, c.req.path)) return next();
  const t0 = performance.now();
  const at = b.fx.clock.iso();
  await next();
  try {
    const req = c.req.raw;
    const probe = (c.env as RequestEnv).probe;
    const err = c.error instanceof ApiError ? c.error : undefined;
    const caughtAll = err?.status === 404 && (err.body as { error?: unknown })?.error === '404 Not Found';
    const r = matchedRoutes(c)[c.req.routeIndex];
    const viewer = c.get('viewer');
    const reqBody =
      err && oversized.has(err)
        ? { body: undefined, truncated: true }
        : await journalRequestBody(c.req, b.journal.bodyLimit);
    probe.entry = {
      at,
      method: req.method,
      path: rawPathname(req.url),
      query: journalQuery(req.url),
      headers: journalHeaders(req.headers),
      ...(reqBody.body !== undefined && { body: reqBody.body }),
      ...(reqBody.truncated && { truncated: ['body'] }),
      status: 0,
      responseHeaders: {},
      durationMs: Math.round((performance.now() - t0) * 1000) / 1000,
      route: r && r.method !== 'ALL' && !caughtAll ? `${r.method} ${r.path}` : null,
      user: viewer?.user?.username ?? null,
      ...(viewer?.sudoFrom && { sudoFrom: viewer.sudoFrom.username }),
      ...(err?.explain !== undefined && { explain: err.explain }),
      ...(probe.faults && { faults: probe.faults }),
    };
  } catch (e) {
    b.logger('fauxlab: could not record a request in the journal', e);
  }
}
