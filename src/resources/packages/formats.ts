/**
 * The name and version formats of the package managers' registries (`Gitlab::Regex` of 13.12; the
 * limits of their files' sizes are the plan_limits area's, `Plan#actual_limits`). The patterns with nested
 * quantifiers run on RE2 (`core/untrusted-regexp.ts`): on JavaScript's engine a near miss of
 * `package_name_regex` backtracks exponentially; compiled once, on first use.
 */
import { UntrustedRegexp } from '../../core/untrusted-regexp.js';

const lazy = (pattern: string) => {
  let re: UntrustedRegexp | undefined;
  return (s: string) => (re ??= new UntrustedRegexp(pattern)).testExact(s);
};

/** `Gitlab::PathRegex::NAMESPACE_FORMAT_REGEX`: a namespace path, not ending `.git` or `.atom`. */
const NAMESPACE = '[a-zA-Z0-9_.][a-zA-Z0-9_\\-.]*[a-zA-Z0-9_\\-]|[a-zA-Z0-9_]';
const namespaceSuffixOk = (ns: string) => !/\.(?:git|atom)$/.test(ns);

/** `package_name_regex`: the common rule for npm, PyPI, Maven and Composer names. */
export const validPackageName = lazy(
  '\\@?(([\\w\\-\\.\\+]*)\\/)*([\\w\\-\\.]+)@?(([\\w\\-\\.\\+]*)\\/)*([\\w\\-\\.]*)',
);

const NPM_NAME = new RegExp(`^(?:@(${NAMESPACE})/)?[-+._a-zA-Z0-9]+$`);

/** `npm_package_name_regex`: an optional `@namespace/` scope and a name. */
export function validNpmName(name: string): boolean {
  const m = NPM_NAME.exec(name);
  return m !== null && (m[1] === undefined || namespaceSuffixOk(m[1]));
}

/** `Packages::Npm.scope_of`: the scope of `@scope/name`, or undefined. */
export function npmScope(name: string): string | undefined {
  if (!name.startsWith('@') || !name.includes('/')) return undefined;
  const m = NPM_NAME.exec(name);
  return m?.[1] !== undefined && namespaceSuffixOk(m[1]) ? m[1] : undefined;
}

/** `semver_regex` (semver.org's). */
export const validSemver = lazy(
  '(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)' +
    '(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?' +
    '(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?',
);

/**
 * `VersionSorter.sort`'s order: versions split into runs of digits and of other characters, numbers
 * compared as numbers; a run of letters comes before a number or the end (`1.0.0-rc1` before `1.0.0`).
 */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.match(/\d+|[a-zA-Z]+/g) ?? [];
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === y) continue;
    const xn = x !== undefined && /^\d/.test(x);
    const yn = y !== undefined && /^\d/.test(y);
    if (x === undefined) return yn ? -1 : 1;
    if (y === undefined) return xn ? 1 : -1;
    if (xn && yn) {
      const d = BigInt(x) - BigInt(y);
      if (d !== 0n) return d < 0n ? -1 : 1;
      continue;
    }
    if (xn !== yn) return xn ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `pypi_version_regex` (PEP 440, from `packaging`'s `VERSION_PATTERN`), case-insensitive. */
export const validPypiVersion = lazy(
  '(?i)(?:v?(?:([0-9]+)!)?([0-9]+(?:\\.[0-9]+)*)' +
    '([-_\\.]?((a|b|c|rc|alpha|beta|pre|preview))[-_\\.]?([0-9]+)?)?' +
    '((?:-([0-9]+))|(?:[-_\\.]?(post|rev|r)[-_\\.]?([0-9]+)?))?' +
    '([-_\\.]?(dev)[-_\\.]?([0-9]+)?)?' +
    '(?:\\+([a-z0-9]+(?:[-_\\.][a-z0-9]+)*))?)',
);
