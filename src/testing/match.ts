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

/**
 * Compiles a path pattern. In a string, `:name` matches one whole segment, `*` any run of characters
 * within a segment and `**` anything (slashes included); everything else is literal. Patterns are
 * matched against the whole normalised path, e.g. `/api/v4/projects/:id/issues` or `/api/v4/users/**`.
 */
export function compilePath(pattern: PathPattern): RegExp {
  if (pattern instanceof RegExp) return pattern;
  const p = normalisePath(pattern.startsWith('/') ? pattern : `/${pattern}`);
  let src = '';
  for (let i = 0; i < p.length;) {
    if (p.startsWith('**', i)) {
      // `/**` at the end also matches the bare parent path (`/api/v4/users/**` matches `/api/v4/users`).
      if (src.endsWith('/') && i + 2 === p.length) src = `${src.slice(0, -1)}(?:/.*)?`;
      else src += '.*';
      i += 2;
    } else if (p[i] === '*') {
      src += '[^/]*';
      i += 1;
    } else if (p[i] === ':' && (i === 0 || p[i - 1] === '/')) {
      const m = /^:[A-Za-z_][A-Za-z0-9_]*/.exec(p.slice(i));
      if (m) {
        src += '[^/]+';
        i += m[0].length;
      } else {
        src += ':';
        i += 1;
      }
    } else {
      src += p[i]!.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  return new RegExp(`^${src}$`);
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
