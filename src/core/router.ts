/**
 * Declares API routes once, with what each needs from the core (auth mode, token scopes, job tokens),
 * and keeps the route list that `fauxlab routes`, the README coverage list and 405 detection read.
 */
import { Hono } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { allowedScopes, requireAdmin, requireUser, resolveViewer, type AuthOptions } from './auth.js';
import { recordActivity } from './activity.js';
import type { Ctx, Env, RequestEnv, RequestProbe } from './context.js';
import { ApiError, apiError, noRoute } from './errors.js';
import { preloadFiles } from './files.js';
import { checkSpan, inSpan, spanText, type Minor, type Span } from './versions.js';
import type { JobRunner } from './jobs.js';
import {
  checkMultipartParts,
  emptyParams,
  parseFormBody,
  parseJsonBody,
  parseParams,
  parseQuery,
  placeEntries,
  type Parsed,
  type RawParams,
  withDeclaredDefaults,
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
   * the route not match at all, so the request reaches the catch-all 404 before anything else. The last
   * param of a path keeps a `.json` suffix when its requirement admits one (`NO_SLASH_URL_PART`): see
   * `keepsSuffix`.
   */
  requirements?: Record<string, RegExp>;
  /** Extra scopes that open the route on reads, e.g. `read_user` on the users API. */
  readScopes?: string[];
  /**
   * A token of any scope opens the route, reads and writes alike (the platform's
   * `allow_access_with_scope(Gitlab::Auth.all_available_scopes)`, as the token self-service classes have).
   */
  anyScope?: boolean;
  jobToken?: boolean;
  /** Deploy tokens as Bearer values are the area's to check (`deploy_token_allowed`). */
  deployToken?: boolean;
  /**
   * The lowest tier that has the route. Below it the route does not exist (the community edition lacks
   * the EE endpoint): the catch-all 404, explained as a tier problem in the request journal.
   */
  tier?: 'premium' | 'ultimate';
  /**
   * The GitLab releases that have the route (src/core/versions.ts): from `since`, until `until` (the
   * first without it). Outside them the route does not exist: the catch-all 404, explained in the journal.
   */
  since?: Minor;
  until?: Minor;
  /** With `since` / `until`: the platform's source that dates the route (a doc/api page, its merge request). */
  source?: string;
  /**
   * The body is the route's own bytes (a file Workhorse hands over as it came): it is not read as params,
   * whatever its content type; the handler reads it.
   */
  rawBody?: boolean;
  /**
   * The route reads its credentials itself, as an endpoint with Grape's `authenticate_with` does (only
   * the token types and places it names count): the usual lookup is skipped and the viewer is anonymous
   * until the handler finds its own.
   */
  ownCredentials?: boolean;
}

export interface RouteInfo {
  method: Method;
  /** Path under `/api/v4`, in `:param` form. */
  path: string;
  /** The lowest tier that has the route, when not every tier does. */
  tier?: 'premium' | 'ultimate';
  /** The releases that have the route, when not every supported one does, and what dates them. */
  since?: Minor;
  until?: Minor;
  source?: string;
}

const TIER_RANK = { free: 0, premium: 1, ultimate: 2 } as const;

/** Whether an instance of `tier` has a route that needs `needs`. */
export const tierHas = (tier: keyof typeof TIER_RANK, needs?: 'premium' | 'ultimate') =>
  needs === undefined || TIER_RANK[tier] >= TIER_RANK[needs];

/**
 * `API::NO_SLASH_URL_PART_REGEX` (`%r{[^/]+}`), the requirement of file paths, branch, tag and project
 * names (`NAMESPACE_OR_PROJECT_REQUIREMENTS`, `FILE_ENDPOINT_REQUIREMENTS`, `COMMIT_ENDPOINT_REQUIREMENTS`).
 * The platform tests it on the raw segment; a requirement here is tested on the decoded param, where
 * `acme%2Fapp` reads `acme/app`: so any segment at all, dots included.
 */
export const NO_SLASH_URL_PART = /^[\s\S]+$/;

/** The format suffix Grape's `format :json` adds to every path as optional (`(.json)`). */
const SUFFIX = '.json';

/**
 * The param at the end of `path` that keeps a `.json` suffix, if any. Grape compiles a path to
 * `...:param(.json)`, and a param without a requirement matches no dot (Mustermann's `[^/?#.]+`), so
 * the suffix is the format's; a param whose requirement admits the suffix (`[^/]+`) takes it greedily,
 * so that `files/renovate.json` is the file `renovate.json`. A splat (`*path`, `format: false` on the
 * platform, `{.+}` here) keeps it too.
 */
export function keepsSuffix(
  path: string,
  requirements: Record<string, RegExp> | undefined,
): string | undefined {
  const last = path.slice(path.lastIndexOf('/') + 1);
  const m = /^:([A-Za-z_][A-Za-z0-9_]*)(\{\.\+\})?$/.exec(last);
  if (!m) return undefined;
  const name = m[1]!;
  if (m[2] !== undefined) return name;
  const re = requirements?.[name];
  return re !== undefined && re.test(`x${SUFFIX}`) ? name : undefined;
}

/** Whether the request's raw path (before any query) ends with the format suffix the routing took off. */
function rawSuffixed(url: string): boolean {
  let end = url.indexOf('?');
  if (end < 0) end = url.length;
  const hash = url.indexOf('#');
  if (hash >= 0 && hash < end) end = hash;
  return url.startsWith(SUFFIX, end - SUFFIX.length);
}

/**
 * A path param as the route has it: with the `.json` suffix given back when the route's last param
 * keeps it (`keepsSuffix`). Handlers that read a path param themselves rather than through their params
 * read it here.
 */
export function pathParam(c: Ctx, name: string): string {
  const v = (c.get('params') as RawParams | undefined)?.[name];
  return typeof v === 'string' ? v : (c.req.param(name) ?? '');
}

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

  /** Matchers of the routes' paths, by route index, made when first asked. */
  readonly #matchers: RegExp[] = [];

  /**
   * Whether a route registered after route `index`, of its method and present at this instance's release
   * and tier, matches `path` (the request's path): Hono tries it next. Asked only for a dated route out
   * of its span, so that a route added later does not change what the releases before it answer.
   */
  #laterRouteTakes(
    index: number,
    path: string,
    fx: { gitlab(): Minor; tier(): 'free' | 'premium' | 'ultimate' },
  ) {
    const method = this.routes[index]!.method;
    for (let i = index + 1; i < this.routes.length; i++) {
      const r = this.routes[i]!;
      if (r.method !== method || !tierHas(fx.tier(), r.tier) || !inSpan(fx.gitlab(), r)) continue;
      const re = (this.#matchers[i] ??= patternMatcher(`/api/v4${r.path}`));
      if (re.test(path)) return true;
    }
    return false;
  }

  on<S extends Shape>(method: Method, path: string, a: RouteOptions<S> | Handler<S>, b?: Handler<S>): this {
    const opts: RouteOptions<S> = typeof a === 'function' ? {} : a;
    const handler = (typeof a === 'function' ? a : b)!;
    const read = method === 'GET';
    const auth: AuthOptions = {
      auth: opts.auth ?? (read ? 'optional' : 'required'),
      scopes: opts.anyScope ? 'any' : allowedScopes(method, opts.readScopes),
      jobToken: opts.jobToken ?? false,
      deployToken: opts.deployToken ?? false,
    };
    const shape = opts.params;
    const tier = opts.tier;
    const span: Span = { since: opts.since, until: opts.until };
    const dated = span.since !== undefined || span.until !== undefined;
    const info: RouteInfo = { method, path };
    if (tier) info.tier = tier;
    if (dated) {
      // Checked as `versioned` checks a declaration: a dated route names what dates it.
      checkSpan(`${method} ${path}`, span);
      if (!opts.source) throw new Error(`${method} ${path}: a dated route needs its source`);
      if (span.since !== undefined) info.since = span.since;
      if (span.until !== undefined) info.until = span.until;
      info.source = opts.source;
    }
    const index = this.routes.push(info) - 1;
    const requirements = Object.entries(opts.requirements ?? {});
    // The routing path has lost a `.json` suffix (src/host/table.ts); this param gets it back.
    const suffixed = keepsSuffix(path, opts.requirements);
    const param = (c: Ctx, n: string): string => {
      const v = c.req.param(n) ?? '';
      return n === suffixed && rawSuffixed(c.req.url) ? v + SUFFIX : v;
    };
    // Mounted under one prefix (`/api/v4`), so the name is the same on every request: found once.
    let name: string | undefined;
    const run = (c: Ctx, raw: RawParams, probe: RequestProbe | undefined): Response | Promise<Response> => {
      c.set('params', raw);
      c.set('linkParams', raw);
      const viewer = opts.ownCredentials
        ? { user: null, token: null, sudoFrom: null }
        : resolveViewer(c, auth);
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
    this.hono.on(method, path, (c: Ctx, next: () => Promise<void>): Response | Promise<Response> => {
      const env = c.env as Partial<RequestEnv> | undefined;
      const bound = env?.fauxlab;
      if (bound) c.set('fx', bound.fx);
      const probe = env?.probe;
      if (probe) probe.route = name ??= routeName(c);
      const fx = c.get('fx');
      if (!tierHas(fx.tier(), tier))
        throw noRoute(`no such route on the ${fx.tier()} tier (it needs ${tier})`);
      if (dated && !inSpan(fx.gitlab(), span)) {
        // Grape has no such route at this release, so the path goes to the route that takes it then
        // (`DELETE /personal_access_tokens/self` before 15.0 is `DELETE /personal_access_tokens/:id`).
        if (this.#laterRouteTakes(index, c.req.path, fx)) return next().then(() => c.res);
        throw noRoute(`no such route in GitLab ${fx.gitlab()} (it is in ${spanText(span)})`);
      }
      for (const [n, re] of requirements) if (!re.test(param(c, n))) throw noRoute();
      if (suffixed === undefined) {
        if (read || opts.rawBody) return run(c, readQueryParams(c), probe);
        return readParams(c).then((raw) => run(c, raw, probe));
      }
      const restore = (raw: RawParams) => {
        raw[suffixed] = param(c, suffixed);
        return raw;
      };
      if (read || opts.rawBody) return run(c, restore(readQueryParams(c)), probe);
      return readParams(c).then((raw) => run(c, restore(raw), probe));
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
  c.set('linkParams', withDeclaredDefaults(shape, raw));
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

/** What a path shape matched: the one route, and which of the path's segments are its params. */
interface ShapeMatch<T> {
  handler: T;
  /** Param names with the index of their segment (counted after the leading slash). */
  params: readonly (readonly [string, number])[];
}

/**
 * Hono's default router (the same routers, the same results), with the matches of path shapes kept: a
 * path is matched as it is first, and the next path that differs from it only in its numeric segments
 * (`/users/1`, `/users/2`) reuses the route found and reads its params from its own segments. The
 * router's work (splitting, walking the tree, the params objects) was more per request than the rest of
 * the dispatch.
 *
 * Sound because no route tells one run of digits from another: the table is checked for that as routes
 * are added (no segment of only digits, no prefix wildcard, no regex param that could match a segment of
 * digits but for `.+`), and any route set that fails the check is matched plainly every time. Only a
 * match of one route whose segments are literals and plain params is reused, and it is checked against
 * the router's own answer for the first path of its shape.
 */
export class ShapedRouter<T> implements Router<T> {
  readonly name = 'ShapedRouter';
  readonly #inner: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });
  /** Per handler of a plain route: its segments, a param's name or null for a literal. */
  readonly #plain = new Map<T, readonly (string | null)[]>();
  #sound = true;
  /** By method and shape; null: matched plainly every time. Bounded: cleared when full. */
  readonly #shapes = new Map<string, ShapeMatch<T> | null>();
  static readonly SHAPES = 4096;

  add(method: string, path: string, handler: T): void {
    this.#inner.add(method, path, handler);
    const segs = path.split('/').slice(1);
    let plain = true;
    const names: (string | null)[] = [];
    // An optional param makes more than one pattern of the path.
    if (path.endsWith('?')) this.#sound = false;
    for (const seg of segs) {
      const param = /^:([^{}]+)(?:\{(.+)\})?$/.exec(seg);
      if (!param) {
        if (/^\d+$/.test(seg) || (seg.includes('*') && seg !== '*')) this.#sound = false;
        if (seg === '*') plain = false;
        names.push(null);
        continue;
      }
      const regex = param[2];
      if (regex === undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(param[1]!)) {
        names.push(param[1]!);
        continue;
      }
      plain = false;
      // A regex that must begin with a letter never matches a segment of digits, whatever the digits.
      if (regex !== undefined && regex !== '.+' && !/^[A-Za-z]+(?:\(\?:[^|()]*\)\??)?$/.test(regex))
        this.#sound = false;
    }
    if (plain) this.#plain.set(handler, names);
  }

  match(method: string, path: string): Result<T> {
    if (!this.#sound || path.charCodeAt(0) !== 47) return this.#inner.match(method, path);
    const key = method + ' ' + shapeOf(path);
    const known = this.#shapes.get(key);
    if (known) return [[[known.handler, paramsAt(path, known.params)]]];
    const res = this.#inner.match(method, path);
    if (known === undefined) {
      if (this.#shapes.size >= ShapedRouter.SHAPES) this.#shapes.clear();
      this.#shapes.set(key, this.#reusable(res, path));
    }
    return res;
  }

  /** The match to keep for `path`'s shape, if the router's answer is one plain route. */
  #reusable(res: Result<T>, path: string): ShapeMatch<T> | null {
    if (res.length !== 1 || res[0].length !== 1) return null;
    const [handler, given] = res[0][0]!;
    const names = this.#plain.get(handler);
    const segs = path.split('/').slice(1);
    if (!names || names.length !== segs.length) return null;
    const params: [string, number][] = [];
    for (let i = 0; i < names.length; i++) {
      const n = names[i];
      if (n === null || n === undefined) continue;
      if ((given as Record<string, string>)[n] !== segs[i]) return null;
      params.push([n, i]);
    }
    // The same keys in the same order as the router gives them.
    const check = paramsAt(path, params);
    const a = Object.keys(given);
    const b = Object.keys(check);
    if (a.length !== b.length || a.some((k, i) => k !== b[i])) return null;
    return { handler, params };
  }
}

/** The path with each segment of only digits written `0`. */
export function shapeOf(path: string): string {
  let out = '';
  let from = 0;
  let seg = 1;
  let digits = true;
  for (let i = 1; i <= path.length; i++) {
    const ch = i < path.length ? path.charCodeAt(i) : 47;
    if (ch === 47) {
      if (digits && i > seg) {
        out += path.slice(from, seg) + '0';
        from = i;
      }
      seg = i + 1;
      digits = true;
    } else if (ch < 48 || ch > 57) digits = false;
  }
  return from === 0 ? path : out + path.slice(from);
}

/** The params of a plain route, read from the path's segments, as the router gives them (no prototype). */
function paramsAt(path: string, at: readonly (readonly [string, number])[]): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  let seg = 0;
  let start = 1;
  for (let k = 0; k < at.length; k++) {
    const [name, index] = at[k]!;
    while (seg < index) {
      start = path.indexOf('/', start) + 1;
      seg++;
    }
    const end = path.indexOf('/', start);
    out[name] = end < 0 ? path.slice(start) : path.slice(start, end);
  }
  return out;
}
