/**
 * The Maven repository of 13.12 (`lib/api/maven_packages.rb`): uploads per project, the PUTs `mvn deploy`
 * makes (each file, then its `.sha1` and `.md5`), and downloads per project, per group (its and its
 * subgroups' projects the viewer sees) and at the instance's root (the project whose full path is the
 * package's name). Credentials as the route settings allow (`job_token_allowed`, `deploy_token_allowed`):
 * `Private-Token`, `Job-Token`, `Deploy-Token` (and their query params); 13.12's Maven API takes no Basic
 * auth. Every write first `authenticate_non_get!` (401).
 */
import { createHash } from 'node:crypto';
import { lookupGroup, lookupProject, canReadGroup, projectAccess, ACCESS } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import {
  apiError,
  badRequest,
  conflict,
  forbidden,
  grapeError,
  noRoute,
  notFound,
  recordNotFound,
  unauthorized,
} from '../../core/errors.js';
import type { ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState, ProjectRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { groupChain } from '../projects/access.js';
import type { Project } from '../projects/record.js';
import { canPackage, packageActor, projectForActor, type Actor } from './access.js';
import { planLimit } from '../plan_limits/model.js';
import { mavenNameProblems, MAVEN_FILE_NAME, MAVEN_METADATA, SNAPSHOT_TERM } from './maven-formats.js';
import type { MavenMeta } from './meta.js';
import {
  addPackageFile,
  createPackage,
  packageFiles,
  packageMeta,
  projectPackages,
  setPackageMeta,
  sha256,
} from './model.js';
import { packageBytesTooLarge } from './quota.js';
import { packageFileRecordJson } from './routes.js';
import type { PackageFileRecord, PackageRecord } from './store.js';

/** A package to create: its name, version and metadatum. */
type NewMaven = Omit<MavenMeta, 'kind'> & { name: string; version: string };

const AUTH = { auth: 'optional', jobToken: true, deployToken: true } as const;

/**
 * Grape's `*path/:file_name`, split as Grape splits it: at the last slash of the raw path, so that an
 * encoded slash (`%2F`) stays in its segment and a file name with one fails `maven_file_name_regex`. A
 * tail without a slash has no file name, and no route matches.
 */
function mavenPath(c: Ctx): { path: string; fileName: string } {
  const url = c.req.url;
  const end = url.search(/[?#]/);
  const pathname = url.slice(0, end < 0 ? url.length : end);
  const at = pathname.indexOf(MAVEN_PREFIX);
  const tail = at < 0 ? '' : pathname.slice(at + MAVEN_PREFIX.length);
  const slash = tail.lastIndexOf('/');
  if (slash <= 0 || slash === tail.length - 1) throw noRoute();
  try {
    return {
      path: decodeURIComponent(tail.slice(0, slash)),
      fileName: decodeURIComponent(tail.slice(slash + 1)),
    };
  } catch {
    throw noRoute('a path that does not decode');
  }
}

const MAVEN_PREFIX = '/packages/maven/';

/** `extract_format`: `app.jar.sha1` is the checksum of `app.jar`; any other extension is the file's own. */
function extractFormat(fileName: string): { name: string; format: string } {
  const dot = fileName.lastIndexOf('.');
  const format = dot < 0 ? '' : fileName.slice(dot + 1);
  if (format === 'md5' || format === 'sha1') return { name: fileName.slice(0, dot), format };
  return { name: fileName, format };
}

/** `authenticate_non_get!`, then the actor (null: anonymous). */
function actorOf(c: Ctx): Actor | null {
  const actor = packageActor(c, { basic: false });
  if (!actor && c.req.method !== 'GET') throw unauthorized();
  return actor;
}

/** The project's Maven packages whose metadatum's path is `path`, in id order (`only_maven_packages_with_path`). */
function withPath(st: PlatformState, projectId: number, path: string): PackageRecord[] {
  return projectPackages(st, projectId).filter((p) => {
    if (p.package_type !== 'maven') return false;
    const meta = packageMeta(st, p.id);
    return meta?.kind === 'maven' && meta.path === path;
  });
}

/**
 * `PackageFinder#execute!`: the last of the matching packages; versionless ones (the artifact's
 * `maven-metadata.xml`) by their files (`order_by_package_file`), else by id. None: `404 Not found`.
 */
function lastPackage(st: PlatformState, matches: PackageRecord[]): PackageRecord {
  if (!matches.length) throw recordNotFound('no Maven package with this path');
  if (matches[0]!.version !== '') return matches.reduce((a, b) => (b.id > a.id ? b : a));
  const newestFile = (p: PackageRecord) => Math.max(0, ...mget(st.packages.idx.files, String(p.id)));
  return matches.reduce((a, b) => (newestFile(b) >= newestFile(a) ? b : a));
}

/** `PackageFileFinder#execute!`: the newest file of the name. */
function packageFile(st: PlatformState, pkg: PackageRecord, name: string): PackageFileRecord {
  const file = packageFiles(st, pkg.id)
    .filter((f) => f.file_name === name)
    .at(-1);
  if (!file) throw recordNotFound('no file of this name in the Maven package');
  return file;
}

/** The file, or the digest its checksum file asks for (text, as the platform keeps it). */
function present(c: Ctx, file: PackageFileRecord, format: string): Response {
  if (format === 'md5' || format === 'sha1') {
    const digest = format === 'md5' ? file.file_md5 : file.file_sha1;
    return c.body(digest ?? '', 200, { 'Content-Type': 'text/plain' });
  }
  return c.body(new Uint8Array(Buffer.from(file.data, 'base64')), 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': `attachment; filename="${file.file_name.replace(/"/g, '\\"')}"; filename*=UTF-8''${encodeURIComponent(file.file_name)}`,
    'Content-Transfer-Encoding': 'binary',
  });
}

/** Whether a deploy token of a group reaches this group (its own or a descendant), with a registry scope. */
function deployTokenReadsGroup(st: PlatformState, actor: Actor, group: GroupRecord): boolean {
  if (actor.kind !== 'deploy' || actor.token.owner !== 'group') return false;
  const scopes = actor.token.scopes;
  if (!scopes.includes('read_package_registry') && !scopes.includes('write_package_registry')) return false;
  for (
    let g: GroupRecord | undefined = group;
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  )
    if (g.id === actor.token.owner_id) return true;
  return false;
}

/**
 * `Project.in_namespace(group.self_and_descendants).public_or_visible_to_user(current_user)`; for a deploy
 * token, the projects it reaches (`DeployToken#accessible_projects`).
 */
function groupProjectsFor(st: PlatformState, actor: Actor | null, group: GroupRecord): number[] {
  const out: number[] = [];
  const queue = [group.id];
  const seen = new Set<number>();
  while (queue.length) {
    const gid = queue.shift()!;
    if (seen.has(gid)) continue;
    seen.add(gid);
    queue.push(...mget(st.idx.subgroups, String(gid)));
    for (const pid of mget(st.idx.projectsByNamespace, `group:${gid}`)) {
      const p = tget(st.projects, pid);
      if (!p) continue;
      if (actor?.kind === 'deploy') {
        const t = actor.token;
        if (
          t.owner === 'project'
            ? t.owner_id === pid
            : groupChain(st, p as Project).some((g) => g.id === t.owner_id)
        )
          out.push(pid);
        continue;
      }
      const user = actor?.user ?? null;
      // `Gitlab::VisibilityLevel.levels_for_user`: every level for an administrator, public alone for
      // anonymous and external users; or a membership (`authorizations_for_projects`).
      if (
        user?.admin === true ||
        p.visibility === 'public' ||
        (p.visibility === 'internal' && user !== null && !user.external) ||
        projectAccess(st, user, p) >= ACCESS.GUEST
      )
        out.push(pid);
    }
  }
  return out;
}

/** The request's declared length, when it gives one. */
function declaredLength(c: Ctx): number | undefined {
  const v = c.req.header('content-length');
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * `Packages::Maven::FindOrCreatePackageService`, then the upload's answer. The package of the path, or
 * a new one: `com/acme/app/1.0` is `com/acme/app` version `1.0`; the artifact's `maven-metadata.xml`
 * (outside a `-SNAPSHOT` directory) is a versionless package named by the whole path.
 */
async function upload(c: Ctx): Promise<Response> {
  const actor = actorOf(c);
  const { path, fileName } = mavenPath(c);
  // Grape's `file_name` param: `maven_file_name_regex`.
  if (!MAVEN_FILE_NAME.test(fileName)) throw grapeError(400, 'file_name is invalid');
  const project = projectForActor(c, actor, c.req.param('id') ?? '');
  // `authorize_upload!`: `create_package` on the project.
  if (!canPackage(state(c), actor, project, 'create_package')) throw forbidden();
  // Refused on the declared length before the body is read, as Workhorse's `maximum_size` refuses it.
  const tooLarge = (n: number) =>
    n > planLimit(state(c), 'maven_max_file_size') || packageBytesTooLarge(c, n);
  const declared = declaredLength(c);
  if (declared !== undefined && tooLarge(declared)) throw badRequest('File is too large');
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (tooLarge(bytes.byteLength)) throw badRequest('File is too large');
  const { name: file, format } = extractFormat(fileName);
  const st = state(c);
  const found = withPath(st, project.id, path);
  const pkg = found.length ? lastPackage(st, found) : undefined;
  let created: NewMaven | undefined;
  if (!pkg) {
    const versionless = file === MAVEN_METADATA && !path.endsWith(SNAPSHOT_TERM);
    const slash = path.lastIndexOf('/');
    const name = versionless ? path : slash < 0 ? '' : path.slice(0, slash);
    const version = versionless ? '' : path.slice(slash + 1);
    // `CreatePackageService`: the group id with dots, the artifact id.
    const groupEnd = name.lastIndexOf('/');
    const appGroup = groupEnd < 0 ? '' : name.slice(0, groupEnd).replace(/\//g, '.');
    const appName = name.slice(groupEnd + 1);
    const problems = mavenNameProblems({ name, version, path, appGroup, appName });
    if (problems.length) throw apiError(400, `Validation failed: ${problems.join(', ')}`);
    created = { name, version, path, app_group: appGroup, app_name: appName, app_version: version || null };
  }
  if (format === 'sha1') {
    // `verify_package_file`: the checksum mvn sends must be the one the file got when it came. A new
    // package has no file yet: `404 Not found` (and fauxlab keeps no empty package of a failed request).
    if (!pkg) throw recordNotFound('no Maven package with this path');
    const f = packageFile(st, pkg, file);
    if (sha256(Buffer.from(f.file_sha1 ?? '')) === sha256(bytes)) return c.body(null, 204);
    throw conflict();
  }
  if (format === 'md5') {
    // The platform keeps the digest it computed; the `.md5` upload is answered (Grape's `md5` format,
    // from the extension) and dropped, after the package and a job's build info are made.
    if (created || (actor?.kind === 'user' && actor.job)) saveNew(c, actor, project, created, null);
    return c.body('', 200, { 'Content-Type': 'text/plain' });
  }
  const fileId = saveNew(c, actor, project, created, { pkg, file, bytes });
  return c.json(packageFileRecordJson(project.id, tget(state(c).packages.files, fileId)!));
}

/** One write: the package when it is new (with its build info), and the file when there is one. */
function saveNew(
  c: Ctx,
  actor: Actor | null,
  project: ProjectRecord,
  created: NewMaven | undefined,
  add: { pkg: PackageRecord | undefined; file: string; bytes: Uint8Array } | null,
): number {
  const now = c.get('fx').clock.iso();
  const job = actor?.kind === 'user' ? actor.job : null;
  return write(c, (d) => {
    let id = add?.pkg?.id;
    if (created) {
      const pkg = createPackage(d, {
        project_id: project.id,
        name: created.name,
        version: created.version,
        package_type: 'maven',
        status: 'default',
        creator_id: actor?.kind === 'user' ? actor.user.id : null,
        created_at: now,
      });
      setPackageMeta(d, pkg.id, {
        kind: 'maven',
        path: created.path,
        app_group: created.app_group,
        app_name: created.app_name,
        app_version: created.app_version,
      });
      id = pkg.id;
    }
    const draft = tget(d.packages.records, id!)!;
    // `create_build_infos!(params[:build])`: every upload by a job records its pipeline.
    if (job && !draft.pipeline_ids.includes(job.pipeline.id)) draft.pipeline_ids.push(job.pipeline.id);
    if (!add) return 0;
    const buf = Buffer.from(add.bytes);
    return addPackageFile(d, draft, {
      file_name: add.file,
      bytes: add.bytes,
      pipeline_id: job ? job.pipeline.id : null,
      created_at: now,
      // Workhorse's digests of the body (`file.md5`, `file.sha1`).
      file_md5: hash('md5', buf),
      file_sha1: hash('sha1', buf),
    });
  });
}

const hash = (alg: 'md5' | 'sha1', b: Buffer) => createHash(alg).update(b).digest('hex');

export function mavenRoutes(r: ApiRouter): void {
  // The instance's root: the project whose full path is the package's name (`find_project_by_path`);
  // none, or one the actor may not read packages of, is `403 Forbidden` (`authorize_read_package!(nil)`).
  r.get('/packages/maven/:maven_path{.+}', AUTH, (c) => {
    const actor = actorOf(c);
    const { path, fileName } = mavenPath(c);
    const { name, format } = extractFormat(fileName);
    const st = state(c);
    const projectPath = path.slice(0, Math.max(0, path.lastIndexOf('/')));
    const project = projectPath.includes('/') ? lookupProject(st, projectPath) : undefined;
    if (!project || /^\d+$/.test(projectPath) || !canPackage(st, actor, project, 'read_package'))
      throw forbidden();
    const pkg = lastPackage(st, withPath(st, project.id, path));
    return present(c, packageFile(st, pkg, name), format);
  });

  r.get('/groups/:id/-/packages/maven/:maven_path{.+}', AUTH, (c) => {
    const actor = actorOf(c);
    const { path, fileName } = mavenPath(c);
    const { name, format } = extractFormat(fileName);
    const st = state(c);
    const group = lookupGroup(st, c.req.param('id') ?? '');
    const readable =
      group !== undefined &&
      ((actor?.kind === 'deploy' && deployTokenReadsGroup(st, actor, group)) ||
        canReadGroup(st, actor?.kind === 'user' ? actor.user : null, group));
    if (!readable) throw notFound('Group');
    const matches = groupProjectsFor(st, actor, group).flatMap((pid) => withPath(st, pid, path));
    matches.sort((a, b) => a.id - b.id);
    const pkg = lastPackage(st, matches);
    if (!canPackage(st, actor, tget(st.projects, pkg.project_id)!, 'read_package')) throw forbidden();
    return present(c, packageFile(st, pkg, name), format);
  });

  r.get('/projects/:id/packages/maven/:maven_path{.+}', AUTH, (c) => {
    const actor = actorOf(c);
    const { path, fileName } = mavenPath(c);
    const project = projectForActor(c, actor, c.req.param('id') ?? '');
    if (!canPackage(state(c), actor, project, 'read_package')) throw forbidden();
    const { name, format } = extractFormat(fileName);
    const st = state(c);
    const pkg = lastPackage(st, withPath(st, project.id, path));
    return present(c, packageFile(st, pkg, name), format);
  });

  r.put('/projects/:id/packages/maven/:maven_path{.+}', { ...AUTH, rawBody: true }, upload);
}
