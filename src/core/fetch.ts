/**
 * An instance's `fetch`, shaped as the global `fetch`: `fx.fetch(url, init)` works wherever a fetch
 * function is expected (a client's `fetch` option, a spy), while servers that call it with a `Request`
 * and their adapter's bindings (`serve({ fetch: fx.fetch })`) keep passing those bindings through.
 */

/** `fetch(input, init)`, and what a server adapter calls: `(request, env)`. */
export type FauxlabFetch = (input: string | URL | Request, init?: RequestInit | object) => Promise<Response>;

/** The members of a `RequestInit`: an object with none of them is an adapter's bindings (`{ incoming, outgoing }`). */
const INIT_KEYS = [
  'method',
  'headers',
  'body',
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

const isInit = (o: object) => INIT_KEYS.some((k) => k in o);

/** Wraps a `(request, env)` handler as a `fetch`: errors in building the request reject, as fetch's do. */
export function asFetch(handler: (request: Request, env?: object) => Promise<Response>): FauxlabFetch {
  return (input, init) => {
    if (input instanceof Request && (init === undefined || !isInit(init))) return handler(input, init);
    try {
      return handler(new Request(input, init as RequestInit | undefined));
    } catch (e) {
      return Promise.reject(e);
    }
  };
}
