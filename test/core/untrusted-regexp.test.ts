/** `Gitlab::UntrustedRegexp` on re2js: RE2's messages, the `(?<` of the platform's release, the program bound. */
import { describe, expect, test } from 'vitest';
import {
  fabricate,
  MAX_PROGRAM,
  programSize,
  RegexpBudget,
  regexpProblem,
  UntrustedRegexp,
  wildcard,
} from '../../src/core/untrusted-regexp.js';

describe('UntrustedRegexp', () => {
  test('refusals in the C++ library’s words (`RegexpStatus::Text`)', () => {
    const cases: Record<string, string> = {
      '(?=x)': 'invalid perl operator: (?=',
      '(?>a)': 'invalid perl operator: (?>',
      '(?<n>x)': 'invalid perl operator: (?<',
      '(?<=a)b': 'invalid perl operator: (?<',
      'a**(?<n>x)': 'bad repetition operator: **',
      '\\1': 'invalid escape sequence: \\1',
      '\\Z': 'invalid escape sequence: \\Z',
      '*': 'no argument for repetition operator: *',
      'x{1001}': 'invalid repetition size: {1001}',
      '(a{100}){100}': 'invalid repetition size: {100}',
      '[z-a]': 'invalid character class range: z-a',
      '[a': 'missing ]: [a',
      '(a': 'missing ): (a',
      'a\\': 'trailing \\',
      '(?P<n>a)(?P<n>b)': 'invalid named capture group: (?P<n>',
      '\\p{Nope}': 'invalid character class range: \\p{Nope}',
    };
    const got = Object.fromEntries(Object.keys(cases).map((p) => [p, regexpProblem(p)]));
    expect(got).toEqual(cases);
    // `(?<` inside a class or `\Q...\E` is text.
    expect([regexpProblem('[(?<]'), regexpProblem('\\Q(?<\\E'), regexpProblem('(?P<n>x)')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  test('matching: unanchored, multiline as `(?m)`, whole text for wildcards', () => {
    expect(new UntrustedRegexp('^b$').test('a\nb')).toBe(false);
    expect(new UntrustedRegexp('^b$', { multiline: true }).test('a\nb')).toBe(true);
    expect(new UntrustedRegexp('abc$').test('abc\n')).toBe(false);
    expect(new UntrustedRegexp('(a+)+$').test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(wildcard('release/*').testExact('release/1.0')).toBe(true);
    expect(wildcard('release/*').testExact('x/release/1.0')).toBe(false);
    expect(wildcard('a.b*').testExact('axb1')).toBe(false);
  });

  test('RubySyntax: flags among `ismU` as a prefix, anything else is no literal', () => {
    expect(fabricate('/^MAS/i').test('master')).toBe(true);
    expect(fabricate('/a.b/s').test('a\nb')).toBe(true);
    expect(fabricate('/^b/m').test('a\nb')).toBe(true);
    expect(() => fabricate('/a/x')).toThrow('Invalid regular expression!');
    expect(() => fabricate('/a\nb/')).toThrow('Invalid regular expression!');
  });

  test('the program bound: RE2’s own count, refused before compiling, one budget per request', () => {
    expect(programSize('.{0,1000}').units).toBe(2000);
    expect(programSize('(a|b)*').units).toBe(7);
    expect(programSize('a{2,5}').units).toBe(8);
    expect(() => new UntrustedRegexp('.{0,1000}'.repeat(3))).toThrow('pattern too large - compile failed');
    // A mistake RE2 reports first still comes first.
    expect(() => new UntrustedRegexp(`${'.{0,1000}'.repeat(3)}(`)).toThrow('missing ): ');
    const budget = new RegexpBudget(MAX_PROGRAM);
    new UntrustedRegexp('.{0,1000}.{0,1000}', { budget });
    expect(() => new UntrustedRegexp('.{0,1000}', { budget })).toThrow('pattern too large - compile failed');
    new UntrustedRegexp('a{0,499}', { budget });
  });
});
