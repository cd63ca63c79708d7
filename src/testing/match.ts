/**
 * Path patterns and partial matching, shared by the request journal's filters, fault injection and
 * request verification, so that one pattern means the same thing everywhere.
 */

/**
 * The path as the platform's routing sees it: empty segments collapsed, no trailing slash, no `.json`
 * suffix. Still percent-encoded (`/api/v4/projects/acme%2Fapp`).
 */
export function normalisePath(path: string): string {
  // Empty segments (python-gitlab's `/features//name`) and trailing slashes resolve to the same route.
  let p = path.replace(/\/{2,}/g, '/');
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  // Grape's format suffix.
  if (p.endsWith('.json')) p = p.slice(0, -5);
  return p || '/';
}

/** A path pattern: a string in route syntax, or a RegExp tested against the normalised path. */
export type PathPattern = string | RegExp;

/** What a compiled path pattern offers: a test against a normalised path. */
export interface PathMatcher {
  test(path: string): boolean;
}

/** The longest string pattern accepted (a pattern is a few route segments; this bounds matching work). */
export const MAX_PATTERN_LENGTH = 1024;

/** A pattern past MAX_PATTERN_LENGTH. */
export class PatternError extends RangeError {}

/**
 * Compiles a path pattern. In a string, `:name` matches one whole segment, `*` any run of characters
 * within a segment and `**` anything (slashes included); everything else is literal. Patterns are
 * matched against the whole normalised path, e.g. `/api/v4/projects/:id/issues` or `/api/v4/users/**`.
 *
 * A string pattern is not turned into a RegExp: `/**a**a**b` would backtrack for minutes on a long path.
 * It is run as a set of positions advanced one character at a time (a bit per pattern position, as
 * Shift-And does), which takes time proportional to the path's length times the pattern's / 32.
 */
export function compilePath(pattern: PathPattern): PathMatcher {
  if (pattern instanceof RegExp) return pattern;
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new PatternError(`path pattern longer than ${MAX_PATTERN_LENGTH} characters`);
  const p = normalisePath(pattern.startsWith('/') ? pattern : `/${pattern}`);
  const tokens = tokenize(p);
  // `/**` at the end also matches the bare parent path (`/api/v4/users/**` matches `/api/v4/users`).
  const [before, last] = tokens.slice(-2);
  const bare =
    p.endsWith('**') && last?.kind === 'star' && last.slash && before?.kind === 'char' && before.ch === '/'
      ? tokens.length - 2
      : undefined;
  return new GlobMatcher(tokens, bare);
}

/** One pattern position: a character (or class) to consume once, or one to repeat any number of times. */
type Token = { kind: 'char'; ch: string } | { kind: 'seg' } | { kind: 'star'; slash: boolean };

function tokenize(p: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < p.length;) {
    if (p.startsWith('**', i)) {
      out.push({ kind: 'star', slash: true });
      i += 2;
    } else if (p[i] === '*') {
      out.push({ kind: 'star', slash: false });
      i += 1;
    } else if (p[i] === ':' && (i === 0 || p[i - 1] === '/') && /^:[A-Za-z_]/.test(p.slice(i, i + 2))) {
      const m = /^:[A-Za-z_][A-Za-z0-9_]*/.exec(p.slice(i))!;
      out.push({ kind: 'seg' }, { kind: 'star', slash: false });
      i += m[0].length;
    } else {
      out.push({ kind: 'char', ch: p[i]! });
      i += 1;
    }
  }
  return out;
}

/**
 * Bit j of the state: the first j tokens have matched what was read so far. Reading a character moves
 * each state past a token that takes it (shift) or keeps it on a repeat that takes it (stay); a repeat
 * also matches nothing, so a state before one implies the state after it (closure).
 */
class GlobMatcher implements PathMatcher {
  readonly #n: number;
  readonly #words: number;
  /** States after a token that takes any character but `/`; that takes `/`; by literal character. */
  readonly #shiftAny: Uint32Array;
  readonly #shiftSlash: Uint32Array;
  readonly #shiftChar = new Map<string, Uint32Array>();
  /** States on a repeat: any character but `/`, and `/` (only `**`). */
  readonly #stayAny: Uint32Array;
  readonly #staySlash: Uint32Array;
  /** Positions j whose token is a repeat (state j implies state j + 1), in order. */
  readonly #repeats: number[] = [];

  /** A second accepting state: the parent path of a pattern ending in `/**`. */
  readonly #bare: number | undefined;

  constructor(tokens: Token[], bare: number | undefined) {
    this.#n = tokens.length;
    this.#bare = bare;
    this.#words = (this.#n >> 5) + 1;
    const bits = () => new Uint32Array(this.#words);
    const set = (a: Uint32Array, j: number) => (a[j >> 5]! |= 1 << (j & 31));
    this.#shiftAny = bits();
    this.#shiftSlash = bits();
    this.#stayAny = bits();
    this.#staySlash = bits();
    tokens.forEach((t, j) => {
      if (t.kind === 'char') {
        let m = this.#shiftChar.get(t.ch);
        if (!m) this.#shiftChar.set(t.ch, (m = bits()));
        set(m, j + 1);
      } else if (t.kind === 'seg') set(this.#shiftAny, j + 1);
      else {
        this.#repeats.push(j);
        set(this.#stayAny, j + 1);
        if (t.slash) set(this.#staySlash, j + 1);
      }
    });
  }

  /** Literal masks by ASCII code, for `#test1`. */
  #ascii?: Int32Array;

  /** `test` for a pattern of at most 31 positions: the state in one integer. */
  #test1(path: string): boolean {
    const shiftAny = this.#shiftAny[0]!;
    const shiftSlash = this.#shiftSlash[0]!;
    const stayAny = this.#stayAny[0]!;
    const staySlash = this.#staySlash[0]!;
    let ascii = this.#ascii;
    if (!ascii) {
      ascii = this.#ascii = new Int32Array(128);
      for (const [ch, m] of this.#shiftChar) if (ch.charCodeAt(0) < 128) ascii[ch.charCodeAt(0)] = m[0]!;
    }
    let rep = 0;
    for (const j of this.#repeats) rep |= 1 << j;
    const close = (d: number) => {
      for (let c = (d & rep) << 1; (c & ~d) !== 0; c = (d & rep) << 1) d |= c;
      return d;
    };
    let d = close(1);
    for (let i = 0; i < path.length && d !== 0; i++) {
      const code = path.charCodeAt(i);
      if (code === 47) d = close(((d << 1) & (shiftSlash | ascii[47]!)) | (d & staySlash));
      else {
        const lit = code < 128 ? ascii[code]! : (this.#shiftChar.get(path[i]!)?.[0] ?? 0);
        d = close(((d << 1) & (shiftAny | lit)) | (d & stayAny));
      }
    }
    const accept = (1 << this.#n) | (this.#bare === undefined ? 0 : 1 << this.#bare);
    return (d & accept) !== 0;
  }

  #close(d: Uint32Array): void {
    for (const j of this.#repeats) if (d[j >> 5]! & (1 << (j & 31))) d[(j + 1) >> 5]! |= 1 << ((j + 1) & 31);
  }

  test(path: string): boolean {
    if (this.#words === 1) return this.#test1(path);
    const w = this.#words;
    let d = new Uint32Array(w);
    let next = new Uint32Array(w);
    d[0] = 1;
    this.#close(d);
    for (let i = 0; i < path.length; i++) {
      const ch = path[i]!;
      const slash = ch === '/';
      const shift = slash ? this.#shiftSlash : this.#shiftAny;
      const lit = this.#shiftChar.get(ch);
      const stay = slash ? this.#staySlash : this.#stayAny;
      let carry = 0;
      let any = 0;
      for (let k = 0; k < w; k++) {
        const cur = d[k]!;
        const shifted = (cur << 1) | carry;
        carry = cur >>> 31;
        const v = ((shifted & (shift[k]! | (lit ? lit[k]! : 0))) | (cur & stay[k]!)) >>> 0;
        next[k] = v;
        any |= v;
      }
      if (any === 0) return false;
      [d, next] = [next, d];
      this.#close(d);
    }
    const has = (j: number) => (d[j >> 5]! & (1 << (j & 31))) !== 0;
    return has(this.#n) || (this.#bare !== undefined && has(this.#bare));
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RegExp);

/**
 * Whether `actual` contains `expected`: objects match when every expected key matches (other keys are
 * ignored), arrays element by element with the same length, a RegExp tests a string, a function is a
 * predicate, anything else is compared with `Object.is` after turning numbers and booleans into the
 * strings a query string or form would carry when the actual value is a string.
 */
export function partialMatch(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'function') return Boolean((expected as (v: unknown) => unknown)(actual));
  if (expected instanceof RegExp) return typeof actual === 'string' && expected.test(actual);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false;
    return expected.every((e, i) => partialMatch(actual[i], e));
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return false;
    return Object.keys(expected).every((k) => partialMatch(actual[k], expected[k]));
  }
  if (typeof actual === 'string' && (typeof expected === 'number' || typeof expected === 'boolean'))
    return actual === String(expected);
  return Object.is(actual, expected);
}

/**
 * Where `actual` departs from `expected`, as `path: expected X, got Y` lines (empty when it matches).
 * Used to explain near misses.
 */
export function differences(actual: unknown, expected: unknown, at: string): string[] {
  if (partialMatch(actual, expected)) return [];
  if (isPlainObject(expected) && isPlainObject(actual)) {
    const out: string[] = [];
    for (const k of Object.keys(expected)) out.push(...differences(actual[k], expected[k], `${at}.${k}`));
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual) && actual.length === expected.length) {
    const out: string[] = [];
    expected.forEach((e, i) => out.push(...differences(actual[i], e, `${at}[${i}]`)));
    return out;
  }
  return [`${at}: expected ${show(expected)}, got ${show(actual)}`];
}

/** A short, one-line rendering of a value for messages. */
export function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'function') return `a value passing ${v.name || 'the predicate'}`;
  if (v instanceof RegExp) return `a string matching ${String(v)}`;
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 200 ? `${s.slice(0, 197)}...` : s;
}
