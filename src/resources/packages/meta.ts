/**
 * What a package keeps besides its files, per format: npm's dependency links (`Packages::DependencyLink`),
 * PyPI's `Packages::Pypi::Metadatum`, Maven's `Packages::Maven::Metadatum`, RubyGems'. Plain lists and strings: the
 * names come from clients, so no map here is keyed by them.
 */

/** `Packages::DependencyLink.dependency_types`. */
export const NPM_DEPENDENCY_TYPES = [
  'dependencies',
  'devDependencies',
  'bundleDependencies',
  'peerDependencies',
] as const;
export type NpmDependencyType = (typeof NPM_DEPENDENCY_TYPES)[number];

export interface NpmMeta {
  kind: 'npm';
  /** type, dependency name, version pattern: in the order the client sent them. */
  dependencies: [NpmDependencyType, string, string][];
}

export interface PypiMeta {
  kind: 'pypi';
  required_python: string;
}

export interface MavenMeta {
  kind: 'maven';
  /** The path under the registry's root: `com/acme/app/1.0` (or `com/acme/app` for the plugin metadata). */
  path: string;
  app_group: string;
  app_name: string;
  app_version: string | null;
}

/**
 * RubyGems' `Packages::Rubygems::Metadatum` (the platform the dependency API shows) and the gem's
 * dependency links (`Packages::Rubygems::CreateDependenciesService`: every dependency, name and
 * requirement, in the gemspec's order).
 */
export interface RubygemsMeta {
  kind: 'rubygems';
  platform: string;
  dependencies: [string, string][];
}

export type PackageMeta = NpmMeta | PypiMeta | MavenMeta | RubygemsMeta;
