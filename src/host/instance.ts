/** The public shape of an instance and what the shared route table needs of one. */
import type { RenderCache } from '../core/render-cache.js';
import type { Hono } from 'hono';
import type { Clock } from '../core/clock.js';
import type { Env, Fx } from '../core/context.js';
import type { FauxlabFetch } from '../core/fetch.js';
import type { MemoOptions } from '../core/memo.js';
import type { ApiRouter, RouteInfo } from '../core/router.js';
import type { PlatformState, Tier } from '../core/state.js';
import type { Scenario, ScenarioInput } from '../scenario/index.js';
import type { Fault, FaultSpec, Faults } from '../testing/faults.js';
import type { Journal, JournalOptions, RequestLog } from '../testing/journal.js';
import type { Throttles } from './throttle.js';

export interface FauxlabOptions {
  /** A scenario object, or the path of a JSON or YAML scenario file. Default: an empty world. */
  scenario?: ScenarioInput;
  /** Seed for generated records and fault draws; overrides the scenario's. */
  seed?: number;
  /** Overrides the scenario's tier. `free` behaves as the community edition. */
  tier?: Tier;
  /** External URL (`http://gitlab.example.com`); else each request's own scheme, host and port. */
  baseUrl?: string;
  /**
   * How outbound URLs' host names are resolved for the URL blocker (`Gitlab::UrlBlocker`): every address
   * of the name, each checked. Default: literal addresses and `localhost` without asking, the names
   * RFC 6761 reserves (`*.test`, `*.example`, `*.invalid`) unresolved, others `dns.lookup`. Tests
   * inject one to need no DNS (`async () => ['127.0.0.1']` makes a name local).
   */
  resolve?: (hostname: string) => Promise<string[]>;
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
  /**
   * The GitLab version to answer as, overriding the scenario's `version`: a minor release (`'15.4'`,
   * from 13.12 to 18.11; default the scenario's, else 13.12) or a release of one (`'15.4.2'`), which
   * `GET /version` then reports (else the minor's own, e.g. `13.12.15`; paid tiers add `-ee`). Any
   * other version throws, naming the supported range.
   */
  version?: string;
  /**
   * Registers extra routes under `/api/v4` (endpoints fauxlab lacks, or test doubles), with the core's
   * rules. An instance with extra routes builds a route table of its own, so creating it costs more.
   */
  routes?: (router: ApiRouter) => void;
  /** Log crashes (500s) to this function; default console.error. */
  logger?: (message: string, error: unknown) => void;
  /**
   * The request journal: entries kept (default 1,000), or `{ size, bodyLimit, responseBodies, bodyBytes }`;
   * `false` or 0 turns it off.
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
  /**
   * Bytes of entity renderings (projects, users, groups, issues, ...) this instance keeps across requests
   * (src/core/render-cache.ts; default 64 MiB), the least recently used dropped first; 0 keeps none
   * beyond the one in use.
   */
  renderCacheBytes?: number;
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
   * The instance's fetch handler, a `fetch` (`fx.fetch(url, init)`) for clients, servers and MSW; a Hono
   * adapter's bindings in place of `init` (the Node server's `{ incoming, outgoing }`, used to drop
   * connections) pass through.
   */
  fetch: FauxlabFetch;
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
   * The byte budget of the renderings this instance keeps (`renderCacheBytes`): `limit` (settable; a
   * lower one drops the oldest at once), `bytes` and `size` held now.
   */
  readonly renderCache: RenderCache;
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
  /** Rack::Attack's counters (host/throttle.ts). */
  throttles: Throttles;
  explain: boolean;
  controlPlane: boolean;
  controlPlaneToken?: string;
  maxBodySize: number;
  logger: (message: string, error: unknown) => void;
  /**
   * Makes another instance, unbound to this one: for work done apart from it (the dashboard renders a
   * record as a user on a private copy of the world). Passed in so that nothing below the factory
   * imports it.
   */
  spawn: (options: FauxlabOptions) => Fauxlab;
}
