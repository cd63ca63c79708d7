/**
 * The PyPI registry of 13.12 (`lib/api/pypi_packages.rb`), per project: the upload twine makes
 * (multipart, `Packages::Pypi::CreatePackageService`), the simple index pip reads (PEP 503 HTML from
 * `Packages::Pypi::PackagePresenter`) and file downloads by SHA-256 and name. Credentials as
 * `BasicAuthHelpers` reads them: Basic auth with a personal access token, a deploy token or a job token
 * (`gitlab-ci-token`) as the password, besides `Private-Token` and `Deploy-Token`.
 */
import { lookupProject, canReadProject } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import {
  ApiError,
  apiError,
  badRequest,
  forbidden,
  grapeError,
  notFound,
  recordNotFound,
} from '../../core/errors.js';
import { requestBase } from '../../core/pagination.js';
import type { ApiRouter } from '../../core/router.js';
import { pathParam } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { canPackage, packageActor, type Actor } from './access.js';
import { validPackageName, validPypiVersion } from './formats.js';
import { planLimit } from '../plan_limits/model.js';
import {
  addPackageFile,
  createPackage,
  findPackageByName,
  packageFiles,
  packageMeta,
  projectPackages,
  setPackageMeta,
} from './model.js';
import { packageBytesTooLarge } from './quota.js';
import type { PackageRecord } from './store.js';

const AUTH = { auth: 'optional', deployToken: true } as const;

/** `unauthorized_with_header!`: a 401 that asks for Basic credentials. */
export function unauthorizedWithHeader(): never {
  throw new ApiError(
    401,
    { message: '401 Unauthorized' },
    { 'WWW-Authenticate': 'Basic realm="GitLab Packages Registry"' },
  );
}

/** `unauthorized_user_project!`: the project whoever asks, or `404 Not Found`. */
function unauthorizedUserProject(c: Ctx): ProjectRecord {
  const p = lookupProject(state(c), c.req.param('id') ?? '');
  if (!p) throw notFound();
  return p;
}

/** `authorized_user_project`: a project the actor may read, else 401 (anonymous) or `404 Not Found`. */
function authorizedUserProject(c: Ctx, actor: Actor | null): ProjectRecord {
  const p = unauthorizedUserProject(c);
  const readable =
    actor?.kind === 'deploy'
      ? canPackage(state(c), actor, p, 'read_package')
      : canReadProject(state(c), actor?.user ?? null, p);
  if (!readable) {
    if (!actor) unauthorizedWithHeader();
    throw notFound();
  }
  return p;
}

/** PEP 503's normalised name, as `with_normalized_pypi_name` compares it. */
export const normalized = (name: string) => name.replace(/[-_.]+/g, '-').toLowerCase();

/** The project's PyPI packages with a version, not still processing (`Packages::Pypi::PackagesFinder`). */
export function pypiPackages(c: Ctx, projectId: number): PackageRecord[] {
  return projectPackages(state(c), projectId).filter(
    (p) => p.package_type === 'pypi' && p.version !== '' && p.status !== 'processing',
  );
}

const escapeHtml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/**
 * `PackagePresenter#body`: one link per file, with its SHA-256 and the version's `requires_python`; the
 * links under the registry that lists them (`/projects/:id/packages/pypi` or `/groups/:id/-/packages/pypi`).
 */
export function simpleIndex(c: Ctx, registry: string, packages: PackageRecord[]): string {
  const st = state(c);
  const base = `${requestBase(c)}/api/v4/${registry}`;
  const links: string[] = [];
  for (const pkg of packages) {
    const meta = packageMeta(st, pkg.id);
    const requires = meta?.kind === 'pypi' ? meta.required_python : '';
    for (const f of packageFiles(st, pkg.id)) {
      const url = `${base}/files/${f.file_sha256}/${encodeURIComponent(f.file_name)}#sha256=${f.file_sha256}`;
      links.push(
        `<a href="${url}" data-requires-python="${escapeHtml(requires)}">${escapeHtml(f.file_name)}</a><br>`,
      );
    }
  }
  const name = escapeHtml(packages[0]!.name);
  return [
    '<!DOCTYPE html>',
    '<html>',
    '  <head>',
    `    <title>Links for ${name}</title>`,
    '  </head>',
    '  <body>',
    `    <h1>Links for ${name}</h1>`,
    `    ${links.join('')}`,
    '  </body>',
    '</html>',
    '',
  ].join('\n');
}

/** Grape's `requires`/`optional` of the upload, every problem in one message. */
function uploadParams(c: Ctx) {
  const p = c.get('params');
  const problems: string[] = [];
  const content = p.content;
  if (content === undefined || content === null) problems.push('content is missing');
  else if (!(content instanceof File)) problems.push('content is invalid');
  const str = (key: string, required: boolean): string | undefined => {
    const v = p[key];
    if (v === undefined || v === null) {
      if (required) problems.push(`${key} is missing`);
      return undefined;
    }
    if (typeof v !== 'string') {
      problems.push(`${key} is invalid`);
      return undefined;
    }
    return v;
  };
  const requires_python = str('requires_python', true);
  const name = str('name', true);
  const version = str('version', true);
  const md5 = str('md5_digest', false);
  const sha256 = str('sha256_digest', false);
  if (problems.length) throw grapeError(400, problems.join(', '));
  return {
    content: content as File,
    requires_python: requires_python!,
    name: name!,
    version: version!,
    md5,
    sha256,
  };
}

export function pypiRoutes(r: ApiRouter): void {
  r.post('/projects/:id/packages/pypi', AUTH, async (c) => {
    unauthorizedUserProject(c);
    const actor = packageActor(c);
    const prm = uploadParams(c);
    const project = authorizedUserProject(c, actor);
    if (!canPackage(state(c), actor, project, 'create_package')) throw forbidden();
    if (
      prm.content.size > planLimit(state(c), 'pypi_max_file_size') ||
      packageBytesTooLarge(c, prm.content.size)
    )
      throw badRequest('File is too large');
    // `Packages::Package`'s and `Packages::Pypi::Metadatum`'s validations.
    const problems: string[] = [];
    if (prm.name === '') problems.push("Name can't be blank");
    if (!validPackageName(prm.name)) problems.push('Name is invalid');
    if (!validPypiVersion(prm.version)) problems.push('Version is invalid');
    if (problems.length) throw apiError(400, `Validation failed: ${problems.join(', ')}`);
    if (prm.requires_python.length > 255)
      throw apiError(400, 'Validation failed: Required python is too long (maximum is 255 characters)');
    const bytes = new Uint8Array(await prm.content.arrayBuffer());
    const now = c.get('fx').clock.iso();
    const job = actor?.kind === 'user' ? actor.job : null;
    write(c, (d) => {
      // `find_or_create_package!`: a second file of the same version joins the package.
      let pkg = findPackageByName(d, project.id, 'pypi', prm.name, prm.version);
      if (!pkg) {
        pkg = createPackage(d, {
          project_id: project.id,
          name: prm.name,
          version: prm.version,
          package_type: 'pypi',
          status: 'default',
          creator_id: actor?.kind === 'user' ? actor.user.id : null,
          created_at: now,
        });
        if (job) tget(d.packages.records, pkg.id)!.pipeline_ids.push(job.pipeline.id);
      }
      // `Metadatum.upsert`: the last upload's requires_python stands.
      setPackageMeta(d, pkg.id, { kind: 'pypi', required_python: prm.requires_python });
      addPackageFile(d, tget(d.packages.records, pkg.id)!, {
        // Workhorse takes the part's file name as Go's `Part.FileName` gives it: its base name.
        file_name: prm.content.name.slice(prm.content.name.lastIndexOf('/') + 1),
        bytes,
        pipeline_id: job ? job.pipeline.id : null,
        created_at: now,
        file_md5: prm.md5 ?? null,
        ...(prm.sha256 !== undefined && { file_sha256: prm.sha256 }),
      });
    });
    return c.json({ message: '201 Created' }, 201);
  });

  r.get('/projects/:id/packages/pypi/simple/:package_name{.+}', AUTH, (c) => {
    unauthorizedUserProject(c);
    const actor = packageActor(c);
    const name = pathParam(c, 'package_name');
    // The `file_path` validator: `Gitlab::Utils.check_path_traversal!`.
    if (/(^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n)/.test(name))
      throw grapeError(400, 'package_name should be a valid file path');
    const project = authorizedUserProject(c, actor);
    if (!canPackage(state(c), actor, project, 'read_package')) throw forbidden();
    const wanted = name.toLowerCase();
    const packages = pypiPackages(c, project.id).filter((p) => normalized(p.name) === wanted);
    if (!packages.length) throw recordNotFound('no PyPI package of this name');
    return c.body(simpleIndex(c, `projects/${project.id}/packages/pypi`, packages), 200, {
      'Content-Type': 'text/html; charset=utf-8',
    });
  });

  // No ability is checked: the file's SHA-256 in the path is what lets pip (which sends no credentials
  // to a link's host path) download it, as the platform serves it.
  r.get('/projects/:id/packages/pypi/files/:sha256/:file_identifier{.+}', AUTH, (c) => {
    const project = unauthorizedUserProject(c);
    const sha = c.req.param('sha256') ?? '';
    const fileName = pathParam(c, 'file_identifier');
    return presentPypiFile(c, pypiPackages(c, project.id), sha, fileName);
  });
}

/**
 * `Packages::Pypi::PackageFinder` (`by_file_name_and_sha256(...).last!`) over `packages`, then
 * `PackageFileFinder#execute!`: the newest file of the name, as an attachment.
 */
export function presentPypiFile(c: Ctx, packages: PackageRecord[], sha: string, fileName: string): Response {
  const st = state(c);
  const pkg = packages
    .filter((p) => packageFiles(st, p.id).some((f) => f.file_name === fileName && f.file_sha256 === sha))
    .reduce<PackageRecord | undefined>((a, b) => (a === undefined || b.id > a.id ? b : a), undefined);
  const file =
    pkg &&
    packageFiles(st, pkg.id)
      .filter((f) => f.file_name === fileName)
      .at(-1);
  if (!file) throw recordNotFound('no PyPI file of this name and digest');
  return c.body(new Uint8Array(Buffer.from(file.data, 'base64')), 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': `attachment; filename="${file.file_name.replace(/"/g, '\\"')}"; filename*=UTF-8''${encodeURIComponent(file.file_name)}`,
    'Content-Transfer-Encoding': 'binary',
  });
}
