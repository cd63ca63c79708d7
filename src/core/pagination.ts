/**
 * Offset pagination as Kaminari and the platform's OffsetPagination do it (headers, Link, the 10,000-row
 * count limit), and keyset pagination as a reusable strategy.
 */
import type { Ctx } from './context.js';
import { grapeError } from './errors.js';
import { featureEnabled } from './features.js';
import { p, toQuery } from './params.js';
import { jsonResponse, sendJson } from './respond.js';

/** Declared on every list endpoint, so that pagination links carry `per_page` like the platform's. */
export const paginationParams = {
  page: p.int().default(1),
  per_page: p.int().default(20),
};

const DEFAULT_PER_PAGE = 20;
const MAX_PER_PAGE = 100;
/** Kaminari's MAX_COUNT_LIMIT: above this, counts are not sent. */
export const COUNT_LIMIT = 10_000;

/**
 * Parsing URLs is a large part of a small request, and clients send the same few origins and list paths
 * again and again: what `new URL` makes of a URL's start is remembered, keyed by that start (the
 * characters up to the first `/` of the path for the origin, up to the first `?` for the path), which is
 * all the answer depends on. Bounded: past the limit a cache starts over.
 */
class UrlPartCache {
  #map = new Map<string, string>();
  constructor(readonly limit: number) {}
  get(key: string, make: () => string): string {
    let v = this.#map.get(key);
    if (v === undefined) {
      if (this.#map.size >= this.limit) this.#map.clear();
      this.#map.set(key, (v = make()));
    }
    return v;
  }
}
const origins = new UrlPartCache(64);
const pathnames = new UrlPartCache(256);

/** The base of pagination links: the configured URL, else the client's own scheme, host and port. */
export function requestBase(c: Ctx): string {
  // `c.get`: every `c.var` read copies all of the request's variables.
  const configured = c.get('fx').baseUrl;
  if (configured) return configured;
  const url = c.req.url;
  const slash = url.indexOf('/', url.indexOf('://') + 3);
  return origins.get(slash < 0 ? url : url.slice(0, slash), () => {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  });
}

/** The request's path as `new URL(url).pathname` gives it. */
function requestPath(c: Ctx): string {
  const url = c.req.url;
  const q = url.indexOf('?');
  return pathnames.get(q < 0 ? url : url.slice(0, q), () => new URL(url).pathname);
}

/** `base/path?query` of this request, for a link. */
const linkPrefix = (c: Ctx) => `${requestBase(c)}${requestPath(c)}?`;

/**
 * Links that differ only in `page`: the query is encoded once, as the parts before and after `page` in
 * `toQuery`'s (sorted) order, and each link splices its page number in.
 */
function pageLinks(c: Ctx, query: Record<string, unknown>): (page: number) => string {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const k in query) if (k !== 'page') (k < 'page' ? before : after)[k] = query[k];
  const prefix = linkPrefix(c);
  const left = toQuery(before);
  const right = toQuery(after);
  const head = left === '' ? `${prefix}page=` : `${prefix}${left}&page=`;
  const tail = right === '' ? '' : `&${right}`;
  return (page) => `${head}${page}${tail}`;
}

function intParam(c: Ctx, name: string): number | undefined {
  const raw = c.get('params')[name];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const s = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : null;
  if (s === null || !/^[+-]?\d+$/.test(s)) throw grapeError(400, `${name} is invalid`);
  return Number(s);
}

/** Kaminari's reading of `per_page`: clamped to 100, ignored when negative. */
export function perPage(c: Ctx): number {
  const v = intParam(c, 'per_page');
  if (v === undefined || v < 0) return DEFAULT_PER_PAGE;
  // Kaminari turns 0 into limit(0), which crashes the platform's header code; answer it as a bad value.
  if (v === 0) throw grapeError(400, 'per_page does not have a valid value');
  return Math.min(v, MAX_PER_PAGE);
}

export interface Page<T> {
  items: T[];
  headers: Record<string, string>;
}

/**
 * Slices one page out of an already filtered and ordered list and computes the platform's headers.
 * `total` may be larger than `items.length` when the caller only materialised part of the list.
 */
export function offsetPage<T>(c: Ctx, all: readonly T[]): Page<T> {
  const per = perPage(c);
  const rawPage = intParam(c, 'page');
  const page = rawPage === undefined || rawPage < 1 ? 1 : rawPage;
  const total = all.length;
  const withCounts = !(
    total > COUNT_LIMIT && featureEnabled(c.get('fx').store.state, 'api_kaminari_count_with_limit')
  );
  const start = (page - 1) * per;
  const items = all.slice(start, start + per);

  let next: number | null;
  let prev: number | null;
  const totalPages = Math.ceil(total / per);
  if (withCounts) {
    const outOfRange = page > totalPages;
    next = page === totalPages || outOfRange ? null : page + 1;
    prev = page === 1 || outOfRange ? null : page - 1;
  } else {
    // Without a count Kaminari looks one row ahead instead.
    const outOfRange = items.length === 0;
    next = outOfRange || start + per >= total ? null : page + 1;
    prev = page === 1 || outOfRange ? null : page - 1;
  }

  const linkParams = c.get('linkParams');
  const link = pageLinks(c, { ...linkParams, page: 0, per_page: linkParams.per_page ?? per });
  const links: string[] = [];
  if (prev !== null) links.push(`<${link(prev)}>; rel="prev"`);
  if (next !== null) links.push(`<${link(next)}>; rel="next"`);
  links.push(`<${link(1)}>; rel="first"`);
  if (withCounts) links.push(`<${link(Math.max(totalPages, 1))}>; rel="last"`);

  const headers: Record<string, string> = {
    'X-Per-Page': String(per),
    'X-Page': String(page),
    'X-Next-Page': next === null ? '' : String(next),
    'X-Prev-Page': prev === null ? '' : String(prev),
    Link: links.join(', '),
  };
  if (withCounts) {
    headers['X-Total'] = String(total);
    headers['X-Total-Pages'] = String(Math.max(totalPages, 1));
  }
  return { items, headers };
}

/**
 * Keyset pagination (`pagination=keyset`) by id: `all` is already filtered (including `id_after` /
 * `id_before`) and ordered in `direction`. Only a Link to the next page is sent, plus the deprecated
 * identical `Links` header; the last page has none.
 */
export function keysetPage<T>(
  c: Ctx,
  all: readonly T[],
  idOf: (t: T) => number,
  direction: 'asc' | 'desc',
): Page<T> {
  const raw = intParam(c, 'per_page');
  const per = raw === undefined || raw <= 0 ? DEFAULT_PER_PAGE : Math.min(raw, MAX_PER_PAGE);
  const items = all.slice(0, per);
  const headers: Record<string, string> = {};
  if (all.length > per && items.length > 0) {
    const last = idOf(items[items.length - 1]!);
    const query: Record<string, unknown> = {
      ...c.get('linkParams'),
      per_page: c.get('linkParams').per_page ?? per,
    };
    delete query.id_after;
    delete query.id_before;
    delete query.page;
    query[direction === 'asc' ? 'id_after' : 'id_before'] = last;
    const link = `<${linkPrefix(c)}${toQuery(query)}>; rel="next"`;
    headers.Link = link;
    headers.Links = link;
  }
  return { items, headers };
}

/**
 * Sends a page as JSON with its headers, as bytes the response cache can keep (`sendJson`); header
 * names lower-cased, as a `Headers` would send them.
 */
export function sendPage<T>(_c: Ctx, page: Page<T>, render: (t: T) => unknown): Response {
  const headers: Record<string, string> = {};
  for (const k in page.headers) headers[k.toLowerCase()] = page.headers[k]!;
  return sendJson(page.items.map(render), 200, headers);
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const EMPTY = Buffer.from('[]');

/**
 * Sends a page whose items render as JSON bytes (kept renderings, `core/render-cache.ts`): the array is
 * joined from them as they are, without parsing them or making one string.
 */
export function sendPageBytes<T>(page: Page<T>, bytesOf: (t: T) => Uint8Array<ArrayBuffer>): Response {
  const headers: Record<string, string> = {};
  for (const k in page.headers) headers[k.toLowerCase()] = page.headers[k]!;
  const items = page.items;
  if (items.length === 0) return jsonResponse(EMPTY, 200, headers);
  const chunks = new Array<Uint8Array<ArrayBuffer>>(items.length * 2 + 1);
  let size = items.length + 1;
  for (let i = 0; i < items.length; i++) {
    const b = bytesOf(items[i]!);
    chunks[i * 2] = i === 0 ? OPEN : COMMA;
    chunks[i * 2 + 1] = b;
    size += b.length;
  }
  chunks[items.length * 2] = CLOSE;
  // One body: a page goes out (and is kept by the response cache) as one buffer, which a server writes
  // at a better rate than the same bytes in pieces.
  return jsonResponse(Buffer.concat(chunks, size), 200, headers);
}

/** Offset-paginates and sends the items' JSON bytes (see `sendPageBytes`). */
export function paginateBytes<T>(
  c: Ctx,
  all: readonly T[],
  bytesOf: (t: T) => Uint8Array<ArrayBuffer>,
): Response {
  return sendPageBytes(offsetPage(c, all), bytesOf);
}

/**
 * Sends a page whose items render as JSON strings or bytes (`RecordRenderings.json`): when every item
 * is a string the page is one string (written with the response's head in one write, and copied by
 * nothing before it), else one buffer the strings are encoded into directly.
 */
export function sendPageJson<T>(page: Page<T>, jsonOf: (t: T) => string | Uint8Array<ArrayBuffer>): Response {
  const headers: Record<string, string> = {};
  for (const k in page.headers) headers[k.toLowerCase()] = page.headers[k]!;
  const items = page.items;
  const n = items.length;
  if (n === 0) return jsonResponse('[]', 200, headers);
  const parts = new Array<string | Uint8Array<ArrayBuffer>>(n * 2 + 1);
  let strings = true;
  for (let i = 0; i < n; i++) {
    const json = jsonOf(items[i]!);
    parts[i * 2] = i === 0 ? '[' : ',';
    parts[i * 2 + 1] = json;
    if (typeof json !== 'string') strings = false;
  }
  parts[n * 2] = ']';
  // `join` makes one flat string; concatenation would leave a tree of the pieces to flatten on write.
  if (strings) return jsonResponse(parts.join(''), 200, headers);
  let size = 0;
  for (const part of parts) size += typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : part.length;
  const body = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const part of parts) {
    if (typeof part === 'string') at += body.write(part, at, 'utf8');
    else {
      body.set(part, at);
      at += part.length;
    }
  }
  return jsonResponse(body, 200, headers);
}

/** Offset-paginates and sends the items' JSON, strings or bytes (see `sendPageJson`). */
export function paginateJson<T>(
  c: Ctx,
  all: readonly T[],
  jsonOf: (t: T) => string | Uint8Array<ArrayBuffer>,
): Response {
  return sendPageJson(offsetPage(c, all), jsonOf);
}

/** The common case: offset-paginate and render. */
export function paginate<T>(c: Ctx, all: readonly T[], render: (t: T) => unknown): Response {
  return sendPage(c, offsetPage(c, all), render);
}
