/**
 * Declares API routes once, with what each needs from the core (auth mode, token scopes, job tokens),
 * and keeps the route list that `fauxlab routes`, the README coverage list and 405 detection read.
 */
import { Hono } from 'hono';
import { matchedRoutes } from 'hono/route';
import { allowedScopes, requireAdmin, requireUser, resolveViewer, type AuthOptions } from './auth.js';
import { recordActivity } from './activity.js';
import type { Ctx, Env, RequestEnv, RequestProbe } from './context.js';
import { ApiError, apiError, noRoute } from './errors.js';
import { preloadFiles } from './files.js';
import type { JobRunner } from './jobs.js';
import {
  checkMultipartParts,
  declaredDefaults,
  emptyParams,
  parseFormBody,
  parseJsonBody,
  parseParams,
  parseQuery,
  placeEntries,
  type Parsed,
  type RawParams,
  type Shape,
} from './params.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteOptions<S extends Shape = Shape> {
  /**
   * `required` / `admin` are checked after the params are validated, as the platform's endpoints do
   * (`authenticate!` / `authenticated_as_admin!` in the endpoint body): bad params are a 400 first.
   * Writes always need a user before anything else (the platform's `authenticate_non_get!` filter)
   * unless `optional` is given explicitly. Default: `optional` for GET, `required` for writes.
   */
  auth?: AuthOptions['auth'];
  /** Declared params: validated before the handler runs and handed to it typed. */
  params?: S;
  /**
   * Grape route requirements (`requirements: { id: /^[0-9]+$/ }`): a path param that does not match makes
   * the route not match at all, so the request reaches the catch-all 404 before anything else.
   */
  requirements?: Record<string, RegExp>;
  /** Extra scopes that open the route on reads, e.g. `read_user` on the users API. */
  readScopes?: string[];
  jobToken?: boolean;
  /**
   * The lowest tier that has the route. Below it the route does not exist (the community edition lacks
   * the EE endpoint): the catch-all 404, explained as a tier problem in the request journal.
   */
  tier?: 'premium' | 'ultimate';
  /**
   * The body is the route's own bytes (a file Workhorse hands over as it came): it is not read as params,
   * whatever its content type; the handler reads it.
   */
  rawBody?: boolean;
}

export interface RouteInfo {
  method: Method;
  /** Path under `/api/v4`, in `:param` form. */
  path: string;
  /** The lowest tier that has the route, when not every tier does. */
  tier?: 'premium' | 'ultimate';
}

const TIER_RANK = { free: 0, premium: 1, ultimate: 2 } as const;

/** Whether an instance of `tier` has a route that needs `needs`. */
export const tierHas = (tier: keyof typeof TIER_RANK, needs?: 'premium' | 'ultimate') =>
  needs === undefined || TIER_RANK[tier] >= TIER_RANK[needs];

type Handler<S extends Shape = Shape> = (c: Ctx, params: Parsed<S>) => Response | Promise<Response>;

async function readBody(c: Ctx): Promise<RawParams> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return emptyParams();
  if (type.startsWith('application/json')) return parseJsonBody(await c.req.text());
  if (type.startsWith('application/x-www-form-urlencoded'))
    return parseFormBody(new Uint8Array(await c.req.arrayBuffer()));
  if (type.startsWith('multipart/form-data')) {
    let form: FormData;
    try {
      checkMultipartParts(new Uint8Array(await c.req.arrayBuffer()), type);
      form = await c.req.formData();
      await preloadFiles(form.entries() as Iterable<[string, string | File]>);
    } catch (e) {
      // The body cap's 413 stands; anything else is a body that is not multipart.
      if (e instanceof ApiError) throw e;
      throw apiError(400, '400 Bad request');
    }
    return placeEntries(form.entries() as Iterable<[string, string | File]>);
  }
  return emptyParams();
}

/** Query, then body, then path params: later sources win, as in Grape's params. */
async function readParams(c: Ctx): Promise<RawParams> {
  const url = c.req.url;
  const q = url.indexOf('?');
  const params = parseQuery(q < 0 ? '' : url.slice(q + 1));
  Object.assign(params, await readBody(c));
  Object.assign(params, c.req.param() as Record<string, string>);
  return params;
}

/** `readParams` of a GET: there is no body to wait for, so the route runs without a promise in between. */
function readQueryParams(c: Ctx): RawParams {
  const url = c.req.url;
  const q = url.indexOf('?');
  const params = parseQuery(q < 0 ? '' : url.slice(q + 1));
  Object.assign(params, c.req.param() as Record<string, string>);
  return params;
}

/** The route as the journal names it (`GET /api/v4/users/:id`), from inside its handler. */
function routeName(c: Ctx): string {
  const r = matchedRoutes(c)[c.req.routeIndex]!;
  return `${r.method} ${r.path}`;
}

export class ApiRouter {
  readonly hono = new Hono<Env>();
  readonly routes: RouteInfo[] = [];
  /**
   * Routes outside `/api/v4` that an area serves as the platform's web side does (uploaded files under
   * `/<project path>/uploads/...`, OAuth pages): mounted at the root, after the API.
   */
  readonly web = new Hono<Env>();
  /** Background job runners by kind (src/core/jobs.ts). */
  readonly jobs = new Map<string, JobRunner>();

  /** Registers the runner of a background job kind. */
  job(kind: string, runner: JobRunner): this {
    if (this.jobs.has(kind)) throw new Error(`job kind "${kind}" registered twice`);
    this.jobs.set(kind, runner);
    return this;
  }

  get<S extends Shape>(path: string, a: RouteOptions<S> | Handler<S>, b?: Handler<S>) {
    return this.on('GET', path, a, b);
  }
  post<S extends Shape>(path: string, a: RouteOptions<S> | Handler<S>, b?: Handler<S>) {
    return this.on('POST', path, a, b);
  }
  put<S extends Shape>(path: string, a: RouteOptions<S> | Handler<S>, b?: Handler<S>) {
    return this.on('PUT', path, a, b);
  }
  patch<S extends Shape>(path: string, a: RouteOptions<S> | Handler<S>, b?: Handler<S>) {
    return this.on('PATCH', path, a, b);
  }
  delete<S extends Shape>(path: string, a: RouteOptions<S> | Handler<S>, b?: Handler<S>) {
    return this.on('DELETE', path, a, b);
  }

  on<S extends Shape>(method: Method, path: string, a: RouteOptions<S> | Handler<S>, b?: Handler<S>): this {
    const opts: RouteOptions<S> = typeof a === 'function' ? {} : a;
    const handler = (typeof a === 'function' ? a : b)!;
    const read = method === 'GET';
    const auth: AuthOptions = {
      auth: opts.auth ?? (read ? 'optional' : 'required'),
      scopes: allowedScopes(method, opts.readScopes),
      jobToken: opts.jobToken ?? false,
    };
    const shape = opts.params;
    const tier = opts.tier;
    this.routes.push(tier ? { method, path, tier } : { method, path });
    const requirements = Object.entries(opts.requirements ?? {});
    // Mounted under one prefix (`/api/v4`), so the name is the same on every request: found once.
    let name: string | undefined;
    const run = (c: Ctx, raw: RawParams, probe: RequestProbe | undefined): Response | Promise<Response> => {
      c.set('params', raw);
      c.set('linkParams', raw);
      const viewer = resolveViewer(c, auth);
      c.set('viewer', viewer);
      if (probe) probe.viewer = viewer;
      if (!read && auth.auth !== 'optional') requireUser(c);
      const params = (shape ? parse(c, shape) : {}) as Parsed<S>;
      if (auth.auth === 'required') requireUser(c);
      else if (auth.auth === 'admin') requireAdmin(c);
      const res = handler(c, params);
      // Only an endpoint that did not throw (Grape's `after` runs for those alone).
      if (!viewer.user) return res;
      if (res instanceof Promise)
        return res.then((r) => {
          recordActivity(c.get('fx'), viewer.user);
          return r;
        });
      recordActivity(c.get('fx'), viewer.user);
      return res;
    };
    // Not async: a GET runs to its response in one go (the lean path of app.ts returns it as it is).
    this.hono.on(method, path, (c: Ctx): Response | Promise<Response> => {
      const env = c.env as Partial<RequestEnv> | undefined;
      const bound = env?.fauxlab;
      if (bound) c.set('fx', bound.fx);
      const probe = env?.probe;
      if (probe) probe.route = name ??= routeName(c);
      const fx = c.get('fx');
      if (!tierHas(fx.tier(), tier))
        throw noRoute(`no such route on the ${fx.tier()} tier (it needs ${tier})`);
      for (const [n, re] of requirements) if (!re.test(c.req.param(n) ?? '')) throw noRoute();
      if (read || opts.rawBody) return run(c, readQueryParams(c), probe);
      return readParams(c).then((raw) => run(c, raw, probe));
    });
    return this;
  }
}

/**
 * Validates the request's params against a declared shape and returns them typed. Also records the
 * params as Grape would have them (declared defaults filled in) for pagination links.
 */
export function parse<S extends Shape>(c: Ctx, shape: S): Parsed<S> {
  const raw = c.get('params');
  const out = parseParams(shape, raw);
  c.set('linkParams', { ...declaredDefaults(shape), ...raw });
  return out;
}

/** Turns a route pattern into a matcher for raw (still percent-encoded) paths. */
export function patternMatcher(path: string): RegExp {
  const src = path
    .split('/')
    .map((seg) =>
      seg.startsWith(':')
        ? seg.endsWith('{.+}')
          ? '.+'
          : '[^/]+'
        : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${src}$`);
}
