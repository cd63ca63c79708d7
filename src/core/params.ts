/**
 * Request input as the platform reads it: query string, form, multipart and JSON bodies merged into one
 * params object (Rack's nested `name[]`, `name[key]`, `name[][key]` rules), then declared per endpoint
 * with param types that coerce the way Grape does and fail with Grape's messages.
 */
import { apiError, grapeError } from './errors.js';

export type ParamValue =
  string | number | boolean | null | File | ParamValue[] | { [key: string]: ParamValue };
export type RawParams = Record<string, ParamValue>;

/**
 * Rack 2.2's `Rack::QueryParser` bounds, so that no request makes the parser do unbounded work: nesting
 * depth (`param_depth_limit`), the characters of the keys of one hash (`key_space_limit`) and the number
 * of parameters (`params_limit`, also Rack's `multipart_total_part_limit`).
 */
export const PARAM_DEPTH_LIMIT = 100;
export const KEY_SPACE_LIMIT = 65536;
export const PARAMS_LIMIT = 4096;

const malformed = () => apiError(400, '400 Bad request');

/**
 * An empty params hash. Without a prototype, a client's `__proto__`, `constructor` or `toString` is an
 * ordinary own key: it can neither reach `Object.prototype` nor read an inherited value.
 */
export const emptyParams = (): RawParams => Object.create(null) as RawParams;

function decodeComponent(s: string): string {
  if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s;
  const plus = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    throw malformed();
  }
}

const isHash = (v: unknown): v is Record<string, ParamValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof File);

/** Key characters each hash of one parse holds, as Rack's `Params` counts them. */
type KeySpace = Map<object, number>;

/** Sets `hash[key]`, counting a new key against the hash's key space. */
function setKey(hash: Record<string, ParamValue>, key: string, value: ParamValue, space: KeySpace): void {
  if (!Object.hasOwn(hash, key)) {
    const used = (space.get(hash) ?? 0) + key.length;
    if (used > KEY_SPACE_LIMIT) throw malformed();
    space.set(hash, used);
  }
  hash[key] = value;
}

/** `hash[key]`, or `make()` stored there first; own keys only. */
function child<T extends ParamValue>(
  hash: Record<string, ParamValue>,
  key: string,
  make: () => T,
  space: KeySpace,
): ParamValue {
  if (Object.hasOwn(hash, key)) return hash[key]!;
  const v = make();
  setKey(hash, key, v, space);
  return v;
}

/** Rack's normalize_params: places one `name=value` pair into a nested params object. */
function place(
  params: Record<string, ParamValue>,
  name: string,
  value: ParamValue,
  depth: number,
  space: KeySpace,
): void {
  if (depth >= PARAM_DEPTH_LIMIT) throw malformed();
  const m = /^[[\]]*([^[\]]+)\]*/.exec(name);
  const key = m?.[1] ?? '';
  const after = m ? name.slice(m[0].length) : '';
  if (key === '') return;
  if (after === '') {
    setKey(params, key, value, space);
  } else if (after === '[') {
    setKey(params, name, value, space);
  } else if (after === '[]') {
    const arr = child(params, key, () => [], space);
    if (!Array.isArray(arr)) throw malformed();
    arr.push(value);
  } else if (after.startsWith('[]')) {
    const childName = /^\[\]\[([^[\]]+)\]$/.exec(after)?.[1] ?? after.slice(2);
    const arr = child(params, key, () => [], space);
    if (!Array.isArray(arr)) throw malformed();
    const last = arr[arr.length - 1];
    const childKey = /^[[\]]*([^[\]]+)/.exec(childName)?.[1] ?? childName;
    if (isHash(last) && !Object.hasOwn(last, childKey)) {
      place(last, childName, value, depth + 1, space);
    } else {
      const fresh = emptyParams();
      place(fresh, childName, value, depth + 1, space);
      arr.push(fresh);
    }
  } else {
    const hash = child(params, key, emptyParams, space);
    if (!isHash(hash)) throw malformed();
    place(hash, after, value, depth + 1, space);
  }
}

/** Refuses a query or form body with more parameters than Rack takes, before any of it is decoded. */
function checkCount(qs: { indexOf(s: string, from?: number): number }): void {
  let n = 1;
  for (let i = qs.indexOf('&'); i >= 0; i = qs.indexOf('&', i + 1)) if (++n > PARAMS_LIMIT) throw malformed();
  for (let i = qs.indexOf(';'); i >= 0; i = qs.indexOf(';', i + 1)) if (++n > PARAMS_LIMIT) throw malformed();
}

/** A form body as params: its parameters counted in the raw bytes, before it is decoded at all. */
export function parseFormBody(body: Uint8Array): RawParams {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  checkCount(bytes);
  return parseQuery(bytes.toString('utf8'));
}

/** Parses `a=1&b[]=2&c[d]=3` the way Rack does (a repeated plain key keeps the last value). */
export function parseQuery(qs: string, into: RawParams = emptyParams()): RawParams {
  if (qs.startsWith('?')) qs = qs.slice(1);
  if (!qs) return into;
  checkCount(qs);
  const space: KeySpace = new Map();
  for (const pair of qs.split(/[&;]/)) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decodeComponent(pair.slice(eq + 1));
    // A plain name (no brackets) is a plain key: what `place` would make of it, without its pattern.
    if (name !== '' && name.indexOf('[') < 0 && name.indexOf(']') < 0) setKey(into, name, value, space);
    else place(into, name, value, 0, space);
  }
  return into;
}

/** Adds form-data entries (strings and files) with the same nesting rules and bounds. */
export function placeEntries(
  entries: Iterable<[string, string | File]>,
  into: RawParams = emptyParams(),
): RawParams {
  const space: KeySpace = new Map();
  let n = 0;
  for (const [name, value] of entries) {
    if (++n > PARAMS_LIMIT) throw malformed();
    place(into, name, value, 0, space);
  }
  return into;
}

/**
 * Refuses a multipart body with more parts than Rack takes, by counting its boundary lines in the raw
 * bytes: a form of a million tiny parts costs one scan, not a million parsed entries.
 */
export function checkMultipartParts(body: Uint8Array, contentType: string): void {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) return;
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const needle = Buffer.from(`--${boundary}`);
  let n = 0;
  for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + needle.length))
    if (++n > PARAMS_LIMIT + 1) throw malformed();
}

/**
 * A parsed JSON body as params: every object rebuilt without a prototype (so `"__proto__"` is an
 * ordinary key), nesting bounded as Ruby's JSON parser bounds it (`max_nesting` 100); undefined when
 * the body nests deeper.
 */
export function jsonParams(value: unknown, depth = 0): ParamValue | undefined {
  if (typeof value !== 'object' || value === null) return value as ParamValue;
  if (depth >= PARAM_DEPTH_LIMIT) return undefined;
  if (Array.isArray(value)) {
    const out: ParamValue[] = new Array<ParamValue>(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = jsonParams(value[i], depth + 1);
      if (v === undefined) return undefined;
      out[i] = v;
    }
    return out;
  }
  const out = emptyParams();
  for (const k of Object.keys(value)) {
    const v = jsonParams((value as Record<string, unknown>)[k], depth + 1);
    if (v === undefined) return undefined;
    out[k] = v;
  }
  return out;
}

/** A JSON request body as params: an object's fields, or none for any other JSON value; 400 if not JSON. */
export function parseJsonBody(text: string): RawParams {
  if (text.trim() === '') return emptyParams();
  let body: ParamValue | undefined;
  try {
    body = jsonParams(JSON.parse(text));
  } catch {
    body = undefined;
  }
  if (body === undefined) throw apiError(400, 'message body does not match declared format');
  return isHash(body) ? body : emptyParams();
}

/** Serialises params the way Rails' `Hash#to_query` does: keys sorted, arrays as `k[]=v`, CGI escaping. */
export function toQuery(params: Record<string, unknown>, prefix?: string): string {
  const parts: string[] = [];
  const keys = Object.keys(params).sort();
  for (const k of keys) {
    const name = prefix ? `${prefix}[${k}]` : k;
    parts.push(...encodePair(name, params[k]));
  }
  return parts.join('&');
}

/** Characters `cgiEscape` leaves as they are. */
const CGI_SAFE = /^[\w.~-]*$/;

function cgiEscape(s: string): string {
  if (CGI_SAFE.test(s)) return s;
  return encodeURIComponent(s)
    .replace(/%20/g, '+')
    .replace(/[!'()~]/g, (ch) => '%' + ch.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%7E/g, '~');
}

function encodePair(name: string, value: unknown): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${cgiEscape(name + '[]')}=`];
    return value.flatMap((v) => encodePair(`${name}[]`, v));
  }
  if (value instanceof File) return [];
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object).sort();
    return entries.flatMap((k) => encodePair(`${name}[${k}]`, (value as Record<string, unknown>)[k]));
  }
  return [`${cgiEscape(name)}=${cgiEscape(value === null || value === undefined ? '' : String(value))}`];
}

// ---------------------------------------------------------------------------------------------------
// Declared parameters

const INVALID = Symbol('invalid');
type Coercer<T> = (v: ParamValue) => T | typeof INVALID;

const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

const coerceBool: Coercer<boolean> = (v) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : INVALID;
  if (typeof v !== 'string') return INVALID;
  const s = v.trim().toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  return INVALID;
};

const coerceInt: Coercer<number> = (v) => {
  if (typeof v === 'number') return Number.isInteger(v) ? v : INVALID;
  if (typeof v !== 'string') return INVALID;
  const s = v.trim().replace(/_/g, '');
  if (!/^[+-]?\d+$/.test(s)) return INVALID;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : INVALID;
};

const coerceFloat: Coercer<number> = (v) => {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || !/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) return INVALID;
  return Number(v);
};

const coerceStr: Coercer<string> = (v) => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return INVALID;
};

const coerceDateTime: Coercer<string> = (v) => {
  if (typeof v !== 'string') return INVALID;
  const t = Date.parse(v.trim());
  return Number.isNaN(t) ? INVALID : new Date(t).toISOString();
};

const coerceDate: Coercer<string> = (v) => {
  if (typeof v !== 'string') return INVALID;
  const m = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})/.exec(v);
  if (!m) return INVALID;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (d.getUTCMonth() !== Number(m[2]) - 1) return INVALID;
  return d.toISOString().slice(0, 10);
};

const coerceFile: Coercer<File> = (v) => (v instanceof File ? v : INVALID);

const coerceHash: Coercer<Record<string, ParamValue>> = (v) => (isHash(v) ? v : INVALID);

function arrayOf<T>(item: Coercer<T>, commaSeparated: boolean): Coercer<T[]> {
  return (v) => {
    let list: ParamValue[];
    if (Array.isArray(v)) list = v;
    else if (commaSeparated && typeof v === 'string') list = v === '' ? [] : v.split(',');
    else if (commaSeparated && typeof v === 'number') list = [v];
    else return INVALID;
    const out: T[] = [];
    for (const x of list) {
      const c = item(x);
      if (c === INVALID) return INVALID;
      out.push(c);
    }
    return out;
  };
}

interface ParamSpec<T> {
  coerce: Coercer<T>;
  required: boolean;
  defaultValue?: T;
  values?: readonly unknown[];
  allowBlank: boolean;
  /** Grape's `file_path: true` (`API::Validations::Validators::FilePath`). */
  filePath?: boolean;
}

/** A declared parameter. `T` is what the handler receives. */
export class Param<T> {
  constructor(readonly spec: ParamSpec<any>) {}
  /** Grape `requires`: absent → "x is missing". */
  required(): Param<Exclude<T, undefined>> {
    return new Param({ ...this.spec, required: true });
  }
  /** Grape `default:`; also what pagination links carry for an absent param. */
  default(value: Exclude<T, undefined>): Param<Exclude<T, undefined>> {
    return new Param({ ...this.spec, defaultValue: value });
  }
  /** Grape `values:`: anything else → "x does not have a valid value". */
  values<V extends Exclude<T, undefined>>(values: readonly V[]): Param<V | Extract<T, undefined>> {
    return new Param({ ...this.spec, values });
  }
  /** Grape `allow_blank: false`: "" → "x is empty". */
  notBlank(): Param<T> {
    return new Param({ ...this.spec, allowBlank: false });
  }
  /** Grape `file_path: true`: a path `Gitlab::Utils.check_path_traversal!` refuses → "x should be a valid file path". */
  filePath(): Param<T> {
    return new Param({ ...this.spec, filePath: true });
  }
}

const make = <T>(coerce: Coercer<T>) =>
  new Param<T | undefined>({ coerce, required: false, allowBlank: true });

/** Param types; each accepts what the platform's Grape types accept. */
export const p = {
  str: () => make(coerceStr),
  int: () => make(coerceInt),
  float: () => make(coerceFloat),
  bool: () => make(coerceBool),
  datetime: () => make(coerceDateTime),
  date: () => make(coerceDate),
  file: () => make(coerceFile),
  hash: () => make(coerceHash),
  /** Integer or string: ids that may also be names (`:id` of a user, `sudo`). */
  intOrStr: () => make<number | string>((v) => (coerceInt(v) === INVALID ? coerceStr(v) : coerceInt(v))),
  intArray: (opts: { commaSeparated?: boolean } = {}) => make(arrayOf(coerceInt, !!opts.commaSeparated)),
  strArray: (opts: { commaSeparated?: boolean } = {}) => make(arrayOf(coerceStr, !!opts.commaSeparated)),
  hashArray: () => make(arrayOf(coerceHash, false)),
};

export type Shape = Record<string, Param<any>>;
export type Parsed<S extends Shape> = { [K in keyof S]: S[K] extends Param<infer T> ? T : never };

/** A value that fails its declaration, with Grape's message. */
class Problem {
  constructor(readonly message: string) {}
}
const MISSING = new Problem('is missing');
const EMPTY = new Problem('is empty');
const INVALID_VALUE = new Problem('is invalid');
const NOT_ALLOWED = new Problem('does not have a valid value');
const NOT_A_FILE_PATH = new Problem('should be a valid file path');

/**
 * `Gitlab::Utils.check_path_traversal!` of 13.12: a path that starts with `../`, holds `/../` or ends
 * with `/..` (Linux has no alternative separator, so a backslash is an ordinary character).
 */
export const traversesPath = (path: string): boolean =>
  path.startsWith('../') || path.includes('/../') || path.endsWith('/..');

/** The declared value of one param, or its problem. */
function check(spec: ParamSpec<unknown>, raw: unknown): unknown {
  if (raw === undefined || raw === null) return spec.required ? MISSING : spec.defaultValue;
  if (raw === '' && !spec.allowBlank) return EMPTY;
  // An empty string is "no value" for every non-string type, as Grape's coercers treat it; not for a
  // file (`API::Validations::Types::WorkhorseFile`, a custom type whose coercer gets the string and
  // refuses it: `avatar=""` is `avatar is invalid`).
  if (raw === '' && spec.coerce !== coerceStr && spec.coerce !== coerceFile) return spec.defaultValue;
  const value = spec.coerce(raw as ParamValue);
  if (value === INVALID) return INVALID_VALUE;
  if (spec.values) {
    const ok = Array.isArray(value)
      ? value.every((x) => spec.values!.includes(x))
      : spec.values.includes(value);
    if (!ok) return NOT_ALLOWED;
  }
  if (spec.filePath && typeof value === 'string' && traversesPath(value)) return NOT_A_FILE_PATH;
  return value;
}

interface Compiled {
  fields: [string, ParamSpec<unknown>][];
  defaults: Readonly<Record<string, unknown>>;
  /** Whether `defaults` has any key. */
  hasDefaults: boolean;
}

/** Shapes are declared once per route: their field list and defaults are worked out once too. */
const compiled = new WeakMap<Shape, Compiled>();

function compile(shape: Shape): Compiled {
  let c = compiled.get(shape);
  if (!c) {
    const fields = Object.entries(shape).map(([k, v]) => [k, v.spec] as [string, ParamSpec<unknown>]);
    const defaults: Record<string, unknown> = {};
    for (const [k, spec] of fields) if (spec.defaultValue !== undefined) defaults[k] = spec.defaultValue;
    c = { fields, defaults: Object.freeze(defaults), hasDefaults: Object.keys(defaults).length > 0 };
    compiled.set(shape, c);
  }
  return c;
}

/**
 * Validates raw params against a declared shape. Each field is checked in declaration order (absent
 * ones too, so that `requires` and defaults apply), and all problems are reported at once, joined with
 * ", ", in Grape's `{"error": "..."}` shape.
 */
export function parseParams<S extends Shape>(shape: S, raw: RawParams): Parsed<S> {
  const out: Record<string, unknown> = {};
  let problems: string[] | undefined;
  const fields = compile(shape).fields;
  for (let i = 0; i < fields.length; i++) {
    const [name, spec] = fields[i]!;
    const v = check(spec, Object.hasOwn(raw, name) ? raw[name] : undefined);
    if (v instanceof Problem) (problems ??= []).push(`${name} ${v.message}`);
    else out[name] = v;
  }
  if (problems) throw grapeError(400, problems.join(', '));
  return out as Parsed<S>;
}

/**
 * The declared defaults of a shape, as Grape adds them to `params` (and so to pagination links). Frozen
 * and shared: spread it to change it.
 */
export function declaredDefaults(shape: Shape): Readonly<Record<string, unknown>> {
  return compile(shape).defaults;
}

/**
 * The params as Grape has them after declaration: raw plus declared defaults. Without defaults that is
 * `raw` itself (no route writes to its params, and every reader copies them), not a copy per request.
 */
export function withDeclaredDefaults(shape: Shape, raw: RawParams): Record<string, unknown> {
  const c = compile(shape);
  if (!c.hasDefaults) return raw;
  // `{ ...c.defaults, ...raw }`, without spreading `raw`: a prototype-free object is a dictionary, and
  // spreading one cost more than the rest of parsing a small request's params.
  const out: Record<string, unknown> = { ...c.defaults };
  const keys = Object.keys(raw);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: raw[k], enumerable: true, writable: true, configurable: true });
    else out[k] = raw[k];
  }
  return out;
}

/** Grape `mutually_exclusive`. */
export function mutuallyExclusive(raw: RawParams, ...names: string[]): void {
  const given = names.filter((n) => raw[n] !== undefined);
  if (given.length > 1) throw grapeError(400, `${given.join(', ')} are mutually exclusive`);
}

/** Grape `at_least_one_of`. */
export function atLeastOneOf(raw: RawParams, ...names: string[]): void {
  if (!names.some((n) => raw[n] !== undefined))
    throw grapeError(400, `${names.join(', ')} are missing, at least one parameter must be provided`);
}

/** Grape `all_or_none_of`. */
export function allOrNoneOf(raw: RawParams, ...names: string[]): void {
  const given = names.filter((n) => raw[n] !== undefined).length;
  if (given > 0 && given < names.length)
    throw grapeError(400, `${names.join(', ')} provide all or none of parameters`);
}

/** Grape `exactly_one_of`. */
export function exactlyOneOf(raw: RawParams, ...names: string[]): void {
  const given = names.filter((n) => raw[n] !== undefined);
  if (given.length === 0)
    throw grapeError(400, `${names.join(', ')} are missing, exactly one parameter must be provided`);
  if (given.length > 1) throw grapeError(400, `${given.join(', ')} are mutually exclusive`);
}
