/**
 * The Terraform module registry of 13.12 (`lib/api/terraform/modules/v1/packages.rb`), as Terraform's
 * module registry protocol uses it: service discovery (`/.well-known/terraform.json`, `modules.v1`),
 * `versions`, `:version/download` (204 with `X-Terraform-Get`: the file URL with a short-lived JWT,
 * `Gitlab::TerraformRegistryToken`), and the file. Publishing is `PUT
 * /projects/:id/packages/terraform/modules/:module_name/:module_system/:module_version/file` with the
 * archive as the body (Workhorse's `file`), through `Packages::TerraformModule::CreatePackageService`:
 * a `terraform_module` package named `<module_name>/<module_system>`, file
 * `<name>-<system>-<version>.tgz`.
 *
 * Credentials are `authenticate_with`'s, nothing else: reads take a personal access, deploy or job token
 * as `Authorization: Bearer`; the file takes the JWT as `?token=`; the upload takes `Deploy-Token`,
 * `Job-Token` or `Private-Token` headers.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ACCESS, groupAccess, lookupGroup, lookupProject, projectAccess } from '../../core/access.js';
import { state, write, type Ctx, type Fx } from '../../core/context.js';
import { apiError, badRequest, forbidden, noRoute, notFound, unauthorized } from '../../core/errors.js';
import type { ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { iget, mget, tget, tvalues } from '../../core/table.js';
import { findToken } from '../../core/auth.js';
import type { DeployTokenRecord } from '../deploy_tokens/store.js';
import { canPackage, fromBasicPassword, fromJobToken, type Actor } from '../packages/access.js';
import { addPackageFile, createPackage, packageFiles, projectPackages } from '../packages/model.js';
import type { PackageRecord } from '../packages/store.js';
import { featureAvailable, groupChain } from '../projects/access.js';
import type { Project } from '../projects/record.js';

/** `Plan#actual_limits.terraform_module_max_file_size`, 13.12's default (1 GiB); the body cap comes first. */
export const TERRAFORM_MODULE_MAX_FILE_SIZE = 1024 * 1024 * 1024;
/** Package files together, when the instance sets no upload total (as the other registries). */
const DEFAULT_PACKAGES_TOTAL = 512 * 1024 * 1024;
/** `Gitlab::JWTToken::HMAC_EXPIRES_IN`. */
const JWT_EXPIRES_IN = 5 * 60;

/** `Gitlab::Regex.semver_regex`: the route requirement of `*module_version`. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
/** `Gitlab::Regex.terraform_module_package_name_regex`: the package's name validation. */
const MODULE_NAME = /^[-a-z0-9]+\/[-a-z0-9]+$/;

// ---------------------------------------------------------------------------------------------------
// Credentials

const header = (c: Ctx, name: string) => {
  const v = c.req.header(name);
  return v === undefined || v === '' ? undefined : v;
};

/** The active deploy token with this secret. */
function deployTokenBySecret(c: Ctx, secret: string): DeployTokenRecord | undefined {
  const d = digest(secret);
  const now = c.get('fx').clock.ms();
  return tvalues(state(c).deployTokens.records).find(
    (t) => t.digest === d && !t.revoked && (t.expires_at === null || Date.parse(t.expires_at) > now),
  );
}

/** A personal access, deploy or job token, in the resolver's order; a worthless one is a 401. */
function fromAnyToken(c: Ctx, secret: string): Actor {
  const t = findToken(state(c), secret);
  if (t?.kind === 'job') return fromJobToken(c, secret);
  if (t) return fromBasicPassword(c, secret);
  const d = deployTokenBySecret(c, secret);
  if (d) return { kind: 'deploy', token: d };
  throw unauthorized();
}

/** The read routes: `token_types(:personal_access_token, :deploy_token, :job_token).sent_through(:http_bearer_token)`. */
function bearerActor(c: Ctx): { actor: Actor | null; secret: string | null } {
  const authz = header(c, 'authorization');
  const m = authz === undefined ? null : /^bearer\s+(.+)$/i.exec(authz);
  if (!m) return { actor: null, secret: null };
  const secret = m[1]!.trim();
  return { actor: fromAnyToken(c, secret), secret };
}

/** The upload: `Deploy-Token`, then `Job-Token`, then `Private-Token` headers. */
function uploadActor(c: Ctx): Actor | null {
  const deploy = header(c, 'deploy-token');
  if (deploy !== undefined) {
    const d = deployTokenBySecret(c, deploy);
    if (!d) throw unauthorized();
    return { kind: 'deploy', token: d };
  }
  const job = header(c, 'job-token');
  if (job !== undefined) return fromJobToken(c, job);
  const pat = header(c, 'private-token');
  if (pat !== undefined) return fromBasicPassword(c, pat);
  return null;
}

// The JWT of `X-Terraform-Get` (`Gitlab::TerraformRegistryToken`, HS256). Its key is the instance's
// own, made when first needed and never shown, so that no client can mint one.
const jwtKeys = new WeakMap<Fx, Buffer>();
function jwtKey(fx: Fx): Buffer {
  let k = jwtKeys.get(fx);
  if (!k) jwtKeys.set(fx, (k = randomBytes(32)));
  return k;
}
const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** `from_token(token)`: a personal access token by its id, a deploy or job token by its secret. */
function encodeJwt(c: Ctx, secret: string): string {
  const now = Math.floor(c.get('fx').clock.ms() / 1000);
  const t = findToken(state(c), secret);
  const token = t && t.kind !== 'job' ? t.id : secret;
  const head = b64url(JSON.stringify({ typ: 'JWT', alg: 'HS256' }));
  const body = b64url(
    JSON.stringify({ token, jti: randomUUID(), iat: now, nbf: now - 5, exp: now + JWT_EXPIRES_IN }),
  );
  const sig = b64url(
    createHmac('sha256', jwtKey(c.get('fx')))
      .update(`${head}.${body}`)
      .digest(),
  );
  return `${head}.${body}.${sig}`;
}

/** The file route's `?token=`: a valid, unexpired JWT naming a credential that still works; else 401. */
function jwtActor(c: Ctx): Actor | null {
  const jwt = c.req.query('token');
  if (jwt === undefined || jwt === '') return null;
  const parts = jwt.split('.');
  if (parts.length !== 3) throw unauthorized();
  const want = createHmac('sha256', jwtKey(c.get('fx')))
    .update(`${parts[0]}.${parts[1]}`)
    .digest();
  const got = Buffer.from(parts[2]!, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) throw unauthorized();
  let payload: { token?: unknown; exp?: unknown; nbf?: unknown };
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as typeof payload;
  } catch {
    throw unauthorized();
  }
  const now = c.get('fx').clock.ms() / 1000;
  if (typeof payload.exp !== 'number' || now >= payload.exp) throw unauthorized();
  if (typeof payload.nbf !== 'number' || now < payload.nbf) throw unauthorized();
  if (typeof payload.token === 'number') {
    const t = tget(state(c).tokens, payload.token);
    if (!t || (t.kind !== 'personal' && t.kind !== 'impersonation') || t.revoked) throw unauthorized();
    const user = tget(state(c).users, t.user_id);
    if (!user || user.state === 'blocked' || user.state === 'ldap_blocked') throw unauthorized();
    return { kind: 'user', user, job: null };
  }
  if (typeof payload.token !== 'string') throw unauthorized();
  const d = deployTokenBySecret(c, payload.token);
  if (d) return { kind: 'deploy', token: d };
  return fromJobToken(c, payload.token);
}

// ---------------------------------------------------------------------------------------------------
// Finding the modules (`Packages::GroupPackagesFinder`)

type Namespace = { kind: 'group'; group: GroupRecord } | { kind: 'user'; user: UserRecord };

/** `find_namespace(params[:module_namespace])`: a group by id or path, or a user's namespace by path. */
function findNamespace(st: PlatformState, idOrPath: string): Namespace | undefined {
  const g = lookupGroup(st, idOrPath);
  if (g) return { kind: 'group', group: g };
  const id = iget(st.idx.namespaces, idOrPath.toLowerCase());
  const user = id !== undefined && id < 0 ? tget(st.users, -id) : undefined;
  return user ? { kind: 'user', user } : undefined;
}

const userOf = (a: Actor | null): UserRecord | null => (a?.kind === 'user' ? a.user : null);

/** The projects of the namespace (and its subgroups) whose packages the actor sees. */
function visibleProjects(st: PlatformState, actor: Actor | null, ns: Namespace): Project[] {
  const ids: number[] = [];
  if (ns.kind === 'user') ids.push(...mget(st.idx.projectsByNamespace, `user:${ns.user.id}`));
  else {
    const queue = [ns.group.id];
    const seen = new Set<number>();
    while (queue.length) {
      const gid = queue.shift()!;
      if (seen.has(gid)) continue;
      seen.add(gid);
      ids.push(...mget(st.idx.projectsByNamespace, `group:${gid}`));
      queue.push(...mget(st.idx.subgroups, String(gid)));
    }
  }
  const out: Project[] = [];
  for (const pid of ids) {
    const p = tget(st.projects, pid) as Project | undefined;
    if (!p) continue;
    if (actor?.kind === 'deploy') {
      const t = actor.token;
      const reaches =
        t.owner === 'project' ? t.owner_id === p.id : groupChain(st, p).some((g) => g.id === t.owner_id);
      if (reaches) out.push(p);
      continue;
    }
    // `public_or_visible_to_user(user, REPORTER)` and the repository available to the user.
    const user = userOf(actor);
    const level = projectAccess(st, user, p);
    const admin = user?.admin === true;
    const visible =
      admin ||
      p.visibility === 'public' ||
      (p.visibility === 'internal' && user !== null && !user.external) ||
      level >= ACCESS.REPORTER;
    if (visible && featureAvailable(p.repository_access_level, 'repository', level, admin)) out.push(p);
  }
  return out;
}

/**
 * The module's packages: `package_type: :terraform_module` and 13.12's `package_name` filter, a
 * case-insensitive substring (`search_by_name`), displayable ones, oldest first.
 */
function modulePackages(
  st: PlatformState,
  actor: Actor | null,
  ns: Namespace,
  name: string,
  version?: string,
) {
  const q = name.toLowerCase();
  const out: PackageRecord[] = [];
  for (const p of visibleProjects(st, actor, ns))
    for (const pkg of projectPackages(st, p.id))
      if (
        pkg.package_type === 'terraform_module' &&
        pkg.status === 'default' &&
        pkg.name.toLowerCase().includes(q) &&
        (version === undefined || pkg.version === version)
      )
        out.push(pkg);
  return out.sort((a, b) =>
    a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id,
  );
}

/** `authorize_read_package!(package || module_namespace)`. */
function authorizeRead(
  st: PlatformState,
  actor: Actor | null,
  pkg: PackageRecord | undefined,
  ns?: Namespace,
): void {
  if (pkg) {
    const project = tget(st.projects, pkg.project_id)!;
    if (!canPackage(st, actor, project, 'read_package')) throw forbidden();
    return;
  }
  const user = userOf(actor);
  const ok =
    ns !== undefined &&
    (ns.kind === 'group'
      ? user?.admin === true ||
        ns.group.visibility === 'public' ||
        groupAccess(st, user, ns.group) >= ACCESS.REPORTER
      : user?.admin === true || user?.id === ns.user.id);
  if (!ok) throw forbidden();
}

/** `ActionDispatch::Http::ContentDisposition.format(disposition: 'attachment', filename:)`. */
const attachment = (name: string) =>
  `attachment; filename="${name.replace(/"/g, '\\"')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

// ---------------------------------------------------------------------------------------------------
// Routes

const MODULE = '/packages/terraform/modules/v1/:module_namespace/:module_name/:module_system';

interface ModuleRequest {
  st: PlatformState;
  actor: Actor | null;
  ns: Namespace | undefined;
  name: string;
  system: string;
}

function moduleRequest(c: Ctx, actor: Actor | null): ModuleRequest {
  const st = state(c);
  const system = c.req.param('module_system') ?? '';
  return {
    st,
    actor,
    ns: findNamespace(st, c.req.param('module_namespace') ?? ''),
    name: `${c.req.param('module_name') ?? ''}/${system}`,
    system,
  };
}

/** The `*module_version` routes: the version's package (authorised), and its first file (else 404). */
function versionPackage(c: Ctx, m: ModuleRequest) {
  const version = c.req.param('module_version') ?? '';
  if (!SEMVER.test(version)) throw noRoute();
  const pkg = m.ns && modulePackages(m.st, m.actor, m.ns, m.name, version)[0];
  authorizeRead(m.st, m.actor, pkg, m.ns);
  const file = pkg && packageFiles(m.st, pkg.id)[0];
  if (!pkg || !file) throw notFound();
  return { pkg, file, version };
}

export function terraformModuleRoutes(r: ApiRouter): void {
  r.get(`${MODULE}/versions`, { ownCredentials: true }, (c) => {
    const m = moduleRequest(c, bearerActor(c).actor);
    const list = m.ns ? modulePackages(m.st, m.actor, m.ns, m.name) : [];
    authorizeRead(m.st, m.actor, list[0], m.ns);
    const first = list[0] && tget(m.st.projects, list[0].project_id);
    const base = c.get('fx').baseUrl ?? new URL(c.req.url).origin;
    // `Terraform::ModulesPresenter`: every version with the module's system as its one provider.
    const versions = list.map((pkg) => ({
      version: pkg.version,
      submodules: [],
      root: { dependencies: [], providers: [{ name: m.system, version: '' }] },
    }));
    return c.json({
      modules: [{ versions, ...(first && { source: `${base}/${first.path_with_namespace}` }) }],
    });
  });

  r.get(`${MODULE}/:module_version/download`, { ownCredentials: true }, (c) => {
    const { actor, secret } = bearerActor(c);
    const m = moduleRequest(c, actor);
    const { version } = versionPackage(c, m);
    // A relative URL: Terraform resolves it against this one. Without a credential the token is blank.
    const jwt = actor && secret ? encodeJwt(c, secret) : '';
    const ns = c.req.param('module_namespace') ?? '';
    const path = `/api/v4/packages/terraform/modules/v1/${encodeURIComponent(ns)}/${encodeURIComponent(
      c.req.param('module_name') ?? '',
    )}/${encodeURIComponent(m.system)}/${version}/file?token=${jwt}&archive=tgz`;
    return c.body(null, 204, { 'X-Terraform-Get': path });
  });

  r.get(`${MODULE}/:module_version/file`, { ownCredentials: true }, (c) => {
    const m = moduleRequest(c, jwtActor(c));
    const { file } = versionPackage(c, m);
    return c.body(new Uint8Array(Buffer.from(file.data, 'base64')), 200, {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': attachment(file.file_name),
      'Content-Transfer-Encoding': 'binary',
    });
  });

  r.put(
    '/projects/:id/packages/terraform/modules/:module_name/:module_system/:module_version/file',
    { ownCredentials: true, auth: 'optional', rawBody: true },
    async (c) => {
      const version = c.req.param('module_version') ?? '';
      if (!SEMVER.test(version)) throw noRoute();
      const actor = uploadActor(c);
      const st = state(c);
      // `authorized_project_find!`: unreadable is a 401 for no one, a 404 for someone.
      const project = lookupProject(st, c.req.param('id') ?? '');
      const readable =
        project !== undefined &&
        (actor?.kind === 'deploy'
          ? actor.token.owner === 'project'
            ? actor.token.owner_id === project.id
            : groupChain(st, project as Project).some((g) => g.id === actor.token.owner_id)
          : canReadAsUser(st, userOf(actor), project));
      if (!readable) throw actor ? notFound() : unauthorized();
      if (!canPackage(st, actor, project, 'create_package')) throw forbidden();
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      if (bytes.byteLength > TERRAFORM_MODULE_MAX_FILE_SIZE) throw badRequest('File is too large');
      const total = c.get('fx').maxUploadsTotal ?? DEFAULT_PACKAGES_TOTAL;
      if (state(c).packages.bytes + bytes.byteLength > total) throw badRequest('File is too large');
      const moduleName = c.req.param('module_name') ?? '';
      const system = c.req.param('module_system') ?? '';
      const name = `${moduleName}/${system}`;
      // The service's checks: the name in another project of the root namespace, then this version here.
      const root = rootOf(st, project as Project);
      const elsewhere = mget(st.idx.projectsByNamespace, root)
        .concat(subgroupProjects(st, project as Project))
        .some(
          (pid) =>
            pid !== project.id &&
            projectPackages(st, pid).some((x) => x.package_type === 'terraform_module' && x.name === name),
        );
      if (elsewhere) throw apiError(403, 'Package already exists.');
      if (
        projectPackages(st, project.id).some(
          (x) => x.package_type === 'terraform_module' && x.name === name && x.version === version,
        )
      )
        throw apiError(403, 'Package version already exists.');
      // `Packages::Package` validates the name (lower-case) and version: `create!` raises, the API's 500.
      if (!MODULE_NAME.test(name)) throw apiError(500, '500 Internal Server Error');
      const now = c.get('fx').clock.iso();
      const job = actor?.kind === 'user' ? actor.job : null;
      write(c, (d) => {
        const pkg = createPackage(d, {
          project_id: project.id,
          name,
          version,
          package_type: 'terraform_module',
          status: 'default',
          creator_id: actor?.kind === 'user' ? actor.user.id : null,
          created_at: now,
        });
        addPackageFile(d, tget(d.packages.records, pkg.id)!, {
          file_name: `${moduleName}-${system}-${version}.tgz`,
          bytes,
          pipeline_id: job ? job.pipeline.id : null,
          created_at: now,
        });
      });
      return c.json({ message: '201 Created' }, 201);
    },
  );

  // Terraform's service discovery (`Terraform::ServicesController#index`), on the web side.
  // The routing path has lost its `.json` (src/host/table.ts): the raw path must have it.
  r.web.get('/.well-known/terraform', (c, next) =>
    new URL(c.req.url).pathname === '/.well-known/terraform.json'
      ? c.json({ 'modules.v1': '/api/v4/packages/terraform/modules/v1/' })
      : next(),
  );
}

function canReadAsUser(st: PlatformState, user: UserRecord | null, p: ProjectRecord): boolean {
  if (p.visibility === 'public' || user?.admin) return true;
  if (!user) return false;
  return (p.visibility === 'internal' && !user.external) || projectAccess(st, user, p) >= ACCESS.GUEST;
}

/** `project.root_namespace`'s key in `projectsByNamespace`. */
function rootOf(st: PlatformState, p: Project): string {
  if (p.namespace_kind !== 'group') return `user:${p.namespace_id}`;
  return `group:${groupChain(st, p).at(-1)!.id}`;
}

/** The projects of the root group's subgroups (`root_namespace.all_projects`, past the root itself). */
function subgroupProjects(st: PlatformState, p: Project): number[] {
  if (p.namespace_kind !== 'group') return [];
  const root = groupChain(st, p).at(-1)!.id;
  const out: number[] = [];
  const queue = [...mget(st.idx.subgroups, String(root))];
  const seen = new Set<number>();
  while (queue.length) {
    const gid = queue.shift()!;
    if (seen.has(gid)) continue;
    seen.add(gid);
    out.push(...mget(st.idx.projectsByNamespace, `group:${gid}`));
    queue.push(...mget(st.idx.subgroups, String(gid)));
  }
  return out;
}
