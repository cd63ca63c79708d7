/**
 * The package registry's records (`Packages::Package`, `Packages::PackageFile`): fauxlab makes generic,
 * npm, PyPI and Maven packages; the other types exist as filter values. A file's bytes are kept base64-encoded on its
 * record, so the state stays plain JSON; `bytes` counts them all against the instance's upload bound.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';
import type { PackageMeta } from './meta.js';

/** `Packages::Package.package_types` of 13.12. */
export const PACKAGE_TYPES = [
  'maven',
  'npm',
  'conan',
  'nuget',
  'pypi',
  'composer',
  'generic',
  'golang',
  'debian',
  'rubygems',
  'helm',
  'terraform_module',
] as const;
export type PackageType = (typeof PACKAGE_TYPES)[number];

/** `Packages::Package.statuses` of 13.12. */
export const PACKAGE_STATUSES = ['default', 'hidden', 'processing'] as const;
export type PackageStatus = (typeof PACKAGE_STATUSES)[number];

export interface PackageRecord {
  id: number;
  project_id: number;
  name: string;
  version: string;
  package_type: PackageType;
  status: PackageStatus;
  creator_id: number | null;
  /** Pipelines of the jobs that published to it (`build_infos`), in the order they did. */
  pipeline_ids: number[];
  created_at: string;
  updated_at: string;
}

export interface PackageFileRecord {
  id: number;
  package_id: number;
  file_name: string;
  size: number;
  file_sha256: string;
  /** The digests the client declared or the registry computes (npm's `shasum`, Maven's checksums). */
  file_md5: string | null;
  file_sha1: string | null;
  /** The bytes, base64. */
  data: string;
  pipeline_id: number | null;
  created_at: string;
}

/** `Packages::Tag`: a name (npm's dist-tags) pointing at one package of a name in a project. */
export interface PackageTagRecord {
  id: number;
  package_id: number;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface PackagesState {
  records: Table<PackageRecord>;
  files: Table<PackageFileRecord>;
  tags: Table<PackageTagRecord>;
  /** package id -> what its format keeps besides files (`Packages::*::Metadatum`, dependency links) */
  meta: Table<PackageMeta>;
  /** Bytes of every file together. */
  bytes: number;
  idx: {
    /** project id -> package ids */
    byProject: MultiIndex;
    /** package id -> file ids */
    files: MultiIndex;
    /** `<project id>/<type>/<name>/<version>` -> package id */
    byName: Index;
    /** package id -> tag ids */
    tags: MultiIndex;
  };
}

export const emptyPackages = (): PackagesState => ({
  records: emptyTable(),
  files: emptyTable(),
  tags: emptyTable(),
  meta: emptyTable(),
  bytes: 0,
  idx: { byProject: emptyIndex(), files: emptyIndex(), byName: emptyIndex(), tags: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    packages: PackagesState;
  }
}
