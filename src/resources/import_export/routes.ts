/**
 * Project export and import (`lib/api/project_export.rb`, `lib/api/project_import.rb`). Both are
 * asynchronous on the platform; here the requests check what they must, record the request and queue
 * the first step, and background jobs on the instance clock do the work (`jobs.ts`).
 */
import { createHash } from 'node:crypto';
import { ACCESS, VISIBILITY_LEVEL, canReadGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, grapeError, notFound, validationError } from '../../core/errors.js';
import { fileBytes } from '../../core/files.js';
import { scheduleJob } from '../../core/jobs.js';
import { p, parseParams, type RawParams, type Shape } from '../../core/params.js';
import { requestBase } from '../../core/pagination.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState, UserRecord, Visibility } from '../../core/state.js';
import { iget, tget, tset, tvalues, type Table } from '../../core/table.js';
import { isoTime } from '../projects/entities.js';
import { highestGroupLevel } from '../projects/access.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import { createProject, setMember, type Project } from '../projects/model.js';
import {
  canCreateIn,
  defaultVisibility,
  paidProjectAttributes,
  projectAttributes,
  projectErrors,
  type NamespaceRef,
} from '../projects/validation.js';
import { setting, visibilityRestricted } from '../settings/model.js';
import { addressableProblem, outboundPolicy, WEB_HOOKS } from '../settings/outbound.js';
import { resumeImport } from './jobs.js';
import { MAX_DECOMPRESSED_BYTES, projectArchiveFile, unpackUpload } from './unpack.js';
import {
  exportStatus,
  fileStore,
  JOB,
  type ExportRecord,
  type ImportRecord,
  type StoredFile,
} from './store.js';
import { exportUploads, packed } from './uploads.js';

const q = JSON.stringify;

function baseUrl(c: Ctx): string {
  return c.get('fx').baseUrl ?? new URL(c.req.url).origin;
}

/** `name_with_namespace`: the namespace's human names, then the project's. */
function nameWithNamespace(st: PlatformState, pr: Project): string {
  if (pr.namespace_kind === 'user') {
    const u = pr.owner_id === null ? undefined : tget(st.users, pr.owner_id);
    return `${u?.name ?? ''} / ${pr.name}`;
  }
  const names: string[] = [];
  for (
    let g = tget(st.groups, pr.namespace_id);
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  )
    names.unshift(g.name);
  return `${names.join(' / ')} / ${pr.name}`;
}

/** `ProjectIdentity`, as the opening of a JSON object (no closing brace). */
const identity = (st: PlatformState, pr: Project) =>
  `{"id":${pr.id},"description":${q(pr.description)},"name":${q(pr.name)},"name_with_namespace":${q(nameWithNamespace(st, pr))},"path":${q(pr.path)},"path_with_namespace":${q(pr.path_with_namespace)},"created_at":${q(isoTime(pr.created_at))}`;

/** `ProjectExportStatus`. */
function exportStatusJson(c: Ctx, pr: Project): string {
  const st = state(c);
  const status = exportStatus(tget(st.importExport.exports, pr.id));
  let out = `${identity(st, pr)},"export_status":${q(status)}`;
  if (status === 'finished') {
    const base = baseUrl(c);
    out += `,"_links":{"api_url":${q(`${base}/api/v4/projects/${pr.id}/export/download`)},"web_url":${q(`${base}/${pr.path_with_namespace}/download_export`)}}`;
  }
  return out + '}';
}

/** `ProjectImportStatus`: the project's own import_status; the failures and error of its import. */
function importStatusJson(c: Ctx, pr: Project): string {
  const st = state(c);
  const imp = tget(st.importExport.imports, pr.id);
  let out = `${identity(st, pr)},"import_status":${q(pr.import_status)},"correlation_id":${q(imp?.correlation_id ?? null)},"failed_relations":${q(imp?.failed_relations ?? [])}`;
  if (pr.import_error !== null) out += `,"import_error":${q(pr.import_error)}`;
  return out + '}';
}

const json = (c: Ctx, body: string, status: 200 | 201 | 202 = 200) =>
  c.body(body, status, { 'Content-Type': 'application/json' });

/**
 * The export API's `before` block (run before its params are validated): exports switched off are not
 * found, then `authorize_admin_project` after `user_project`.
 */
function adminProject(c: Ctx): Project {
  if (!setting(state(c), 'project_export_enabled')) throw notFound();
  const pr = loadProject(c);
  if (!canAdminProject(c, pr)) throw forbidden();
  return pr;
}

/** The import API's `before` block: the GitLab export importer must be an enabled import source. */
export function importEnabled(c: Ctx): void {
  const sources = setting(state(c), 'import_sources');
  if (!Array.isArray(sources) || !sources.includes('gitlab_project')) throw forbidden();
}

const exportParams = { description: p.str(), upload: p.hash() };
const importParams = {
  path: p.str().required(),
  file: p.file().required(),
  name: p.str(),
  namespace: p.str(),
  overwrite: p.bool().default(false),
  override_params: p.hash(),
};

/** `ActionDispatch::Http::ContentDisposition` (as `Gitlab::ContentDisposition` formats it). */
const contentDisposition = (name: string) =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

export function importExportRoutes(r: ApiRouter): void {
  r.get('/projects/:id/export', { auth: 'required' }, (c) => json(c, exportStatusJson(c, adminProject(c))));

  r.post('/projects/:id/export', async (c) => {
    let pr = adminProject(c);
    const prm = parse(c, exportParams);
    const upload = prm.upload as Record<string, unknown> | undefined;
    let target: ExportRecord['upload'] = null;
    // Grape checks an optional group's `requires` only when the group holds something: `upload: {}`
    // (go-gitlab always sends it) is no upload at all.
    if (upload !== undefined && Object.keys(upload).length > 0) {
      const url = upload.url;
      if (typeof url !== 'string' || url === '') throw grapeError(400, 'upload[url] is missing');
      const method = upload.http_method ?? 'PUT';
      if (method !== 'PUT' && method !== 'POST')
        throw grapeError(400, 'upload[http_method] does not have a valid value');
      // `WebUploadStrategy`: `validates :url, addressable_url: true` (local addresses allowed here;
      // `Gitlab::HTTP` refuses them when the upload is made, unless the settings allow them).
      const problem = await addressableProblem(c.get('fx'), url);
      if (problem) throw validationError({ url: [problem] });
      pr = adminProject(c);
      target = { url, method };
    }
    const user = requireUser(c);
    const fx = c.get('fx');
    const now = fx.clock.ms();
    const { generation, removed, abandoned, due } = write(c, (d) => {
      const old = tget(d.importExport.exports, pr.id);
      const rec: ExportRecord = {
        project_id: pr.id,
        user_id: user.id,
        step: 'queued',
        generation: (old?.generation ?? 0) + 1,
        description: prm.description ?? null,
        // `remove_exports`: the previous file goes at once; the status still tells a regeneration.
        file: null,
        regenerating: !!old?.file,
        pending: null,
        upload: target,
      };
      tset(d.importExport.exports, pr.id, rec);
      const delays = d.importExport.delays;
      scheduleJob(d, JOB.exportStart, now + delays.export_queued_ms, {
        project_id: pr.id,
        generation: rec.generation,
      });
      return {
        generation: rec.generation,
        removed: old?.file?.file_id ?? null,
        abandoned: old?.pending?.file_id ?? null,
        due: now + delays.export_queued_ms + delays.export_started_ms,
      };
    });
    // The previous file, and that of an export that had started and is now superseded, go.
    fileStore(fx.clock).delete(removed);
    fileStore(fx.clock).delete(abandoned);
    if (target)
      exportUploads(fx.clock).register(
        { project_id: pr.id, project: pr.path_with_namespace, url: target.url, method: target.method },
        generation,
        due,
        outboundPolicy(fx, WEB_HOOKS, requestBase(c)),
      );
    return json(c, q({ message: '202 Accepted' }), 202);
  });

  r.get('/projects/:id/export/download', { auth: 'required' }, async (c) => {
    const pr = adminProject(c);
    const e = tget(state(c).importExport.exports, pr.id);
    const status = exportStatus(e);
    const ref = status === 'finished' ? e!.file : null;
    if (e && !ref && status !== 'none') throw apiError(404, 'The project export file is not available yet');
    const file = fileStore(c.get('fx').clock).get(ref?.file_id) as StoredFile | undefined;
    if (!ref || file?.kind !== 'export') throw apiError(404, '404 Not found or has expired');
    const bytes = await packed(file);
    return c.body(new Uint8Array(bytes), 200, {
      'Content-Type': 'application/gzip',
      'Content-Disposition': contentDisposition(ref.filename),
      'Content-Transfer-Encoding': 'binary',
    });
  });

  r.get('/projects/:id/import', (c) => {
    importEnabled(c);
    return json(c, importStatusJson(c, loadProject(c)));
  });

  r.post('/projects/import', async (c) => {
    importEnabled(c);
    const prm = parse(c, importParams);
    const user = requireUser(c);
    const st = state(c);
    const overrides = overrideFields((prm.override_params ?? {}) as RawParams, c.get('fx').tier() !== 'free');
    const file = prm.file;
    if (!/\.(tar\.)?gz$/i.test(file.name)) throw apiError(400, 'The file is invalid');
    if (file.size > setting(st, 'max_import_size') * 1024 * 1024)
      throw apiError(413, '413 Request Entity Too Large');
    const ns =
      prm.namespace !== undefined ? findNamespace(c, prm.namespace) : ({ kind: 'user', user } as const);
    if (!canCreateIn(st, user, ns)) throw apiError(400, 'Namespace is not valid');
    const fx = c.get('fx');
    const nowMs = fx.clock.ms();
    const correlation = createHash('sha256')
      .update(`${nowMs}:${user.id}:${prm.path}:${file.size}:${st.seq.projects ?? 0}`)
      .digest('hex')
      .slice(0, 32);
    // `overwrite`: the import goes to a path of its own, and replaces the project at the asked path
    // only when it finishes (`GitlabProjectsImportService#prepare_import_params`).
    const taken = iget(st.idx.projects, `${nsPath(ns)}/${prm.path}`.toLowerCase()) !== undefined;
    const overwrite = prm.overwrite && taken;
    const path = overwrite ? `${prm.path}-${createHash('md5').update(correlation).digest('hex')}` : prm.path;
    const name = prm.name ?? path;
    const visibility = allowedVisibility(st, ns, defaultVisibility(st));
    const errors = Object.entries(projectErrors(st, ns, name, path, visibility));
    if (errors.length > 0) throw apiError(400, `${humanize(errors[0]![0])} ${errors[0]![1][0]}`);

    // The archive is unpacked off the request path, as the platform's import worker does it; the job
    // that finishes the import reads what it holds (and waits for it, if it comes first).
    const upload = unpackUpload(fx.clock, fileBytes(file) ?? new Uint8Array(await file.arrayBuffer()), {
      maxBytes: MAX_DECOMPRESSED_BYTES,
      wanted: projectArchiveFile,
    });
    const files = fileStore(fx.clock);
    const fileId = upload.fileId;
    const now = fx.clock.iso();
    let pid: number;
    try {
      pid = write(c, (d) => {
        const id = createProject(
          d,
          {
            path,
            name,
            namespace:
              ns.kind === 'group' ? { kind: 'group', id: ns.group.id } : { kind: 'user', userId: ns.user.id },
            creator_id: user.id,
            visibility,
            default_branch: null,
            import_status: 'scheduled',
          },
          now,
        );
        // As for any new project: the creator of a group project is its maintainer, unless an owner.
        const shell = tget(d.projects, id) as Project;
        if (ns.kind === 'group' && highestGroupLevel(d, shell, user.id) < ACCESS.OWNER)
          setMember(d, 'project', id, user.id, ACCESS.MAINTAINER, now);
        const rec: ImportRecord = {
          project_id: id,
          user_id: user.id,
          status: 'scheduled',
          error: null,
          correlation_id: correlation,
          failed_relations: [],
          file_id: fileId,
          overrides,
          original_path: overwrite ? prm.path : null,
        };
        tset(d.importExport.imports, id, rec);
        scheduleJob(d, JOB.importStart, nowMs + d.importExport.delays.import_scheduled_ms, {
          project_id: id,
        });
        return id;
      });
    } catch (e) {
      files.delete(fileId);
      throw e;
    }
    upload.start(() => resumeImport(fx, pid));
    return json(c, importStatusJson(c, tget(state(c).projects, pid) as Project), 201);
  });
}

const humanize = (k: string) => (k.charAt(0).toUpperCase() + k.slice(1)).replace(/_/g, ' ');

const nsPath = (ns: NamespaceRef) => (ns.kind === 'group' ? ns.group.full_path : ns.user.username);

/** The default visibility, lowered to what the group and the instance allow (`drop_visibility_level!`). */
function allowedVisibility(st: PlatformState, ns: NamespaceRef, wanted: Visibility): Visibility {
  let v = wanted;
  if (ns.kind === 'group' && VISIBILITY_LEVEL[v] > VISIBILITY_LEVEL[ns.group.visibility])
    v = ns.group.visibility;
  return visibilityRestricted(st, v) ? 'private' : v;
}

const prefixed = (shape: Shape): Shape =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [`override_params[${k}]`, v]));
const OVERRIDES = prefixed(projectAttributes);
const PAID_OVERRIDES = prefixed(paidProjectAttributes);
const FEATURE_FLAGS: Record<string, string> = {
  issues_enabled: 'issues_access_level',
  merge_requests_enabled: 'merge_requests_access_level',
  wiki_enabled: 'wiki_access_level',
  jobs_enabled: 'builds_access_level',
  snippets_enabled: 'snippets_access_level',
};

/**
 * `override_params` (declared with the project params, so checked as they are, with their nested
 * names in messages) as project fields. Blank strings are dropped, as `present_project_override_params`
 * does; the fields the platform never imports are dropped when the import runs.
 */
function overrideFields(raw: RawParams, paid: boolean): Record<string, unknown> {
  const named: RawParams = {};
  for (const [k, v] of Object.entries(raw)) named[`override_params[${k}]`] = v;
  const parsed: Record<string, unknown> = { ...parseParams(OVERRIDES, named) };
  if (paid) Object.assign(parsed, parseParams(PAID_OVERRIDES, named));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(parsed)) {
    if (v === undefined || v === '') continue;
    const k = key.slice('override_params['.length, -1);
    if (k in FEATURE_FLAGS) out[FEATURE_FLAGS[k]!] = v ? 'enabled' : 'disabled';
    else if (k === 'public_builds') out.public_jobs = v;
    else if (k === 'container_expiration_policy_attributes') out.container_expiration_policy = v;
    else if (k !== 'avatar' && k !== 'initialize_with_readme') out[k] = v;
  }
  return out;
}

const namespaceUsers = new WeakMap<Table<UserRecord>, Map<number, number>>();

/** `find_namespace!`: a group or user namespace by id or full path, readable by the caller. */
export function findNamespace(c: Ctx, idOrPath: string): NamespaceRef {
  const st = state(c);
  const viewer = c.get('viewer').user;
  let ns: NamespaceRef | undefined;
  if (/^\d+$/.test(idOrPath)) {
    const g = tget(st.groups, Number(idOrPath)) as GroupRecord | undefined;
    if (g) ns = { kind: 'group', group: g };
    else {
      let byNs = namespaceUsers.get(st.users);
      if (!byNs)
        namespaceUsers.set(st.users, (byNs = new Map(tvalues(st.users).map((u) => [u.namespace_id, u.id]))));
      const uid = byNs.get(Number(idOrPath));
      const u = uid === undefined ? undefined : tget(st.users, uid);
      if (u) ns = { kind: 'user', user: u };
    }
  } else {
    const id = iget(st.idx.namespaces, idOrPath.toLowerCase());
    if (id !== undefined && id < 0) {
      const u = tget(st.users, -id);
      if (u) ns = { kind: 'user', user: u };
    } else if (id !== undefined) {
      const g = tget(st.groups, id);
      if (g) ns = { kind: 'group', group: g };
    }
  }
  const readable =
    ns &&
    (ns.kind === 'user' ? viewer?.admin || ns.user.id === viewer?.id : canReadGroup(st, viewer, ns.group));
  if (!ns || !readable) throw notFound('Namespace');
  return ns;
}
