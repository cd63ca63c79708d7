/**
 * GitLab 13.12's REST routes (src/admin/gitlab-13.12-routes.txt, one line a route, under the source
 * file that mounts it) held against fauxlab's route table: which are served at the tier the platform
 * has them, which are listed as missing, which are left out and why. `npm run coverage-list` writes the
 * result to docs/gitlab-13.12-routes.md; test/admin/platform-routes.test.ts fails when a route is in
 * none of the three, or when a route listed as missing is in fact served (the list only shrinks).
 */
import type { Method, RouteInfo } from '../core/router.js';

export type Tier = 'free' | 'premium' | 'ultimate';
export type PlatformMethod = Method | 'HEAD';

/**
 * The only routes that may be left out, each for its reason: they are called by the platform's own
 * processes, never by the clients fauxlab stands in for.
 */
export const LEFT_OUT_REASONS = {
  shell:
    "gitlab-shell's internal API (`API::Internal::Base`, `API::Internal::Lfs`): called by gitlab-shell with the shared secret, not by clients; fauxlab answers git over smart HTTP itself",
  workhorse:
    "Workhorse's upload pre-authorisation (`.../authorize`, `Gitlab::Workhorse.verify_api_request!`): only Workhorse calls it, before it accepts an upload; fauxlab takes the upload on the route itself",
  pages: "the GitLab Pages daemon's internal API (`API::Internal::Pages`)",
  kas: "the Kubernetes agent server's internal API (`API::Internal::Kubernetes`)",
  geo: 'Geo, the replication between a primary and its secondary nodes (`API::Geo`, `API::GeoNodes`, `API::GeoReplication`): fauxlab is one node',
  runner:
    'the API a `gitlab-runner` process calls to take and run jobs (`API::Ci::Runner`): fauxlab runs no runner; registering and deleting a runner (`POST /runners`, `DELETE /runners`), which an administrator does, are kept',
} as const;

export type LeftOutReason = keyof typeof LEFT_OUT_REASONS;

export interface PlatformRoute {
  method: PlatformMethod;
  /** Under `/api/v4`, Grape's `*splat` and `:param` both written `:param`. */
  path: string;
  /** `free` for CE routes; the tier the documentation gives for EE ones. */
  tier: Tier;
  /** The platform's file that defines the route (as in the list's `@` line). */
  source: string;
  leftOut?: LeftOutReason;
  /** Listed as not served by fauxlab yet. */
  missing: boolean;
  /** 1-based line in the list, for messages. */
  line: number;
}

const METHODS = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

/** Reads the list: `# comment`, `@ source file`, `METHOD /path [premium|ultimate] [left:reason] [missing]`. */
export function parsePlatformRoutes(text: string): PlatformRoute[] {
  const out: PlatformRoute[] = [];
  let source = '';
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (line.startsWith('@ ')) {
      source = line.slice(2).trim();
      return;
    }
    const [method, path, ...flags] = line.split(/\s+/);
    const where = `line ${i + 1}`;
    if (!method || !METHODS.has(method)) throw new Error(`${where}: no method in "${line}"`);
    if (!path?.startsWith('/')) throw new Error(`${where}: no path in "${line}"`);
    if (!source) throw new Error(`${where}: a route before any "@ source" line`);
    const route: PlatformRoute = {
      method: method as PlatformMethod,
      path,
      tier: 'free',
      source,
      missing: false,
      line: i + 1,
    };
    for (const flag of flags) {
      if (flag === 'premium' || flag === 'ultimate') route.tier = flag;
      else if (flag === 'missing') route.missing = true;
      else if (flag.startsWith('left:') && Object.hasOwn(LEFT_OUT_REASONS, flag.slice(5)))
        route.leftOut = flag.slice(5) as LeftOutReason;
      else throw new Error(`${where}: unknown flag "${flag}"`);
    }
    if (route.leftOut && route.missing) throw new Error(`${where}: both left out and missing`);
    out.push(route);
  });
  return out;
}

/** Stands for a platform path param in the path a fauxlab route is tried against. */
const PARAM = '\u0001';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The platform path with each `:param` replaced by the marker (a segment may hold one, `binary-:arch`). */
const platformProbe = (path: string) => path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, PARAM);

/**
 * A fauxlab route path as a regular expression over a probe. A plain `:param` matches a platform
 * param only: a request for the platform's literal segment (`/runners/all`) would reach the param
 * route's handler, which answers for something else. A `:param{regex}` matches what its regex matches
 * (Hono's router lets it span segments), or a platform param.
 */
/** Compiled patterns by fauxlab path, for one comparison (the caller's, so nothing outlives it). */
type Patterns = Map<string, RegExp>;

function fauxlabPattern(path: string, patterns: Patterns): RegExp {
  let cached = patterns.get(path);
  if (!cached) patterns.set(path, (cached = compilePattern(path)));
  return cached;
}

function compilePattern(path: string): RegExp {
  let re = '';
  let i = 0;
  while (i < path.length) {
    if (path[i] !== ':') {
      const next = path.indexOf(':', i);
      const end = next < 0 ? path.length : next;
      re += escapeRe(path.slice(i, end));
      i = end;
      continue;
    }
    const name = /^:[A-Za-z_][A-Za-z0-9_]*/.exec(path.slice(i))![0];
    i += name.length;
    if (path[i] === '{') {
      let depth = 0;
      let j = i;
      for (; j < path.length; j++) {
        if (path[j] === '{') depth++;
        else if (path[j] === '}' && --depth === 0) break;
      }
      re += `(?:${PARAM}|${path.slice(i + 1, j)})`;
      i = j + 1;
    } else {
      re += `[^/${PARAM}]*${PARAM}[^/${PARAM}]*`;
    }
  }
  return new RegExp(`^${re}$`);
}

const TIER_RANK: Record<Tier, number> = { free: 0, premium: 1, ultimate: 2 };

export type Status =
  | { kind: 'served'; by: RouteInfo }
  /** Served, but only on a higher tier than the platform has it. */
  | { kind: 'higher-tier'; by: RouteInfo }
  | { kind: 'absent' };

/** Finds the fauxlab route that serves a platform route at the platform's tier. */
export function statusOf(
  route: PlatformRoute,
  routes: readonly RouteInfo[],
  patterns: Patterns = new Map(),
): Status {
  const probe = platformProbe(route.path);
  // Hono answers HEAD with the GET handler.
  const methods = route.method === 'HEAD' ? ['GET'] : [route.method];
  let higher: RouteInfo | undefined;
  for (const r of routes) {
    if (!methods.includes(r.method) || !fauxlabPattern(r.path, patterns).test(probe)) continue;
    if (TIER_RANK[r.tier ?? 'free'] <= TIER_RANK[route.tier]) return { kind: 'served', by: r };
    higher ??= r;
  }
  return higher ? { kind: 'higher-tier', by: higher } : { kind: 'absent' };
}

export interface Coverage {
  rows: { route: PlatformRoute; status: Status }[];
  /** Neither served, nor listed as missing, nor left out: the list must say what they are. */
  unaccounted: PlatformRoute[];
  /** Listed as missing but served: the flag is to be removed. */
  servedButListed: PlatformRoute[];
  /** Listed twice. */
  duplicates: PlatformRoute[];
  /** fauxlab routes that serve none of the platform's (later versions', or fauxlab's own). */
  extra: RouteInfo[];
}

export function platformCoverage(list: readonly PlatformRoute[], routes: readonly RouteInfo[]): Coverage {
  const patterns: Patterns = new Map();
  const rows = list.map((route) => ({ route, status: statusOf(route, routes, patterns) }));
  const seen = new Set<string>();
  const duplicates: PlatformRoute[] = [];
  for (const r of list) {
    const key = `${r.method} ${platformProbe(r.path)}`;
    if (seen.has(key)) duplicates.push(r);
    seen.add(key);
  }
  const probes = list.map((r) => [r.method === 'HEAD' ? 'GET' : r.method, platformProbe(r.path)] as const);
  const extra = routes.filter(
    (r) =>
      !probes.some(([method, probe]) => method === r.method && fauxlabPattern(r.path, patterns).test(probe)),
  );
  return {
    rows,
    unaccounted: rows
      .filter(({ route, status }) => status.kind !== 'served' && !route.missing && !route.leftOut)
      .map((r) => r.route),
    servedButListed: rows
      .filter(({ route, status }) => status.kind === 'served' && route.missing)
      .map((r) => r.route),
    duplicates,
    extra,
  };
}
