/**
 * Request verification for tests: `expectRequest(fx, { method, path, query, body })` counts the
 * journal entries that match and, when the count is wrong, explains the near misses. Framework-free:
 * a failure is a thrown `RequestAssertionError` carrying `expected` / `actual`, which vitest and jest
 * show as a diff.
 */
import type { JournalEntry, RequestLog } from './journal.js';
import {
  compilePath,
  differences,
  normalisePath,
  show,
  type PathMatcher,
  type PathPattern,
} from './match.js';

/** What a request must look like. Every field is optional; objects match partially. */
export interface RequestMatcher {
  /** Case-insensitive. */
  method?: string;
  /** A path pattern (`/api/v4/projects/:id/issues`, `/api/v4/users/**`) or RegExp. */
  path?: PathPattern;
  /** Params that must be present with these values (others are ignored); values may be RegExps or predicates. */
  query?: Record<string, unknown>;
  /** The (parsed) body must contain this: objects partially, arrays and scalars exactly. */
  body?: unknown;
  /** Request headers that must be present (names case-insensitive); credentials are recorded as `[FILTERED]`. */
  headers?: Record<string, unknown>;
  /** The response status, several, or a class such as `'4xx'`. */
  status?: number | string | (number | string)[];
  /** The acting user's username (after sudo), or null for anonymous requests. */
  user?: string | null;
}

/** A failed request expectation; `expected` / `actual` let test runners print a diff. */
export class RequestAssertionError extends Error {
  readonly showDiff: boolean;

  constructor(
    message: string,
    readonly expected?: unknown,
    readonly actual?: unknown,
  ) {
    super(message);
    this.name = 'RequestAssertionError';
    this.showDiff = expected !== undefined;
  }
}

function statusOk(status: number, want: NonNullable<RequestMatcher['status']>): boolean {
  return (Array.isArray(want) ? want : [want]).some((w) => {
    const s = String(w).toLowerCase();
    return /^[1-5]xx$/.test(s) ? Math.floor(status / 100) === Number(s[0]) : status === Number(s);
  });
}

/** The ways an entry misses the matcher, one line each; empty when it matches. */
function misses(e: JournalEntry, m: RequestMatcher, pathRe: PathMatcher | undefined): string[] {
  const out: string[] = [];
  if (m.method !== undefined && e.method !== m.method.toUpperCase())
    out.push(`method: expected ${m.method.toUpperCase()}, got ${e.method}`);
  if (pathRe && !pathRe.test(normalisePath(e.path)))
    out.push(`path: expected ${show(m.path)}, got ${e.path}`);
  if (m.query !== undefined) out.push(...differences(e.query, m.query, 'query'));
  if (m.body !== undefined) out.push(...differences(e.body, m.body, 'body'));
  if (m.headers !== undefined) {
    const want = Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k.toLowerCase(), v]));
    out.push(...differences(e.headers, want, 'headers'));
  }
  if (m.status !== undefined && !statusOk(e.status, m.status))
    out.push(`status: expected ${show(m.status)}, got ${e.status}`);
  if (m.user !== undefined && e.user !== m.user)
    out.push(`user: expected ${show(m.user)}, got ${show(e.user)}`);
  return out;
}

/** `POST /api/v4/users with body {...}`. */
function describe(m: RequestMatcher): string {
  const parts = [
    `${m.method?.toUpperCase() ?? 'any method'} ${m.path === undefined ? 'on any path' : show(m.path).replace(/^"|"$/g, '')}`,
  ];
  if (m.query !== undefined) parts.push(`query ${show(m.query)}`);
  if (m.body !== undefined) parts.push(`body ${show(m.body)}`);
  if (m.headers !== undefined) parts.push(`headers ${show(m.headers)}`);
  if (m.status !== undefined) parts.push(`status ${show(m.status)}`);
  if (m.user !== undefined) parts.push(`user ${show(m.user)}`);
  return parts.join(', ');
}

/** The entry's values for the matcher's keys: the `actual` side of a diff. */
function project(e: JournalEntry, m: RequestMatcher): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(m) as (keyof RequestMatcher)[]) {
    if (m[k] === undefined) continue;
    out[k] = k === 'headers' ? e.headers : k === 'body' ? e.body : k === 'query' ? e.query : e[k];
  }
  return out;
}

const requestCount = (n: number) => `${n} request${n === 1 ? '' : 's'}`;

export class RequestExpectation {
  readonly #log: RequestLog;
  readonly #matcher: RequestMatcher;
  readonly #pathRe: PathMatcher | undefined;

  constructor(log: RequestLog, matcher: RequestMatcher) {
    if (log.capacity === 0) throw new Error('expectRequest: the request journal is off for this instance');
    this.#log = log;
    this.#matcher = matcher;
    this.#pathRe = matcher.path === undefined ? undefined : compilePath(matcher.path);
  }

  /** The matching journal entries, oldest first. */
  get calls(): JournalEntry[] {
    return this.#log().filter((e) => misses(e, this.#matcher, this.#pathRe).length === 0);
  }

  /** Passes when at least one request matched. */
  toHaveBeenCalled(): this {
    if (this.calls.length === 0) this.#fail('at least 1 request', 0);
    return this;
  }

  /** Passes when exactly `n` requests matched. */
  toHaveBeenCalledTimes(n: number): this {
    const got = this.calls.length;
    if (got !== n) this.#fail(requestCount(n), got);
    return this;
  }

  toHaveBeenCalledOnce(): this {
    return this.toHaveBeenCalledTimes(1);
  }

  /** The inverse: `.not.toHaveBeenCalled()` passes when no request matched. */
  get not(): { toHaveBeenCalled(): void; toHaveBeenCalledTimes(n: number): void } {
    return {
      toHaveBeenCalled: () => {
        const calls = this.calls;
        if (calls.length > 0)
          throw new RequestAssertionError(
            `expected no request matching ${describe(this.#matcher)}, got ${calls.length}:\n` +
              calls.map((e) => `  #${e.id} ${e.method} ${e.path} -> ${e.status}`).join('\n'),
          );
      },
      toHaveBeenCalledTimes: (n: number) => {
        if (this.calls.length === n)
          throw new RequestAssertionError(
            `expected other than ${requestCount(n)} matching ${describe(this.#matcher)}`,
          );
      },
    };
  }

  #fail(want: string, got: number): never {
    const all = this.#log();
    const lines = [`expected ${want} matching ${describe(this.#matcher)}, got ${got}`];
    // Closest first: fewest differences, then the most recent.
    const near = all
      .map((e) => ({ e, d: misses(e, this.#matcher, this.#pathRe) }))
      .filter((x) => x.d.length > 0)
      .sort((a, b) => a.d.length - b.d.length || b.e.id - a.e.id)
      .slice(0, 3);
    if (all.length === 0) lines.push('', 'No request was recorded.');
    else if (near.length > 0) {
      lines.push('', `Near misses (closest first, of ${requestCount(all.length)} recorded):`);
      for (const { e, d } of near) {
        lines.push(`  #${e.id} ${e.method} ${e.path} -> ${e.status}`);
        for (const line of d) lines.push(`     ${line}`);
      }
    }
    if (this.#log.size === this.#log.capacity && all[0] && all[0].id > 1)
      lines.push('', `(the journal keeps the last ${this.#log.capacity} requests; older ones were dropped)`);
    const closest = near[0]?.e;
    throw new RequestAssertionError(
      lines.join('\n'),
      closest ? this.#matcher : undefined,
      closest ? project(closest, this.#matcher) : undefined,
    );
  }
}

/**
 * Starts a request expectation on an instance's journal:
 *
 * ```ts
 * expectRequest(fx, { method: 'POST', path: '/api/v4/projects/:id/issues', body: { title: 'Bug' } })
 *   .toHaveBeenCalledTimes(1);
 * expectRequest(fx, { method: 'DELETE' }).not.toHaveBeenCalled();
 * ```
 */
export function expectRequest(
  instance: { requests: RequestLog },
  matcher: RequestMatcher = {},
): RequestExpectation {
  return new RequestExpectation(instance.requests, matcher);
}
