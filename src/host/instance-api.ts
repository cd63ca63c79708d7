/** What an instance shows its user: its own Hono app, and the object `createFauxlab` returns. */
import { Hono } from 'hono';
import type { Clock } from '../core/clock.js';
import type { Env, Fx } from '../core/context.js';
import { asFetch, lightRequest } from '../core/fetch.js';
import { settleJobs } from '../core/jobs.js';
import type { Store } from '../core/store.js';
import type { Faults } from '../testing/faults.js';
import { requestLog, type Journal } from '../testing/journal.js';
import { MOUNTED } from './deliver.js';
import type { Fauxlab, Snapshot } from './instance.js';
import type { OpenedWorld } from './world.js';
import type { RouteTable } from './table.js';
import type { Throttles } from './throttle.js';

type Handle = (request: Request, env?: object) => Response | Promise<Response>;

/**
 * The instance's own app: one catch-all route (for mounting in another Hono app), and `fetch` (which
 * `app.request()` calls) going straight to the instance, without a second dispatch.
 */
export function instanceApp(handle: Handle): Hono<Env> {
  const app = new Hono<Env>({ getPath: () => '/' });
  // Mounted in another app, whose middleware may still change the response: never written directly.
  app.all('*', (c) => handle(c.req.raw, { ...(c.env as object), [MOUNTED]: true }));
  app.fetch = (request, env) => handle(request, env as object);
  // A URL and a plain init (string body or none) make a light request: the native one's web stream,
  // abort signal and WebIDL conversion cost more than most routes do.
  const honoRequest = app.request;
  app.request = (input, init, env, ctx) => {
    if (!(input instanceof Request)) {
      const s = input.toString();
      // Where Hono's `request` sends a path: `http://localhost` and the path with one leading slash.
      const url = /^https?:\/\//.test(s)
        ? s
        : `http://localhost/${s === '/' ? '' : s[0] === '/' ? s.slice(1) : s}`;
      const light = lightRequest(url, init);
      if (light) return handle(light, env as object | undefined);
    }
    return honoRequest(input, init, env, ctx);
  };
  return app;
}

/** What the instance object is made of. */
export interface InstanceParts {
  app: Hono<Env>;
  fetch: (request: Request, env?: object) => Promise<Response>;
  fx: Fx;
  store: Store;
  clock: Clock;
  world: OpenedWorld;
  table: RouteTable;
  journal: Journal;
  faults: Faults;
  throttles: Throttles;
  logger: (message: string, error: unknown) => void;
}

/**
 * The instance object: the world, clock, journal and faults, and going back (`reset`, `load`) or
 * aside (`snapshot`, `restore`).
 */
export function instanceOf(parts: InstanceParts): Fauxlab {
  const { app, fetch, fx, store, clock, world, table, journal, faults, throttles, logger } = parts;
  const named = new Map<string, Snapshot>();
  const instance: Fauxlab = {
    app,
    fetch: asFetch(fetch),
    get state() {
      // What a test reads after advancing the clock includes the background work that fell due.
      if (store.state.jobs.length > 0) settleJobs(fx, table.jobs, logger);
      return store.state;
    },
    clock,
    get scenario() {
      return world.scenario;
    },
    routes: table.routes,
    renderCache: fx.renderings.budget,
    requests: requestLog(journal),
    faults: {
      add: (spec) => faults.add(spec),
      list: () => faults.list(),
      remove: (id) => faults.remove(id),
      clear: () => faults.clear(),
    },
    reset() {
      store.replace(world.initial);
      clock.set(new Date(world.start()));
      journal.reset();
      faults.reset();
      throttles.reset();
      for (const f of world.faults) faults.add(f);
      named.clear();
    },
    load(input) {
      world.open(input);
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
  return instance;
}
