/**
 * Every request fauxlab makes to a URL a user gave (webhooks, system hooks, integrations, export
 * uploads) goes through `outboundRequest`, as the platform's go through `Gitlab::HTTP` and its
 * `HTTPConnectionAdapter`: each hop is checked by the URL blocker before it is connected, to the
 * addresses the check resolved (`dns_rebind_protection`: the name is not looked up again), and
 * redirects are followed by hand, at most HTTParty's limit. Whatever the settings allow, no hop may
 * reach a fauxlab control plane (a `/__fauxlab/` path on any host) nor this instance itself.
 */
// The modules themselves, read at each request: MSW (and other interceptors) patch their `request`.
import nodeHttp, { type IncomingMessage } from 'node:http';
import nodeHttps from 'node:https';
import type { LookupFunction } from 'node:net';
import { isOwnAddress, portOf, validateUrl, type BlockerOptions } from './url-blocker.js';

/** What the settings say of one delivery's URL (read when the event happened). */
export type OutboundPolicy = Omit<BlockerOptions, 'schemes' | 'ports' | 'enforceUser'> & {
  /** This instance's own URLs (its external URL, the base its requests came to). */
  self: readonly string[];
  /** The local ports it was reached on: a local address on one of them is this instance too. */
  selfPorts?: ReadonlySet<number>;
};

export interface OutboundInit {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  /** `enable_ssl_verification`. */
  verifyTls?: boolean;
}

/** `Gitlab::HTTP::BlockedUrlError`, or a redirect chain past the limit (`RedirectionTooDeep`). */
export class OutboundBlocked extends Error {}

/** HTTParty's `limit: 5`: five requests, so four redirects followed; the fifth redirect fails. */
export const MAX_REQUESTS = 5;

const CONTROL_PLANE = 'Requests to the fauxlab control plane are not allowed';
const SELF = 'Requests to this fauxlab instance are not allowed';

function decodedPath(u: URL): string {
  let path = u.pathname;
  // Decoded until stable: `%5F%5Ffauxlab` and `%255F...` name the same route to a lenient router.
  for (let i = 0; i < 3; i++)
    try {
      const next = decodeURIComponent(path);
      if (next === path) break;
      path = next;
    } catch {
      break;
    }
  return path.toLowerCase();
}

/**
 * fauxlab's own rule, above the platform's: the message when a hop targets a control plane or this
 * instance (by its origin, or a local address on its port), else null.
 */
export function selfProblem(
  u: URL,
  addresses: readonly string[],
  self: readonly string[],
  selfPorts: ReadonlySet<number> = new Set(),
): string | null {
  if (/(^|[/\\])__fauxlab([/\\]|$)/.test(decodedPath(u))) return CONTROL_PLANE;
  const port = portOf(u);
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const local = (h: string) => h === 'localhost' || h.endsWith('.localhost') || isOwnAddress(h);
  if (selfPorts.has(port) && (local(host) || addresses.some(isOwnAddress))) return SELF;
  for (const s of self) {
    let b: URL;
    try {
      b = new URL(s);
    } catch {
      continue;
    }
    if (b.origin === u.origin) return SELF;
    const bhost = b.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (portOf(b) === port && local(bhost) && (local(host) || addresses.some(isOwnAddress))) return SELF;
  }
  return null;
}

/** A lookup that answers the addresses already checked, so the connection goes where the check looked. */
function pinned(addresses: readonly string[]): LookupFunction {
  const list = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts.all) cb(null, list);
    else cb(null, list[0]!.address, list[0]!.family);
  }) as unknown as LookupFunction;
}

function once(
  u: URL,
  addresses: readonly string[],
  init: OutboundInit,
  method: string,
  body: string | Uint8Array | undefined,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const send = u.protocol === 'https:' ? nodeHttps.request : nodeHttp.request;
  return new Promise((resolve, reject) => {
    const req = send(
      u,
      {
        method,
        headers: body === undefined ? omitLength(init.headers) : init.headers,
        signal,
        agent: false,
        rejectUnauthorized: init.verifyTls ?? true,
        ...(addresses.length ? { lookup: pinned(addresses) } : {}),
      },
      resolve,
    );
    req.on('error', reject);
    req.end(body);
  });
}

const omitLength = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).filter(([k]) => !/^content-(length|type)$/i.test(k)));

/**
 * Sends the request, following redirects (each hop checked); resolves to the final status. Throws
 * `OutboundBlocked` (`URL '...' is blocked: ...`) for a hop the blocker refuses, and the network's
 * error otherwise.
 */
export async function outboundRequest(
  url: string,
  init: OutboundInit,
  policy: OutboundPolicy,
): Promise<{ status: number; url: string }> {
  const signal = AbortSignal.timeout(init.timeoutMs);
  let method = init.method;
  let body = init.body;
  let target = url;
  for (let n = 1; ; n++) {
    // fauxlab's own rule first: it holds whatever the settings and the name's addresses say.
    let parsed: URL | undefined;
    try {
      parsed = new URL(target);
    } catch {
      // The blocker gives the platform's message.
    }
    const early = parsed && selfProblem(parsed, [], policy.self, policy.selfPorts);
    if (early) throw new OutboundBlocked(`URL '${target}' is blocked: ${early}`);
    const checked = await validateUrl(target, policy);
    if (!checked.ok) throw new OutboundBlocked(`URL '${target}' is blocked: ${checked.message}`);
    if (checked.url.protocol !== 'http:' && checked.url.protocol !== 'https:')
      throw new OutboundBlocked(`URL '${target}' is blocked: Only allowed schemes are http, https`);
    const own = selfProblem(checked.url, checked.addresses, policy.self, policy.selfPorts);
    if (own) throw new OutboundBlocked(`URL '${target}' is blocked: ${own}`);
    const res = await once(checked.url, checked.addresses, init, method, body, signal);
    res.resume();
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status < 300 || status >= 400 || status === 304 || !location) {
      await new Promise<void>((resolve) => {
        res.on('end', resolve);
        res.on('error', () => resolve());
        res.on('close', resolve);
      });
      return { status, url: target };
    }
    res.destroy();
    if (n >= MAX_REQUESTS) throw new OutboundBlocked('Gitlab::HTTP::RedirectionTooDeep');
    // HTTParty: a 303, and a 301 or 302, are followed with a GET; 307 and 308 keep the method and body.
    if (status !== 307 && status !== 308) {
      method = 'GET';
      body = undefined;
    }
    try {
      target = new URL(location, checked.url).toString();
    } catch {
      throw new OutboundBlocked(`URL '${location}' is blocked: URI is invalid`);
    }
  }
}
