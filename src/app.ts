/**
 * The instance factory. The route table (every API route, the control plane, error handling) is built
 * once per process and shared, immutable; an instance is its own state, clock, journal and faults,
 * bound to each request through the request's env. Creating an instance therefore registers nothing.
 */
import { parseVersion } from './core/versions.js';
import { Clock } from './core/clock.js';
import type { Fx } from './core/context.js';
import { ResponseMemo } from './core/memo.js';
import { Renderings } from './core/render-cache.js';
import { Store } from './core/store.js';
import { defaultResolver } from './core/url-blocker.js';
import { AREAS } from './resources/index.js';
import { Faults } from './testing/faults.js';
import { Journal, type JournalOptions } from './testing/journal.js';
import { DEFAULT_MAX_BODY_SIZE } from './host/body-cap.js';
import { dispatcher } from './host/dispatch.js';
import type { Binding, Fauxlab, FauxlabOptions } from './host/instance.js';
import { instanceApp, instanceOf } from './host/instance-api.js';
import { buildTable, sharedTable } from './host/table.js';
import { Throttles } from './host/throttle.js';
import { openWorld } from './host/world.js';

export type { Binding, FaultControl, Fauxlab, FauxlabOptions, Snapshot } from './host/instance.js';
export { DEFAULT_MAX_BODY_SIZE } from './host/body-cap.js';
export { DEFAULT_START } from './host/world.js';

/** Default cap on the bytes of all uploads together. */
export const DEFAULT_MAX_UPLOADS_TOTAL = 512 * 1024 * 1024;

function journalOptions(o: FauxlabOptions['journal']): JournalOptions {
  if (o === false) return { size: 0 };
  if (typeof o === 'number') return { size: o };
  return o ?? {};
}

/** The instance's context for every request (`c.get('fx')`): its store, clock and options. */
function instanceFx(options: FauxlabOptions, store: Store, clock: Clock, release: string | undefined): Fx {
  return {
    store,
    clock,
    baseUrl: options.baseUrl?.replace(/\/+$/, ''),
    impersonationEnabled: options.impersonation ?? true,
    version: release,
    maxUploadsTotal: options.maxUploadsTotal ?? DEFAULT_MAX_UPLOADS_TOTAL,
    renderings: new Renderings(options.renderCacheBytes),
    resolve: options.resolve ?? defaultResolver,
    servedPorts: new Set(),
    tier: () => store.state.tier,
    gitlab: () => store.state.version,
  };
}

export function createFauxlab(options: FauxlabOptions = {}): Fauxlab {
  const version = options.version === undefined ? undefined : parseVersion(options.version);
  const world = openWorld(options, version?.minor);
  const clock = new Clock(world.start(), options.realtimeClock ?? false);
  const store = new Store(world.initial, AREAS);
  const fx = instanceFx(options, store, clock, version?.release);
  const logger = options.logger ?? ((msg, err) => console.error(msg, err));
  const journal = new Journal(journalOptions(options.journal));
  const faults = new Faults(options.seed ?? world.scenario.seed);
  for (const f of world.faults) faults.add(f);
  const throttles = new Throttles();
  const table = options.routes ? buildTable(options.routes) : sharedTable();
  const memo = options.responseCache === false ? undefined : new ResponseMemo(options.responseCache);

  const { fetch, handle } = dispatcher({
    fx,
    store,
    clock,
    table,
    journal,
    faults,
    memo,
    logger,
    binding: () => bound,
  });
  const app = instanceApp(handle);
  const instance = instanceOf({
    app,
    fetch,
    fx,
    store,
    clock,
    world,
    table,
    journal,
    faults,
    throttles,
    logger,
  });
  const bound: Binding = {
    fx,
    instance,
    journal,
    faults,
    throttles,
    explain: options.explain ?? false,
    controlPlane: options.controlPlane ?? true,
    ...(options.controlPlaneToken !== undefined && { controlPlaneToken: options.controlPlaneToken }),
    maxBodySize: options.maxBodySize ?? DEFAULT_MAX_BODY_SIZE,
    logger,
    spawn: createFauxlab,
  };
  return instance;
}
