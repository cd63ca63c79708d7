/**
 * `Gitlab::UntrustedRegexp`: every pattern a client supplies (CI `rules: if` and `only`/`except` refs,
 * push rules, wildcards) is matched on RE2, which runs in time linear in the subject whatever the
 * pattern, and lacks the features that need backtracking (back-references, look-arounds, atomic
 * groups). JavaScript's RegExp backtracks, so it never sees a client's pattern.
 *
 * The engine is re2js (a pure JavaScript port of RE2, synchronous); its parser is Go's, whose syntax is
 * RE2's, and its errors are given here in the C++ library's words, as the platform shows them
 * (`RE2::Regexp#error`, e.g. `invalid perl operator: (?=`).
 */
import { createRequire } from 'node:module';
import type { RE2JS, RE2JSSyntaxException } from 're2js';

/** The engine, loaded on the first pattern: most servers never compile one. */
const re2 = () => createRequire(import.meta.url)('re2js') as typeof import('re2js');

/** `RegexpError`: a pattern RE2 refuses, its message RE2's (`RegexpStatus::Text`). */
export class RegexpError extends Error {
  override name = 'RegexpError';
}

/** The Go parser's error codes as the C++ library names them (`re2/regexp.cc` `kErrorStrings`). */
const RE2_TEXT: ReadonlyMap<string, string> = new Map([
  ['invalid escape sequence', 'invalid escape sequence'],
  ['invalid character class range', 'invalid character class range'],
  ['missing closing ]', 'missing ]'],
  ['missing closing )', 'missing )'],
  ['unexpected )', 'unexpected )'],
  ['trailing backslash at end of expression', 'trailing \\'],
  ['missing argument to repetition operator', 'no argument for repetition operator'],
  ['invalid repeat count', 'invalid repetition size'],
  ['invalid nested repetition operator', 'bad repetition operator'],
  ['invalid or unsupported Perl syntax', 'invalid perl operator'],
  ['invalid named capture', 'invalid named capture group'],
  ['duplicate capture group name', 'invalid named capture group'],
]);

/** What the C++ library answers when the compiled program outgrows its memory budget. */
const TOO_LARGE = 'pattern too large - compile failed';

function re2Message(e: RE2JSSyntaxException): string {
  const arg = e.input ?? '';
  // The release the platform ran parses `(?<` as nothing: named groups are `(?P<name>...)` only,
  // and look-behinds do not exist, so both stop at the same three characters.
  if (e.error === 'invalid named capture' && arg.startsWith('(?<')) return 'invalid perl operator: (?<';
  // Go names the duplicated group; RE2 shows the group's opening.
  if (e.error === 'duplicate capture group name') return `invalid named capture group: (?P<${arg}>`;
  const text = RE2_TEXT.get(e.error);
  if (text === undefined) return TOO_LARGE;
  return arg === '' ? text : `${text}: ${arg}`;
}

/**
 * Where the pattern first opens a group with `(?<` (outside classes, escapes and `\Q...\E`): re2js takes
 * `(?<name>...)`, which the platform's RE2 refuses; -1 when it does not.
 */
function anglePerlGroup(pattern: string): number {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        if (end < 0) return -1;
        i = end + 1;
      } else i++;
    } else if (inClass) {
      if (ch === '[' && pattern[i + 1] === ':') {
        const end = pattern.indexOf(':]', i + 2);
        if (end >= 0) i = end + 1;
      } else if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
      // A `]` first in the class (after an optional `^`) is a literal.
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
    } else if (ch === '(' && pattern.startsWith('?<', i + 1)) return i;
  }
  return -1;
}

/**
 * RE2 refuses a program past its memory budget (`RE2::Options::max_mem`, "pattern too large"). The
 * port builds programs far more slowly than the C++ library (microseconds per instruction), so its
 * budget is smaller: 5,000 instructions as RE2 counts them before compiling (`x{0,1000}` is 2,000), a
 * few milliseconds of compiling. A request compiling many patterns (a CI configuration) shares one
 * budget across them (`RegexpBudget`).
 */
export const MAX_PROGRAM = 5_000;

/** What one request may compile in all (a CI configuration's patterns, one pipeline's job selection). */
export const REQUEST_PROGRAM = 20_000;

/** The instructions one request may compile across all its patterns. */
export class RegexpBudget {
  #left: number;
  constructor(units: number) {
    this.#left = units;
  }
  /** Takes `units`, or returns false (taking nothing) when fewer are left. */
  take(units: number): boolean {
    if (units > this.#left) return false;
    this.#left -= units;
    return true;
  }
}

/** The port's compiler, its refusals as RE2's. */
function compile(pattern: string): RE2JS {
  try {
    return re2().RE2JS.compile(pattern);
  } catch (e) {
    if (e instanceof re2().RE2JSSyntaxException) throw new RegexpError(re2Message(e as RE2JSSyntaxException));
    // Any other failure of the compiler is a program past its budget.
    throw new RegexpError(TOO_LARGE);
  }
}

/** An RE2 pattern, compiled once; throws RegexpError for one RE2 refuses. */
export class UntrustedRegexp {
  readonly source: string;
  readonly #re: RE2JS;

  /** `UntrustedRegexp.new(pattern, multiline:)`: multiline prefixes `(?m)` (`^`/`$` at line ends). */
  constructor(pattern: string, opts: { multiline?: boolean; budget?: RegexpBudget } = {}) {
    this.source = pattern;
    const full = opts.multiline ? `(?m)${pattern}` : pattern;
    const angle = anglePerlGroup(full);
    if (angle >= 0) {
      // RE2 reads left to right: a mistake before the `(?<` is the one it reports (an unclosed group
      // or a program too large would only show after it).
      try {
        new UntrustedRegexp(full.slice(0, angle));
      } catch (e) {
        if (!(e instanceof RegexpError) || !(e.message === TOO_LARGE || e.message.startsWith('missing ):')))
          throw e;
      }
      throw new RegexpError('invalid perl operator: (?<');
    }
    const size = programSize(full);
    // A nesting of counted repetitions past 1,000 is refused by the parser, before any compiling.
    if (
      !size.repeatTooLarge &&
      (size.units > MAX_PROGRAM || (opts.budget && !opts.budget.take(size.units)))
    ) {
      // RE2 reports what it cannot parse before what it cannot compile: the pattern with each counted
      // repetition made `{1}` parses as it does, and compiles quickly.
      let small = full;
      for (const [from, to] of size.counted.reverse()) small = `${small.slice(0, from)}{1}${small.slice(to)}`;
      compile(small);
      throw new RegexpError(TOO_LARGE);
    }
    this.#re = compile(full);
  }

  /** `===` (`RE2::Regexp#match?`): whether the pattern matches anywhere in `text`. */
  test(text: string): boolean {
    return this.#re.test(text);
  }

  /** Whether the pattern matches the whole of `text` (`\A(?:pattern)\z`). */
  testExact(text: string): boolean {
    return this.#re.testExact(text);
  }
}

/** One group being read by `programSize`: its finished alternatives and the one under way. */
interface Group {
  alternatives: number;
  bars: number;
  current: number;
  last: number;
  lastRepeat: number;
  repeat: number;
  capture: boolean;
}

const COUNTED = /^\{(\d+)(,(\d*))?\}/;

/**
 * The program's size as RE2's parser estimates it before compiling (`Parser::checkSize`: a literal
 * character or class 1, `*` 2 more, `+` and `?` 1 more, `x{n,m}` m copies plus m-n, a capture 2, an
 * alternation one per `|`), read from the text without building it; and whether counted repetitions
 * nest past RE2's 1,000 (a pattern the parser refuses itself). Escapes, classes and `\Q...\E` are
 * skipped as single atoms; text RE2 will refuse only has to be estimated, not judged.
 */
export function programSize(p: string): {
  units: number;
  repeatTooLarge: boolean;
  /** Where the counted repetitions are (`{n}`, `{n,}`, `{n,m}` with n <= m). */
  counted: [number, number][];
} {
  const counted: [number, number][] = [];
  const open = (capture: boolean): Group => ({
    alternatives: 0,
    bars: 0,
    current: 0,
    last: 0,
    lastRepeat: 1,
    repeat: 1,
    capture,
  });
  const stack: Group[] = [];
  let g = open(false);
  let tooLarge = false;
  const atom = (units: number, repeat = 1) => {
    g.current += units;
    g.last = units;
    g.lastRepeat = repeat;
    g.repeat = Math.max(g.repeat, repeat);
  };
  const quantify = (units: number, repeat: number) => {
    g.current += units - g.last;
    g.last = units;
    g.lastRepeat = repeat;
    g.repeat = Math.max(g.repeat, repeat);
    if (repeat > 1000) tooLarge = true;
  };
  const size = (x: Group) => x.alternatives + x.current + x.bars;
  for (let i = 0; i < p.length; i++) {
    const ch = p[i]!;
    if (ch === '\\') {
      const next = p[i + 1];
      if (next === 'Q') {
        const end = p.indexOf('\\E', i + 2);
        const stop = end < 0 ? p.length : end;
        for (let k = i + 2; k < stop; k++) atom(1);
        i = end < 0 ? p.length : end + 1;
        continue;
      }
      if ((next === 'x' || next === 'p' || next === 'P') && p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        i = end < 0 ? p.length : end;
      } else i += next === 'p' || next === 'P' ? 2 : 1;
      atom(1);
    } else if (ch === '[') {
      let j = i + 1;
      if (p[j] === '^') j++;
      if (p[j] === ']') j++;
      while (j < p.length && p[j] !== ']') {
        if (p[j] === '\\') {
          const brace = (p[j + 1] === 'p' || p[j + 1] === 'P' || p[j + 1] === 'x') && p[j + 2] === '{';
          j = brace ? Math.max(p.indexOf('}', j + 3), j + 1) + 1 : j + 2;
        } else if (p.startsWith('[:', j)) {
          const end = p.indexOf(':]', j + 2);
          j = end < 0 ? j + 1 : end + 2;
        } else j++;
      }
      i = j;
      atom(1);
    } else if (ch === '(') {
      if (p[i + 1] === '?' && p[i + 2] !== 'P') {
        // `(?flags)` sets flags and opens nothing; `(?flags:` opens a group that captures nothing.
        let k = i + 2;
        while (k < p.length && /[a-zA-Z-]/.test(p[k]!)) k++;
        if (p[k] === ')') {
          i = k;
          continue;
        }
        stack.push(g);
        g = open(false);
        i = p[k] === ':' ? k : i;
      } else {
        stack.push(g);
        g = open(true);
        if (p[i + 1] === '?') {
          const end = p.indexOf('>', i);
          i = end < 0 ? i : end;
        }
      }
    } else if (ch === ')') {
      const inner = g;
      g = stack.pop() ?? open(false);
      atom(size(inner) + (inner.capture ? 2 : 0), inner.repeat);
    } else if (ch === '|') {
      g.alternatives += g.current;
      g.bars++;
      g.current = 0;
      g.last = 0;
      g.lastRepeat = 1;
    } else if (ch === '*' || ch === '+' || ch === '?') {
      quantify(g.last + (ch === '*' ? 2 : 1), g.lastRepeat);
      if (p[i + 1] === '?') i++;
    } else if (ch === '{' && COUNTED.test(p.slice(i, i + 24))) {
      const m = COUNTED.exec(p.slice(i, i + 24))!;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
      const sub = g.last;
      const units = max === -1 ? (min === 0 ? 2 + sub : 1 + min * sub) : max * sub + (max - min);
      const count = max === -1 ? min : max;
      quantify(units, g.lastRepeat * Math.max(count, 1));
      if (max === -1 || min <= max) counted.push([i, i + m[0].length]);
      i += m[0].length - 1;
      if (p[i + 1] === '?') i++;
    } else atom(1);
  }
  while (stack.length) {
    const inner = g;
    g = stack.pop()!;
    atom(size(inner) + 2, inner.repeat);
  }
  return { units: Math.max(1, size(g)), repeatTooLarge: tooLarge, counted };
}

/** The pattern's problem in RE2's words, or undefined when RE2 takes it (`UntrustedRegexpValidator`). */
export function regexpProblem(pattern: string): string | undefined {
  try {
    new UntrustedRegexp(pattern);
    return undefined;
  } catch (e) {
    if (e instanceof RegexpError) return e.message;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------
// `/pattern/flags` literals

/**
 * `UntrustedRegexp::RubySyntax::PATTERN`: a slash, the pattern, a slash and flags among `i`, `s`, `m`
 * and `U` (RE2's flags, not Ruby's: `m` is multi-line `^`/`$`, `s` lets `.` match a newline). The
 * pattern holds no line break (Ruby's `.` stops at one).
 */
const RUBY_SYNTAX = /^\/([^\n]*)\/([ismU]*)$/;

/** `RubySyntax.matches_syntax?`: whether the text looks like a literal (valid or not). */
export const matchesRubySyntax = (literal: string): boolean => RUBY_SYNTAX.test(literal);

/** `RubySyntax.fabricate!`: the literal compiled, flags as a `(?flags)` prefix; throws RegexpError. */
export function fabricate(literal: string, budget?: RegexpBudget): UntrustedRegexp {
  const m = RUBY_SYNTAX.exec(literal);
  if (!m) throw new RegexpError('Invalid regular expression!');
  const flags = m[2]!;
  return new UntrustedRegexp(flags ? `(?${flags})${m[1]!}` : m[1]!, { budget });
}

/** `RubySyntax.fabricate`: the literal compiled, or null when it is not one RE2 takes. */
export function tryFabricate(literal: string, budget?: RegexpBudget): UntrustedRegexp | null {
  try {
    return fabricate(literal, budget);
  } catch (e) {
    if (e instanceof RegexpError) return null;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------
// Wildcards

/**
 * `RefMatcher#wildcard_regex`: a name whose `*`s match any run of characters, the rest literally,
 * anchored at both ends, on RE2 (the platform's `.*?` chain backtracks; here it is linear).
 */
export function wildcard(name: string): UntrustedRegexp {
  return new UntrustedRegexp(
    name
      .split('*')
      .map((s) => re2().RE2JS.quote(s))
      .join('(?s:.*)'),
  );
}
