/**
 * The npm registry of 13.12 (`lib/api/npm_project_packages.rb`, `npm_instance_packages.rb` and the
 * routes of `Concerns::Packages::NpmEndpoints`): publish, the packument, tarballs and dist-tags, per
 * project and at the instance's root, where a scoped name's scope names the namespace whose projects
 * hold it. Every route takes tokens as Bearer values (npm's `_authToken`: personal, job or deploy
 * tokens), besides `Private-Token`, `Job-Token` and `Deploy-Token`; no Basic auth. Reads are anonymous
 * where the project lets them be; writes `authenticate_non_get!` first.
 */
import type { Draft } from 'immer';
import { lookupProject } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { planLimit } from '../plan_limits/model.js';
import {
  apiError,
  forbidden,
  grapeError,
  internalError,
  missingAttribute,
  notFound,
  recordNotFound,
  unauthorized,
} from '../../core/errors.js';
import { requestBase } from '../../core/pagination.js';
import type { ParamValue } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { NO_SLASH_URL_PART, pathParam } from '../../core/router.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { canPackage, packageActor, projectForActor, type Actor, type PackageAbility } from './access.js';
import { compareVersions, npmScope, validNpmName, validPackageName, validSemver } from './formats.js';
import { NPM_DEPENDENCY_TYPES, type NpmDependencyType, type NpmMeta } from './meta.js';
import {
  addPackageFile,
  addPackageTag,
  createPackage,
  deletePackageTag,
  movePackageTag,
  packageFiles,
  packageMeta,
  packageTags,
  projectPackages,
  setPackageMeta,
} from './model.js';
import { packageBytesTooLarge } from './quota.js';
import type { PackageRecord, PackageTagRecord } from './store.js';

type Json = Record<string, unknown>;
type Dict = { [key: string]: ParamValue };

const AUTH = { auth: 'optional', jobToken: true, deployToken: true } as const;
const REQ = { package_name: NO_SLASH_URL_PART };

/** The package's npm registry as a client names it: the request's scope (project or instance). */
interface Scope {
  /** `params[:id]`, or undefined at the instance's root. */
  id: string | undefined;
}

/** `authenticate_non_get!`, then the actor of the request (null: anonymous). */
function actorOf(c: Ctx): Actor | null {
  const actor = packageActor(c, { basic: false });
  if (!actor && c.req.method !== 'GET') throw unauthorized();
  return actor;
}

/** `authorize_*_package!` */
function authorize(c: Ctx, actor: Actor | null, project: ProjectRecord, ability: PackageAbility): void {
  if (!canPackage(state(c), actor, project, ability)) throw forbidden();
}

/** The npm packages of this name in a project, in id order (`Packages::Npm::PackageFinder`). */
function npmPackages(st: PlatformState, projectId: number, name: string): PackageRecord[] {
  return projectPackages(st, projectId).filter((p) => p.package_type === 'npm' && p.name === name);
}

/** The projects of a namespace and its subgroups (`Namespace#all_projects`). */
function namespaceProjects(st: PlatformState, nsId: number): number[] {
  if (nsId < 0) return [...mget(st.idx.projectsByNamespace, `user:${-nsId}`)];
  const out: number[] = [];
  const queue = [nsId];
  const seen = new Set<number>();
  while (queue.length) {
    const g = queue.shift()!;
    if (seen.has(g)) continue;
    seen.add(g);
    out.push(...mget(st.idx.projectsByNamespace, `group:${g}`));
    queue.push(...mget(st.idx.subgroups, String(g)));
  }
  return out;
}

/**
 * `project_id_or_nil`: the project's id as given, or at the instance's root the project of the newest
 * package of the name in the top-level namespace its scope names (`Namespace.top_most.by_path`).
 */
function projectIdOrNil(c: Ctx, scope: Scope, name: string): string | undefined {
  if (scope.id !== undefined) return scope.id;
  const st = state(c);
  const ns = npmScope(name);
  if (ns === undefined) return undefined;
  const nsId = iget(st.idx.namespaces, ns.toLowerCase());
  if (nsId === undefined) return undefined;
  if (nsId >= 0 && tget(st.groups, nsId)?.parent_id !== null) return undefined;
  let last: PackageRecord | undefined;
  for (const pid of namespaceProjects(st, nsId))
    for (const p of npmPackages(st, pid, name)) if (!last || p.id > last.id) last = p;
  return last ? String(last.project_id) : undefined;
}

/** `project`: `user_project`, or at the instance's root `find_project!` of the scope's project. */
function projectOf(c: Ctx, actor: Actor | null, scope: Scope, name: string): ProjectRecord {
  const id = projectIdOrNil(c, scope, name);
  if (id === undefined) throw notFound('Project', 'no project holds a package of this scope and name');
  return projectForActor(c, actor, id);
}

/** `redirect_registry_request`: EE forwards what the registry lacks to npmjs.org (on by default). */
function forwarded(c: Ctx, name: string): Response | undefined {
  if (c.get('fx').tier() === 'free') return undefined;
  return c.redirect(`https://registry.npmjs.org/${name}`, 302);
}

// ---------------------------------------------------------------------------------------------------
// The packument (`Packages::Npm::PackagePresenter`, `Entities::NpmPackage`)

function tagsOf(st: PlatformState, packages: PackageRecord[]): PackageTagRecord[] {
  return packages.flatMap((p) => packageTags(st, p.id));
}

/** `dist_tags`: each tag's version, and `latest` the highest version when no tag is named so. */
function distTags(st: PlatformState, packages: PackageRecord[]): Json {
  const out: Json = Object.create(null) as Json;
  const versionOf = new Map(packages.map((p) => [p.id, p.version]));
  for (const t of tagsOf(st, packages)) out[t.name] = versionOf.get(t.package_id);
  if (out.latest === undefined && packages.length)
    out.latest = packages
      .map((p) => p.version)
      .sort(compareVersions)
      .at(-1);
  return out;
}

function versionEntry(c: Ctx, st: PlatformState, pkg: PackageRecord): Json | undefined {
  const file = packageFiles(st, pkg.id).at(-1);
  if (!file) return undefined;
  const tarball = `${requestBase(c)}/api/v4/projects/${pkg.project_id}/packages/npm/${pkg.name}/-/${file.file_name}`;
  const out: Json = { name: pkg.name, version: pkg.version, dist: { shasum: file.file_sha1, tarball } };
  const meta = packageMeta(st, pkg.id);
  if (meta?.kind === 'npm')
    for (const [type, dep, pattern] of meta.dependencies) {
      const group = (out[type] ??= Object.create(null)) as Json;
      group[dep] = pattern;
    }
  return out;
}

function packument(c: Ctx, name: string, packages: PackageRecord[]): Json {
  const st = state(c);
  const versions = Object.create(null) as Json;
  for (const p of packages) {
    const v = versionEntry(c, st, p);
    if (v) versions[p.version] = v;
  }
  return { name, versions, 'dist-tags': distTags(st, packages) };
}

// ---------------------------------------------------------------------------------------------------
// Publishing (`Packages::Npm::CreatePackageService`)

const isDict = (v: ParamValue | undefined): v is Dict =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof File);

const firstKey = (d: Dict): string | undefined => Object.keys(d)[0];

/** The bytes a base64 text decodes to, counted before decoding it. */
function decodedLength(b64: string): number {
  let pad = 0;
  if (b64.endsWith('==')) pad = 2;
  else if (b64.endsWith('=')) pad = 1;
  return Math.floor((b64.length * 3) / 4) - pad;
}

/** `Packages::CreateDependencyService`: each type given as a hash of names to version patterns. */
function dependenciesOf(versionData: Dict): NpmMeta['dependencies'] {
  const out: NpmMeta['dependencies'] = [];
  for (const type of NPM_DEPENDENCY_TYPES) {
    const deps = versionData[type];
    if (!isDict(deps)) continue;
    for (const name of Object.keys(deps)) out.push([type as NpmDependencyType, name, String(deps[name])]);
  }
  return out;
}

/** `Packages::Package`'s validations for an npm package, as `RecordInvalid`'s message lists them. */
function validationProblems(
  st: PlatformState,
  project: ProjectRecord,
  name: string,
  version: string,
): string[] {
  const out: string[] = [];
  if (name === '') out.push("Name can't be blank");
  if (!validPackageName(name)) out.push('Name is invalid');
  const root = project.path_with_namespace.split('/')[0]!;
  // `valid_npm_package_name`: scoped by the project's root namespace.
  if (
    !name.startsWith(`@${root}/`) ||
    name.slice(root.length + 2).includes('/') ||
    name.length === root.length + 2
  )
    out.push('Name is not valid');
  // `package_already_taken`: another project of the root namespace holds the name.
  const root_ns = iget(st.idx.namespaces, root.toLowerCase());
  if (
    root_ns !== undefined &&
    namespaceProjects(st, root_ns).some((pid) => pid !== project.id && npmPackages(st, pid, name).length > 0)
  )
    out.push('Package already exists');
  if (!validNpmName(name)) out.push('Name is invalid');
  if (!validSemver(version)) out.push('Version is invalid');
  return out;
}

/** The package as Grape renders the record it was given (`Packages::Package#as_json`). */
function packageRecordJson(pkg: PackageRecord): Json {
  return {
    id: pkg.id,
    project_id: pkg.project_id,
    created_at: pkg.created_at,
    updated_at: pkg.updated_at,
    name: pkg.name,
    version: pkg.version,
    package_type: pkg.package_type,
    creator_id: pkg.creator_id,
    status: pkg.status,
  };
}

async function publish(c: Ctx): Promise<Response> {
  const actor = actorOf(c)!;
  const params = c.get('params');
  // Grape's declared params, before the endpoint.
  if (params.versions === undefined || params.versions === null) throw grapeError(400, 'versions is missing');
  if (!isDict(params.versions)) throw grapeError(400, 'versions is invalid');
  const project = projectForActor(c, actor, c.req.param('id') ?? '');
  authorize(c, actor, project, 'create_package');
  const st = state(c);
  const versions = params.versions;
  const version = firstKey(versions);
  if (version === undefined || version.trim() === '') throw apiError(400, 'Version is empty.');
  const name = typeof params.name === 'string' ? params.name : '';
  if (npmPackages(st, project.id, name).some((p) => p.version === version))
    throw apiError(403, 'Package already exists.');
  const fileName = `${name}-${version}.tgz`;
  const attachments = params._attachments;
  const attachment =
    isDict(attachments) && Object.hasOwn(attachments, fileName) ? attachments[fileName] : undefined;
  // The platform reads these without a check: what they lack raises there (NoMethodError), a 500.
  if (!isDict(attachment)) throw internalError();
  const data = attachment.data;
  if (typeof data !== 'string') throw internalError();
  const declared = Number.parseInt(String(attachment.length ?? '0'), 10) || 0;
  // `npm_max_file_size` on the declared length; the bytes the text decodes to are bounded too, before
  // decoding, by the same limit and by what the instance keeps.
  const size = decodedLength(data);
  if (
    declared > planLimit(state(c), 'npm_max_file_size') ||
    size > planLimit(state(c), 'npm_max_file_size') ||
    packageBytesTooLarge(c, size)
  )
    throw apiError(400, 'File is too large.');
  const versionData = versions[version];
  const dist = isDict(versionData) ? versionData.dist : undefined;
  if (!isDict(versionData) || !isDict(dist)) throw internalError();
  const tags = params['dist-tags'];
  if (!isDict(tags)) throw internalError();
  const tag = firstKey(tags);
  const problems = validationProblems(st, project, name, version);
  if (problems.length) throw apiError(400, `Validation failed: ${problems.join(', ')}`);
  if (tag === undefined || tag === '') throw apiError(400, "Validation failed: Name can't be blank");
  const bytes = new Uint8Array(Buffer.from(data, 'base64'));
  const now = c.get('fx').clock.iso();
  const job = actor.kind === 'user' ? actor.job : null;
  const shasum = typeof dist.shasum === 'string' ? dist.shasum : null;
  const created = write(c, (d) => {
    const pkg = createPackage(d, {
      project_id: project.id,
      name,
      version,
      package_type: 'npm',
      status: 'default',
      creator_id: actor.kind === 'user' ? actor.user.id : null,
      created_at: now,
    });
    const draft = tget(d.packages.records, pkg.id)!;
    if (job) draft.pipeline_ids.push(job.pipeline.id);
    addPackageFile(d, draft, {
      file_name: fileName,
      bytes,
      pipeline_id: job ? job.pipeline.id : null,
      created_at: now,
      file_sha1: shasum,
    });
    setPackageMeta(d, pkg.id, { kind: 'npm', dependencies: dependenciesOf(versionData) });
    setTag(d, project.id, pkg, tag, now);
    return packageRecordJson(tget(d.packages.records, pkg.id)!);
  });
  return c.json(created, 200);
}

/** `Packages::Npm::CreateTagService`: the project's tag of the name moves, or a new one is made. */
function setTag(
  d: Draft<PlatformState>,
  projectId: number,
  pkg: PackageRecord,
  tag: string,
  now: string,
): void {
  const existing = tagsOf(d, npmPackages(d, projectId, pkg.name)).find((t) => t.name === tag);
  if (existing) movePackageTag(d, existing.id, pkg.id);
  else addPackageTag(d, pkg.id, tag, now);
}

// ---------------------------------------------------------------------------------------------------
// Routes

/** The version a dist-tag PUT carries: its JSON body, a string (`env['api.request.body']`). */
async function bodyVersion(c: Ctx): Promise<string> {
  const text = await c.req.text();
  if (text.trim() === '') return '';
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (!type.startsWith('application/json')) return text.trim();
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw grapeError(400, 'message body does not match declared format');
  }
  if (typeof v === 'string') return v.trim() === '' ? '' : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

function endpoints(r: ApiRouter, base: string, scopeOf: (c: Ctx) => Scope): void {
  const name = (c: Ctx) => c.req.param('package_name') ?? '';

  r.get(`${base}/-/package/:package_name/dist-tags`, { ...AUTH, requirements: REQ }, (c) => {
    const actor = actorOf(c);
    const pkgName = name(c);
    if (pkgName.trim() === '') throw missingAttribute('Package Name');
    const project = projectOf(c, actor, scopeOf(c), pkgName);
    authorize(c, actor, project, 'read_package');
    const packages = npmPackages(state(c), project.id, pkgName);
    if (!packages.length) throw notFound();
    return c.json(distTags(state(c), packages));
  });

  r.put(
    `${base}/-/package/:package_name/dist-tags/:tag`,
    { ...AUTH, requirements: REQ, rawBody: true },
    async (c) => {
      const actor = actorOf(c);
      const pkgName = name(c);
      const version = await bodyVersion(c);
      const tag = c.req.param('tag') ?? '';
      if (pkgName.trim() === '') throw missingAttribute('Package Name');
      if (version === '') throw missingAttribute('Version');
      if (tag.trim() === '') throw missingAttribute('Tag');
      const project = projectOf(c, actor, scopeOf(c), pkgName);
      authorize(c, actor, project, 'create_package');
      const pkg = npmPackages(state(c), project.id, pkgName).find((p) => p.version === version);
      if (!pkg) throw notFound('Package');
      const now = c.get('fx').clock.iso();
      write(c, (d) => setTag(d, project.id, pkg, tag, now));
      return c.body(null, 204);
    },
  );

  r.delete(`${base}/-/package/:package_name/dist-tags/:tag`, { ...AUTH, requirements: REQ }, (c) => {
    const actor = actorOf(c);
    const pkgName = name(c);
    const tag = c.req.param('tag') ?? '';
    if (pkgName.trim() === '') throw missingAttribute('Package Name');
    if (tag.trim() === '') throw missingAttribute('Tag');
    const project = projectOf(c, actor, scopeOf(c), pkgName);
    authorize(c, actor, project, 'destroy_package');
    const found = tagsOf(state(c), npmPackages(state(c), project.id, pkgName)).find((t) => t.name === tag);
    if (!found) throw notFound('Package tag');
    write(c, (d) => deletePackageTag(d, found.id));
    return c.body(null, 204);
  });

  r.get(`${base}/:package_name`, { ...AUTH, requirements: REQ }, (c) => {
    const actor = actorOf(c);
    const pkgName = name(c);
    const scope = scopeOf(c);
    const st = state(c);
    // `project_or_nil`: found without a permission check; the packages of the name in it.
    const id = projectIdOrNil(c, scope, pkgName);
    const found = id === undefined ? undefined : lookupProject(st, id);
    const packages = found ? npmPackages(st, found.id, pkgName) : [];
    if (!found || !packages.length) {
      const redirect = forwarded(c, pkgName);
      if (redirect) return redirect;
    }
    const project = projectOf(c, actor, scope, pkgName);
    authorize(c, actor, project, 'read_package');
    if (!packages.length) throw notFound('Packages');
    return c.json(packument(c, pkgName, packages));
  });
}

/** `*package_name/-/*file_name`: the name is everything before the first `/-/`. */
const TARBALL = '/projects/:id/packages/npm/:tarball{.+/-/.+}';

export function npmRoutes(r: ApiRouter): void {
  r.get(TARBALL, AUTH, (c) => {
    const actor = actorOf(c);
    const tail = pathParam(c, 'tarball');
    const cut = tail.indexOf('/-/');
    const pkgName = tail.slice(0, cut);
    const fileName = tail.slice(cut + 3);
    const project = projectForActor(c, actor, c.req.param('id') ?? '');
    authorize(c, actor, project, 'read_package');
    const st = state(c);
    // `by_name_and_file_name(...).last!`, then `PackageFileFinder#execute!`.
    const pkg = npmPackages(st, project.id, pkgName)
      .filter((p) => packageFiles(st, p.id).some((f) => f.file_name === fileName))
      .at(-1);
    const file =
      pkg &&
      packageFiles(st, pkg.id)
        .filter((f) => f.file_name === fileName)
        .at(-1);
    if (!file) throw recordNotFound('no npm package file of this name');
    const base = fileName.slice(fileName.lastIndexOf('/') + 1);
    return c.body(new Uint8Array(Buffer.from(file.data, 'base64')), 200, {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${base.replace(/"/g, '\\"')}"; filename*=UTF-8''${encodeURIComponent(base)}`,
      'Content-Transfer-Encoding': 'binary',
    });
  });

  r.put('/projects/:id/packages/npm/:package_name', { ...AUTH, requirements: REQ }, publish);

  endpoints(r, '/projects/:id/packages/npm', (c) => ({ id: c.req.param('id') ?? '' }));
  endpoints(r, '/packages/npm', () => ({ id: undefined }));
}
