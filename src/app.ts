/**
 * The instance factory. The route table (every API route, the control plane, error handling) is built
 * once per process and shared, immutable; an instance is its own state, clock, journal and faults,
 * bound to each request through the request's env. Creating an instance therefore registers nothing.
 */
import { Hono, type Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import { Clock } from './core/clock.js';
import type { Env, Fx, RequestProbe } from './core/context.js';
import { chunkResponse, chunksOf, madeOf, materialize, plainHeaders, plainResponse } from './core/respond.js';
import { ResponseMemo, type Kept, type MemoOptions } from './core/memo.js';
import { ApiError, apiError, grapeError, internalError, noRoute } from './core/errors.js';
import { patternMatcher, ApiRouter, tierHas, type RouteInfo } from './core/router.js';
import type { PlatformState, Tier } from './core/state.js';
import { Store } from './core/store.js';
import { settleJobs, type JobRunner } from './core/jobs.js';
import { controlPlane } from './admin/control.js';
import { guardControlPlane } from './admin/guard.js';
import { registerApi } from './resources/index.js';
import { buildWorld, loadScenario, type Scenario, type ScenarioInput } from './scenario/index.js';
import { faultResponse, Faults, type Fault, type FaultSpec } from './testing/faults.js';
import {
  captureResponse,
  clientClosed,
  CLIENT_CLOSED,
  Journal,
  journalHeaders,
  journalQuery,
  journalRequestBody,
  PendingEntry,
  rawPathname,
  requestLog,
  type JournalEntry,
  type JournalOptions,
  type RequestLog,
} from './testing/journal.js';
import { normalisePath } from './testing/match.js';

export interface FauxlabOptions {
  /** A scenario object, or the path of a JSON or YAML scenario file. Default: an empty world. */
  scenario?: ScenarioInput;
  /** Seed for generated records and fault draws; overrides the scenario's. */
  seed?: number;
  /** Overrides the scenario's tier. `free` behaves as the community edition. */
  tier?: Tier;
  /** External URL (`http://gitlab.example.com`); else each request's own scheme, host and port. */
  baseUrl?: string;
  /** Where the instance clock starts; overrides the scenario's `now`. */
  now?: string | Date;
  /** Run the clock in real time from its start (the CLI does); default frozen. */
  realtimeClock?: boolean;
  /** Serve the control plane under `/__fauxlab/` (default true). */
  controlPlane?: boolean;
  /**
   * Require `Authorization: Bearer <token>` on every `/__fauxlab/` request (else 401), for a mock served on
   * a shared host. Default: none required.
   */
  controlPlaneToken?: string;
  /**
   * The largest request body accepted, in bytes (default 64 MiB, above the platform's 50 MB import cap);
   * a larger one is refused with 413 before it is read whole, so one request cannot exhaust memory.
   */
  maxBodySize?: number;
  /**
   * Bytes all project uploads together may hold (default 512 MiB); an upload past it is refused with 413, so
   * that a long-running mock cannot be filled until it runs out of memory.
   */
  maxUploadsTotal?: number;
  /** Impersonation tokens are honoured (default true, as on the platform). */
  impersonation?: boolean;
  /** What `GET /version` reports (default `13.12.15`; paid tiers add `-ee`). */
  version?: string;
  /**
   * Registers extra routes under `/api/v4` (endpoints fauxlab lacks, or test doubles), with the core's
   * rules. An instance with extra routes builds a route table of its own, so creating it costs more.
   */
  routes?: (router: ApiRouter) => void;
  /** Log crashes (500s) to this function; default console.error. */
  logger?: (message: string, error: unknown) => void;
  /**
   * The request journal: entries kept (default 1,000), or `{ size, bodyLimit, responseBodies }`; `false` or 0 turns
   * it off.
   */
  journal?: number | false | JournalOptions;
  /**
   * Send each 404's reason in an `X-Fauxlab-Explain` header (default off: the platform sends no such
   * header). The journal records the reason either way.
   */
  explain?: boolean;
  /** Faults in place from the start, and again after each `reset()`. */
  faults?: FaultSpec[];
  /**
   * Repeated GETs answered from memory while the world stands (src/core/memo.ts): on by default,
   * `{ entries, bytes }` bounds it, `false` computes every answer.
   */
  responseCache?: false | MemoOptions;
}

export interface Snapshot {
  state: PlatformState;
  clock: number;
}

/** The faults of an instance: `add` returns the fault with its id. */
export interface FaultControl {
  add(spec: FaultSpec): Fault;
  list(): Fault[];
  remove(id: number): boolean;
  clear(): void;
}

export interface Fauxlab {
  /**
   * The Hono app: mount it, call `app.request()` in tests, or serve `app.fetch` (`serve({ fetch:
   * fx.app.fetch })`): unlike `fetch`, it answers a plain GET without a promise, which a server writes
   * sooner.
   */
  app: Hono<Env>;
  /**
   * The instance's fetch handler (for servers and MSW). `env` is what a Hono adapter passes (the Node
   * server's `{ incoming, outgoing }`, used to drop connections).
   */
  fetch: (request: Request, env?: object) => Promise<Response>;
  /** The current state (read-only: it is frozen). */
  readonly state: PlatformState;
  clock: Clock;
  /** The scenario the instance was built from (after `extends` and defaults). */
  readonly scenario: Scenario;
  /** Every API route, as `fauxlab routes` lists them. */
  routes: RouteInfo[];
  /** The request journal: `requests()` lists entries, `requests({ method, path, status, since })` filters. */
  requests: RequestLog;
  /** Injected faults. */
  faults: FaultControl;
  /**
   * Back to how the instance was created: the loaded scenario's state and clock, an empty journal, the
   * initial faults, no named snapshots.
   */
  reset(): void;
  /** Replaces the world with another scenario; `reset()` then returns to it. */
  load(scenario: ScenarioInput): void;
  /** O(1): immer roots are immutable, so a snapshot is a reference. A name keeps it for `restore(name)`. */
  snapshot(name?: string): Snapshot;
  /** Back to a snapshot (state and clock), given itself or its name; throws for an unknown name. */
  restore(snapshot: Snapshot | string): void;
  /** Names of the kept snapshots. */
  snapshots(): string[];
}

/** What the shared route table needs of an instance, handed over in each request's env. */
export interface Binding {
  fx: Fx;
  instance: Fauxlab;
  journal: Journal;
  faults: Faults;
  explain: boolean;
  controlPlane: boolean;
  controlPlaneToken?: string;
  maxBodySize: number;
  logger: (message: string, error: unknown) => void;
}

/** Per-request flags the table raises for the instance's fetch. */
interface Probe extends RequestProbe {
  drop?: boolean;
  /** The journal entry, waiting for the response. */
  entry?: Omit<JournalEntry, 'id'>;
  /** Ids of the faults that applied. */
  faults?: number[];
}

interface RequestEnv {
  fauxlab: Binding;
  probe: Probe;
  incoming?: { socket?: { destroy(): void } };
}

type C = Context<Env>;

const binding = (c: C) => (c.env as RequestEnv).fauxlab;

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

/** Whether a URL's raw path is under `/api/v4/` (the routes the lean path may answer). */
function isApiUrl(url: string): boolean {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  return start >= 0 && url.startsWith('/api/v4/', start);
}

/**
 * The raw header list of the Node request behind `request`, when it is the server's own request: not
 * when the instance is mounted in another app, whose middleware may have changed the headers since.
 * The journal keeps it rather than @hono/node-server's lazy headers, which hold on to the whole Node
 * request; the response cache builds its key from it.
 */
function rawHeadersOf(request: Request, env: object | undefined): readonly string[] | undefined {
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
const ALREADY_SENT = (() => {
  const proto = Object.getPrototypeOf(Response) as unknown;
  const Native = (
    typeof proto === 'function' && proto !== Function.prototype ? proto : Response
  ) as typeof Response;
  return new Native(null, { headers: { 'x-hono-already-sent': '1' } });
})();

/** Marks the env of a request that reached the instance through `app` mounted in another Hono app. */
const MOUNTED = Symbol('fauxlab.mounted');

interface NodeOutgoing {
  headersSent: boolean;
  writableEnded: boolean;
  destroyed: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  cork(): void;
  uncork(): void;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
}

/**
 * What to hand back for a response: a `jsonChunks` one is written straight to the Node server's
 * response (one gathered write, no copy into one buffer) when the request came from a Node server that
 * can take it, else joined (`materialize`); any other response as it is.
 */
function deliver(res: Response, env: object | undefined): Response {
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
  o.writeHead(res.status, { ...headers, 'content-length': String(c.size) });
  o.cork();
  for (const chunk of c.chunks) o.write(chunk);
  o.end();
  o.uncork();
  return ALREADY_SENT;
}

/** What the lean table answers when no route matched: the request then goes the full way. */
const NO_MATCH = new Response(null, { status: 599 });

const isControlPath = (b: Binding, path: string) =>
  b.controlPlane && (path === '/__fauxlab' || path.startsWith('/__fauxlab/'));

const hasCredential = (req: Request) =>
  req.headers.has('private-token') ||
  req.headers.has('authorization') ||
  req.headers.has('job-token') ||
  /[?&](private_token|access_token|job_token)=/.test(req.url);

/** Header values must be ByteStrings; reasons may quote user input. */
const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/g, (ch) => encodeURIComponent(ch));

const securityHeaders = (c: C) => {
  c.header('X-Frame-Options', 'SAMEORIGIN');
  c.header('X-Content-Type-Options', 'nosniff');
};

/**
 * The security headers on a finished response, where the handler did not set them itself (the full
 * path sets them before the handler, which may override them). A response with immutable headers is
 * copied first.
 */
function withSecurityHeaders(res: Response): Response {
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

/**
 * Prepares the journal entry of every exchange except the control plane's; the instance's fetch adds the
 * response body and stores it (the body is read there, once).
 */
async function journalMiddleware(c: C, next: () => Promise<void>): Promise<void> {
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

/** Applies the instance's faults: latency first, then an answer in the route's place if one fired. */
async function faultMiddleware(c: C, next: () => Promise<void>): Promise<Response | void> {
  const b = binding(c);
  if (b.faults.size === 0 || isControlPath(b, c.req.path)) return next();
  const plan = b.faults.plan(c.req.method, c.req.path);
  if (!plan) return next();
  (c.env as RequestEnv).probe.faults = plan.ids;
  if (plan.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, plan.delayMs));
  const f = plan.answer;
  if (!f) return next();
  if (f.drop) {
    (c.env as RequestEnv).probe.drop = true;
    return new Response(null, { status: 204 });
  }
  return faultResponse(f, {
    nowMs: b.fx.clock.ms(),
    authenticated: hasCredential(c.req.raw),
    head: c.req.method === 'HEAD',
  });
}

/** Default request body cap: above the platform's 50 MB import cap and its 10 MB attachments. */
export const DEFAULT_MAX_BODY_SIZE = 64 * 1024 * 1024;

/** Default cap on the bytes of all uploads together. */
export const DEFAULT_MAX_UPLOADS_TOTAL = 512 * 1024 * 1024;

/** The body cap's refusals: the journal records such a request without reading its body. */
const oversized = new WeakSet<ApiError>();

const tooLarge = () => {
  const e = apiError(413, '413 Request Entity Too Large');
  oversized.add(e);
  return e;
};

/**
 * Caps the request body: a declared length over the cap is refused at once; a body of unknown length is
 * counted as it streams, and reading it fails with the 413 as soon as it passes the cap.
 */
async function bodySizeMiddleware(c: C, next: () => Promise<void>): Promise<void> {
  const max = binding(c).maxBodySize;
  const raw = c.req.raw;
  // The method first: reading `body` of @hono/node-server's lightweight request builds a full Request.
  if (raw.method === 'GET' || raw.method === 'HEAD' || !raw.body || !Number.isFinite(max)) return next();
  const declared = c.req.header('content-length');
  if (declared !== undefined) {
    if (!/^\d+$/.test(declared) || Number(declared) > max) throw tooLarge();
    return next();
  }
  const reader = raw.body.getReader();
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

interface RouteTable {
  app: Hono<Env>;
  /**
   * The API routes alone, with the same error handling and no middleware: what a GET that matches a
   * route takes when no fault is set. The instance's fetch does the middleware's work itself (journal,
   * security headers; the body cap and faults do not apply), and a request that matches nothing here
   * (`NO_MATCH`) goes through `app` instead, which answers it as before.
   */
  lean: Hono<Env>;
  routes: RouteInfo[];
  jobs: ReadonlyMap<string, JobRunner>;
}

/** Builds the route table: every area's routes plus `extra`, the control plane and error handling. */
function buildTable(extra?: (router: ApiRouter) => void): RouteTable {
  const api = new ApiRouter();
  registerApi(api);
  extra?.(api);
  const matchers = api.routes.map((r) => ({ ...r, re: patternMatcher(`/api/v4${r.path}`) }));

  const app = new Hono<Env>({ getPath: routingPath });
  // The journal first, so that a request the body cap refuses is recorded too.
  app.use('*', journalMiddleware);
  app.use('*', bodySizeMiddleware);
  app.use('*', faultMiddleware);
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
    guardControlPlane(c.req.raw, {
      token: b.controlPlaneToken,
      baseUrl: b.fx.baseUrl,
      network: (c.env as RequestEnv).incoming !== undefined,
    });
    await next();
  });
  app.route('/__fauxlab', controlPlane());
  app.route('/', api.web);

  app.notFound((c) => {
    const tier = binding(c).fx.tier();
    const methods = c.req.path.startsWith('/api/v4/')
      ? matchers.filter((m) => tierHas(tier, m.tier) && m.re.test(c.req.path)).map((m) => m.method)
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
      return c.json(err.body, err.status as 400);
    }
    b.logger(`fauxlab: ${c.req.method} ${c.req.path} crashed`, err);
    const e = internalError();
    return c.json(e.body, 500);
  };
  app.onError(onError);

  const lean = new Hono<Env>({ getPath: routingPath });
  lean.route('/api/v4', api.hono);
  lean.notFound(() => NO_MATCH);
  lean.onError(onError);

  return { app, lean, routes: api.routes, jobs: api.jobs };
}

/**
 * The shared table of the built-in routes, built on first use. It holds no instance data: every
 * request brings its instance in its env.
 */
const sharedTable = (() => {
  let table: RouteTable | undefined;
  return () => (table ??= buildTable());
})();

function journalOptions(o: FauxlabOptions['journal']): JournalOptions {
  if (o === false) return { size: 0 };
  if (typeof o === 'number') return { size: o };
  return o ?? {};
}

export function createFauxlab(options: FauxlabOptions = {}): Fauxlab {
  let scenario = loadScenario(options.scenario ?? {});
  const initialClock = () => options.now ?? scenario.now ?? DEFAULT_START;
  const world = () =>
    buildWorld(scenario, { seed: options.seed, tier: options.tier, now: new Date(initialClock()) });
  const clock = new Clock(initialClock(), options.realtimeClock ?? false);
  let initial = world();
  const store = new Store(initial);
  const logger = options.logger ?? ((msg, err) => console.error(msg, err));
  const journal = new Journal(journalOptions(options.journal));
  const faults = new Faults(options.seed ?? scenario.seed);
  const initialFaults = options.faults ?? [];
  for (const f of initialFaults) faults.add(f);
  const named = new Map<string, Snapshot>();

  const fx: Fx = {
    store,
    clock,
    baseUrl: options.baseUrl?.replace(/\/+$/, ''),
    impersonationEnabled: options.impersonation ?? true,
    version: options.version,
    maxUploadsTotal: options.maxUploadsTotal ?? DEFAULT_MAX_UPLOADS_TOTAL,
    tier: () => store.state.tier,
  };

  const table = options.routes ? buildTable(options.routes) : sharedTable();
  const memo = options.responseCache === false ? undefined : new ResponseMemo(options.responseCache);

  function fetch(request: Request, env?: object): Promise<Response> {
    try {
      const res = handle(request, env);
      return res instanceof Promise ? res : Promise.resolve(res);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * `fetch`, answering at once where it can: a GET that needs nothing asynchronous gets its response
   * without a promise, which lets @hono/node-server write it on its synchronous path (`app.fetch`).
   */
  function handle(request: Request, env?: object): Response | Promise<Response> {
    // Background work that fell due since the last request happens before this one is answered.
    if (store.state.jobs.length > 0) settleJobs(fx, table.jobs, logger);
    if (request.method !== 'GET' || faults.size > 0 || !isApiUrl(request.url)) return fullFetch(request, env);
    const t0 = performance.now();
    const at = journal.enabled ? clock.ms() : 0;
    const root = store.state;
    const raw = memo || journal.enabled ? rawHeadersOf(request, env) : undefined;
    let key: string | undefined;
    if (memo) {
      key = memo.key(request, raw);
      const kept = memo.get(key, root, () => clock.ms());
      if (kept && !journal.recordsBody(kept.status)) return replay(kept, request, env, t0, at);
    }
    const probe: Probe = {};
    const reads = clock.reads;
    const res = table.lean.fetch(request, { ...env, fauxlab: bound, probe });
    const done = (r: Response) => {
      if (r !== NO_MATCH && key !== undefined && store.state === root) keep(key, root, r, probe, reads);
      return leanDone(request, env, raw, probe, r, t0, at);
    };
    return res instanceof Promise ? res.then(done) : done(res);
  }

  /** Keeps a lean answer that wrote nothing, when it is held as bytes. */
  function keep(key: string, root: PlatformState, res: Response, probe: Probe, reads: number): void {
    const made = madeOf(res);
    if (!made || !memo) return;
    const err = probe.error instanceof ApiError ? probe.error : undefined;
    memo.set(key, root, {
      key,
      status: res.status,
      headers: made.headers,
      body: made.body,
      size: made.size,
      route: probe.route ?? null,
      user: probe.viewer?.user?.username ?? null,
      sudoFrom: probe.viewer?.sudoFrom?.username,
      explain: err?.explain,
      clockMs: clock.reads !== reads ? clock.ms() : undefined,
    });
  }

  /** Sends a kept answer again, and journals it as the route would have. */
  function replay(kept: Kept, request: Request, env: object | undefined, t0: number, at: number): Response {
    const b = kept.body;
    const res =
      typeof b === 'string' || b instanceof Uint8Array
        ? plainResponse(b, kept.status, kept.headers)
        : chunkResponse(b, kept.size, kept.status, kept.headers);
    const out = deliver(res, env);
    if (journal.enabled)
      journal.addPending(
        // The request as its key, which the memo keeps anyway: nothing of this request outlives it.
        new PendingEntry(
          at,
          request.method,
          kept.key,
          undefined,
          kept.status,
          kept.headers,
          Math.round((performance.now() - t0) * 1000) / 1000,
          kept.route,
          kept.user,
          kept.sudoFrom,
          kept.explain,
        ),
      );
    return out;
  }

  /** Completes a lean request: security headers, then the journal entry (made when the journal is read). */
  function leanDone(
    request: Request,
    env: object | undefined,
    raw: readonly string[] | undefined,
    probe: Probe,
    res: Response,
    t0: number,
    at: number,
  ): Response | Promise<Response> {
    if (res === NO_MATCH) return fullFetch(request, env);
    const plain = plainHeaders(res);
    if (!plain) res = withSecurityHeaders(res);
    // A body in pieces goes to a Node server's response as it is; anywhere else it is joined.
    const out = deliver(res, env);
    if (!journal.enabled) return out;
    const durationMs = Math.round((performance.now() - t0) * 1000) / 1000;
    const err = probe.error instanceof ApiError ? probe.error : undefined;
    const caughtAll = err?.status === 404 && (err.body as { error?: unknown })?.error === '404 Not Found';
    const viewer = probe.viewer;
    const answered = res;
    const headers = raw ?? request.headers;
    const pending = (body?: string, truncated?: boolean) =>
      new PendingEntry(
        at,
        request.method,
        request.url,
        headers,
        answered.status,
        plain ?? answered.headers,
        durationMs,
        probe.route !== undefined && !caughtAll ? probe.route : null,
        viewer?.user?.username ?? null,
        viewer?.sudoFrom?.username,
        err?.explain,
        body,
        truncated,
      );
    if (!journal.recordsBody(res.status)) {
      journal.addPending(pending());
      return out;
    }
    // Written already: the journal reads a joined copy, and the server is told it was sent.
    const sent = out === ALREADY_SENT;
    return captureResponse(sent ? materialize(answered) : out, journal.bodyLimit).then(
      (captured) => {
        journal.addPending(pending(captured.body, captured.truncated));
        return sent ? out : captured.response;
      },
      (e: unknown) => {
        logger('fauxlab: could not record a response in the journal', e);
        return sent ? out : materialize(answered);
      },
    );
  }

  async function fullFetch(request: Request, env?: object): Promise<Response> {
    const probe: Probe = {};
    const res = materialize(await table.app.fetch(request, { ...env, fauxlab: bound, probe }));
    if (probe.entry && !probe.drop) return record(probe.entry, res);
    if (!probe.drop) return res;
    if (probe.entry) journal.add(probe.entry);
    const socket = (env as RequestEnv | undefined)?.incoming?.socket;
    if (socket) {
      // On a real server: close the socket, and tell @hono/node-server not to answer.
      socket.destroy();
      return new Response(null, { headers: { 'x-hono-already-sent': '1' } });
    }
    // In process and in MSW, a network error (MSW 2 rejects the client's fetch with a TypeError).
    return Response.error();
  }

  /** Completes a journal entry with the response; returns the response to send. */
  async function record(entry: Omit<JournalEntry, 'id'>, res: Response): Promise<Response> {
    try {
      const captured = journal.recordsBody(res.status)
        ? await captureResponse(res, journal.bodyLimit)
        : { response: res, body: undefined, truncated: false };
      const truncated = [
        ...(entry.truncated ?? []),
        ...(captured.truncated ? ['responseBody' as const] : []),
      ];
      journal.add({
        ...entry,
        status: res.status,
        responseHeaders: journalHeaders(res.headers),
        ...(captured.body !== undefined && { responseBody: captured.body }),
        ...(truncated.length > 0 && { truncated }),
      });
      return captured.response;
    } catch (e) {
      logger('fauxlab: could not record a response in the journal', e);
      return res;
    }
  }

  // The instance's own app: one catch-all route (for mounting in another Hono app), and `fetch` (which
  // `app.request()` calls) going straight to the instance, without a second dispatch.
  const app = new Hono<Env>({ getPath: () => '/' });
  // Mounted in another app, whose middleware may still change the response: never written directly.
  app.all('*', (c) => handle(c.req.raw, { ...(c.env as object), [MOUNTED]: true }));
  app.fetch = (request, env) => handle(request, env as object);

  const instance: Fauxlab = {
    app,
    fetch,
    get state() {
      // What a test reads after advancing the clock includes the background work that fell due.
      if (store.state.jobs.length > 0) settleJobs(fx, table.jobs, logger);
      return store.state;
    },
    clock,
    get scenario() {
      return scenario;
    },
    routes: table.routes,
    requests: requestLog(journal),
    faults: {
      add: (spec) => faults.add(spec),
      list: () => faults.list(),
      remove: (id) => faults.remove(id),
      clear: () => faults.clear(),
    },
    reset() {
      store.replace(initial);
      clock.set(new Date(initialClock()));
      journal.reset();
      faults.reset();
      for (const f of initialFaults) faults.add(f);
      named.clear();
    },
    load(input) {
      scenario = loadScenario(input);
      initial = world();
      instance.reset();
    },
    snapshot(name) {
      const s = { state: store.state, clock: clock.ms() };
      if (name !== undefined) named.set(name, s);
      return s;
    },
    restore(s) {
      const snap = typeof s === 'string' ? named.get(s) : s;
      if (!snap) throw new Error(`no snapshot named "${String(s)}"`);
      store.replace(snap.state);
      clock.set(snap.clock);
    },
    snapshots: () => [...named.keys()],
  };

  const bound: Binding = {
    fx,
    instance,
    journal,
    faults,
    explain: options.explain ?? false,
    controlPlane: options.controlPlane ?? true,
    ...(options.controlPlaneToken !== undefined && { controlPlaneToken: options.controlPlaneToken }),
    maxBodySize: options.maxBodySize ?? DEFAULT_MAX_BODY_SIZE,
    logger,
  };

  return instance;
}

/** Where a frozen clock starts when neither the scenario nor the options say. */
export const DEFAULT_START = '2021-01-04T10:00:00.000Z';
