import { matchedRoutes } from 'hono/route';
import { ApiError } from '../core/errors.js';
import { knownText } from '../core/fetch.js';
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
  const atMs = b.fx.clock.ms();
  await next();
  try {
    const req = c.req.raw;
    const probe = (c.env as RequestEnv).probe;
    const err = c.error instanceof ApiError ? c.error : undefined;
    const caughtAll = err?.status === 404 && (err.body as { error?: unknown })?.error === '404 Not Found';
    const r = matchedRoutes(c)[c.req.routeIndex];
    const viewer = c.get('viewer');
    const route = r && r.method !== 'ALL' && !caughtAll ? `${r.method} ${r.path}` : null;
    const known = knownText(req);
    const type = (req.headers.get('content-type') ?? '').toLowerCase();
    // A string body (or none) is kept as it is, and the entry made from it when the journal is read:
    // parsing and filtering it here cost more than the rest of the recording. Not for a body the cap
    // refused, a declared length (which may cut what is decoded) or a form in parts (read as a stream).
    if (
      known !== undefined &&
      !probe.faults &&
      !(err && oversized.has(err)) &&
      !req.headers.has('content-length') &&
      !type.startsWith('multipart/form-data')
    ) {
      const noBody = known === null || req.method === 'GET' || req.method === 'HEAD';
      probe.pending = {
        atMs,
        method: req.method,
        url: req.url,
        headers: req.headers,
        durationMs: Math.round((performance.now() - t0) * 1000) / 1000,
        route,
        user: viewer?.user?.username ?? null,
        sudoFrom: viewer?.sudoFrom?.username,
        explain: err?.explain,
        body: noBody ? undefined : { text: known, type, limit: b.journal.bodyLimit },
      };
      return;
    }
    const reqBody =
      err && oversized.has(err)
        ? { body: undefined, truncated: true }
        : await journalRequestBody(c.req, b.journal.bodyLimit);
    probe.entry = {
      at: new Date(atMs).toISOString(),
      method: req.method,
      path: rawPathname(req.url),
      query: journalQuery(req.url),
      headers: journalHeaders(req.headers),
      ...(reqBody.body !== undefined && { body: reqBody.body }),
      ...(reqBody.truncated && { truncated: ['body'] }),
      status: 0,
      responseHeaders: {},
      durationMs: Math.round((performance.now() - t0) * 1000) / 1000,
      route,
      user: viewer?.user?.username ?? null,
      ...(viewer?.sudoFrom && { sudoFrom: viewer.sudoFrom.username }),
      ...(err?.explain !== undefined && { explain: err.explain }),
      ...(probe.faults && { faults: probe.faults }),
    };
  } catch (e) {
    b.logger('fauxlab: could not record a request in the journal', e);
  }
}
