/**
 * The instance's request throttles, as GitLab 13.12's Rack::Attack configuration has them
 * (`Gitlab::RackAttack.configure_throttles`, the `throttle_*` application settings): a request is
 * counted before the application sees it, in a fixed window of the setting's period (Rack::Attack's
 * cache key is the period number, `now / period`), and refused with 429 once the window's count passes
 * the limit. The counters are the instance's (not the world's state: a snapshot, a restore or a
 * scenario load keeps them, as Redis does across a database restore); `reset()` clears them.
 *
 * The throttles a fauxlab request can meet:
 * - `throttle_authenticated_api`: a request under `/api/` whose credential names a user
 *   (`authenticated_user_id([:api])`), counted per user;
 * - `throttle_unauthenticated`: any other request (the API without a credential, git over HTTP, whose
 *   Basic credentials are not an API format), counted per client address.
 * Not met: `throttle_authenticated_web` (no browser sessions here) and the protected-paths throttles
 * (their default paths are the web sign-in forms and `/api/v3/session`, none of which fauxlab serves).
 * Skipped as the platform skips them (`should_be_skipped?`): `/api/v4/internal/` and the health checks.
 */
import type { Fx } from '../core/context.js';
import { credentialUserId } from '../core/auth.js';
import type { PlatformState } from '../core/state.js';
import { setting } from '../resources/settings/model.js';

/** `Gitlab::Throttle.rate_limiting_response_text` when the setting is blank. */
const RETRY_LATER = 'Retry later\n';

interface Window {
  readonly index: number;
  count: number;
}

/** Distinct clients kept at once: past it, counters of windows already over are dropped first. */
const MAX_COUNTERS = 50_000;

const SKIPPED = /^\/(?:api\/v4\/internal(?:\/|$)|-\/(?:health|liveness|readiness|metrics)(?:\/|$))/;

interface Throttle {
  name: 'throttle_authenticated_api' | 'throttle_unauthenticated';
  discriminator: string;
  limit: number;
  period: number;
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/**
 * Whether any throttle is on: the fast paths of the instance's fetch skip the count when none is. Asked
 * on every request; the settings record is immutable (a write makes a new one), so the answer is kept
 * per record rather than two settings read and normalised each time.
 */
export function throttlesOn(st: PlatformState): boolean {
  const settings = st.settings as object;
  const known = throttleStates.get(settings);
  if (known !== undefined) return known;
  const on =
    setting(st, 'throttle_authenticated_api_enabled') === true ||
    setting(st, 'throttle_unauthenticated_enabled') === true;
  throttleStates.set(settings, on);
  return on;
}

/** `throttlesOn` by settings record: a pure function's answers, weakly held, the same for any instance. */
const throttleStates = new WeakMap<object, boolean>();

/** The throttle a request meets, or undefined. */
function throttleFor(fx: Fx, request: Request, path: string, ip: string): Throttle | undefined {
  const st = fx.store.state;
  if (!throttlesOn(st) || SKIPPED.test(path)) return undefined;
  const user = credentialUserId(fx, request);
  if (path.startsWith('/api/') && user !== null) {
    if (setting(st, 'throttle_authenticated_api_enabled') !== true) return undefined;
    return {
      name: 'throttle_authenticated_api',
      discriminator: `user:${user}`,
      limit: num(setting(st, 'throttle_authenticated_api_requests_per_period'), 7200),
      period: Math.max(1, num(setting(st, 'throttle_authenticated_api_period_in_seconds'), 3600)),
    };
  }
  // `unauthenticated?`: no user from an API credential.
  if (user !== null || setting(st, 'throttle_unauthenticated_enabled') !== true) return undefined;
  return {
    name: 'throttle_unauthenticated',
    discriminator: ip,
    limit: num(setting(st, 'throttle_unauthenticated_requests_per_period'), 3600),
    period: Math.max(1, num(setting(st, 'throttle_unauthenticated_period_in_seconds'), 3600)),
  };
}

export class Throttles {
  readonly #windows = new Map<string, Window>();

  reset(): void {
    this.#windows.clear();
  }

  /**
   * Counts the request and answers the throttled response when it is over its throttle's limit;
   * undefined lets it through.
   */
  check(fx: Fx, request: Request, path: string, ip: string): Response | undefined {
    const t = throttleFor(fx, request, path, ip);
    if (!t) return undefined;
    const now = Math.floor(fx.clock.ms() / 1000);
    const index = Math.floor(now / t.period);
    const key = `${t.name}:${t.discriminator}:${t.period}`;
    let w = this.#windows.get(key);
    if (!w || w.index !== index) {
      if (!w && this.#windows.size >= MAX_COUNTERS) this.#prune(now);
      w = { index, count: 0 };
      this.#windows.set(key, w);
    }
    w.count += 1;
    if (w.count <= t.limit) return undefined;
    const text = setting(fx.store.state, 'rate_limiting_response_text');
    return new Response(typeof text === 'string' && text.trim() !== '' ? text : RETRY_LATER, {
      status: 429,
      headers: { 'Content-Type': 'text/plain', ...throttledHeaders(t, w.count, now) },
    });
  }

  /** Drops the counters of windows already over (every throttle's window is at most its period). */
  #prune(now: number): void {
    for (const [key, w] of this.#windows) {
      const period = Number(key.slice(key.lastIndexOf(':') + 1));
      if (w.index !== Math.floor(now / period)) this.#windows.delete(key);
    }
    // Still full: every client is in its current window; start over rather than grow.
    if (this.#windows.size >= MAX_COUNTERS) this.#windows.clear();
  }
}

/**
 * `Gitlab::RackAttack.throttled_response_headers`: the limit scaled to a 60-second window and rounded
 * up, the count observed, and when the window ends.
 */
function throttledHeaders(t: Throttle, observed: number, now: number): Record<string, string> {
  const retryAfter = t.period - (now % t.period);
  const reset = new Date((now + retryAfter) * 1000);
  return {
    'RateLimit-Name': t.name,
    'RateLimit-Limit': String(Math.ceil((t.limit * 60) / t.period)),
    'RateLimit-Observed': String(observed),
    'RateLimit-Remaining': String(t.limit > observed ? t.limit - observed : 0),
    'RateLimit-Reset': String(now + retryAfter),
    'RateLimit-ResetTime': reset.toUTCString(),
    'Retry-After': String(retryAfter),
  };
}
