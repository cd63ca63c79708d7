/**
 * Who may drive the control plane. A mock on a developer's machine is reachable from every web page the
 * developer opens, so without an admin token the control plane refuses what only a browser sends for
 * another site's page: a write whose `Origin` is not the server's own, or whose `Sec-Fetch-Site` says
 * `cross-site` or `same-site` (every current browser sends one of the two with a cross-origin write).
 * What a person or a script sends is accepted as WireMock's and moto's admin APIs accept it: `curl -X
 * POST .../__fauxlab/reset` with no body and no type, `requests.post(url)`, or JSON. A body typed as a
 * form or text is still refused (415): it is what a page's `<form>` sends, and never JSON. A request
 * over the network must also name a loopback host or the configured base URL's (a page that rebinds
 * its own DNS name to 127.0.0.1 still sends its own name). With an admin token, every request must
 * carry it, and then any host may.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { apiError } from '../core/errors.js';

export interface GuardOptions {
  /** The admin token every request must carry, if any. */
  token?: string;
  /** Signed in otherwise (a dashboard session): neither the token nor the host is asked for. */
  admitted?: boolean;
  /** A POST that may be a plain form (the dashboard's sign-in and sign-out, which work without script). */
  formPost?: boolean;
  /** The configured base URL, whose host is accepted as a loopback name is. */
  baseUrl?: string;
  /** The request came over a socket (a served mock), not from a caller in the same process. */
  network: boolean;
}

/** Compares secrets in constant time (by their digests, so lengths do not leak either). */
export const sameSecret = (given: string | undefined, expected: string) =>
  given !== undefined &&
  timingSafeEqual(
    createHash('sha256').update(given).digest(),
    createHash('sha256').update(expected).digest(),
  );

/** The host name of a `Host` header, lower-cased, without port or IPv6 brackets. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') < 0 ? undefined : h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

/** Whether a host name is this machine's: `localhost` (and its subdomains), 127.0.0.0/8, `::1`. */
export const isLoopback = (name: string) =>
  name === 'localhost' ||
  name.endsWith('.localhost') ||
  /^127(?:\.\d{1,3}){3}$/.test(name) ||
  name === '::1' ||
  name === '0:0:0:0:0:0:0:1';

/** Throws the control plane's refusal of a request, if it is one to refuse. */
export function guardControlPlane(req: Request, o: GuardOptions): void {
  if (o.admitted) {
    // The session was checked by the dashboard, against the same token.
  } else if (o.token !== undefined) {
    const auth = req.headers.get('authorization');
    const m = auth === null ? null : /^bearer[ \t]+(.*)$/i.exec(auth.trim());
    if (!m)
      throw apiError(
        401,
        '401 Unauthorized - admin token missing: send "Authorization: Bearer <admin token>"',
      );
    if (!sameSecret(m[1]!.trim(), o.token)) throw apiError(401, '401 Unauthorized - wrong admin token');
  } else if (o.network) {
    const name = hostName(req.headers.get('host') ?? '');
    const base = o.baseUrl === undefined ? undefined : new URL(o.baseUrl).hostname.replace(/^\[|\]$/g, '');
    if (!isLoopback(name) && name !== base?.toLowerCase())
      throw apiError(
        403,
        `403 Forbidden - the control plane answers only requests to localhost, 127.0.0.1, [::1] or the base URL's host without an admin token (this one named ${JSON.stringify(name)}); start the server with --admin-token to serve it to other hosts`,
      );
  }
  if (WRITES.has(req.method)) refuseCrossSite(req, o);
  if (req.method === 'POST' && !o.formPost) {
    const type = (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== '' && type !== 'application/json')
      throw apiError(
        415,
        '415 Unsupported Media Type - send control plane POSTs as "Content-Type: application/json" (or with no type)',
      );
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Refuses a write a browser made for another site's page: `Sec-Fetch-Site` (Fetch Metadata) of
 * `cross-site` or `same-site` (another port of localhost is same-site), or an `Origin` other than the
 * server's own (the request's `Host`, or the base URL's origin); `Origin: null` (a sandboxed frame, a
 * `file:` page) is never the server's. The dashboard's own writes are same-origin.
 */
function refuseCrossSite(req: Request, o: GuardOptions): void {
  const site = req.headers.get('sec-fetch-site')?.trim().toLowerCase();
  const origin = req.headers.get('origin')?.trim();
  const crossSite = site === 'cross-site' || site === 'same-site';
  if (!crossSite && (origin === undefined || origin === '' || ownOrigin(req, origin, o.baseUrl))) return;
  throw apiError(
    403,
    `403 Forbidden - the control plane refuses writes made for another site's page (${
      crossSite ? `Sec-Fetch-Site: ${site}` : `Origin: ${origin}`
    }); send them without a browser, or from the dashboard`,
  );
}

/** Whether an `Origin` names this server: the host (and port) it was asked for, or the base URL's. */
function ownOrigin(req: Request, origin: string, baseUrl: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (baseUrl !== undefined && new URL(baseUrl).origin === url.origin) return true;
  const asked = new URL(req.url);
  const host = req.headers.get('host') ?? asked.host;
  return asked.protocol === url.protocol && host.trim().toLowerCase() === url.host;
}

/**
 * The admin token a server is started with: `--admin-token`, else the `FAUXLAB_ADMIN_TOKEN` variable
 * (which keeps it out of the process list). Throws an Error for an empty one, which would protect
 * nothing.
 */
export function adminTokenOf(flag: string | undefined, env: string | undefined): string | undefined {
  const [value, from] = flag !== undefined ? [flag, '--admin-token'] : [env, 'FAUXLAB_ADMIN_TOKEN'];
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new Error(`${from} is empty: give a token, or leave it out`);
  return value;
}

/**
 * The warning to print when a server listens beyond this machine without an admin token, with the URL
 * others reach it at; undefined when it listens on a loopback address or has a token.
 */
export function exposureWarning(host: string, port: number, token: string | undefined): string | undefined {
  if (token !== undefined || isLoopback(hostName(host.includes(':') ? `[${host}]` : host))) return undefined;
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  let shown = host;
  if (wildcard) {
    const nets = Object.values(networkInterfaces()).flat();
    shown = nets.find((n) => n && !n.internal && n.family === 'IPv4')?.address ?? host;
  }
  const url = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  return [
    `fauxlab: warning: listening on ${host || 'every address'} without an admin token: anyone who can reach ${url}`,
    "  can use the API; its control plane answers only requests naming localhost (or --base-url's host).",
    '  Give --admin-token (or FAUXLAB_ADMIN_TOKEN) to let other hosts drive /__fauxlab/.',
  ].join('\n');
}
