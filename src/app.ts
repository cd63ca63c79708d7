/**
 * The instance factory: one Hono app over one immer store, with nothing shared between instances.
 */
import { Hono } from 'hono';
import { Clock } from './core/clock.js';
import type { Env, Fx } from './core/context.js';
import { ApiError, grapeError, internalError, noRoute } from './core/errors.js';
import { patternMatcher, ApiRouter, type RouteInfo } from './core/router.js';
import type { PlatformState, Tier } from './core/state.js';
import { Store } from './core/store.js';
import { controlPlane } from './admin/control.js';
import { registerApi } from './resources/index.js';
import { buildWorld, loadScenario, type Scenario, type ScenarioInput } from './scenario/index.js';

export interface FauxlabOptions {
  /** A scenario object, or the path of a JSON or YAML scenario file. Default: an empty world. */
  scenario?: ScenarioInput;
  /** Seed for generated records; overrides the scenario's. */
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
  /** Impersonation tokens are honoured (default true, as on the platform). */
  impersonation?: boolean;
  /** Registers extra routes under `/api/v4` (endpoints fauxlab lacks, or test doubles), with the core's rules. */
  routes?: (router: ApiRouter) => void;
  /** Log crashes (500s) to this function; default console.error. */
  logger?: (message: string, error: unknown) => void;
}

export interface Snapshot {
  state: PlatformState;
  clock: number;
}

export interface Fauxlab {
  /** The Hono app: mount it, or call `app.request()` in tests. */
  app: Hono<Env>;
  /** The app's fetch handler (for servers and MSW). */
  fetch: (request: Request) => Promise<Response>;
  /** The current state (read-only: it is frozen). */
  readonly state: PlatformState;
  clock: Clock;
  /** The scenario the instance was built from (after `extends` and defaults). */
  readonly scenario: Scenario;
  /** Every API route, as `fauxlab routes` lists them. */
  routes: RouteInfo[];
  /** Back to the loaded scenario: state and clock. */
  reset(): void;
  /** Replaces the world with another scenario; `reset()` then returns to it. */
  load(scenario: ScenarioInput): void;
  /** O(1): immer roots are immutable, so a snapshot is a reference. */
  snapshot(): Snapshot;
  restore(snapshot: Snapshot): void;
}

/** Normalises a raw path the way the platform's routing sees it. */
function routingPath(request: Request): string {
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  let end = url.indexOf('?', start);
  if (end < 0) end = url.length;
  const hash = url.indexOf('#', start);
  if (hash >= 0 && hash < end) end = hash;
  let path = start < 0 ? '/' : url.slice(start, end);
  // Empty segments (python-gitlab's `/features//name`) and trailing slashes resolve to the same route.
  path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  // Grape's format suffix.
  if (path.endsWith('.json')) path = path.slice(0, -5);
  return path;
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

  const fx: Fx = {
    store,
    clock,
    baseUrl: options.baseUrl?.replace(/\/+$/, ''),
    impersonationEnabled: options.impersonation ?? true,
    tier: () => store.state.tier,
  };

  const api = new ApiRouter();
  registerApi(api);
  options.routes?.(api);
  const matchers = api.routes.map((r) => ({ ...r, re: patternMatcher(`/api/v4${r.path}`) }));

  const app = new Hono<Env>({ getPath: routingPath });
  app.use('*', async (c, next) => {
    c.set('fx', fx);
    await next();
    c.header('X-Frame-Options', 'SAMEORIGIN');
    c.header('X-Content-Type-Options', 'nosniff');
  });
  app.route('/api/v4', api.hono);
  app.all('/api/v3/*', () => {
    throw grapeError(410, 'API V3 is no longer supported. Use API V4 instead.');
  });
  app.all('/api/v3', () => {
    throw grapeError(410, 'API V3 is no longer supported. Use API V4 instead.');
  });

  const instance: Fauxlab = {
    app,
    fetch: async (request) => app.fetch(request),
    get state() {
      return store.state;
    },
    clock,
    get scenario() {
      return scenario;
    },
    routes: api.routes,
    reset() {
      store.replace(initial);
      clock.set(new Date(initialClock()));
    },
    load(input) {
      scenario = loadScenario(input);
      initial = world();
      instance.reset();
    },
    snapshot: () => ({ state: store.state, clock: clock.ms() }),
    restore(s) {
      store.replace(s.state);
      clock.set(s.clock);
    },
  };

  if (options.controlPlane ?? true) app.route('/__fauxlab', controlPlane(instance));
  app.route('/', api.web);

  app.notFound((c) => {
    // A known path with another method still answers 404: the platform's catch-all route wins over
    // Grape's 405. Only OPTIONS gets the path's methods.
    if (c.req.method === 'OPTIONS') {
      const methods = matchers.filter((m) => m.re.test(c.req.path)).map((m) => m.method);
      if (methods.length > 0) {
        const allow = ['OPTIONS', ...new Set(methods)];
        if (allow.includes('GET')) allow.push('HEAD');
        return c.body(null, 204, { Allow: allow.join(', ') });
      }
    }
    throw noRoute();
  });

  app.onError((err, c) => {
    c.header('X-Frame-Options', 'SAMEORIGIN');
    c.header('X-Content-Type-Options', 'nosniff');
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
      if (err.status === 304) return c.body(null, 304);
      return c.json(err.body, err.status as 400);
    }
    logger(`fauxlab: ${c.req.method} ${c.req.path} crashed`, err);
    const e = internalError();
    return c.json(e.body, 500);
  });

  return instance;
}

/** Where a frozen clock starts when neither the scenario nor the options say. */
export const DEFAULT_START = '2021-01-04T10:00:00.000Z';
