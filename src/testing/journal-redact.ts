/**
 * What the request journal shows of secrets: credentials in headers, query params, URLs and bodies read
 * `[FILTERED]`; request bodies parsed (JSON, forms, multipart) and cut at the journal's cap. Run when an
 * entry is made, which for most entries is when the journal is first read.
 */
import { knownBody } from '../core/fetch.js';
import { dict } from '../core/own.js';
import { checkMultipartParts, parseQuery } from '../core/params.js';

export const FILTERED = '[FILTERED]';
const SECRET_HEADERS = new Set(['private-token', 'authorization', 'job-token', 'cookie', 'set-cookie']);

/**
 * Param and field names whose values are credentials: `password`, `current_password`,
 * `password_confirmation`, `secret`, `client_secret`, `token`, `runners_token`, `private_token`...
 * (but not `token_expires_at` or `password_expires_at`).
 */
export const isSecretKey = (key: string) => /(?:^|_)(?:password|secret|token)(?:_confirmation)?$/i.test(key);

/** A copy of a parsed body or query with every secret value replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 32 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  // Keys are the client's: `__proto__` must stay an ordinary key of the copy.
  const out = dict<unknown>();
  // A flag such as `reset_password: true` or an empty value gives nothing away.
  for (const [k, v] of Object.entries(value))
    out[k] =
      isSecretKey(k) && typeof v !== 'boolean' && v !== null && v !== '' ? FILTERED : redact(v, depth + 1);
  return out;
}

/** Whether a JSON text may hold a secret field, so that only those are parsed and filtered. */
export const MAY_HOLD_SECRET = /"[^"]*(?:password|secret|token)(?:_confirmation)?"\s*:/i;

/** Caps a text; the second value says whether it was cut. */
export function cap(text: string, limit: number): [string, boolean] {
  return text.length > limit ? [text.slice(0, limit), true] : [text, false];
}

/** The filtered query of a URL (Rack nesting); a malformed query is kept as its raw text. */
export function journalQuery(url: string): Record<string, unknown> {
  const q = url.indexOf('?');
  if (q < 0 || q === url.length - 1) return {};
  const hash = url.indexOf('#', q);
  const qs = url.slice(q + 1, hash < 0 ? undefined : hash);
  try {
    return redact(parseQuery(qs)) as Record<string, unknown>;
  } catch {
    // Too many params, or a malformed escape: kept as text (its start), each secret value filtered.
    return { '?': redactPairs(qs.length > RAW_QUERY_KEPT ? qs.slice(0, RAW_QUERY_KEPT) : qs, isSecretKey) };
  }
}

/** Characters of a query that cannot be parsed kept in the journal. */
const RAW_QUERY_KEPT = 4096;

/**
 * A pair's name as the platform would read it: percent-decoded, escape by escape, so that a malformed
 * escape elsewhere (`%zz`) does not hide `private%5Ftoken`.
 */
function pairName(raw: string): string {
  return raw.replace(/\+/g, ' ').replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** `a=1&b=2` text with the value of each pair whose (decoded) name is secret replaced, pair by pair. */
function redactPairs(qs: string, secret: (name: string) => boolean): string {
  return qs
    .split(/([&;])/)
    .map((pair) => {
      const eq = pair.indexOf('=');
      // `user[password]=...`: any key of a nested name.
      return eq >= 0 &&
        pairName(pair.slice(0, eq))
          .split(/[[\]]+/)
          .some((k) => k !== '' && secret(k))
        ? `${pair.slice(0, eq)}=${FILTERED}`
        : pair;
    })
    .join('');
}

/** Names that carry a credential in a URL: the secret keys, and OAuth's authorization `code`. */
const isSecretUrlParam = (name: string) => isSecretKey(name) || name.toLowerCase() === 'code';

/**
 * A URL with the credentials of its query and its fragment filtered: an OAuth redirect's
 * `#access_token=...`, `?code=...`, `id_token`, `refresh_token`.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const q = url.indexOf('?');
  const end = hash < 0 ? url.length : hash;
  let out = url.slice(0, q >= 0 && q < end ? q : end);
  if (q >= 0 && q < end) out += `?${redactPairs(url.slice(q + 1, end), isSecretUrlParam)}`;
  if (hash >= 0) out += `#${redactPairs(url.slice(hash + 1), isSecretUrlParam)}`;
  return out;
}

/** Headers whose value is a URL that may carry credentials. */
const URL_HEADERS = new Set(['location', 'content-location', 'referer']);

/**
 * A `Link` header with each `<url>` filtered: a page's links repeat the request's query, a
 * `private_token=` included (`Gitlab::Pagination::Base#page_href`).
 */
const redactLinks = (value: string) => value.replace(/<([^>]*)>/g, (_, url: string) => `<${redactUrl(url)}>`);

export function journalHeaders(headers: Headers): Record<string, string> {
  const out = dict<string>();
  headers.forEach(
    (v, k) =>
      (out[k] = SECRET_HEADERS.has(k)
        ? FILTERED
        : URL_HEADERS.has(k)
          ? redactUrl(v)
          : k === 'link'
            ? redactLinks(v)
            : v),
  );
  return out;
}

function fileInfo(f: File) {
  return { file: f.name, type: f.type, size: f.size };
}

/** Where the journal reads a request body from: Hono's request, which caches what the handler read. */
export interface BodySource {
  raw: Request;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  formData(): Promise<FormData>;
}

/**
 * Reads a request body for the journal, after the handler: parsed and filtered where the type allows
 * it, capped. Reading goes through Hono's body cache, so the body is not read twice (no clone). Never
 * throws: a body that cannot be read is described instead.
 */
export async function journalRequestBody(
  req: BodySource,
  limit: number,
): Promise<{ body?: unknown; truncated: boolean }> {
  // The method first: reading `body` of @hono/node-server's lightweight request builds a full Request
  // (with an AbortController), which more than halves a server's throughput.
  if (req.raw.method === 'GET' || req.raw.method === 'HEAD') return { truncated: false };
  // A light request answers without building the native one (whose body is a stream).
  const known = knownBody(req.raw);
  if (known === undefined ? req.raw.body === null : known === null) return { truncated: false };
  const type = (req.raw.headers.get('content-type') ?? '').toLowerCase();
  try {
    if (type.startsWith('multipart/form-data')) {
      // A form with more parts than the platform takes is not parsed for the journal either.
      checkMultipartParts(new Uint8Array(await req.arrayBuffer()), type);
      const form = await req.formData();
      const fields = dict<unknown>();
      for (const [k, v] of form.entries()) {
        const value = typeof v === 'string' ? (isSecretKey(k) ? FILTERED : v) : fileInfo(v);
        const prev = fields[k];
        fields[k] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
      }
      return capParsed(fields, limit);
    }
    // A body far past the cap is decoded only as far as the journal keeps it.
    const declared = Number(req.raw.headers.get('content-length') ?? NaN);
    const text =
      declared > limit * BIG_BODY * 4
        ? utf8.decode(new Uint8Array(await req.arrayBuffer()).subarray(0, limit * BIG_BODY * 4))
        : await req.text();
    return journalBodyText(text, type, limit);
  } catch {
    return NOT_CAPTURED;
  }
}

const NOT_CAPTURED = Object.freeze({ body: '[body not captured]', truncated: false });

/** A parsed body as the journal keeps it: whole, or its JSON cut at the cap. */
function capParsed(parsed: unknown, limit: number): { body?: unknown; truncated: boolean } {
  const json = JSON.stringify(parsed);
  if (json.length <= limit) return { body: parsed, truncated: false };
  return { body: json.slice(0, limit), truncated: true };
}

/**
 * As much of a request body's text as `journalBodyText` reads with cap `limit`: a body far past the cap is
 * kept by a pending entry only as far as its entry will show it (its start and the fact that it goes on),
 * so that a journal of large uploads holds no more than eagerly made entries would.
 */
export function journalBodyKept(text: string, limit: number): string {
  const reads = Math.max(limit * BIG_BODY + 1, limit + 1024, RAW_QUERY_KEPT) + 1;
  return text.length > reads ? text.slice(0, reads) : text;
}

/**
 * A request body that is not multipart, as the journal keeps it, from its text (`type` lower-case):
 * parsed and filtered where the type allows it, capped. Never throws.
 */
export function journalBodyText(
  text: string,
  type: string,
  limit: number,
): { body?: unknown; truncated: boolean } {
  try {
    if (text === '') return { truncated: false };
    if (type.startsWith('application/json') && text.length > limit * BIG_BODY) {
      // Far past the cap: only its start is kept, so only its start is filtered (a megabyte body would
      // be parsed, filtered and serialised again to keep 4 KB of it).
      const [t] = cap(text.slice(0, limit + 1024).replace(SECRET_JSON_FIELD, `$1"${FILTERED}"`), limit);
      return { body: t, truncated: true };
    }
    let parsed: unknown;
    if (type.startsWith('application/json')) {
      try {
        parsed = redact(JSON.parse(text));
      } catch {
        // Not JSON after all: kept as text below, with anything that looks like a secret field cut.
        const [t, cut] = cap(text.replace(SECRET_JSON_FIELD, `$1"${FILTERED}"`), limit);
        return { body: t, truncated: cut };
      }
    } else if (type.startsWith('application/x-www-form-urlencoded') && text.length > limit * BIG_BODY) {
      return { body: { '?': redactPairs(text.slice(0, RAW_QUERY_KEPT), isSecretKey) }, truncated: true };
    } else if (type.startsWith('application/x-www-form-urlencoded')) {
      parsed = journalQuery(`?${text}`);
    } else {
      const [t, cut] = cap(text, limit);
      return { body: t, truncated: cut };
    }
    return capParsed(parsed, limit);
  } catch {
    return NOT_CAPTURED;
  }
}

/** How many times the cap a JSON body may be and still be parsed and filtered whole for the journal. */
const BIG_BODY = 16;

export const SECRET_JSON_FIELD = /("[^"]*(?:password|secret|token)(?:_confirmation)?"\s*:\s*)"[^"]*"/gi;
/** Stateless: `decode` without `stream` keeps nothing between calls. */
export const utf8 = new TextDecoder();
