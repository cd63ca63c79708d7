/** The generic package registry's name and version formats (`Gitlab::Regex`), shared by API and scenario. */

/** `generic_package_name_regex` (and `generic_package_file_name_regex`). */
export const validGenericName = (s: string) => /^[A-Za-z0-9._+-]+$/.test(s);

/**
 * `generic_package_version_regex` (`\A(\.?[\w\+-]+\.?)+\z`), checked without its nested quantifier,
 * which backtracks exponentially on a near miss: it accepts exactly the strings of word characters, `+`,
 * `-` and dots with at least one non-dot, no three dots in a row, and no two at either end.
 */
export function validGenericVersion(v: string): boolean {
  return (
    /^[\w+.-]+$/.test(v) && /[\w+-]/.test(v) && !v.includes('...') && !v.startsWith('..') && !v.endsWith('..')
  );
}
