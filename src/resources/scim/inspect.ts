/**
 * Ruby's `inspect` of request params after Rails' parameter filter, as the platform interpolates them
 * into SCIM error details (`Error saving user with {"userName"=>"jane", ...}`).
 */

/** The platform's `filter_parameters`: regexps as given, plain names as one case-insensitive regexp. */
const FILTERS = [
  /token$/,
  /password/,
  /secret/,
  /key$/,
  /^body$/,
  /^description$/,
  /^note$/,
  /^text$/,
  /^title$/,
  /certificate|encrypted_key|hook|import_url|elasticsearch_url|otp_attempt|sentry_dsn|trace|variables|content|sharedSecret/i,
];

const filtered = (key: string) => FILTERS.some((re) => re.test(key));

/** `String#inspect`. */
function rubyString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\x1b') out += '\\e';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += ch;
  }
  // `#{`, `#$` and `#@` would interpolate in a Ruby literal, so inspect escapes their `#`.
  return `${out.replace(/#(?=[{$@])/g, '\\#')}"`;
}

/** `inspect` of a params value (hashes with string keys, arrays, strings, numbers, booleans, nil). */
export function rubyInspect(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return rubyString(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number')
    return Number.isInteger(v) ? String(v) : String(v).includes('.') ? String(v) : `${v}.0`;
  if (Array.isArray(v)) return `[${v.map(rubyInspect).join(', ')}]`;
  if (v instanceof File) return '#<ActionDispatch::Http::UploadedFile>';
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).map(
      ([k, x]) => `${rubyString(k)}=>${filtered(k) ? '"[FILTERED]"' : rubyInspect(x)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return rubyString(String(v));
}
