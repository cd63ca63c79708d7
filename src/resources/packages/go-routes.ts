/**
 * The Go proxy of 13.12 (`lib/api/go_proxy.rb`, `go help goproxy`): a project's repository served as Go
 * modules, read from its tags, not from package records. `Packages::Go::ModuleFinder` places the module
 * in the project (`<host>/<project path>[/<dir>]`), `VersionFinder` lists the tags that are prefixed
 * semver versions and whose `go.mod` names the module (`ModuleVersion#valid?`), a version can also be a
 * branch of that name or a pseudo-version of a commit, and the zip is the module's directory under
 * `<module>@<version>/` without nested modules. Behind the feature flag `go_proxy` (off by default), on
 * the project as actor.
 */
import { lookupProject, canReadProject } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { badRequest, grapeError, noRoute, notFound, unauthorized } from '../../core/errors.js';
import { featureEnabled } from '../../core/features.js';
import { requestBase } from '../../core/pagination.js';
import { pathParam, type ApiRouter } from '../../core/router.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { gitTime } from '../repository/entities.js';
import { TREE_MODE, type ObjectStore } from '../repository/objects.js';
import { names, peel, refTarget, resolveCommit } from '../repository/refs.js';
import { objectsOf } from '../repository/store.js';
import { entryAt, listTree } from '../repository/tree.js';
import { ZipWriter } from '../repository/zip.js';
import { authorizePackage, packageActor, type Actor } from './access.js';
import { parseSemver, type SemVer } from './semver.js';

/** `job_token_allowed`, `basic_auth_personal_access_token`: no deploy tokens. */
const AUTH = { auth: 'optional', jobToken: true } as const;

/**
 * `MODULE_VERSION_REGEX`: semver with a `v`, case-encoded (no capitals). The route's requirement: a path
 * whose version segment does not match is no route (the catch-all 404), checked before anything else.
 */
const MODULE_VERSION = new RegExp(
  '^v(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)(?:-[-.!a-z0-9]+)?(?:\\+[-.!a-z0-9]+)?$',
);
const BASE = '/projects/:id/packages/go/:module_name{.+}/@v';

/** Bytes of files one module zip packs (Go's own `MaxZipFile` is 500 MiB; the repository archive's bound). */
const MAX_ZIP_BYTES = 256 * 1024 * 1024;

/** `case_decode`: `!a` back to `A` (`go help goproxy`'s case encoding). */
const caseDecode = (s: string) => s.replace(/![a-zA-Z]/g, (m) => m[1]!.toUpperCase());

/** Ruby's `CGI.unescape`, the module name's `coerce_with`: `+` is a space, valid escapes decoded. */
function cgiUnescape(s: string): string {
  const bytes: number[] = [];
  const src = Buffer.from(s.replace(/\+/g, ' '), 'utf8');
  for (let i = 0; i < src.length; i++) {
    const hex = src[i] === 0x25 ? src.subarray(i + 1, i + 3).toString('latin1') : '';
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(src[i]!);
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Ruby's `Pathname#cleanpath`: `.`, empty segments and `..` resolved lexically. */
function cleanpath(path: string): string {
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
    } else out.push(part);
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

/**
 * `Settings.build_gitlab_go_url`: the instance's host without its port ("Go package paths are not URLs,
 * and do not include port numbers"), then `/`.
 */
const localModulePrefix = (c: Ctx) => `${new URL(requestBase(c)).hostname}/`;

interface GoModule {
  project: ProjectRecord;
  name: string;
  /** The module's directory in the repository, `''` for the root. */
  path: string;
}

interface GoVersion {
  mod: GoModule;
  name: string;
  commit: string;
  semver: SemVer | undefined;
}

/** `find_project!` of the Go proxy: unreadable is 401 to an anonymous client, `404 Project Not Found` else. */
function goProject(c: Ctx, actor: Actor | null): ProjectRecord {
  const p = lookupProject(state(c), c.req.param('id') ?? '');
  if (p && canReadProject(state(c), actor?.kind === 'user' ? actor.user : null, p)) return p;
  if (!actor) throw unauthorized();
  throw notFound('Project');
}

/** The `before` filters, then `find_module`. */
function findModule(c: Ctx): GoModule {
  const actor = packageActor(c, { basic: 'personal', deploy: false });
  const project = goProject(c, actor);
  // `authorize_read_package!`, `authorize_packages_feature!` (both 403; packages off is no read_package).
  authorizePackage(c, actor, project, 'read_package');
  if (!featureEnabled(state(c), 'go_proxy', `Project:${project.id}`)) throw notFound();
  const name = caseDecode(cgiUnescape(pathParam(c, 'module_name')));
  if (name.trim() === '') throw badRequest('Module Name attribute missing');
  const cleaned = cleanpath(name);
  const prefix = localModulePrefix(c);
  if (!cleaned.startsWith(prefix)) throw notFound();
  const modulePath = cleaned.slice(prefix.length).split('/');
  const projectPath = project.path_with_namespace.split('/');
  const head = modulePath.splice(0, projectPath.length);
  if (head.length !== projectPath.length || head.some((s, i) => s !== projectPath[i])) throw notFound();
  return { project, name: cleaned, path: modulePath.join('/') };
}

/** The blob at `path` in a commit's tree (a symlink's target text; nothing for a directory or submodule). */
function blobAt(store: ObjectStore, commit: string, path: string): Buffer | undefined {
  const tree = store.commit(commit)?.tree;
  const e = tree === undefined ? undefined : entryAt(store, tree, path);
  return e && e.mode !== TREE_MODE && e.mode !== '160000' ? store.raw(e.id, 'blob') : undefined;
}

/** `ModuleVersion#gomod`: the module directory's `go.mod`, as text. */
const gomod = (st: PlatformState, v: GoVersion): string | undefined =>
  blobAt(objectsOf(st), v.commit, v.mod.path === '' ? 'go.mod' : `${v.mod.path}/go.mod`)?.toString('utf8');

/** `Module#path_valid?`: a major version of 2 or more must end the module name (`/vN`), 0 and 1 must not. */
function pathValid(mod: GoModule, major: number | undefined): boolean {
  const m = /\/v(\d+)$/i.exec(mod.name);
  if (major === 0 || major === 1) return m === null;
  return m !== null && major !== undefined && Number(m[1]) === major;
}

/** `ModuleVersion#valid?`: the path fits the major version and `go.mod` declares the module. */
function valid(st: PlatformState, v: GoVersion): boolean {
  if (!pathValid(v.mod, v.semver?.major)) return false;
  const text = gomod(st, v);
  if (featureEnabled(st, 'go_proxy_disable_gomod_validation', `Project:${v.mod.project.id}`))
    return text?.startsWith('module ') === true;
  return text !== undefined && text.split('\n', 1)[0] === `module ${v.mod.name}`;
}

/** The commit a tag or branch names, annotated tags peeled. */
function refCommitOf(st: PlatformState, p: ProjectRecord, kind: 'tag' | 'branch', name: string) {
  const id = refTarget(st, p, kind, name);
  if (id === undefined) return undefined;
  const commit = peel(objectsOf(st), id);
  return objectsOf(st).commit(commit) ? commit : undefined;
}

/** `VersionFinder#execute`: the semver tags (`semver_tag?`), valid ones, in ref name order as Gitaly lists tags. */
function versions(st: PlatformState, mod: GoModule): GoVersion[] {
  const tags = names(st, mod.project, 'tag').sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const out: GoVersion[] = [];
  for (const name of tags) {
    const semver = parseSemver(name, true);
    const commit = semver && refCommitOf(st, mod.project, 'tag', name);
    if (!commit) continue;
    const v = { mod, name, commit, semver };
    if (valid(st, v)) out.push(v);
  }
  return out;
}

/**
 * `Gitlab::Golang#pseudo_version?`: `vX.0.0-<14 digits>-<hex>`, or after a prior tag's prerelease or
 * patch `...0.<14 digits>-<hex>`.
 */
function pseudoVersion(semver: SemVer | undefined): boolean {
  if (!semver || semver.prerelease === undefined) return false;
  let pre = semver.prerelease;
  if (semver.minor !== 0 || semver.patch !== 0) {
    const m = /^(.*\.)?0\./.exec(pre);
    if (!m) return false;
    pre = pre.slice(m[0].length);
  }
  return /^\d{14}-[0-9a-fA-F]+$/.test(pre);
}

/** A committed date as `strftime('%Y%m%d%H%M%S')` writes it, in the committer's offset. */
const stamp = (seconds: number, offset: number) =>
  new Date((seconds + offset * 60) * 1000).toISOString().replace(/[-T:]/g, '').slice(0, 14);

/**
 * The version of `:module_version.<ext>`: the route's pattern holds the extension too (Hono's params
 * take whole segments), and the requirement is checked here, before the filters, as routing would.
 */
function versionParam(c: Ctx): string {
  const raw = pathParam(c, 'module_version');
  const version = raw.slice(0, raw.lastIndexOf('.'));
  if (!MODULE_VERSION.test(version)) throw noRoute('not a module version (MODULE_VERSION_REGEX)');
  return version;
}

/** `find_version`: a pseudo-version's commit, else a tag or branch of the name; `404` unless valid. */
function findVersion(c: Ctx): GoVersion {
  const version = versionParam(c);
  const mod = findModule(c);
  const st = state(c);
  const name = caseDecode(version);
  const semver = parseSemver(name, true);
  let v: GoVersion | undefined;
  if (pseudoVersion(semver)) {
    // `parse_pseudo_version` and `validate_pseudo_version` (their ArgumentErrors are 404s).
    const [timestamp, commitId] = semver!.prerelease!.split('-').slice(-2) as [string, string];
    const commit = resolveCommit(st, mod.project, commitId);
    const obj = commit === undefined ? undefined : objectsOf(st).commit(commit);
    if (!obj || commitId.length !== 12) throw notFound();
    if (stamp(obj.committer.time, obj.committer.offset ?? 0) !== timestamp.split('.').at(-1))
      throw notFound();
    v = { mod, name, commit: commit!, semver };
  } else {
    // `version_by_name`: `find_tag(name) || find_branch(name)`.
    const commit = refCommitOf(st, mod.project, 'tag', name) ?? refCommitOf(st, mod.project, 'branch', name);
    if (commit) v = { mod, name, commit, semver };
  }
  if (!v || !valid(st, v)) throw notFound();
  return v;
}

/**
 * `ModuleVersion#archive`: the module directory's files (nested modules, the directories holding another
 * `go.mod`, left out), each under `<module>@<version>/`, in git's path order.
 */
async function archive(st: PlatformState, v: GoVersion): Promise<Buffer> {
  const store = objectsOf(st);
  const dir = entryAt(store, store.commit(v.commit)!.tree, v.mod.path);
  const files =
    dir?.mode !== TREE_MODE
      ? []
      : listTree(store, dir.id, v.mod.path, true).filter((e) => e.mode !== TREE_MODE);
  const own = v.mod.path === '' ? '/go.mod' : `${v.mod.path}/go.mod`;
  const excluded = files
    .filter((f) => f.path.endsWith('/go.mod') && f.path !== own)
    .map((f) => f.path.slice(0, -6));
  const cut = v.mod.path === '' ? 0 : v.mod.path.length + 1;
  const commit = store.commit(v.commit)!;
  const zip = new ZipWriter(new Date(commit.committer.time * 1000));
  const parts: Buffer[] = [];
  let bytes = 0;
  for (const f of files) {
    if (f.mode === '160000' || excluded.some((n) => f.path.startsWith(n))) continue;
    const data = store.raw(f.id, 'blob') ?? Buffer.alloc(0);
    bytes += data.length;
    if (bytes > MAX_ZIP_BYTES) throw grapeError(400, 'the module would be too large');
    const path = `${v.mod.name}@${v.name}/${f.path.slice(cut)}`;
    parts.push(...(await zip.entry({ path, dir: false, mode: 0o100644, data })));
  }
  parts.push(...zip.end());
  return Buffer.concat(parts);
}

export function goRoutes(r: ApiRouter): void {
  r.get(`${BASE}/list`, AUTH, (c) => {
    const mod = findModule(c);
    const list = versions(state(c), mod).map((v) => v.name);
    return c.body(list.join('\n'), 200, { 'Content-Type': 'text/plain' });
  });

  r.get(`${BASE}/:module_version{[^/]+\\.info}`, AUTH, (c) => {
    const v = findVersion(c);
    const commit = objectsOf(state(c)).commit(v.commit)!;
    // `Entities::GoModuleVersion` of `ModuleVersionPresenter`: the commit's committed date.
    return c.json({ Version: v.name, Time: gitTime(commit.committer.time, commit.committer.offset) });
  });

  r.get(`${BASE}/:module_version{[^/]+\\.mod}`, AUTH, (c) => {
    const v = findVersion(c);
    return c.body(gomod(state(c), v) ?? '', 200, { 'Content-Type': 'text/plain' });
  });

  r.get(`${BASE}/:module_version{[^/]+\\.zip}`, AUTH, async (c) => {
    const v = findVersion(c);
    const bytes = await archive(state(c), v);
    const file = `${v.name}.zip`;
    return c.body(new Uint8Array(bytes), 200, {
      'Content-Type': 'application/zip',
      'Content-Disposition': `attachment; filename="${file}"; filename*=UTF-8''${encodeURIComponent(file)}`,
      'Content-Transfer-Encoding': 'binary',
    });
  });
}
