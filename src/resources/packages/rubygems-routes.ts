/**
 * The RubyGems registry of 13.12 (`lib/api/rubygem_packages.rb`), behind the feature flag
 * `rubygem_packages` (off by default, the project as actor). `gem push` uploads the gem as the request
 * body (Workhorse's body upload: the `file` param), kept as a temporary package still processing until
 * `Packages::Rubygems::ExtractionWorker` reads its gemspec (`ProcessGemService`: the package named and
 * versioned from it, or the file joined to the existing package of that name and version, the file named
 * `<name>-<version>.gem`, the metadatum's platform and the dependency links); a gem that cannot be read
 * is deleted with its package. Downloads by file name and the dependency API (`Marshal.dump` of each
 * version's dependencies) are served; the index files (`specs.4.8.gz` and the others) and
 * `quick/Marshal.4.8/*.gemspec.rz` answer `404 Not Found`, as 13.12 has them unimplemented.
 */
import { createHash } from 'node:crypto';
import { state, write, type Ctx } from '../../core/context.js';
import { badRequest, notFound, recordNotFound, unauthorized } from '../../core/errors.js';
import { featureEnabled } from '../../core/features.js';
import { scheduleJob } from '../../core/jobs.js';
import { pathParam, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { actorFromHttpToken, authorizePackage, packageActor, projectForActor, type Actor } from './access.js';
import { validPackageName } from './formats.js';
import { GemError, marshalDump, readGem, type Marshalable } from './gem-format.js';
import {
  addPackageFile,
  createPackage,
  deletePackage,
  findPackageByName,
  movePackageFile,
  packageFiles,
  packageMeta,
  projectPackages,
  renamePackage,
  setPackageMeta,
} from './model.js';
import { packageBytesTooLarge } from './quota.js';

/**
 * `plan_limits.rubygems_max_file_size`'s column default (3 GiB). 13.12's plan limits API neither shows nor
 * sets this column, so it stays the default.
 */
const RUBYGEMS_MAX_FILE_SIZE = 3 * 1024 * 1024 * 1024;

/** `Packages::Rubygems::TEMPORARY_PACKAGE_NAME` and the upload's `PACKAGE_FILENAME`. */
const TEMPORARY_NAME = 'Gem.Temporary.Package';
const PACKAGE_FILENAME = 'package.gem';
export const GEM_EXTRACTION_JOB = 'packages.rubygems.extract';

const AUTH = { auth: 'optional', jobToken: true, deployToken: true } as const;
const BASE = '/projects/:id/packages/rubygems';
/** `NO_SLASH_URL_PART_REGEX`: one segment. */
const FILE = ':file_name{[^/]+}';

/**
 * `authenticate_with`: a personal, deploy or job token as the bare `Authorization` value, besides the
 * API's usual credentials.
 */
function gemActor(c: Ctx): Actor | null {
  const authz = c.req.header('authorization')?.trim();
  if (authz && !/^(?:basic|bearer)\s/i.test(authz) && !c.get('viewer').user)
    return actorFromHttpToken(c, authz);
  return packageActor(c, { basic: false });
}

/** The `before` filter: `authenticate!` (401), the project (404), the feature flag (404). */
function gemProject(c: Ctx): { actor: Actor; project: ProjectRecord } {
  const actor = gemActor(c);
  if (!actor) throw unauthorized();
  const project = projectForActor(c, actor, c.req.param('id') ?? '');
  if (!featureEnabled(state(c), 'rubygem_packages', `Project:${project.id}`)) throw notFound();
  return { actor, project };
}

/** `CreateTemporaryPackageService`'s version: `0.0.0-<uuid>`, here derived from the package's id. */
const temporaryVersion = (seed: string) => {
  const h = createHash('sha256').update(seed).digest('hex');
  return `0.0.0-${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export function rubygemsRoutes(r: ApiRouter): void {
  // `ProcessGemService`, as the extraction worker runs it just after the upload's transaction.
  r.job(GEM_EXTRACTION_JOB, (d, job) => {
    const fileId = job.payload.file_id as number;
    const file = tget(d.packages.files, fileId);
    const temp = file && tget(d.packages.records, file.package_id);
    if (!file || !temp || temp.status !== 'processing') return;
    let spec;
    try {
      spec = readGem(Buffer.from(file.data, 'base64'));
      if (!validPackageName(spec.name) || spec.name.length > 255 || spec.version.length > 255)
        throw new GemError('the gem name or version is invalid');
    } catch (e) {
      // The worker's rescue: the package goes, with its file.
      if (e instanceof GemError) return deletePackage(d, temp.id);
      throw e;
    }
    const at = new Date(job.due_ms).toISOString();
    const existing = findPackageByName(d, temp.project_id, 'rubygems', spec.name, spec.version);
    let target = temp.id;
    if (existing && existing.id !== temp.id) {
      target = existing.id;
      movePackageFile(d, fileId, existing.id);
      deletePackage(d, temp.id);
    } else {
      renamePackage(d, temp.id, spec.name, spec.version);
      tget(d.packages.records, temp.id)!.status = 'default';
    }
    const pkg = tget(d.packages.records, target)!;
    pkg.updated_at = at;
    tget(d.packages.files, fileId)!.file_name = `${spec.name}-${spec.version}.gem`;
    setPackageMeta(d, target, { kind: 'rubygems', platform: spec.platform, dependencies: spec.dependencies });
  });

  // The index files and gemspecs: unimplemented in 13.12 (`not_found!` after the filters).
  r.get(`${BASE}/${FILE}`, AUTH, (c) => {
    gemProject(c);
    throw notFound();
  });
  r.get(`${BASE}/quick/Marshal.4.8/${FILE}`, AUTH, (c) => {
    gemProject(c);
    throw notFound();
  });

  r.get(`${BASE}/gems/${FILE}`, AUTH, (c) => {
    const { actor, project } = gemProject(c);
    authorizePackage(c, actor, project, 'read_package');
    const st = state(c);
    const name = pathParam(c, 'file_name');
    // `for_rubygem_with_file_name(...).last!`: the newest such file of the project's gems.
    const file = projectPackages(st, project.id)
      .filter((p) => p.package_type === 'rubygems')
      .flatMap((p) => packageFiles(st, p.id).filter((f) => f.file_name === name))
      .reduce<ReturnType<typeof packageFiles>[number] | undefined>(
        (a, b) => (a === undefined || b.id > a.id ? b : a),
        undefined,
      );
    if (!file) throw recordNotFound('no gem file of this name');
    return c.body(new Uint8Array(Buffer.from(file.data, 'base64')), 200, {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${file.file_name.replace(/"/g, '\\"')}"; filename*=UTF-8''${encodeURIComponent(file.file_name)}`,
      'Content-Transfer-Encoding': 'binary',
    });
  });

  r.post(`${BASE}/api/v1/gems`, { ...AUTH, rawBody: true }, async (c) => {
    const { actor, project } = gemProject(c);
    // `authorize_upload!`: create_package.
    authorizePackage(c, actor, project, 'create_package');
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.byteLength > RUBYGEMS_MAX_FILE_SIZE || packageBytesTooLarge(c, bytes.byteLength))
      throw badRequest('File is too large');
    const fx = c.get('fx');
    const now = fx.clock.iso();
    const job = actor.kind === 'user' ? actor.job : null;
    write(c, (d) => {
      const seq = (d.seq.packages ?? 0) + 1;
      const pkg = createPackage(d, {
        project_id: project.id,
        name: TEMPORARY_NAME,
        version: temporaryVersion(`${project.id}/${seq}`),
        package_type: 'rubygems',
        status: 'processing',
        creator_id: actor.kind === 'user' ? actor.user.id : null,
        created_at: now,
      });
      const draft = tget(d.packages.records, pkg.id)!;
      const fileId = addPackageFile(d, draft, {
        file_name: PACKAGE_FILENAME,
        bytes,
        pipeline_id: job ? job.pipeline.id : null,
        created_at: now,
      });
      scheduleJob(d, GEM_EXTRACTION_JOB, fx.clock.ms(), { file_id: fileId });
    });
    return c.json({ message: '201 Created' }, 201);
  });

  r.get(`${BASE}/api/v1/dependencies`, AUTH, (c) => {
    const { actor, project } = gemProject(c);
    authorizePackage(c, actor, project, 'read_package');
    const raw = c.get('params').gems;
    // `CommaSeparatedToArray`: names split at commas, blanks dropped.
    const gems = (typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw.map(String) : [])
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .slice(0, 200);
    // `status :ok`'s value is the body: `200` as JSON, which is how the client tells the API is there.
    if (!gems.length) return c.body('200', 200, { 'Content-Type': 'application/json' });
    const st = state(c);
    const results: Marshalable[] = [];
    for (const gem of gems) {
      // `DependencyResolverService`: every version of the gem in the project, else `<name> not found`.
      const versions = projectPackages(st, project.id).filter(
        (p) => p.package_type === 'rubygems' && p.name === gem && p.status !== 'processing',
      );
      if (!versions.length) return c.json({ message: `${gem} not found` }, 404);
      for (const p of versions) {
        const meta = packageMeta(st, p.id);
        const gemMeta = meta?.kind === 'rubygems' ? meta : undefined;
        results.push({
          pairs: [
            ['name', gem],
            ['number', p.version],
            ['platform', gemMeta?.platform ?? null],
            ['dependencies', (gemMeta?.dependencies ?? []).map(([n, v]) => [n, v])],
          ],
        });
      }
    }
    return c.body(new Uint8Array(marshalDump(results)), 200, { 'Content-Type': 'application/octet-stream' });
  });
}
