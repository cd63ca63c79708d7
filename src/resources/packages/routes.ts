/**
 * The package registry API of 13.12: generic packages (`lib/api/generic_packages.rb`: publish a file,
 * download it), and the packages API of projects and groups (`project_packages.rb`,
 * `group_packages.rb`, `package_files.rb`). Check order, as the platform's: the credential (401), the
 * project or group (404), the ability (403), the params (400), the records (404).
 */
import { createHash } from 'node:crypto';
import { ACCESS, findGroup, findProject, groupAccess, projectAccess } from '../../core/access.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import {
  badRequest,
  forbidden,
  grapeError,
  noRoute,
  notFound,
  recordNotFound,
  unauthorized,
} from '../../core/errors.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { pathParam, parse, type ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { PipelineRenderer } from '../ci/entities.js';
import { featureAvailable } from '../projects/access.js';
import { has } from '../../core/versions.js';
import { GENERIC_SELECT } from './versions.js';
import type { Project } from '../projects/record.js';
import { userRenderer } from '../users/entities.js';
import { authorizePackage, canPackage, packageActor, projectForActor, type Actor } from './access.js';
import {
  addPackageFile,
  createPackage,
  deletePackage,
  deletePackageFile,
  findPackageByName,
  packageFiles,
  packageTags,
  projectPackages,
} from './model.js';
import { npmRoutes } from './npm-routes.js';
import { pypiRoutes } from './pypi-routes.js';
import { validGenericName, validGenericVersion } from './validation.js';
import { PACKAGE_STATUSES, PACKAGE_TYPES, type PackageFileRecord, type PackageRecord } from './store.js';

type Json = Record<string, unknown>;

/** `generic_packages_max_file_size`, the plan limit's default (5 GiB): the body cap comes first. */
export const GENERIC_MAX_FILE_SIZE = 5 * 1024 * 1024 * 1024;
/** Package files together, when the instance sets no upload total. */
const DEFAULT_PACKAGES_TOTAL = 512 * 1024 * 1024;

/** `Gitlab::Utils.check_path_traversal!`: what the `file_path` validator refuses. */
const TRAVERSAL = /(^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n)/;

/** Grape's validation of the generic routes' params, all problems in one message. */
function checkGenericParams(
  c: Ctx,
  withStatus: boolean,
): { name: string; version: string; file: string; status?: 'default' | 'hidden'; select?: 'package_file' } {
  const name = c.req.param('package_name') ?? '';
  const { version, file } = genericPath(c);
  const problems: string[] = [];
  if (!validGenericName(name)) problems.push('package_name is invalid');
  if (TRAVERSAL.test(name)) problems.push('package_name should be a valid file path');
  if (!validGenericVersion(version)) problems.push('package_version is invalid');
  if (!validGenericName(file)) problems.push('file_name is invalid');
  if (TRAVERSAL.test(file)) problems.push('file_name should be a valid file path');
  let status: 'default' | 'hidden' | undefined;
  if (withStatus) {
    const raw = c.get('params').status;
    if (raw !== undefined && raw !== null) {
      if (raw === 'default' || raw === 'hidden') status = raw;
      else problems.push('status does not have a valid value');
    }
  }
  let select: 'package_file' | undefined;
  if (withStatus && has(c, GENERIC_SELECT)) {
    const raw = c.get('params').select;
    if (raw !== undefined && raw !== null) {
      if (raw === 'package_file') select = raw;
      else problems.push('select does not have a valid value');
    }
  }
  if (problems.length) throw grapeError(400, problems.join(', '));
  return { name, version, file, ...(status && { status }), ...(select && { select }) };
}

/** `authenticate!`, then the project as the credential sees it. */
function genericProject(c: Ctx): { actor: Actor; project: ProjectRecord } {
  const actor = packageActor(c);
  if (!actor) throw unauthorized();
  return { actor, project: projectForActor(c, actor, c.req.param('id') ?? '') };
}

/** `ActionDispatch::Http::ContentDisposition.format(disposition: 'attachment', filename:)`. */
const attachment = (name: string) =>
  `attachment; filename="${name.replace(/"/g, '\\"')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

/** Whether a file of this size is too large (`400 File is too large`). */
function tooLarge(c: Ctx, size: number): boolean {
  if (size > GENERIC_MAX_FILE_SIZE) return true;
  // In memory, all packages share the instance's upload bound; past it a file is too large as well.
  const total = c.get('fx').maxUploadsTotal ?? DEFAULT_PACKAGES_TOTAL;
  return state(c).packages.bytes + size > total;
}

// ---------------------------------------------------------------------------------------------------
// Entities

/** `Entities::Package`, `Entities::PackageVersion` and `Entities::PackageFile` for one request. */
class PackageRenderer {
  readonly #pipelines: PipelineRenderer;
  readonly #users: ReturnType<typeof userRenderer>;
  readonly #base: string;
  readonly #st: PlatformState;

  constructor(
    readonly c: Ctx,
    readonly viewer: UserRecord | null,
  ) {
    this.#pipelines = new PipelineRenderer(c);
    this.#users = userRenderer(c);
    this.#base = requestBase(c);
    this.#st = state(c);
  }

  /** `Entities::Package::Pipeline`: a basic pipeline with its user. */
  #pipelinesOf(ids: readonly number[]): Json[] {
    const out: Json[] = [];
    for (const id of ids) {
      const pl = tget(this.#st.pipelines, id);
      const project = pl && tget(this.#st.projects, pl.project_id);
      if (!pl || !project) continue;
      const user = pl.user_id === null ? undefined : tget(this.#st.users, pl.user_id);
      out.push({ ...this.#pipelines.basic(pl, project), user: user ? this.#users.basic(user) : null });
    }
    return out;
  }

  /**
   * `pipeline` (the first build info's, still served beside its replacement in 13.12) and `pipelines`,
   * when some job published to the package.
   */
  #builtBy(pkg: PackageRecord): Json {
    const pipelines = this.#pipelinesOf(pkg.pipeline_ids);
    return pipelines.length ? { pipeline: pipelines[0], pipelines } : {};
  }

  package(pkg: PackageRecord, o: { group?: boolean; single?: boolean } = {}): Json {
    const project = tget(this.#st.projects, pkg.project_id)!;
    const links: Json = { web_path: `/${project.path_with_namespace}/-/packages/${pkg.id}` };
    if (
      canPackage(
        this.#st,
        this.viewer && { kind: 'user', user: this.viewer, job: null },
        project,
        'destroy_package',
      )
    )
      links.delete_api_path = `${this.#base}/api/v4/projects/${project.id}/packages/${pkg.id}`;
    const out: Json = {
      id: pkg.id,
      name: pkg.name,
      // A versionless package (Maven's artifact-level `maven-metadata.xml`) has none.
      version: pkg.version === '' ? null : pkg.version,
      package_type: pkg.package_type,
      status: pkg.status,
      _links: links,
      created_at: pkg.created_at,
    };
    if (o.group) {
      out.project_id = project.id;
      out.project_path = project.path_with_namespace;
    }
    out.tags = this.#tags(pkg);
    Object.assign(out, this.#builtBy(pkg));
    if (o.single) out.versions = this.#versions(pkg);
    return out;
  }

  /** `expose :tags`: the records as they are (`Packages::Tag#as_json`). */
  #tags(pkg: PackageRecord): Json[] {
    return packageTags(this.#st, pkg.id).map((t) => ({
      id: t.id,
      package_id: t.package_id,
      name: t.name,
      created_at: t.created_at,
      updated_at: t.updated_at,
    }));
  }

  /** The package's other versions (same name and type in the project). */
  #versions(pkg: PackageRecord): Json[] {
    return projectPackages(this.#st, pkg.project_id)
      .filter((x) => x.name === pkg.name && x.package_type === pkg.package_type && x.version !== pkg.version)
      .map((x) => {
        return {
          id: x.id,
          version: x.version,
          created_at: x.created_at,
          tags: this.#tags(x),
          ...this.#builtBy(x),
        };
      });
  }

  file(f: PackageFileRecord): Json {
    const out: Json = {
      id: f.id,
      package_id: f.package_id,
      created_at: f.created_at,
      file_name: f.file_name,
      size: f.size,
      // Generic uploads record only the SHA-256; npm's the shasum it declares, Maven's its checksums.
      file_md5: f.file_md5,
      file_sha1: f.file_sha1,
      file_sha256: f.file_sha256,
    };
    const pipelines = f.pipeline_id === null ? [] : this.#pipelinesOf([f.pipeline_id]);
    if (pipelines.length) out.pipelines = pipelines;
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------
// Listing (`Packages::PackagesFinder`, `Packages::GroupPackagesFinder`)

const listShape = {
  ...paginationParams,
  order_by: p.str().values(['created_at', 'name', 'version', 'type']).default('created_at'),
  sort: p.str().values(['asc', 'desc']).default('asc'),
  package_type: p.str().values(PACKAGE_TYPES),
  package_name: p.str(),
  include_versionless: p.bool(),
  status: p.str().values(PACKAGE_STATUSES),
};

const groupListShape = {
  ...listShape,
  exclude_subgroups: p.bool().default(false),
  order_by: p.str().values(['created_at', 'name', 'version', 'type', 'project_path']).default('created_at'),
};

interface ListFilter {
  order_by: string;
  sort: 'asc' | 'desc';
  package_type?: string;
  package_name?: string;
  include_versionless?: boolean;
  status?: string;
}

function filterPackages(st: PlatformState, list: PackageRecord[], f: ListFilter): PackageRecord[] {
  // `displayable` (the default status) unless a status is asked for.
  let out = list.filter((x) => x.status === (f.status ?? 'default'));
  // `filter_with_version`: versionless packages only when asked for (`has_version`).
  if (!f.include_versionless) out = out.filter((x) => x.version !== '');
  if (f.package_type !== undefined) out = out.filter((x) => x.package_type === f.package_type);
  if (f.package_name !== undefined) {
    // `search_by_name`: a case-insensitive substring.
    const q = f.package_name.toLowerCase();
    out = out.filter((x) => x.name.toLowerCase().includes(q));
  }
  const pathOf = (x: PackageRecord) => tget(st.projects, x.project_id)?.path_with_namespace ?? '';
  const key: (x: PackageRecord) => string =
    f.order_by === 'name'
      ? (x) => x.name
      : f.order_by === 'version'
        ? (x) => x.version
        : f.order_by === 'type'
          ? (x) => x.package_type
          : f.order_by === 'project_path'
            ? pathOf
            : (x) => x.created_at;
  const dir = f.sort === 'desc' ? -1 : 1;
  return out.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return dir * (ka < kb ? -1 : ka > kb ? 1 : 0) || a.id - b.id;
  });
}

/** The groups a group's packages come from: itself, and its subgroups unless excluded. */
function groupTree(st: PlatformState, root: GroupRecord, withSubgroups: boolean): Set<number> {
  const out = new Set<number>([root.id]);
  if (!withSubgroups) return out;
  const queue = [root.id];
  while (queue.length) {
    for (const child of mget(st.idx.subgroups, String(queue.shift()!)))
      if (!out.has(child)) {
        out.add(child);
        queue.push(child);
      }
  }
  return out;
}

/**
 * `GroupPackagesFinder#group_projects_visible_to_current_user`: public projects, internal ones for
 * signed-in users, any for administrators, and those the user reports on; each with a repository the
 * user may see.
 */
function groupProjectVisible(st: PlatformState, user: UserRecord | null, p: Project): boolean {
  const level = projectAccess(st, user, p);
  const admin = user?.admin === true;
  const visible =
    admin ||
    p.visibility === 'public' ||
    (p.visibility === 'internal' && user !== null && !user.external) ||
    level >= ACCESS.REPORTER;
  return visible && featureAvailable(p.repository_access_level, 'repository', level, admin);
}

// ---------------------------------------------------------------------------------------------------
// Routes

/**
 * Grape's `:package_name/*package_version/:file_name`. Hono's router cannot hold a greedy param followed
 * by another next to the other package routes, so the version and file name come as one tail, split at
 * its last slash (`genericPath`).
 */
const GENERIC = '/projects/:id/packages/generic/:package_name/:version_and_file{.+}';

/** The version and file name of a generic route; a tail without a slash matches no route. */
function genericPath(c: Ctx): { version: string; file: string } {
  const tail = pathParam(c, 'version_and_file');
  const slash = tail.lastIndexOf('/');
  if (slash < 0) throw noRoute();
  return { version: tail.slice(0, slash), file: tail.slice(slash + 1) };
}

const projectOf = (c: Ctx) => findProject(c, c.req.param('id') ?? '');
const viewerActor = (c: Ctx): Actor | null => {
  const user = c.get('viewer').user;
  return user ? { kind: 'user', user, job: null } : null;
};

/** `PackageFinder`: the project's package with this id, not one still processing. */
function findPackage(st: PlatformState, project: ProjectRecord, id: number): PackageRecord {
  const pkg = tget(st.packages.records, id);
  if (!pkg || pkg.project_id !== project.id || pkg.status === 'processing')
    throw recordNotFound('no package with this id in the project');
  return pkg;
}

const packageShape = { package_id: p.int().required() };

/**
 * `Packages::PackageFile#as_json`, as `present package_file` renders the record without an entity: its
 * columns in the table's order, the uploader as `{ url }` under the project's hashed storage path
 * (`Gitlab::HashedPath`: the SHA-256 of the project id, split 2/2/rest). Generic uploads keep only the
 * SHA-256 (Workhorse's); the file is on local storage (`file_store` 1), never verified yet.
 */
export function packageFileRecordJson(projectId: number, f: PackageFileRecord) {
  const h = createHash('sha256').update(String(projectId)).digest('hex');
  return {
    id: f.id,
    package_id: f.package_id,
    created_at: f.created_at,
    updated_at: f.created_at,
    size: f.size,
    file_store: 1,
    file_md5: f.file_md5,
    file_sha1: f.file_sha1,
    file_name: f.file_name,
    file: {
      url: `/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}/packages/${f.package_id}/files/${f.id}/${f.file_name}`,
    },
    file_sha256: f.file_sha256,
    verification_retry_at: null,
    verified_at: null,
    verification_failure: null,
    verification_retry_count: null,
    verification_checksum: null,
    verification_state: 0,
    verification_started_at: null,
    new_file_path: null,
  };
}

export function packagesRoutes(r: ApiRouter): void {
  // ---- Generic packages: every credential the registry takes; the route checks it itself.
  r.put(GENERIC, { auth: 'optional', jobToken: true, rawBody: true }, async (c) => {
    const { actor, project } = genericProject(c);
    const prm = checkGenericParams(c, true);
    authorizePackage(c, actor, project, 'create_package');
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (tooLarge(c, bytes.byteLength)) throw badRequest('File is too large');
    const now = c.get('fx').clock.iso();
    const job = actor.kind === 'user' ? actor.job : null;
    const fileId = write(c, (d) => {
      let pkg = findPackageByName(d, project.id, 'generic', prm.name, prm.version);
      if (!pkg)
        pkg = createPackage(d, {
          project_id: project.id,
          name: prm.name,
          version: prm.version,
          package_type: 'generic',
          status: prm.status ?? 'default',
          creator_id: actor.kind === 'user' ? actor.user.id : null,
          created_at: now,
        });
      const draft = tget(d.packages.records, pkg.id)!;
      if (prm.status) draft.status = prm.status;
      return addPackageFile(d, draft, {
        file_name: prm.file,
        bytes,
        pipeline_id: job ? job.pipeline.id : null,
        created_at: now,
      });
    });
    if (prm.select === 'package_file')
      return c.json(packageFileRecordJson(project.id, tget(state(c).packages.files, fileId)!));
    return c.json({ message: '201 Created' }, 201);
  });

  r.get(GENERIC, { auth: 'optional', jobToken: true }, (c) => {
    const { actor, project } = genericProject(c);
    const prm = checkGenericParams(c, false);
    authorizePackage(c, actor, project, 'read_package');
    const st = state(c);
    const pkg = findPackageByName(st, project.id, 'generic', prm.name, prm.version);
    // Hidden packages stay installable; one still processing is not there yet.
    if (!pkg || pkg.status === 'processing') throw recordNotFound('no such generic package version');
    // Several uploads of one name: the newest wins (`recent.with_file_name(...).first`).
    const file = packageFiles(st, pkg.id)
      .filter((f) => f.file_name === prm.file)
      .at(-1);
    if (!file) throw recordNotFound('no such file in the package');
    return c.body(new Uint8Array(Buffer.from(file.data, 'base64')), 200, {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': attachment(file.file_name),
      'Content-Transfer-Encoding': 'binary',
    });
  });

  // ---- Project packages: the usual API credentials; params after the access checks (`before`).
  r.get('/projects/:id/packages', (c) => {
    const project = projectOf(c);
    authorizePackage(c, viewerActor(c), project, 'read_package');
    const prm = parse(c, listShape);
    const st = state(c);
    const list = filterPackages(st, projectPackages(st, project.id), prm);
    const rr = new PackageRenderer(c, c.get('viewer').user);
    return paginate(c, list, (x) => rr.package(x));
  });

  r.get('/projects/:id/packages/:package_id', (c) => {
    const project = projectOf(c);
    authorizePackage(c, viewerActor(c), project, 'read_package');
    const prm = parse(c, packageShape);
    const pkg = findPackage(state(c), project, prm.package_id);
    return c.json(new PackageRenderer(c, c.get('viewer').user).package(pkg, { single: true }));
  });

  r.delete('/projects/:id/packages/:package_id', (c) => {
    const project = projectOf(c);
    authorizePackage(c, viewerActor(c), project, 'read_package');
    const prm = parse(c, packageShape);
    authorizePackage(c, viewerActor(c), project, 'destroy_package');
    const pkg = findPackage(state(c), project, prm.package_id);
    checkUnmodifiedSince(c, pkg.updated_at);
    write(c, (d) => deletePackage(d, pkg.id));
    return c.body(null, 204);
  });

  r.get('/projects/:id/packages/:package_id/package_files', (c) => {
    const project = projectOf(c);
    authorizePackage(c, viewerActor(c), project, 'read_package');
    const prm = parse(c, { ...paginationParams, ...packageShape });
    const pkg = findPackage(state(c), project, prm.package_id);
    const rr = new PackageRenderer(c, c.get('viewer').user);
    return paginate(c, packageFiles(state(c), pkg.id), (f) => rr.file(f));
  });

  r.delete('/projects/:id/packages/:package_id/package_files/:package_file_id', (c) => {
    const project = projectOf(c);
    authorizePackage(c, viewerActor(c), project, 'read_package');
    const prm = parse(c, { ...packageShape, package_file_id: p.int().required() });
    authorizePackage(c, viewerActor(c), project, 'destroy_package');
    const pkg = findPackage(state(c), project, prm.package_id);
    const file = tget(state(c).packages.files, prm.package_file_id);
    if (!file || file.package_id !== pkg.id) throw notFound();
    checkUnmodifiedSince(c, file.created_at);
    write(c, (d) => deletePackageFile(d, file.id));
    return c.body(null, 204);
  });

  // ---- The registries of the package managers, each in its own file.
  npmRoutes(r);
  pypiRoutes(r);

  // ---- Group packages
  r.get('/groups/:id/packages', (c) => {
    const group = findGroup(c, c.req.param('id') ?? '');
    const st = state(c);
    const user = c.get('viewer').user;
    const readable =
      user?.admin === true ||
      group.visibility === 'public' ||
      groupAccess(st, user, group) >= ACCESS.REPORTER;
    if (!readable) throw forbidden();
    const prm = parse(c, groupListShape);
    const groups = groupTree(st, group, !prm.exclude_subgroups);
    const all: PackageRecord[] = [];
    for (const gid of groups)
      for (const pid of mget(st.idx.projectsByNamespace, `group:${gid}`)) {
        const project = tget(st.projects, pid) as Project | undefined;
        if (project && groupProjectVisible(st, user, project)) all.push(...projectPackages(st, pid));
      }
    const list = filterPackages(st, all, prm);
    const rr = new PackageRenderer(c, user);
    return paginate(c, list, (x) => rr.package(x, { group: true }));
  });
}
