/**
 * The parts of `.gitlab-ci.yml` that decide whether a job joins a pipeline: `only`/`except` ref patterns
 * and `rules: - if:` expressions (`Gitlab::Ci::Pipeline::Expression`): variables, string literals,
 * `null`, `/regex/`, `==`, `!=`, `=~`, `!~`, `&&`, `||` and parentheses, `&&` binding tighter.
 *
 * Patterns are RE2's (`Gitlab::UntrustedRegexp::RubySyntax`, src/core/untrusted-regexp.ts): linear in
 * the subject whatever the pattern, and one RE2 refuses makes the expression invalid.
 */
import {
  fabricate,
  type RegexpBudget,
  matchesRubySyntax,
  RegexpError,
  tryFabricate,
  type UntrustedRegexp,
} from '../../core/untrusted-regexp.js';

const MAX_EXPRESSION = 4096;

// ---------------------------------------------------------------------------------------------------
// Expressions

type Token =
  | { t: 'var'; name: string }
  | { t: 'str'; value: string }
  | { t: 'null' }
  | { t: 'regex'; src: string; re: UntrustedRegexp }
  | { t: 'op'; op: '==' | '!=' | '=~' | '!~' | '&&' | '||' }
  | { t: '(' }
  | { t: ')' };

export class ExpressionError extends Error {}

function tokenize(text: string, budget?: RegexpBudget): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === '==' || two === '!=' || two === '=~' || two === '!~' || two === '&&' || two === '||') {
      out.push({ t: 'op', op: two });
      i += 2;
    } else if (ch === '(' || ch === ')') {
      out.push({ t: ch });
      i++;
    } else if (ch === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(i));
      if (!m) throw new ExpressionError('invalid variable');
      out.push({ t: 'var', name: m[1]! });
      i += m[0].length;
    } else if (ch === '"' || ch === "'") {
      const end = text.indexOf(ch, i + 1);
      if (end < 0) throw new ExpressionError('unterminated string');
      out.push({ t: 'str', value: text.slice(i + 1, end) });
      i = end + 1;
    } else if (ch === '/') {
      // A regex literal runs to the last unescaped slash before its flags.
      let j = i + 1;
      while (j < text.length && text[j] !== '/') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw new ExpressionError('unterminated regex');
      // `Lexeme::Pattern`: flags among RE2's `ismU` (any other letter is no lexeme), `\/` a slash.
      const flags = /^[ismU]*/.exec(text.slice(j + 1))![0];
      const src = text.slice(i, j + 1 + flags.length).replace(/\\\//g, '/');
      let re: UntrustedRegexp;
      try {
        re = fabricate(src, budget);
      } catch (e) {
        if (e instanceof RegexpError) throw new ExpressionError('Invalid regular expression!');
        throw e;
      }
      out.push({ t: 'regex', src, re });
      i = j + 1 + flags.length;
    } else if (text.startsWith('null', i)) {
      out.push({ t: 'null' });
      i += 4;
    } else throw new ExpressionError(`unknown token at ${i}`);
  }
  return out;
}

type Value = string | null | { regex: string; re: UntrustedRegexp };

/**
 * The whole expression parsed once; throws ExpressionError for text the platform's lexer refuses. Its
 * patterns are compiled from `budget`, the request's (src/core/untrusted-regexp.ts).
 */
export function parseExpression(
  text: string,
  budget?: RegexpBudget,
): (vars: ReadonlyMap<string, string>) => boolean {
  if (text.length > MAX_EXPRESSION) throw new ExpressionError('expression too long');
  const tokens = tokenize(text, budget);
  let pos = 0;
  type Node = (vars: ReadonlyMap<string, string>) => Value | boolean;

  const operand = (): Node => {
    const tok = tokens[pos++];
    if (!tok) throw new ExpressionError('unexpected end');
    if (tok.t === '(') {
      const inner = or();
      if (tokens[pos++]?.t !== ')') throw new ExpressionError('missing )');
      return inner;
    }
    if (tok.t === 'var') return (v) => v.get(tok.name) ?? null;
    if (tok.t === 'str') return () => tok.value;
    if (tok.t === 'null') return () => null;
    if (tok.t === 'regex') return () => ({ regex: tok.src, re: tok.re });
    throw new ExpressionError('unexpected operator');
  };

  const comparison = (): Node => {
    const left = operand();
    const tok = tokens[pos];
    if (tok?.t !== 'op' || tok.op === '&&' || tok.op === '||') return left;
    pos++;
    const right = operand();
    const op = tok.op;
    return (v) => {
      const a = left(v);
      const b = right(v);
      if (op === '==' || op === '!=') {
        const key = (x: Value | boolean) => (typeof x === 'object' && x !== null ? { regex: x.regex } : x);
        const same = JSON.stringify(key(a)) === JSON.stringify(key(b));
        return op === '==' ? same : !same;
      }
      if (typeof b !== 'object' || b === null || typeof a === 'boolean')
        throw new ExpressionError('a pattern must follow =~');
      // `Lexeme::Matches`: the text is the value as a string (an undefined variable is ''), and
      // `scan(text).present?` holds when RE2 finds any match, an empty one included.
      if (typeof a === 'object' && a !== null) throw new ExpressionError('a pattern cannot be matched');
      const hit = b.re.test(a ?? '');
      return op === '=~' ? hit : !hit;
    };
  };

  const truthy = (x: Value | boolean) =>
    typeof x === 'boolean' ? x : typeof x === 'string' ? x !== '' : x !== null;

  const and = (): Node => {
    let left = comparison();
    while (tokens[pos]?.t === 'op' && (tokens[pos] as { op: string }).op === '&&') {
      pos++;
      const l = left;
      const r = comparison();
      left = (v) => truthy(l(v)) && truthy(r(v));
    }
    return left;
  };

  function or(): Node {
    let left = and();
    while (tokens[pos]?.t === 'op' && (tokens[pos] as { op: string }).op === '||') {
      pos++;
      const l = left;
      const r = and();
      left = (v) => truthy(l(v)) || truthy(r(v));
    }
    return left;
  }

  const root = or();
  if (pos !== tokens.length) throw new ExpressionError('trailing tokens');
  // A pattern on the wrong side shows only once values are known: such a comparison is false.
  return (vars) => {
    try {
      return truthy(root(vars));
    } catch (e) {
      if (e instanceof ExpressionError) return false;
      throw e;
    }
  };
}

// ---------------------------------------------------------------------------------------------------
// only / except

/** What a pipeline is, for the ref policies and rules. */
export interface PipelineFacts {
  ref: string;
  tag: boolean;
  /** `CI_PIPELINE_SOURCE`: `push`, `web`, `trigger`, `api`, `schedule`, ... */
  source: string;
  variables: ReadonlyMap<string, string>;
}

/** `CI_PIPELINE_SOURCE` of a merge request's pipeline. */
export const MERGE_REQUEST_EVENT = 'merge_request_event';

/** The keywords of `only:`/`except:` refs and the pipeline sources they stand for. */
const SOURCE_KEYWORDS: Record<string, string> = {
  api: 'api',
  external: 'external',
  pipelines: 'pipeline',
  pushes: 'push',
  schedules: 'schedule',
  triggers: 'trigger',
  web: 'web',
  merge_requests: 'merge_request_event',
  external_pull_requests: 'external_pull_request_event',
  chat: 'chat',
};

/** Whether one `refs` entry matches the pipeline (`Build::Policy::Refs`). */
export function refMatches(pattern: string, f: PipelineFacts, budget?: RegexpBudget): boolean {
  // `Ci::Pipeline#branch?` is false for a merge request's pipeline.
  if (pattern === 'branches') return !f.tag && f.source !== MERGE_REQUEST_EVENT;
  if (pattern === 'tags') return f.tag;
  const source = Object.hasOwn(SOURCE_KEYWORDS, pattern) ? SOURCE_KEYWORDS[pattern] : undefined;
  if (source !== undefined) return f.source === source;
  // `name@namespace/project`: only the name part is compared (there are no forks' pipelines here).
  const name = pattern.includes('@') ? pattern.slice(0, pattern.lastIndexOf('@')) : pattern;
  // `RubySyntax.fabricate(pattern, fallback: true)`: a literal RE2 refuses is compared as a name
  // (validation refuses such a config before it gets here).
  const re = matchesRubySyntax(name) ? tryFabricate(name, budget) : null;
  if (re) return f.ref !== '' && re.test(f.ref);
  return name === f.ref;
}

/** A policy (`only` or `except`) as the config gives it: a list of refs, or `{refs, variables}`. */
export interface Policy {
  refs?: string[];
  variables?: string[];
}

/** Whether a policy is satisfied: any ref matches (when refs are given) and any variable expression holds. */
export function policyMatches(p: Policy, f: PipelineFacts, budget?: RegexpBudget): boolean {
  if (p.refs && !p.refs.some((r) => refMatches(r, f, budget))) return false;
  if (p.variables && p.variables.length) {
    return p.variables.some((e) => {
      try {
        return parseExpression(e, budget)(f.variables);
      } catch {
        return false;
      }
    });
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// rules: exists

const MAX_GLOB = 255;
const MAX_BRACE_EXPANSIONS = 64;

/** `{a,b}` alternatives expanded (`File::FNM_EXTGLOB`), bounded; undefined past the bound. */
function expandBraces(glob: string): string[] | undefined {
  const open = glob.indexOf('{');
  if (open < 0) return [glob];
  let depth = 0;
  let close = -1;
  const parts: string[] = [];
  let start = open + 1;
  for (let i = open; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) {
      close = i;
      parts.push(glob.slice(start, i));
      break;
    } else if (ch === ',' && depth === 1) {
      parts.push(glob.slice(start, i));
      start = i + 1;
    }
  }
  if (close < 0) return [glob];
  const out: string[] = [];
  for (const part of parts) {
    const rest = expandBraces(glob.slice(0, open) + part + glob.slice(close + 1));
    if (!rest) return undefined;
    out.push(...rest);
    if (out.length > MAX_BRACE_EXPANSIONS) return undefined;
  }
  return out;
}

/**
 * `File.fnmatch?(glob, path, FNM_PATHNAME | FNM_DOTMATCH)` by dynamic programming over the two strings
 * (time bounded by their lengths' product, whatever the pattern): `*` and `?` stay within a directory,
 * `**\/` spans any number of them, `[...]` is a class.
 */
function fnmatch(glob: string, path: string): boolean {
  const n = glob.length;
  const m = path.length;
  // memo[i * (m + 1) + j]: 0 unknown, 1 matches, 2 does not.
  const memo = new Uint8Array((n + 1) * (m + 1));
  const go = (i0: number, j0: number): boolean => {
    const stack: [number, number][] = [[i0, j0]];
    // Iterative depth-first search over states, each decided once.
    const result = (i: number, j: number) => memo[i * (m + 1) + j];
    while (stack.length) {
      const [i, j] = stack[stack.length - 1]!;
      const key = i * (m + 1) + j;
      if (memo[key]) {
        stack.pop();
        continue;
      }
      const next: [number, number][] = [];
      let decided: boolean | undefined;
      if (i === n) decided = j === m;
      else if (glob.startsWith('**/', i)) {
        // Zero directories, or one more directory component then the same pattern.
        next.push([i + 3, j]);
        const slash = path.indexOf('/', j);
        if (slash >= 0) next.push([i, slash + 1]);
      } else if (glob[i] === '*') {
        next.push([i + 1, j]);
        if (j < m && path[j] !== '/') next.push([i, j + 1]);
      } else if (j === m) decided = false;
      else if (glob[i] === '?') {
        if (path[j] === '/') decided = false;
        else next.push([i + 1, j + 1]);
      } else if (glob[i] === '[' && glob.indexOf(']', i + 2) >= 0) {
        const end = glob.indexOf(']', i + 2);
        let body = glob.slice(i + 1, end);
        const negate = body.startsWith('!') || body.startsWith('^');
        if (negate) body = body.slice(1);
        let hit = false;
        for (let k = 0; k < body.length; k++) {
          if (body[k + 1] === '-' && k + 2 < body.length) {
            if (path[j]! >= body[k]! && path[j]! <= body[k + 2]!) hit = true;
            k += 2;
          } else if (body[k] === path[j]) hit = true;
        }
        if (hit !== negate && path[j] !== '/') next.push([end + 1, j + 1]);
        else decided = false;
      } else if (glob[i] === '\\' && i + 1 < n) {
        if (glob[i + 1] === path[j]) next.push([i + 2, j + 1]);
        else decided = false;
      } else if (glob[i] === path[j]) next.push([i + 1, j + 1]);
      else decided = false;

      if (decided !== undefined) {
        memo[key] = decided ? 1 : 2;
        stack.pop();
        continue;
      }
      const pending = next.filter(([a, b]) => !result(a, b));
      if (pending.length) {
        stack.push(...pending);
        continue;
      }
      memo[key] = next.some(([a, b]) => result(a, b) === 1) ? 1 : 2;
      stack.pop();
    }
    return memo[i0 * (m + 1) + j0] === 1;
  };
  return go(0, 0);
}

/** `Clause::Exists::MAX_PATTERN_COMPARISONS`: past it, the clause holds. */
const MAX_PATTERN_COMPARISONS = 10_000;

/** `rules: exists:`: whether any glob matches a path of the commit's tree (`Clause::Exists`). */
export function existsMatches(globs: readonly string[], paths: readonly string[]): boolean {
  const exact = new Set(paths);
  let comparisons = 0;
  return globs.some((g) => {
    if (g.length > MAX_GLOB) return false;
    const expanded = expandBraces(g.replace(/^\/+/, ''));
    if (!expanded) return false;
    return expanded.some((x) => {
      if (!/[*?[\\]/.test(x)) return exact.has(x);
      return paths.some((p) => ++comparisons > MAX_PATTERN_COMPARISONS || fnmatch(x, p));
    });
  });
}
