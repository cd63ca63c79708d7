/**
 * Project export and import (`lib/api/project_export.rb`, `lib/api/project_import.rb`). Both are
 * asynchronous on the platform; here each step happens on the instance clock after the delays in
 * `state.importExport.delays`, and the statuses are computed when read.
 *
 * The export's archive is built when it is requested (a snapshot of the project then), and becomes
 * downloadable when the export finishes. The import writes the project and its relations in its one
 * request (after checking the archive completely), and reports `scheduled`, `started` and `finished`
 * (or `failed`) as the clock moves: what the import created is readable before it reports finished.
 */
import { createHash } from 'node:crypto';
import { canReadGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, grapeError, notFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState, UserRecord, Visibility } from '../../core/state.js';
import { iget, tget, tset, tvalues } from '../../core/table.js';
import { VISIBILITY_LEVEL } from '../../core/access.js';
import { isoTime } from '../projects/entities.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import { createProject, type Project } from '../projects/model.js';
import { canCreateIn, projectErrors, type NamespaceRef } from '../projects/validation.js';
import { deleteProject } from '../projects/model.js';
import { setting } from '../settings/model.js';
import { buildArchive, collect, readArchive, ArchiveError, type ArchiveContent } from './archive.js';
import { importRelations, MAX_FAILED_RELATIONS } from './import.js';
import { archiveStore, exportStatus, importStatus, type ExportRecord, type ImportRecord } from './store.js';
import { exportUploads } from './uploads.js';

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

function exportStatusJson(c: Ctx, pr: Project): string {
  const st = state(c);
  const e = tget(st.importExport.exports, pr.id);
  const status = exportStatus(e, c.get('fx').clock.ms());
  let out = `${identity(st, pr)},"export_status":${q(status)}`;
  if (status === 'finished') {
    const base = baseUrl(c);
    out += `,"_links":{"api_url":${q(`${base}/api/v4/projects/${pr.id}/export/download`)},"web_url":${q(`${base}/${pr.path_with_namespace}/download_export`)}}`;
  }
  return out + '}';
}

function importStatusJson(c: Ctx, pr: Project, imp: ImportRecord | undefined): string {
  const st = state(c);
  const status = importStatus(imp, c.get('fx').clock.ms());
  // The failures are recorded when the import runs: a client sees them once it has.
  const ran = status === 'finished' || status === 'failed';
  const failed = ran && imp ? imp.failed_relations : [];
  let out = `${identity(st, pr)},"import_status":${q(status)},"correlation_id":${q(imp?.correlation_id ?? null)},"failed_relations":${q(failed)}`;
  if (status === 'failed') out += `,"import_error":${q(imp?.error ?? null)}`;
  return out + '}';
}

const json = (c: Ctx, body: string, status: 200 | 201 | 202 = 200) =>
  c.body(body, status, { 'Content-Type': 'application/json' });

/** `authorize_admin_project`, after `user_project`. */
function adminProject(c: Ctx): Project {
  const pr = loadProject(c);
  if (!canAdminProject(c, pr)) throw forbidden();
  return pr;
}

/** `20210104100000123` style timestamp of the platform's export file names. */
const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 17);

export function importExportRoutes(r: ApiRouter): void {
  r.get('/projects/:id/export', { auth: 'required' }, (c) => json(c, exportStatusJson(c, adminProject(c))));

  r.post('/projects/:id/export', { params: { description: p.str(), upload: p.hash() } }, async (c, prm) => {
    const upload = prm.upload as Record<string, unknown> | undefined;
    let target: ExportRecord['upload'] = null;
    if (upload !== undefined) {
      const url = upload.url;
      if (typeof url !== 'string' || url === '') throw grapeError(400, 'upload[url] is missing');
      const method = upload.http_method ?? 'PUT';
      if (method !== 'PUT' && method !== 'POST')
        throw grapeError(400, 'upload[http_method] does not have a valid value');
      target = { url, method };
    }
    const pr = adminProject(c);
    const fx = c.get('fx');
    const now = fx.clock.ms();
    const st = state(c);
    const bytes = await buildArchive(collect(st, pr, prm.description));
    const store = archiveStore(fx.clock);
    const old = tget(st.importExport.exports, pr.id);
    const oldFile =
      old && exportStatus(old, now) === 'finished' && store.get(old.archive_id)
        ? { id: old.archive_id, name: old.filename }
        : old?.previous_archive_id !== null && old && store.get(old.previous_archive_id)
          ? { id: old.previous_archive_id, name: old.previous_filename! }
          : null;
    const archiveId = store.add(bytes);
    const d = st.importExport.delays;
    const rec: ExportRecord = {
      project_id: pr.id,
      user_id: requireUser(c).id,
      requested_ms: now,
      started_ms: now + d.export_queued_ms,
      finished_ms: now + d.export_queued_ms + d.export_started_ms,
      archive_id: archiveId,
      previous_archive_id: oldFile?.id ?? null,
      filename: `${stamp(now)}_${pr.path_with_namespace.replace(/\//g, '_')}_export.tar.gz`,
      previous_filename: oldFile?.name ?? null,
      upload: target,
    };
    write(c, (draft) => tset(draft.importExport.exports, pr.id, rec));
    // An abandoned export's archive (never finished) is not downloadable any more.
    if (old && old.archive_id !== oldFile?.id) store.delete(old.archive_id);
    if (target)
      exportUploads(fx.clock).schedule(
        { project_id: pr.id, project: pr.path_with_namespace, url: target.url, method: target.method },
        rec.finished_ms,
        archiveId,
      );
    return json(c, q({ message: '202 Accepted' }), 202);
  });

  r.get('/projects/:id/export/download', { auth: 'required' }, (c) => {
    const pr = adminProject(c);
    const fx = c.get('fx');
    const e = tget(state(c).importExport.exports, pr.id);
    const store = archiveStore(fx.clock);
    const status = exportStatus(e, fx.clock.ms());
    const file =
      e && status === 'finished'
        ? { bytes: store.get(e.archive_id), name: e.filename }
        : e && status === 'regeneration_in_progress'
          ? { bytes: store.get(e.previous_archive_id), name: e.previous_filename ?? '' }
          : undefined;
    if (e && !file) throw apiError(404, 'The project export file is not available yet');
    if (!file?.bytes) throw apiError(404, '404 Not found or has expired');
    return c.body(new Uint8Array(file.bytes), 200, {
      'Content-Type': 'application/gzip',
      'Content-Disposition': `attachment; filename="${file.name}"`,
      'Content-Transfer-Encoding': 'binary',
    });
  });

  r.get('/projects/:id/import', (c) => {
    const pr = loadProject(c);
    return json(c, importStatusJson(c, pr, tget(state(c).importExport.imports, pr.id)));
  });

  r.post(
    '/projects/import',
    {
      params: {
        path: p.str().required(),
        file: p.file().required(),
        name: p.str(),
        namespace: p.str(),
        overwrite: p.bool().default(false),
        override_params: p.hash(),
      },
    },
    async (c, prm) => {
      const user = requireUser(c);
      const st = state(c);
      const file = prm.file;
      if (!file.name.toLowerCase().endsWith('.gz')) throw apiError(400, 'The file is invalid');
      if (file.size > setting(st, 'max_import_size') * 1024 * 1024)
        throw apiError(413, '413 Request Entity Too Large');
      const ns =
        prm.namespace !== undefined ? findNamespace(c, prm.namespace) : ({ kind: 'user', user } as const);
      if (!canCreateIn(st, user, ns)) throw apiError(400, 'Namespace is not valid');
      const path = prm.path;
      const name = prm.name ?? path;
      let content: ArchiveContent | undefined;
      let error: string | null = null;
      try {
        content = await readArchive(Buffer.from(await file.arrayBuffer()));
      } catch (e) {
        if (!(e instanceof ArchiveError)) throw e;
        error = e.message;
      }
      const existing = iget(st.idx.projects, `${nsPath(ns)}/${path}`.toLowerCase());
      const overwrite = prm.overwrite && existing !== undefined;
      const archived = content?.project ?? {};
      const overrides = (prm.override_params ?? {}) as Record<string, unknown>;
      const attrs: Record<string, unknown> = { ...archived, ...overrides };
      delete attrs.name;
      delete attrs.path;
      const visibility = clampVisibility(ns, attrs.visibility);
      if (!overwrite) {
        const errors = projectErrors(st, ns, name, path, visibility);
        const first = Object.entries(errors)[0];
        if (first) throw apiError(400, `${humanize(first[0])} ${first[1][0]}`);
      }
      const fx = c.get('fx');
      const nowMs = fx.clock.ms();
      const now = fx.clock.iso();
      const d = st.importExport.delays;
      const correlation = createHash('sha256')
        .update(`${nowMs}:${user.id}:${path}:${file.size}`)
        .digest('hex')
        .slice(0, 26);
      const pid = write(c, (draft) => {
        if (overwrite) deleteProject(draft, existing!);
        const id = createProject(
          draft,
          {
            ...attrs,
            path,
            name,
            namespace:
              ns.kind === 'group' ? { kind: 'group', id: ns.group.id } : { kind: 'user', userId: ns.user.id },
            creator_id: user.id,
            description: typeof attrs.description === 'string' ? attrs.description : '',
            visibility,
            archived: attrs.archived === true,
            default_branch: typeof attrs.default_branch === 'string' ? attrs.default_branch : 'master',
            import_status: 'scheduled',
          },
          now,
        );
        const failed = content ? importRelations(draft, id, user.id, content, now).failed : [];
        const rec: ImportRecord = {
          project_id: id,
          requested_ms: nowMs,
          started_ms: nowMs + d.import_scheduled_ms,
          finished_ms: nowMs + d.import_scheduled_ms + d.import_started_ms,
          error,
          correlation_id: correlation,
          failed_relations: failed.slice(0, MAX_FAILED_RELATIONS).map((f, i) => ({
            id: i + 1 + (draft.seq.import_failures ?? 0),
            created_at: now,
            ...f,
          })),
        };
        draft.seq.import_failures = (draft.seq.import_failures ?? 0) + rec.failed_relations.length;
        tset(draft.importExport.imports, id, rec);
        return id;
      });
      const st2 = state(c);
      return json(
        c,
        importStatusJson(c, tget(st2.projects, pid) as Project, tget(st2.importExport.imports, pid)),
        201,
      );
    },
  );
}

const humanize = (k: string) => (k.charAt(0).toUpperCase() + k.slice(1)).replace(/_/g, ' ');

const nsPath = (ns: NamespaceRef) => (ns.kind === 'group' ? ns.group.full_path : ns.user.username);

/** A group's visibility caps its projects': an archive's more open level is lowered. */
function clampVisibility(ns: NamespaceRef, v: unknown): Visibility {
  const wanted: Visibility = v === 'public' || v === 'internal' ? v : 'private';
  if (ns.kind === 'user') return wanted;
  return VISIBILITY_LEVEL[wanted] > VISIBILITY_LEVEL[ns.group.visibility] ? ns.group.visibility : wanted;
}

/** `find_namespace!`: a group or user namespace by id or full path, readable by the caller. */
function findNamespace(c: Ctx, idOrPath: string): NamespaceRef {
  const st = state(c);
  const viewer = c.get('viewer').user;
  let ns: NamespaceRef | undefined;
  if (/^\d+$/.test(idOrPath)) {
    const g = tget(st.groups, Number(idOrPath)) as GroupRecord | undefined;
    if (g) ns = { kind: 'group', group: g };
    else {
      const u = tvalues(st.users).find((x) => x.namespace_id === Number(idOrPath)) as UserRecord | undefined;
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
