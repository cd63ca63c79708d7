/**
 * The REST client of `fauxlab scenario capture`: one request at a time, 100 records a page (keyset
 * where the platform offers it), the `Link` header's `next` followed, and the platform's rate limits
 * honoured: a 429 waits for `Retry-After` (or `RateLimit-Reset`), a page that leaves `RateLimit-Remaining`
 * at 0 waits for the reset before the next request, and a 5xx or a dropped connection is retried a few
 * times with a growing pause. Anything else ends the capture with a message naming the request.
 */

export class CaptureError extends Error {
  override name = 'CaptureError';
}

export interface ClientOptions {
  /** The instance's base URL (`https://gitlab.example.com`), without `/api/v4`. */
  url: string;
  token: string;
  fetch?: typeof fetch;
  /** How a wait is made (tests pass one that records it). */
  sleep?: (ms: number) => Promise<void>;
  /** Attempts per request for 429, 5xx and network errors (default 5). */
  attempts?: number;
  /** The longest single wait a rate limit may ask for before the capture gives up (default 5 minutes). */
  maxWaitMs?: number;
}

export interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Client {
  readonly base: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #attempts: number;
  readonly #maxWait: number;
  /** When the rate limit's window reopens, once a page left nothing in it. */
  #resumeAt = 0;
  requests = 0;

  constructor(o: ClientOptions) {
    this.base = o.url.replace(/\/+$/, '');
    this.#token = o.token;
    this.#fetch = o.fetch ?? fetch;
    this.#sleep = o.sleep ?? realSleep;
    this.#attempts = o.attempts ?? 5;
    this.#maxWait = o.maxWaitMs ?? 300_000;
  }

  /** `GET /api/v4<path>`; 404 and 403 come back as answers, other failures throw. */
  async get(path: string, query: Record<string, string | number | boolean> = {}): Promise<Answer> {
    const url = new URL(`${this.base}/api/v4${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    return this.#send(url.toString());
  }

  /** The body of a `GET` that must succeed. */
  async must<T = Record<string, unknown>>(
    path: string,
    query: Record<string, string | number | boolean> = {},
  ) {
    const a = await this.get(path, query);
    if (a.status !== 200) throw new CaptureError(`GET ${path} answered ${a.status}${detail(a.body)}`);
    return a.body as T;
  }

  /**
   * Every record of a list, page after page; undefined when the list is not readable (403, 404), so that
   * the caller can say what it could not read.
   */
  async list<T = Record<string, unknown>>(
    path: string,
    query: Record<string, string | number | boolean> = {},
  ): Promise<T[] | undefined> {
    const url = new URL(`${this.base}/api/v4${path}`);
    for (const [k, v] of Object.entries({ per_page: 100, ...query })) url.searchParams.set(k, String(v));
    const out: T[] = [];
    let next: string | undefined = url.toString();
    const seen = new Set<string>();
    while (next !== undefined) {
      // A server that links a page to itself would otherwise be read forever.
      if (seen.has(next)) throw new CaptureError(`GET ${path}: the next page links back to ${next}`);
      seen.add(next);
      const a = await this.#send(next);
      // A list refused as a whole is one the token may not read; a page refused after the first would
      // leave the list cut short, which the capture must not write as if it were whole.
      if ((a.status === 403 || a.status === 404) && seen.size === 1) return undefined;
      if (a.status !== 200) throw new CaptureError(`GET ${path} answered ${a.status}${detail(a.body)}`);
      if (!Array.isArray(a.body)) throw new CaptureError(`GET ${path} answered something other than a list`);
      out.push(...(a.body as T[]));
      next = nextLink(a.headers.get('link'), this.base);
    }
    return out;
  }

  async #send(first: string): Promise<Answer> {
    const what = `GET ${first.slice(this.base.length)}`;
    let url = first;
    let redirects = 0;
    for (let attempt = 1; ; attempt++) {
      const wait = this.#resumeAt - Date.now();
      if (wait > 0) await this.#pause(wait, what);
      this.#resumeAt = 0;
      let res: Response;
      try {
        this.requests++;
        res = await this.#fetch(url, {
          headers: { 'PRIVATE-TOKEN': this.#token, Accept: 'application/json' },
          // A redirect elsewhere would carry the token there: redirects are followed here, same origin only.
          redirect: 'manual',
        });
      } catch (e) {
        if (attempt >= this.#attempts)
          throw new CaptureError(`${what}: ${(e as Error).message} (${attempt} attempts)`);
        await this.#sleep(backoff(attempt));
        continue;
      }
      if (res.status === 429 || res.status >= 500) {
        await res.arrayBuffer().catch(() => undefined);
        if (attempt >= this.#attempts)
          throw new CaptureError(`${what} answered ${res.status} ${attempt} times; giving up`);
        await this.#pause(res.status === 429 ? retryAfter(res.headers) : backoff(attempt), what);
        continue;
      }
      if (res.status >= 300 && res.status < 400) {
        await res.arrayBuffer().catch(() => undefined);
        const to = res.headers.get('location');
        const next = to === null ? undefined : new URL(to, url);
        if (next === undefined || next.origin !== new URL(this.base).origin)
          throw new CaptureError(
            `${what} redirects to ${to ?? 'nowhere'}; not followed (the token would go with it)`,
          );
        if (++redirects > MAX_REDIRECTS)
          throw new CaptureError(`${what}: more than ${MAX_REDIRECTS} redirects`);
        url = next.toString();
        attempt--;
        continue;
      }
      if (res.status === 401)
        throw new CaptureError(`${what} answered 401: the token is not valid for ${this.base}`);
      const remaining = res.headers.get('ratelimit-remaining');
      if (remaining !== null && Number(remaining) <= 0) this.#resumeAt = Date.now() + resetIn(res.headers);
      const text = await bounded(res, what);
      let body: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('json') && text !== '')
        try {
          body = JSON.parse(text);
        } catch {
          throw new CaptureError(`${what}: the answer is not JSON`);
        }
      return { status: res.status, body, headers: res.headers };
    }
  }

  async #pause(ms: number, what: string): Promise<void> {
    if (ms > this.#maxWait)
      throw new CaptureError(
        `${what}: the rate limit asks for a wait of ${Math.ceil(ms / 1000)} s; giving up`,
      );
    await this.#sleep(ms);
  }
}

const backoff = (attempt: number) => 500 * 2 ** (attempt - 1);

const MAX_REDIRECTS = 5;
/** The largest answer read (a page of 100 records is far smaller); a bigger one ends the capture. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** The answer's text, read up to MAX_ANSWER_BYTES. */
async function bounded(res: Response, what: string): Promise<string> {
  if (res.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new CaptureError(`${what}: the answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `Retry-After` in seconds or as an HTTP date; else the window's reset; else a second. */
function retryAfter(h: Headers): number {
  const v = h.get('retry-after');
  if (v !== null) {
    const s = Number(v);
    if (Number.isFinite(s) && s >= 0) return s * 1000;
    const at = Date.parse(v);
    if (!Number.isNaN(at)) return Math.max(0, at - Date.now());
  }
  return resetIn(h);
}

/** `RateLimit-Reset` is the epoch second the window reopens (the platform's `Gitlab::ApplicationRateLimiter`). */
function resetIn(h: Headers): number {
  const reset = Number(h.get('ratelimit-reset'));
  return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - Date.now()) : 1000;
}

/** The `rel="next"` URL of a `Link` header, if it stays on the instance. */
function nextLink(link: string | null, base: string): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!m) continue;
    const url = new URL(m[1]!, base);
    // A next page on another host would take the token there.
    return url.origin === new URL(base).origin ? url.toString() : undefined;
  }
  return undefined;
}

function detail(body: unknown): string {
  if (body && typeof body === 'object') {
    const m = (body as { message?: unknown; error?: unknown }).message ?? (body as { error?: unknown }).error;
    if (m !== undefined) return `: ${typeof m === 'string' ? m : JSON.stringify(m)}`;
  }
  return '';
}
