/**
 * A journal entry as a curl command, to replay a request from a shell. Credentials stay `[FILTERED]`
 * (the journal never had them): the user puts their own token back.
 */
import type { JournalEntry } from '../../testing/journal.js';

/** Headers curl or the connection sets by itself. */
const SKIPPED = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'transfer-encoding']);

/** Single-quoted for POSIX shells: nothing inside is expanded. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Rack-style pairs (`labels[]=a`, `a[b]=c`) of a parsed query or form, the reverse of the journal's parse. */
export function rackPairs(
  value: unknown,
  prefix = '',
  depth = 0,
  out: [string, string][] = [],
): [string, string][] {
  if (depth > 16) return out;
  if (Array.isArray(value)) for (const v of value) rackPairs(v, `${prefix}[]`, depth + 1, out);
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) rackPairs(v, prefix ? `${prefix}[${k}]` : k, depth + 1, out);
  else out.push([prefix, value === null || value === undefined ? '' : String(value)]);
  return out;
}

const isFile = (v: unknown): v is { file: string } =>
  typeof v === 'object' && v !== null && typeof (v as { file?: unknown }).file === 'string';

function queryString(query: Readonly<Record<string, unknown>>): string {
  // A query the journal could not parse is kept whole under `?`.
  if (typeof query['?'] === 'string' && Object.keys(query).length === 1) return query['?'];
  return new URLSearchParams(rackPairs(query)).toString();
}

/** The path as sent with its query string (credentials still `[FILTERED]`). */
export function pathWithQuery(entry: JournalEntry): string {
  const qs = queryString(entry.query);
  return `${entry.path}${qs ? `?${qs}` : ''}`;
}

export function curlCommand(entry: JournalEntry, origin: string): string {
  const url = `${origin}${pathWithQuery(entry)}`;
  const lines: string[] = [];
  const m = entry.method;
  lines.push(
    m === 'HEAD'
      ? `curl --head ${shellQuote(url)}`
      : m === 'GET'
        ? `curl ${shellQuote(url)}`
        : `curl -X ${m} ${shellQuote(url)}`,
  );
  const type = (entry.headers['content-type'] ?? '').toLowerCase();
  const multipart = type.startsWith('multipart/form-data');
  for (const [k, v] of Object.entries(entry.headers)) {
    // curl writes the multipart boundary itself.
    if (SKIPPED.has(k) || (multipart && k === 'content-type')) continue;
    lines.push(`-H ${shellQuote(`${k}: ${v}`)}`);
  }
  const body = entry.body;
  if (body !== undefined) {
    if (multipart && typeof body === 'object' && body !== null)
      for (const [k, value] of Object.entries(body))
        for (const v of Array.isArray(value) ? value : [value])
          // A file is journaled as `{ file, type, size }`: curl reads it from a file of that name.
          lines.push(`-F ${shellQuote(isFile(v) ? `${k}=@${v.file}` : `${k}=${String(v)}`)}`);
    else if (typeof body === 'string') lines.push(`--data-raw ${shellQuote(body)}`);
    else if (type.startsWith('application/x-www-form-urlencoded'))
      lines.push(`--data-raw ${shellQuote(new URLSearchParams(rackPairs(body)).toString())}`);
    else lines.push(`--data-raw ${shellQuote(JSON.stringify(body))}`);
  }
  return lines.join(' \\\n  ');
}
