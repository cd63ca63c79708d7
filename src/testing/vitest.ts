/**
 * `useFauxlab`: a fauxlab instance per test file or per test, wired into MSW and torn down afterwards,
 * for vitest. Only the `fauxlab/testing` entry imports this file, so the main entry never loads vitest
 * or msw.
 */
import type { HttpHandler } from 'msw';
import type { SetupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createFauxlab, type Fauxlab, type FauxlabOptions } from '../app.js';
import type { fauxlabHandlers } from '../msw/index.js';
import { loadScenario } from '../scenario/index.js';

export interface UseFauxlabOptions extends FauxlabOptions {
  /**
   * `reset` (default): one instance for the file, reset before each test (O(1): state, clock, journal
   * and faults go back to how they were created). `fresh`: a new instance for each test.
   */
  isolation?: 'reset' | 'fresh';
  /**
   * Serve the instance to `fetch` through MSW at this origin (`http://gitlab.test`), with a server that
   * listens for the file and closes after it. Omit it to call `fx.fetch` / `fx.app.request` directly,
   * or to add `fx.handlers(origin)` to an MSW server of your own.
   */
  msw?: string | { baseUrl: string; onUnhandledRequest?: 'bypass' | 'warn' | 'error' };
}

/** The current test's instance, plus the wiring. */
export type FauxlabFixture = Fauxlab & {
  /** The current instance itself (the fixture forwards to it). */
  readonly instance: Fauxlab;
  /** The MSW server when `msw` was given. */
  readonly server: SetupServer | undefined;
  /** The MSW origin when `msw` was given. */
  readonly url: string | undefined;
  /** MSW handlers for `origin` that always reach the current test's instance. */
  handlers(origin: string): HttpHandler[];
};

/**
 * Registers vitest hooks that give each test a clean fauxlab, and returns a fixture that forwards to
 * the current instance (use it inside tests and hooks, not at the top level of the file).
 *
 * @example
 * ```ts
 * import { expectRequest, useFauxlab } from 'fauxlab/testing';
 *
 * const fx = useFauxlab({ scenario: 'demo', msw: 'http://gitlab.test' });
 *
 * test('creates a user', async () => {
 *   await createUserWithMyCode('http://gitlab.test');
 *   expectRequest(fx, { method: 'POST', path: '/api/v4/users' }).toHaveBeenCalledOnce();
 * });
 * ```
 */
export function useFauxlab(options: UseFauxlabOptions = {}): FauxlabFixture {
  const { isolation = 'reset', msw, ...fauxlabOptions } = options;
  const mswOptions = typeof msw === 'string' ? { baseUrl: msw } : msw;
  let current: Fauxlab | undefined;
  let server: SetupServer | undefined;
  // A scenario file is read and validated once for the whole file, not per test.
  let opts: FauxlabOptions = fauxlabOptions;

  const instance = (): Fauxlab => {
    if (!current)
      throw new Error(
        'useFauxlab: the instance exists only while tests run (use it inside tests and hooks, not at the top level)',
      );
    return current;
  };
  // msw is loaded when the tests start, so that importing `fauxlab/testing` needs no msw.
  let mswModule: { fauxlabHandlers: typeof fauxlabHandlers } | undefined;
  const handlers = (origin: string) => {
    if (!mswModule)
      throw new Error(
        "useFauxlab: handlers() needs msw, and is available once the file's tests have started",
      );
    return mswModule.fauxlabHandlers({ fetch: (r) => instance().fetch(r) }, { baseUrl: origin });
  };

  beforeAll(async () => {
    if (opts.scenario !== undefined) opts = { ...opts, scenario: loadScenario(opts.scenario) };
    if (isolation === 'reset') current = createFauxlab(opts);
    try {
      mswModule = await import('../msw/index.js');
    } catch (e) {
      // Without msw installed, only the `msw` option and handlers() need it.
      if (mswOptions) throw e;
    }
    if (mswOptions) {
      const { setupServer } = await import('msw/node');
      const s = setupServer(...handlers(mswOptions.baseUrl));
      s.listen({ onUnhandledRequest: mswOptions.onUnhandledRequest ?? 'bypass' });
      server = s;
    }
  });
  beforeEach(() => {
    if (isolation === 'fresh') current = createFauxlab(opts);
    else instance().reset();
  });
  afterEach(() => {
    if (isolation === 'fresh') current = undefined;
  });
  afterAll(() => {
    server?.close();
    server = undefined;
    current = undefined;
  });

  const extra: Record<PropertyKey, () => unknown> = {
    instance: () => instance(),
    server: () => server,
    url: () => mswOptions?.baseUrl,
    handlers: () => handlers,
  };
  return new Proxy({} as FauxlabFixture, {
    get(_, key) {
      if (key in extra) return extra[key]!();
      const value = Reflect.get(instance(), key) as unknown;
      return value;
    },
    has: (_, key) => key in extra || key in instance(),
  });
}
