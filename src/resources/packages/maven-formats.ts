/**
 * Maven's names in 13.12 (`Gitlab::Regex.maven_*_regex`, `Packages::Package`'s and
 * `Packages::Maven::Metadatum`'s validations). The patterns with nested quantifiers run on RE2
 * (`core/untrusted-regexp.ts`), compiled on first use.
 */
import { UntrustedRegexp } from '../../core/untrusted-regexp.js';
import { validPackageName } from './formats.js';
import { validGenericVersion } from './validation.js';

/** `Packages::Maven::Metadata.filename`. */
export const MAVEN_METADATA = 'maven-metadata.xml';
/** `FindOrCreatePackageService::SNAPSHOT_TERM`. */
export const SNAPSHOT_TERM = '-SNAPSHOT';

/** `maven_file_name_regex`: the file name param of the upload. */
export const MAVEN_FILE_NAME = /^[A-Za-z0-9._+-]+$/;

/** `maven_app_name_regex` (and `maven_app_group_regex`). */
const APP_NAME = /^[\w.-]+$/;

let pathRe: UntrustedRegexp | undefined;
/** `maven_path_regex` (`\A\@?(([\w\-\.]*)/)*([\w\-\.\+]*)\z`). */
const validPath = (s: string) =>
  (pathRe ??= new UntrustedRegexp('@?(([\\w\\-\\.]*)/)*([\\w\\-\\.\\+]*)')).testExact(s);

/**
 * The validation messages of a new Maven package, in the order the model declares them: the package's
 * name (`package_name_regex`) and version (`maven_version_regex`, the generic version rule, when there
 * is one), then its metadatum's path, group id and artifact id (each blank and malformed).
 */
export function mavenNameProblems(x: {
  name: string;
  version: string;
  path: string;
  appGroup: string;
  appName: string;
}): string[] {
  const out: string[] = [];
  if (x.name === '') out.push("Name can't be blank");
  if (!validPackageName(x.name)) out.push('Name is invalid');
  if (x.version !== '' && !validGenericVersion(x.version)) out.push('Version is invalid');
  const field = (label: string, v: string, ok: (s: string) => boolean) => {
    if (v === '') out.push(`Maven metadatum ${label} can't be blank`);
    if (!ok(v)) out.push(`Maven metadatum ${label} is invalid`);
  };
  field('path', x.path, validPath);
  field('app group', x.appGroup, (s) => APP_NAME.test(s));
  field('app name', x.appName, (s) => APP_NAME.test(s));
  return out;
}
