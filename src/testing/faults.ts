/**
 * Fault injection: per route pattern and method, an error status with the body the platform (or the
 * proxy in front of it) would send, added latency, or a dropped connection; always, for the next N
 * matching requests, or with a probability drawn from a PRNG seeded per fault, so a run is reproducible.
 */
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { parseDuration } from '../core/clock.js';
import { compilePath, type PathMatcher, type PathPattern } from './match.js';

/** What `POST /__fauxlab/faults` and `instance.faults.add()` accept. */
export interface FaultSpec {
  /** One method or several (default: any). HEAD requests match GET. */
  method?: string | string[];
  /** Path pattern matched against the normalised path (default `**`: every request). */
  path?: PathPattern;
  /** Answer with this status (400-599) and the platform's body for it instead of calling the route. */
  status?: number;
  /** Replaces the default body: a string is sent as text/plain, anything else as JSON. */
  body?: unknown;
  /** Extra response headers (they win over the defaults). */
  headers?: Record<string, string>;
  /** Seconds in `Retry-After` (and the `RateLimit-Reset*` headers) of a 429 (default 60). */
  retryAfter?: number;
  /** Added latency: milliseconds, `[min, max]`, or a string such as `250ms`, `1s` or `100-500` (ms). */
  latency?: number | [number, number] | string;
  /** Close the connection without an answer (a network error for the client). */
  drop?: boolean;
  /** Apply to the next N matching requests only. */
  times?: number;
  /** Apply to each matching request with this probability (0-1). */
  probability?: number;
  /** Seed of the probability and latency draws (default: derived from the instance seed and fault id). */
  seed?: number;
}

/** A registered fault, as listed by `GET /__fauxlab/faults`. */
export interface Fault {
  id: number;
  method: string[] | null;
  path: string;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  retryAfter?: number;
  /** `[min, max]` milliseconds. */
  latency?: [number, number];
  drop?: boolean;
  times?: number;
  /** Applications left when `times` was given; the fault stays listed at 0. */
  remaining: number | null;
  probability?: number;
  seed: number;
  /** Requests the fault applied to so far. */
  hits: number;
}

/** Bare numbers are milliseconds; otherwise `parseDuration` units (`250ms`, `1.5s`). */
function latencyMs(s: string): number {
  const t = s.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  return parseDuration(t);
}

/** Parses a latency given as a number, a pair or a string (`100`, `1s`, `100-500`, `50ms-2s`). */
export function parseLatency(v: number | readonly number[] | string): [number, number] {
  let range: [number, number];
  if (typeof v === 'number') range = [v, v];
  else if (Array.isArray(v)) range = [v[0]!, v[1]!];
  else {
    const m = /^\s*([^-\s]+)\s*-\s*([^-\s]+)\s*$/.exec(v as string);
    range = m ? [latencyMs(m[1]!), latencyMs(m[2]!)] : [latencyMs(v as string), latencyMs(v as string)];
  }
  if (!range.every((n) => Number.isFinite(n) && n >= 0) || range[0] > range[1])
    throw new Error(`invalid latency: ${JSON.stringify(v)} (give ms, [min, max] or "min-max")`);
  return range;
}

const specSchema = z
  .strictObject({
    method: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    path: z.union([z.string().min(1), z.instanceof(RegExp)]).optional(),
    status: z.number().int().min(400).max(599).optional(),
    body: z.unknown().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    retryAfter: z.number().int().min(0).optional(),
    latency: z
      .union([z.number().min(0), z.tuple([z.number().min(0), z.number().min(0)]), z.string()])
      .optional(),
    drop: z.boolean().optional(),
    times: z.number().int().min(1).optional(),
    probability: z.number().min(0).max(1).optional(),
    seed: z.number().int().optional(),
  })
  .refine((f) => f.status !== undefined || f.latency !== undefined || f.drop === true, {
    message: 'give status, latency or drop',
  })
  .refine((f) => !(f.status !== undefined && f.drop === true), {
    message: 'status and drop cannot be combined',
    path: ['drop'],
  });

/** A fault spec that does not validate; `problems` name each field. */
export class FaultError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid fault: ${problems.join('; ')}`);
    this.name = 'FaultError';
  }
}

/** Validates a fault spec; throws FaultError naming each problem. */
export function checkFault(spec: FaultSpec) {
  const r = specSchema.safeParse(spec);
  if (!r.success)
    throw new FaultError(
      r.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)),
    );
  const s = r.data;
  let latency: [number, number] | undefined;
  if (s.latency !== undefined) {
    try {
      latency = parseLatency(s.latency);
    } catch (e) {
      throw new FaultError([`latency: ${(e as Error).message}`]);
    }
  }
  let re: PathMatcher;
  try {
    re = compilePath(s.path ?? '**');
  } catch (e) {
    throw new FaultError([`path: ${(e as Error).message}`]);
  }
  return { s, latency, re };
}

/** mulberry32: small, fast and good enough for reproducible coin flips. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mixSeed = (seed: number, id: number) =>
  (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + id * 0x27d4eb2f) | 0;

interface Live {
  fault: Fault;
  re: PathMatcher;
  rand: () => number;
}

/** What the faults decided for one request. */
export interface FaultPlan {
  /** Ids of the faults that applied. */
  ids: number[];
  /** Total added latency in ms. */
  delayMs: number;
  /** The fault that answers instead of the route (status or drop), if any. */
  answer?: Fault;
}

/** The faults of one instance. */
export class Faults {
  #live: Live[] = [];
  #seq = 0;

  constructor(
    /** The instance seed: default seed of each fault's draws. */
    readonly seed: number,
  ) {}

  /** Validates and registers a fault; returns it (with its id). Throws FaultError when invalid. */
  add(spec: FaultSpec): Fault {
    const { s, latency, re } = checkFault(spec);
    const id = ++this.#seq;
    const path = s.path ?? '**';
    const seed = s.seed ?? mixSeed(this.seed, id);
    const method = s.method === undefined ? null : Array.isArray(s.method) ? s.method : [s.method];
    const fault: Fault = {
      id,
      method: method?.map((m) => m.toUpperCase()) ?? null,
      path: typeof path === 'string' ? path : String(path),
      ...(s.status !== undefined && { status: s.status }),
      ...(s.body !== undefined && { body: s.body }),
      ...(s.headers !== undefined && { headers: s.headers }),
      ...(s.retryAfter !== undefined && { retryAfter: s.retryAfter }),
      ...(latency && { latency }),
      ...(s.drop !== undefined && { drop: s.drop }),
      ...(s.times !== undefined && { times: s.times }),
      remaining: s.times ?? null,
      ...(s.probability !== undefined && { probability: s.probability }),
      seed,
      hits: 0,
    };
    this.#live.push({ fault, re, rand: prng(seed) });
    return { ...fault };
  }

  list(): Fault[] {
    return this.#live.map((l) => ({ ...l.fault }));
  }

  remove(id: number): boolean {
    const i = this.#live.findIndex((l) => l.fault.id === id);
    if (i < 0) return false;
    this.#live.splice(i, 1);
    return true;
  }

  clear(): void {
    this.#live = [];
  }

  /** Back to no faults, ids from 1 again (an instance reset). */
  reset(): void {
    this.#live = [];
    this.#seq = 0;
  }

  get size(): number {
    return this.#live.length;
  }

  /**
   * Decides the faults of one request, in registration order: every matching fault that fires adds its
   * latency, and the first one with a status or a drop answers. Each probability draw uses the fault's
   * own PRNG, so a fault's decisions depend only on the matching requests it saw.
   */
  plan(method: string, path: string): FaultPlan | undefined {
    if (this.#live.length === 0) return undefined;
    const m = method === 'HEAD' ? 'GET' : method;
    let plan: FaultPlan | undefined;
    for (const l of this.#live) {
      const f = l.fault;
      if (f.remaining === 0) continue;
      if (f.method && !f.method.includes(m) && !f.method.includes(method)) continue;
      if (!l.re.test(path)) continue;
      // Only the first answering fault applies; later ones neither fire nor use up their count.
      if ((f.status !== undefined || f.drop) && plan?.answer) continue;
      if (f.probability !== undefined && !(l.rand() < f.probability)) continue;
      f.hits++;
      if (f.remaining !== null) f.remaining--;
      plan ??= { ids: [], delayMs: 0 };
      plan.ids.push(f.id);
      if (f.latency) {
        const [lo, hi] = f.latency;
        plan.delayMs += lo === hi ? lo : Math.round(lo + l.rand() * (hi - lo));
      }
      if ((f.status !== undefined || f.drop) && !plan.answer) plan.answer = f;
    }
    return plan;
  }
}

const TOO_MANY = 'This endpoint has been requested too many times. Try again later.';

/** Rack::Attack's throttle headers for a request that was refused, on the instance clock. */
function rateLimitHeaders(nowMs: number, retryAfter: number, authenticated: boolean): Record<string, string> {
  // The platform's default API throttles: 7,200 (authenticated) / 3,600 (unauthenticated) requests per
  // hour, which Rack::Attack reports per minute.
  const limit = authenticated ? 120 : 60;
  const reset = new Date(Math.floor(nowMs / 1000) * 1000 + retryAfter * 1000);
  return {
    'RateLimit-Name': authenticated ? 'throttle_authenticated_api' : 'throttle_unauthenticated_api',
    'RateLimit-Limit': String(limit),
    'RateLimit-Observed': String(limit + 1),
    'RateLimit-Remaining': '0',
    'RateLimit-Reset': String(Math.floor(reset.getTime() / 1000)),
    'RateLimit-ResetTime': reset.toUTCString(),
    'Retry-After': String(retryAfter),
  };
}

const SECURITY_HEADERS = { 'X-Frame-Options': 'SAMEORIGIN', 'X-Content-Type-Options': 'nosniff' };

/**
 * The response a status fault sends. Bodies are the platform's own:
 * - 429: the application rate limiter's `{"message":{"error":"This endpoint has been requested too many
 *   times. Try again later."}}`, with Rack::Attack's `Retry-After` and `RateLimit-*` headers;
 * - 500: the API's `{"message":"500 Internal Server Error"}`;
 * - 502: Workhorse's answer when Rails does not respond: `GitLab is not responding` as text/plain, and
 *   none of the application's headers (the application never saw the request);
 * - 503: `service_unavailable!`'s `{"message":"503 Service Unavailable"}`;
 * - any other status: `render_api_error!`'s `{"message":"<code> <reason>"}`.
 */
export function faultResponse(
  fault: Fault,
  ctx: { nowMs: number; authenticated: boolean; head: boolean },
): Response {
  const status = fault.status!;
  let headers: Record<string, string> = { ...SECURITY_HEADERS };
  let body: unknown;
  if (status === 429) {
    body = { message: { error: TOO_MANY } };
    Object.assign(headers, rateLimitHeaders(ctx.nowMs, fault.retryAfter ?? 60, ctx.authenticated));
  } else if (status === 502) {
    headers = {};
    body = 'GitLab is not responding';
  } else {
    body = { message: `${status} ${STATUS_CODES[status] ?? 'Error'}` };
  }
  if (fault.body !== undefined) body = fault.body;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  headers['Content-Type'] = typeof body === 'string' ? 'text/plain' : 'application/json';
  Object.assign(headers, fault.headers);
  return new Response(ctx.head ? null : text, { status, headers });
}
