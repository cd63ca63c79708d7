import type { Context } from 'hono';
import type { Draft } from 'immer';
import type { Clock } from './clock.js';
import type { Renderings } from './render-cache.js';
import type { RawParams } from './params.js';
import type { PlatformState, TokenRecord, UserRecord, Tier } from './state.js';
import type { Store } from './store.js';
import type { Minor } from './versions.js';
import type { Resolver } from './url-blocker.js';

/** What every handler of one instance shares: its store, clock and options. */
export interface Fx {
  store: Store;
  clock: Clock;
  /** Configured external URL, without a trailing slash; else taken from each request. */
  baseUrl?: string;
  /** Impersonation tokens are refused when this is off (the platform's instance configuration). */
  impersonationEnabled: boolean;
  /** The configured `GET /version` release, if one was given (else the minor's own, `RELEASES`). */
  version?: string;
  /** The GitLab minor release the instance answers as: ask `has(c, declaration)`, never compare it. */
  gitlab(): Minor;
  /** Bytes all project uploads together may hold (the instance's `maxUploadsTotal`). */
  maxUploadsTotal?: number;
  /** Entity renderings kept across requests, within the instance's byte budget. */
  renderings: Renderings;
  /** How the URL blocker resolves a host name (`Gitlab::UrlBlocker`'s `getaddrinfo`). */
  resolve: Resolver;
  /** The local ports this instance was reached on (a Node server's sockets): never a delivery's target. */
  servedPorts: Set<number>;
  tier(): Tier;
}

/** Who is asking. `user` is the effective user (after sudo); `token` the credential used. */
export interface Viewer {
  user: UserRecord | null;
  token: TokenRecord | null;
  /** The token's owner when sudo switched the user. */
  sudoFrom: UserRecord | null;
}

export interface Env {
  Variables: {
    fx: Fx;
    params: RawParams;
    viewer: Viewer;
    /** Params as Grape has them after declaration: raw plus declared defaults (pagination links use them). */
    linkParams: Record<string, unknown>;
    writes: number;
  };
}

export type Ctx = Context<Env>;

/**
 * What the instance's fetch (app.ts) puts in each request's env for the core: the instance's `fx`, and a
 * probe the router fills for the request journal (the route that answered, the viewer, the error).
 */
export interface RequestEnv {
  fauxlab: { fx: Fx };
  probe: RequestProbe;
}

export interface RequestProbe {
  /** `GET /api/v4/users/:id`: the route whose handler ran. */
  route?: string;
  viewer?: Viewer;
  /** What the error handler rendered. */
  error?: unknown;
}

/** `c.get`, not `c.var`: Hono builds a fresh object of every variable on each `c.var` read. */
export const state = (c: Ctx): PlatformState => c.get('fx').store.state;

/**
 * The request's one write. A second write in the same request is a bug: it would break the rule that a
 * failed request changes nothing, so it fails loudly.
 */
export function write<R>(c: Ctx, fn: (draft: Draft<PlatformState>) => R): R {
  const n = c.get('writes') ?? 0;
  if (n > 0) throw new Error('a request may write the store only once');
  c.set('writes', n + 1);
  return c.get('fx').store.write(fn);
}
