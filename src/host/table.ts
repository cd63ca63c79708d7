/**
 * The route table, built once per process and shared, immutable: every area's routes, the control
 * plane, the middleware and error handling. It holds no instance data: each request brings its
 * instance in its env.
 */
import { Hono } from 'hono';
import type { Env } from '../core/context.js';
import { ApiError, grapeError, internalError, noRoute } from '../core/errors.js';
import type { JobRunner } from '../core/jobs.js';
import { jsonWithText } from '../core/respond.js';
import { inSpan } from '../core/versions.js';
import { patternMatcher, ApiRouter, ShapedRouter, tierHas, type RouteInfo } from '../core/router.js';
import { controlPlane } from '../admin/control.js';
import { dashboardAdmits } from '../admin/dashboard/index.js';
import { guardControlPlane } from '../admin/guard.js';
import { registerApi } from '../resources/index.js';
import { normalisePath } from '../testing/match.js';
import { bodySizeMiddleware } from './body-cap.js';
import { binding, type C, type RequestEnv } from './env.js';
import { faultMiddleware } from './fault-middleware.js';
import { throttleMiddleware } from './throttle-middleware.js';
import { journalMiddleware } from './journal-middleware.js';
import { clientClosed, CLIENT_CLOSED } from '../testing/journal.js';
import { headerSafe, securityHeaders } from './security.js';

/** Normalises a raw path the way the platform's routing sees it. */
function routingPath(request: Request): string {
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  let end = url.indexOf('?', start);
  if (end < 0) end = url.length;
  const hash = url.indexOf('#', start);
  if (hash >= 0 && hash < end) end = hash;
  if (start < 0) return '/';
  const path = url.slice(start, end);
  // The usual path needs no normalising: no empty segment, no trailing slash, no format suffix.
  if (path.length > 1 && !path.includes('//') && !path.endsWith('/') && !path.endsWith('.json')) return path;
  return normalisePath(path);
}

/** What the lean table answers when no route matched: the request then goes the full way. */
export const NO_MATCH = new Response(null, { status: 599 });

export interface RouteTable {
  app: Hono<Env>;
  /**
   * The API routes alone, with the same error handling and no middleware: what a GET that matches a
   * route takes when no fault is set, and a write whose body is a light request's string within the cap
   * (`leanWrite` in app.ts). The instance's fetch does the middleware's work itself (journal, security
   * headers; the body cap and faults do not apply), and a request that matches nothing here (`NO_MATCH`)
   * goes through `app` instead, which answers it as before.
   */
  lean: Hono<Env>;
  routes: RouteInfo[];
  jobs: ReadonlyMap<string, JobRunner>;
}

/** Builds the route table: every area's routes plus `extra`, the control plane and error handling. */
export function buildTable(extra?: (router: ApiRouter) => void): RouteTable {
  const api = new ApiRouter();
  registerApi(api);
  extra?.(api);
  const matchers = api.routes.map((r) => ({ ...r, re: patternMatcher(`/api/v4${r.path}`) }));

  const app = new Hono<Env>({ getPath: routingPath });
  // The journal first, so that a request the body cap refuses is recorded too.
  app.use('*', journalMiddleware);
  app.use('*', bodySizeMiddleware);
  app.use('*', faultMiddleware);
  app.use('*', throttleMiddleware);
  app.use('*', async (c, next) => {
    c.set('fx', binding(c).fx);
    // Before the response exists: set afterwards, Hono would rebuild the response around a stream.
    securityHeaders(c);
    await next();
  });
  app.route('/api/v4', api.hono);
  app.all('/api/v3/*', () => {
    throw grapeError(410, 'API V3 is no longer supported. Use API V4 instead.');
  });
  app.all('/api/v3', () => {
    throw grapeError(410, 'API V3 is no longer supported. Use API V4 instead.');
  });
  app.use('/__fauxlab/*', async (c, next) => {
    const b = binding(c);
    if (!b.controlPlane) throw noRoute();
    // A dashboard session stands in for the admin token; its sign-in and sign-out are plain forms.
    const admitted = b.controlPlaneToken !== undefined && dashboardAdmits(c);
    const path = c.req.path;
    guardControlPlane(c.req.raw, {
      token: b.controlPlaneToken,
      admitted,
      formPost: path === '/__fauxlab/login' || path === '/__fauxlab/logout',
      baseUrl: b.fx.baseUrl,
      network: (c.env as RequestEnv).incoming !== undefined,
    });
    await next();
  });
  app.route('/__fauxlab', controlPlane());
  app.route('/', api.web);

  app.notFound((c) => {
    const fx = binding(c).fx;
    const tier = fx.tier();
    const methods = c.req.path.startsWith('/api/v4/')
      ? matchers
          .filter((m) => tierHas(tier, m.tier) && inSpan(fx.gitlab(), m) && m.re.test(c.req.path))
          .map((m) => m.method)
      : [];
    // A known path with another method still answers 404: the platform's catch-all route wins over
    // Grape's 405. Only OPTIONS gets the path's methods.
    if (c.req.method === 'OPTIONS' && methods.length > 0) {
      const allow = ['OPTIONS', ...new Set(methods)];
      if (allow.includes('GET')) allow.push('HEAD');
      return c.body(null, 204, { Allow: allow.join(', ') });
    }
    if (methods.length > 0)
      throw noRoute(`no route for ${c.req.method} on this path (it has ${[...new Set(methods)].join(', ')})`);
    throw noRoute();
  });

  const onError = (err: Error, c: C) => {
    const b = binding(c);
    (c.env as RequestEnv).probe.error = err;
    if (clientClosed(c.env)) return c.body(null, CLIENT_CLOSED as 200);
    securityHeaders(c);
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
      if (b.explain && err.explain !== undefined) c.header('X-Fauxlab-Explain', headerSafe(err.explain));
      if (err.status === 304) return c.body(null, 304);
      // Its text kept on the response: the journal holds it instead of reading the body back.
      return jsonWithText(c, err.body, err.status);
    }
    b.logger(`fauxlab: ${c.req.method} ${c.req.path} crashed`, err);
    const e = internalError();
    return jsonWithText(c, e.body, 500);
  };
  app.onError(onError);

  const lean = new Hono<Env>({ getPath: routingPath, router: new ShapedRouter() });
  lean.route('/api/v4', api.hono);
  lean.notFound(() => NO_MATCH);
  lean.onError(onError);

  return { app, lean, routes: api.routes, jobs: api.jobs };
}

/**
 * The shared table of the built-in routes, built on first use. It holds no instance data: every
 * request brings its instance in its env.
 */
export const sharedTable = (() => {
  let table: RouteTable | undefined;
  return () => (table ??= buildTable());
})();
