/**
 * An instance's `fetch`, shaped as the global `fetch`: `fx.fetch(url, init)` works wherever a fetch
 * function is expected (a client's `fetch` option, a spy), while servers that call it with a `Request`
 * and their adapter's bindings (`serve({ fetch: fx.fetch })`) keep passing those bindings through.
 */
import { types } from 'node:util';

/** `fetch(input, init)`, and what a server adapter calls: `(request, env)`. */
export type FauxlabFetch = (input: string | URL | Request, init?: RequestInit | object) => Promise<Response>;

/** The members of a `RequestInit` a light request leaves to the native one. */
const OTHER_INIT_KEYS = [
  'signal',
  'redirect',
  'referrer',
  'referrerPolicy',
  'mode',
  'credentials',
  'cache',
  'integrity',
  'keepalive',
  'window',
  'duplex',
  'priority',
];
const OTHER_INIT = new Set(OTHER_INIT_KEYS);
/** The members of a `RequestInit`: an object with none of them is an adapter's bindings (`{ incoming, outgoing }`). */
const INIT_KEYS = ['method', 'headers', 'body', ...OTHER_INIT_KEYS];
const INIT = new Set(INIT_KEYS);

/**
 * Whether a plain object (not a proxy, its prototype `Object.prototype`) has none of `names` as an own
 * property, and `Object.prototype` has none of them either: then looking them up finds nothing. A lookup
 * of a missing name on an init made by spreading (`{ ...init, body }`) cost about a microsecond each.
 */
function lacksAll(o: object, names: ReadonlySet<string>): boolean {
  if (types.isProxy(o) || Object.getPrototypeOf(o) !== Object.prototype) return false;
  const own = Object.getOwnPropertyNames(o);
  for (let i = 0; i < own.length; i++) if (names.has(own[i]!)) return false;
  for (const n of names) if (n in Object.prototype) return false;
  return true;
}

const isInit = (o: object) => !lacksAll(o, INIT) && INIT_KEYS.some((k) => k in o);

/** Whether the init sets a member a light request leaves to the native one. */
const setsOther = (i: Record<string, unknown>) =>
  !lacksAll(i, OTHER_INIT) && OTHER_INIT_KEYS.some((k) => i[k] !== undefined);

/** Wraps a `(request, env)` handler as a `fetch`: errors in building the request reject, as fetch's do. */
export function asFetch(handler: (request: Request, env?: object) => Promise<Response>): FauxlabFetch {
  return (input, init) => {
    if (input instanceof Request && (init === undefined || !isInit(init))) return handler(input, init);
    try {
      const light =
        typeof input === 'string' || input instanceof URL
          ? lightRequest(String(input), init as RequestInit | undefined)
          : undefined;
      return handler(light ?? new Request(input, init as RequestInit | undefined));
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

/**
 * The platform's `Request`, whatever a server adapter put in its place: @hono/node-server swaps in a
 * lightweight class of its own whose prototype chain leads to the native one.
 */
const NativeRequest: typeof Request = (() => {
  let R = globalThis.Request;
  while (Object.getPrototypeOf(R) !== Function.prototype && typeof Object.getPrototypeOf(R) === 'function')
    R = Object.getPrototypeOf(R) as typeof Request;
  return R;
})();

/** Methods a native request keeps as they are written (others are refused or normalised). */
const PLAIN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const utf8 = new TextEncoder();

/** Whether a string survives a UTF-8 round trip unchanged (no lone surrogate). */
const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** A string body as `text()` reads it back: what the native request's UTF-8 round trip makes of it. */
const asRead = (b: string) => (wellFormed(b) ? b : Buffer.from(b, 'utf8').toString('utf8'));

/**
 * A `Request` with a string body or none (its prototype is the native one's, so `instanceof Request`
 * holds) that builds the native request only when something needs it (the body as a stream, `signal`,
 * `clone`, `formData`, ...): `text`, `json` and `arrayBuffer` read the string it holds. A native request
 * wraps every body in a web stream, makes an abort signal and converts its init through WebIDL: most of
 * what an in-process write cost before the route ran.
 */
class LightRequest {
  readonly #url: string;
  readonly #method: string;
  readonly #headers: Headers;
  readonly #body: string | null;
  #native: Request | undefined;
  #used = false;

  constructor(url: string, method: string, headers: Headers, body: string | null) {
    this.#url = url;
    this.#method = method;
    this.#headers = headers;
    this.#body = body;
  }

  /** The body it was made with (`null`: none), read or not; `undefined` for any other request. */
  static bodyOf(req: Request): string | null | undefined {
    return #body in req ? (req as unknown as LightRequest).#body : undefined;
  }

  /** The native request it stands for, made on first need. */
  static real(req: LightRequest): Request {
    return req.#real();
  }

  #real(): Request {
    if (this.#native) return this.#native;
    const real = new NativeRequest(this.#url, {
      method: this.#method,
      headers: this.#headers,
      body: this.#body,
    });
    // Read already: the native body is as used up as it would have been.
    if (this.#used) void real.arrayBuffer().catch(() => undefined);
    return (this.#native = real);
  }

  #take(): Promise<string> {
    if (this.#native) return this.#native.text();
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    return Promise.resolve(asRead(this.#body ?? ''));
  }

  get url(): string {
    return this.#url;
  }
  get method(): string {
    return this.#method;
  }
  get headers(): Headers {
    return this.#native ? this.#native.headers : this.#headers;
  }
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === null) return null;
    return this.#real().body;
  }
  get bodyUsed(): boolean {
    return this.#native ? this.#native.bodyUsed : this.#used;
  }
  text(): Promise<string> {
    return this.#take();
  }
  json(): Promise<unknown> {
    return this.#take().then((t) => JSON.parse(t) as unknown);
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#native) return this.#native.arrayBuffer();
    return this.#take().then((t) => utf8.encode(t).buffer);
  }
  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.arrayBuffer().then((b) => new Uint8Array(b));
  }
  clone(): Request {
    if (this.#native || this.#used) return this.#real().clone();
    return new LightRequest(
      this.#url,
      this.#method,
      new Headers(this.#headers),
      this.#body,
    ) as unknown as Request;
  }
}
Object.setPrototypeOf(LightRequest.prototype, NativeRequest.prototype);
// Everything else a request has (`signal`, `formData`, `cache`, ...) is the native request's.
for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(NativeRequest.prototype))) {
  if (key === 'constructor' || Object.prototype.hasOwnProperty.call(LightRequest.prototype, key)) continue;
  const real = (self: LightRequest) => LightRequest.real(self);
  if (d.get)
    Object.defineProperty(LightRequest.prototype, key, {
      get(this: LightRequest) {
        return Reflect.get(real(this), key) as unknown;
      },
      configurable: true,
    });
  else if (typeof d.value === 'function')
    Object.defineProperty(LightRequest.prototype, key, {
      value(this: LightRequest, ...args: unknown[]) {
        const r = real(this);
        return (Reflect.get(r, key) as (...a: unknown[]) => unknown).apply(r, args);
      },
      configurable: true,
      writable: true,
    });
}
// And what the platform reads of a request it is given (`new Request(light)`): its internal slots.
for (const key of Object.getOwnPropertySymbols(new NativeRequest('http://localhost/')))
  Object.defineProperty(LightRequest.prototype, key, {
    get(this: LightRequest) {
      return Reflect.get(LightRequest.real(this), key) as unknown;
    },
    configurable: true,
  });
Object.defineProperty(LightRequest.prototype, Symbol.for('nodejs.util.inspect.custom'), {
  value(this: LightRequest) {
    return `Request { method: '${this.method}', url: '${this.url}' }`;
  },
});

/**
 * A URL that the URL parser leaves as it is (so it need not be parsed): http(s), a lower-case host name
 * whose last label starts with a letter (not read as an IPv4 address), no port, user or fragment, and a
 * path and query of characters that are neither encoded nor changed (no `'` in the query, which is).
 */
const CANONICAL_URL =
  /^https?:\/\/(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*)?$/;
/** What the parser would resolve or decode in such a URL: dot segments, escaped dots. */
const DOT_SEGMENT = /\/\.|%2e/i;

/**
 * `new Request(url, init)` as a light request, when `Request` is the native one and the init holds
 * nothing but a plain method, headers and a string body (or none): anything else, and anything the
 * native constructor would refuse, is `undefined` (the caller then builds the native one, which also
 * throws the native errors).
 */
export function lightRequest(url: string, init?: RequestInit): Request | undefined {
  // Under a server adapter that replaced `Request`, a request is to be of its class.
  if (globalThis.Request !== NativeRequest) return undefined;
  let method = 'GET';
  let body: string | null = null;
  let headers: Headers;
  if (init !== undefined) {
    if (typeof init !== 'object' || init === null) return undefined;
    if (setsOther(init as Record<string, unknown>)) return undefined;
    const m = init.method;
    if (m !== undefined) {
      if (typeof m !== 'string' || !PLAIN_METHODS.has(m)) return undefined;
      method = m;
    }
    const b = init.body;
    if (b !== undefined && b !== null) {
      if (typeof b !== 'string' || method === 'GET' || method === 'HEAD') return undefined;
      body = b;
    }
  }
  let href = url;
  try {
    if (!CANONICAL_URL.test(url) || DOT_SEGMENT.test(url)) {
      const u = new URL(url);
      if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username !== '' || u.password !== '')
        return undefined;
      href = u.href;
    }
    headers = new Headers(init?.headers);
  } catch {
    return undefined;
  }
  // What the native constructor adds to a string body that names no type.
  if (body !== null && !headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
  return new LightRequest(href, method, headers, body) as unknown as Request;
}

/**
 * The body a light request was made with (read or not): its string, or `null` for none; `undefined` for
 * any other request (its body is then only to be had as a stream).
 */
export const knownBody = (req: Request): string | null | undefined => LightRequest.bodyOf(req);

/** The body of a light request as `text()` reads it (`null`: none); `undefined` for any other request. */
export function knownText(req: Request): string | null | undefined {
  const b = LightRequest.bodyOf(req);
  return typeof b === 'string' ? asRead(b) : b;
}
