/** `Packages::SemVer`: a semantic version, `v`-prefixed where the format wants it (Go's module versions). */
import { validSemver } from './formats.js';

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string | undefined;
  build: string | undefined;
}

/**
 * `Packages::SemVer.parse(str, prefixed:)`: the version when it matches `semver_regex` whole (on RE2,
 * formats.ts), else undefined. Once it matches, the parts are where the format puts them: the first `+`
 * starts the build, the first `-` before it the prerelease.
 */
export function parseSemver(str: string, prefixed: boolean): SemVer | undefined {
  if (str.startsWith('v') !== prefixed) return undefined;
  const s = prefixed ? str.slice(1) : str;
  if (!validSemver(s)) return undefined;
  const plus = s.indexOf('+');
  const core = plus < 0 ? s : s.slice(0, plus);
  const dash = core.indexOf('-');
  const [major, minor, patch] = (dash < 0 ? core : core.slice(0, dash)).split('.').map(Number) as [
    number,
    number,
    number,
  ];
  return {
    major,
    minor,
    patch,
    prerelease: dash < 0 ? undefined : core.slice(dash + 1),
    build: plus < 0 ? undefined : s.slice(plus + 1),
  };
}
