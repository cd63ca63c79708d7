/**
 * `Gitlab::UrlBlocker` (lib/gitlab/url_blocker.rb): whether a URL a user gave may be requested by the
 * instance. The URL is parsed, its scheme and user checked, its host resolved (every address), and each
 * address checked: this machine (`::`, `0.0.0.0` and the host's interface addresses: "Requests to
 * localhost"), loopback (127/8, ::1), the local network (10/8, 172.16/12, 192.168/16, fec0::/10,
 * fc00::/7) and link-local (169.254/16, fe80::/10), unless the caller allows local requests or the
 * outbound allowlist (`Gitlab::UrlBlockers::UrlAllowlist`) names the host or the first address.
 *
 * IPv4-mapped IPv6 addresses are checked as the IPv4 address they carry (`Addrinfo#ipv6_to_ipv4`), and
 * odd IPv4 spellings (`2130706433`, `0x7f.1`, `0177.0.0.1`) are the address `getaddrinfo` makes of
 * them, which is what the WHATWG parser makes of them too. The resolver is the instance's
 * (`resolve` option), so tests need no DNS.
 */
import { lookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';

/** A name's addresses; throws (or gives none) when it cannot be resolved. */
export type Resolver = (hostname: string) => Promise<string[]>;

export interface BlockerOptions {
  /** `schemes:`; empty allows any (the HTTP connection adapter passes none). */
  schemes?: readonly string[];
  /** `ports:`: ports under 1024 must be one of these (`validate_port`); empty allows any. */
  ports?: readonly number[];
  /** `allow_localhost` and `allow_local_network` together, as every caller here sets them. */
  allowLocal: boolean;
  /** `enforce_user: true`: the user part must start with a letter or digit. */
  enforceUser?: boolean;
  /**
   * `dns_rebind_protection:` a name that cannot be resolved is blocked. Off (the validators') lets
   * it pass, to be refused when the request is made.
   */
  dnsRebindProtection: boolean;
  /** `outbound_local_requests_whitelist`, as stored. */
  allowlist: readonly string[];
  resolve: Resolver;
}

export type BlockResult = { ok: true; url: URL; addresses: string[] } | { ok: false; message: string };

// ---------------------------------------------------------------------------------------------------
// Addresses: an IPv4 address as 4 bytes, an IPv6 one as 16.

function parseV4(s: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const b = m.slice(1).map(Number);
  return b.every((x) => x <= 255) ? b : null;
}

function parseV6(input: string): number[] | null {
  let s = input.replace(/%.*$/, '').toLowerCase();
  if (!s.includes(':')) return null;
  // A dotted IPv4 tail (`::ffff:127.0.0.1`) is the last two groups.
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const b = parseV4(v4[2]!);
    if (!b) return null;
    s = `${v4[1]!}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  if (!/^[0-9a-f:]+$/.test(s)) return null;
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const part = (x: string) => (x === '' ? [] : x.split(':'));
  const head = part(halves[0]!);
  const rest = halves.length === 2 ? part(halves[1]!) : [];
  if (halves.length === 1 ? head.length !== 8 : head.length + rest.length > 7) return null;
  const groups = [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  const out: number[] = [];
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    out.push(n >> 8, n & 255);
  }
  return out;
}

/** An address as bytes: 4 for IPv4 (and for an IPv4-mapped IPv6 address), 16 for IPv6. */
export function ipBytes(address: string): number[] | null {
  const a = address.replace(/^\[|\]$/g, '');
  const v4 = parseV4(a);
  if (v4) return v4;
  const v6 = parseV6(a);
  if (!v6) return null;
  // `Addrinfo#ipv6_v4mapped?` -> `ipv6_to_ipv4`: ::ffff:a.b.c.d is a.b.c.d.
  if (v6.slice(0, 10).every((x) => x === 0) && v6[10] === 255 && v6[11] === 255) return v6.slice(12);
  return v6;
}

const bytesKey = (b: number[]) => b.join('.');

/** Whether `b` lies in `net`/`bits` (same family). */
function inNet(b: number[], net: number[], bits: number): boolean {
  if (b.length !== net.length) return false;
  for (let i = 0; i < b.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 255 : (0xff << (8 - bits)) & 255;
    if ((b[i]! & mask) !== (net[i]! & mask)) return false;
  }
  return true;
}

const NET = (s: string, bits: number) => ({ net: ipBytes(s)!, bits });
const LOOPBACK = [NET('127.0.0.0', 8), NET('::1', 128)];
const LOCAL_NETWORK = [
  NET('10.0.0.0', 8),
  NET('172.16.0.0', 12),
  NET('192.168.0.0', 16),
  NET('fec0::', 10),
  NET('fc00::', 7),
];
const LINK_LOCAL = [NET('169.254.0.0', 16), NET('fe80::', 10)];
const anyIn = (addrs: number[][], nets: { net: number[]; bits: number }[]) =>
  addrs.some((a) => nets.some((n) => inNet(a, n.net, n.bits)));

/**
 * `validate_localhost`'s list: `::`, `0.0.0.0` and `Socket.ip_address_list` (every interface's
 * address; loopback's are always there on the platform's hosts).
 */
export function localAddresses(): Set<string> {
  const out = new Set(['0.0.0.0', '::', '127.0.0.1', '::1'].map((a) => bytesKey(ipBytes(a)!)));
  for (const list of Object.values(networkInterfaces()))
    for (const i of list ?? []) {
      const b = ipBytes(i.address);
      if (b) out.add(bytesKey(b));
    }
  return out;
}

/** Whether an address is this machine: loopback, unspecified or one of its interfaces. */
export function isOwnAddress(address: string): boolean {
  const b = ipBytes(address);
  return b !== null && (localAddresses().has(bytesKey(b)) || anyIn([b], LOOPBACK));
}

/** `validate_local_request`'s message for the first rule the addresses break, or null. */
export function localProblem(addresses: readonly string[]): string | null {
  const bytes = addresses.map(ipBytes).filter((b): b is number[] => b !== null);
  const own = localAddresses();
  if (bytes.some((b) => own.has(bytesKey(b)))) return 'Requests to localhost are not allowed';
  if (anyIn(bytes, LOOPBACK)) return 'Requests to loopback addresses are not allowed';
  if (anyIn(bytes, LOCAL_NETWORK)) return 'Requests to the local network are not allowed';
  if (anyIn(bytes, LINK_LOCAL)) return 'Requests to the link local network are not allowed';
  return null;
}

// ---------------------------------------------------------------------------------------------------
// The allowlist: `ApplicationSetting#outbound_local_requests_allowlist_arrays`.

interface AllowEntry {
  ip?: { net: number[]; bits: number };
  domain?: string;
  port: number | null;
}

/** `parse_addr_and_port`: `[::1]:80`, `host:80`, or the entry without a port. */
function parseEntry(s: string): AllowEntry {
  const m = /^\[(.*)\]:(\d+)$/.exec(s) ?? /^([^:]+):(\d+)$/.exec(s);
  const address = m ? m[1]! : s;
  const port = m ? Number(m[2]) : null;
  // `Gitlab::Utils.string_to_ip_object`: `IPAddr.new`, which takes an address or a range with a prefix.
  const range = /^(.*)\/(\d{1,3})$/.exec(address);
  const b = ipBytes(range ? range[1]! : address);
  if (b) {
    const max = b.length * 8;
    const bits = range ? Number(range[2]) : max;
    if (bits <= max) return { ip: { net: b, bits }, port };
  }
  return { domain: address, port };
}

/** `UrlAllowlist.domain_allowed?` and `ip_allowed?` (the first address only, as the platform checks). */
function allowed(list: readonly string[], host: string, first: string | undefined, port: number): boolean {
  const firstBytes = first === undefined ? null : ipBytes(first);
  for (const raw of list) {
    const e = parseEntry(raw);
    if (e.port !== null && e.port !== port) continue;
    if (e.domain !== undefined && e.domain.toLowerCase() === host) return true;
    if (e.ip && firstBytes && inNet(firstBytes, e.ip.net, e.ip.bits)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------
// Resolution.

/** How long a name's lookup may take. */
const LOOKUP_MS = 5000;

/** RFC 6761's special-use names that no public resolver answers: not asked of DNS at all. */
const SPECIAL = /(^|\.)(test|invalid|example)$/i;

/**
 * The default resolver: a literal address is itself, `localhost` (and `*.localhost`) loopback, the
 * special-use names unresolvable without asking, anything else `dns.lookup` with every address.
 */
export const defaultResolver: Resolver = async (hostname) => {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (ipBytes(h)) return [h];
  // `getaddrinfo` reads `2130706433`, `0x7f.1` and `0177.0.0.1` as IPv4 addresses, as WHATWG does.
  let spelt = '';
  try {
    if (/^[0-9a-fx.]+$/.test(h)) spelt = new URL(`http://${h}/`).hostname;
  } catch {
    // Not an address in any spelling (`1.2.3.4.5`): a name, as getaddrinfo takes it.
  }
  if (parseV4(spelt)) return [spelt];
  if (h === 'localhost' || h.endsWith('.localhost')) return ['127.0.0.1', '::1'];
  if (SPECIAL.test(h)) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: 'ENOTFOUND' });
  // `dns.lookup` cannot be cancelled: past the bound the name counts as unresolved (a slow resolver
  // holds up only the request that asked).
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`getaddrinfo EAI_AGAIN ${h}`)), LOOKUP_MS);
  });
  try {
    const found = await Promise.race([lookup(h, { all: true, verbatim: true }), late]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  'http:': 80,
  'https:': 443,
  'ssh:': 22,
  'git:': 9418,
};

export const portOf = (u: URL): number => (u.port ? Number(u.port) : (DEFAULT_PORTS[u.protocol] ?? 0));

type Parsed = { ok: true; url: URL; host: string; port: number } | { ok: false; message: string };

/** `parse_url` and `validate_uri`: the URL's own parts, before any address. */
function parseChecked(url: string, o: Omit<BlockerOptions, 'resolve'>): Parsed {
  const fail = (message: string): Parsed => ({ ok: false, message });
  // `multiline_blocked?`.
  if (/[\r\n]/.test(url)) return fail('URI is invalid');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return fail('URI is invalid');
  }
  const scheme = u.protocol.slice(0, -1);
  if (o.schemes?.length && !o.schemes.includes(scheme))
    return fail(`Only allowed schemes are ${o.schemes.join(', ')}`);
  const port = portOf(u);
  if (o.ports?.length && port < 1024 && !o.ports.includes(port))
    return fail(`Only allowed ports are ${o.ports.join(', ')}, and any over 1024`);
  if (o.enforceUser && u.username && !/^[\p{L}\p{N}]/u.test(decodeURIComponent(u.username)))
    return fail('Username needs to start with an alphanumeric character');
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === '') return fail('URI is invalid');
  if (!ipBytes(host) && !/^[\p{L}\p{N}]/u.test(host)) return fail('Hostname or IP address invalid');
  return { ok: true, url: u, host, port };
}

/** `validate!` after resolution: the addresses against the options. */
function checkAddresses(
  p: Extract<Parsed, { ok: true }>,
  addresses: string[],
  o: Omit<BlockerOptions, 'resolve'>,
): BlockResult {
  const ok: BlockResult = { ok: true, url: p.url, addresses };
  if (!addresses.length) {
    // `get_address_info`'s `rescue SocketError`.
    if (allowed(o.allowlist, p.host, undefined, p.port) || !o.dnsRebindProtection) return ok;
    return { ok: false, message: 'Host cannot be resolved or invalid' };
  }
  if (o.allowLocal || allowed(o.allowlist, p.host, addresses[0], p.port)) return ok;
  const problem = localProblem(addresses);
  return problem ? { ok: false, message: problem } : ok;
}

/**
 * `Gitlab::UrlBlocker.validate!`: the URL with the addresses it resolved to (empty when the name did
 * not resolve and that is allowed), or the exception's message.
 */
export async function validateUrl(url: string, o: BlockerOptions): Promise<BlockResult> {
  const p = parseChecked(url, o);
  if (!p.ok) return p;
  // Nothing the addresses could say would block it: not resolved.
  if (o.allowLocal && !o.dnsRebindProtection) return { ok: true, url: p.url, addresses: [] };
  // A literal address is itself, whatever the resolver would say of it.
  let addresses: string[];
  try {
    addresses = ipBytes(p.host) ? [p.host] : await o.resolve(p.host);
  } catch {
    addresses = [];
  }
  return checkAddresses(p, addresses, o);
}

/**
 * `validate!` without resolving names (a scenario is loaded synchronously): a literal address (and
 * `localhost`) is checked, another name passes as one that did not resolve.
 */
export function validateLiteralUrl(url: string, o: Omit<BlockerOptions, 'resolve'>): BlockResult {
  const p = parseChecked(url, o);
  if (!p.ok) return p;
  const loopback = p.host === 'localhost' || p.host.endsWith('.localhost');
  const addresses = ipBytes(p.host) ? [p.host] : loopback ? ['127.0.0.1', '::1'] : [];
  return checkAddresses(p, addresses, { ...o, dnsRebindProtection: false });
}
