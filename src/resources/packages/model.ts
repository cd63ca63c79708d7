/** Package registry writes, shared by the API, scenario loading and project deletion. */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { PackageMeta } from './meta.js';
import type {
  PackageFileRecord,
  PackageRecord,
  PackageStatus,
  PackageTagRecord,
  PackageType,
} from './store.js';

type S = Draft<PlatformState>;

const nameKey = (projectId: number, type: PackageType, name: string, version: string) =>
  `${projectId}/${type}/${name}/${version}`;

/** The project's package of this type, name and version (`with_name(...).with_version(...)`). */
export function findPackageByName(
  st: PlatformState,
  projectId: number,
  type: PackageType,
  name: string,
  version: string,
): PackageRecord | undefined {
  const id = iget(st.packages.idx.byName, nameKey(projectId, type, name, version));
  return id === undefined ? undefined : tget(st.packages.records, id);
}

/** The project's packages, in id order. */
export const projectPackages = (st: PlatformState, projectId: number): PackageRecord[] =>
  mget(st.packages.idx.byProject, String(projectId)).map((id) => tget(st.packages.records, id)!);

/** A package's files, in id order. */
export const packageFiles = (st: PlatformState, packageId: number): PackageFileRecord[] =>
  mget(st.packages.idx.files, String(packageId)).map((id) => tget(st.packages.files, id)!);

export interface NewPackage {
  project_id: number;
  name: string;
  version: string;
  package_type: PackageType;
  status: PackageStatus;
  creator_id: number | null;
  created_at: string;
}

export function createPackage(st: S, input: NewPackage): PackageRecord {
  const id = nextId(st, 'packages');
  const rec: PackageRecord = { id, ...input, pipeline_ids: [], updated_at: input.created_at };
  tset(st.packages.records, id, rec);
  madd(st.packages.idx.byProject, String(input.project_id), id);
  iset(st.packages.idx.byName, nameKey(input.project_id, input.package_type, input.name, input.version), id);
  return tget(st.packages.records, id)!;
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export function addPackageFile(
  st: S,
  pkg: Draft<PackageRecord>,
  file: {
    file_name: string;
    bytes: Uint8Array;
    pipeline_id: number | null;
    created_at: string;
    file_md5?: string | null;
    file_sha1?: string | null;
    /** The digest the client declared (PyPI's `sha256_digest`), kept as given. */
    file_sha256?: string;
  },
): number {
  const id = nextId(st, 'package_files');
  tset(st.packages.files, id, {
    id,
    package_id: pkg.id,
    file_name: file.file_name,
    size: file.bytes.byteLength,
    file_sha256: file.file_sha256 ?? sha256(file.bytes),
    file_md5: file.file_md5 ?? null,
    file_sha1: file.file_sha1 ?? null,
    data: Buffer.from(file.bytes).toString('base64'),
    pipeline_id: file.pipeline_id,
    created_at: file.created_at,
  });
  madd(st.packages.idx.files, String(pkg.id), id);
  st.packages.bytes += file.bytes.byteLength;
  if (file.pipeline_id !== null && !pkg.pipeline_ids.includes(file.pipeline_id))
    pkg.pipeline_ids.push(file.pipeline_id);
  pkg.updated_at = file.created_at;
  return id;
}

export function deletePackageFile(st: S, id: number): void {
  const f = tget(st.packages.files, id);
  if (!f) return;
  st.packages.bytes -= f.size;
  mremove(st.packages.idx.files, String(f.package_id), id);
  tdelete(st.packages.files, id);
}

export function deletePackage(st: S, id: number): void {
  const pkg = tget(st.packages.records, id);
  if (!pkg) return;
  for (const fid of mget(st.packages.idx.files, String(id))) deletePackageFile(st, fid);
  for (const tid of mget(st.packages.idx.tags, String(id))) deletePackageTag(st, tid);
  tdelete(st.packages.meta, id);
  mremove(st.packages.idx.byProject, String(pkg.project_id), id);
  idelete(st.packages.idx.byName, nameKey(pkg.project_id, pkg.package_type, pkg.name, pkg.version));
  tdelete(st.packages.records, id);
}

/** A deleted project's packages go with it. */
export function deleteProjectPackages(st: S, projectId: number): void {
  for (const id of mget(st.packages.idx.byProject, String(projectId))) deletePackage(st, id);
}

// ---- Tags (`Packages::Tag`) and format metadata

/** The package's tags, in id order. */
export const packageTags = (st: PlatformState, packageId: number): PackageTagRecord[] =>
  mget(st.packages.idx.tags, String(packageId)).map((id) => tget(st.packages.tags, id)!);

export function addPackageTag(st: S, packageId: number, name: string, now: string): void {
  const id = nextId(st, 'packages_tags');
  tset(st.packages.tags, id, { id, package_id: packageId, name, created_at: now, updated_at: now });
  madd(st.packages.idx.tags, String(packageId), id);
}

/** A tag moved to another package (`update_column(:package_id, ...)`: its timestamps stay). */
export function movePackageTag(st: S, tagId: number, packageId: number): void {
  const tag = tget(st.packages.tags, tagId);
  if (!tag || tag.package_id === packageId) return;
  mremove(st.packages.idx.tags, String(tag.package_id), tagId);
  tag.package_id = packageId;
  madd(st.packages.idx.tags, String(packageId), tagId);
}

export function deletePackageTag(st: S, tagId: number): void {
  const tag = tget(st.packages.tags, tagId);
  if (!tag) return;
  mremove(st.packages.idx.tags, String(tag.package_id), tagId);
  tdelete(st.packages.tags, tagId);
}

export const packageMeta = (st: PlatformState, packageId: number): PackageMeta | undefined =>
  tget(st.packages.meta, packageId);

export function setPackageMeta(st: S, packageId: number, meta: PackageMeta): void {
  tset(st.packages.meta, packageId, meta);
}

/** A package named anew (RubyGems' temporary package once its gem is read: `package.update!(name:, version:)`). */
export function renamePackage(st: S, id: number, name: string, version: string): void {
  const pkg = tget(st.packages.records, id);
  if (!pkg) return;
  idelete(st.packages.idx.byName, nameKey(pkg.project_id, pkg.package_type, pkg.name, pkg.version));
  pkg.name = name;
  pkg.version = version;
  iset(st.packages.idx.byName, nameKey(pkg.project_id, pkg.package_type, name, version), id);
}

/** A file moved to another package of the project (`package_file.update!(package_id:)`). */
export function movePackageFile(st: S, fileId: number, packageId: number): void {
  const f = tget(st.packages.files, fileId);
  if (!f || f.package_id === packageId) return;
  mremove(st.packages.idx.files, String(f.package_id), fileId);
  f.package_id = packageId;
  madd(st.packages.idx.files, String(packageId), fileId);
}
