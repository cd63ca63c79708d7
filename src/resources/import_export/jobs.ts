/**
 * The export and import machines as background jobs (src/core/jobs.ts), each step a job the previous
 * one queues, dated at its due time:
 *
 * - export: `queued` -> (export_queued_ms) `started`, when the archive's files are written from the
 *   project as it is then -> (export_started_ms) `finished`, when the file replaces the previous one and
 *   any `upload[url]` delivery begins;
 * - import: `scheduled` -> (import_scheduled_ms) `started` -> (import_started_ms) `finished` or
 *   `failed`. Only the finishing job reads the archive and writes what it holds, all in its one write; a
 *   corrupt or foreign archive writes nothing and leaves the project `failed` with `import_error`.
 *
 * A job whose record moved on (a newer export, a deleted project) does nothing.
 */
import type { Draft } from 'immer';
import { ACCESS, groupAccess } from '../../core/access.js';
import { scheduleJob, type JobRecord } from '../../core/jobs.js';
import type { Fx } from '../../core/context.js';
import type { ApiRouter } from '../../core/router.js';
import { nextId, type PlatformState } from '../../core/state.js';
import { indexProjectName, unindexProjectName } from '../../core/project-names.js';
import { idelete, iget, iset, mget, tget } from '../../core/table.js';
import { addShare, addStar, deleteProject, setMember, type Project } from '../projects/model.js';
import { ArchiveError, archiveFiles, collect, parseArchive, type ArchiveContent } from './archive.js';
import { MAX_FAILED_RELATIONS, restoreProject } from './import.js';
import { fileStore, JOB, type ImportRecord } from './store.js';
import { exportUploads } from './uploads.js';

type S = Draft<PlatformState>;

const iso = (ms: number) => new Date(ms).toISOString();

/** `Gitlab::ImportExport.export_filename`: `%Y-%m-%d_%H-%M-%3N` (no seconds), the path, at most 51 characters before the suffix. */
export function exportFilename(ms: number, fullPath: string): string {
  const t = iso(ms);
  const stamp = `${t.slice(0, 10)}_${t.slice(11, 13)}-${t.slice(14, 16)}-${t.slice(20, 23)}`;
  return `${`${stamp}_${fullPath.replace(/\//g, '_')}`.slice(0, 51)}_export.tar.gz`;
}

export function importExportJobs(r: ApiRouter): void {
  r.job(JOB.exportStart, (d, job, fx) => {
    const e = exportOf(d, job, 'queued');
    // The committed state is this write's but for the job queue: read it, not the (slower) draft.
    const project = e && (tget(fx.store.state.projects, e.project_id) as Project | undefined);
    if (!e || !project) return;
    const files = archiveFiles(collect(fx.store.state, project, e.description));
    e.step = 'started';
    e.pending = { file_id: fileStore(fx.clock).add({ kind: 'export', files }), filename: '' };
    scheduleJob(d, JOB.exportFinish, job.due_ms + d.importExport.delays.export_started_ms, job.payload);
  });

  r.job(JOB.exportFinish, (d, job, fx) => {
    const e = exportOf(d, job, 'started');
    const project = e && (tget(d.projects, e.project_id) as Project | undefined);
    if (!e || !project || !e.pending) return;
    const previous = e.file;
    e.file = {
      file_id: e.pending.file_id,
      filename: exportFilename(job.due_ms, project.path_with_namespace),
    };
    e.pending = null;
    e.step = 'finished';
    e.regenerating = false;
    const files = fileStore(fx.clock);
    if (previous && previous.file_id !== e.file.file_id) files.delete(previous.file_id);
    const file = files.get(e.file.file_id);
    if (file?.kind === 'export')
      exportUploads(fx.clock).release(e.project_id, job.payload.generation as number, file);
  });

  r.job(JOB.importStart, (d, job) => {
    const i = importOf(d, job, 'scheduled');
    if (!i) return;
    i.status = 'started';
    (tget(d.projects, i.project_id) as Draft<Project>).import_status = 'started';
    const due = job.due_ms + d.importExport.delays.import_started_ms;
    scheduleJob(d, JOB.importFinish, due, job.payload);
    scheduleJob(d, JOB.importGuard, due, job.payload);
  });

  r.job(JOB.importFinish, (d, job, fx) => {
    const i = importOf(d, job, 'started');
    if (!i) return;
    const files = fileStore(fx.clock);
    const file = files.get(i.file_id);
    // Still being unpacked: the import stays `started`, and this step runs once the archive is read.
    if (file?.kind === 'import' && 'unpacking' in file) {
      i.awaiting_unpack = true;
      return;
    }
    if (i.awaiting_unpack !== undefined) delete i.awaiting_unpack;
    // The platform removes the uploaded file once the import has run, whatever the outcome.
    files.delete(i.file_id);
    let content: ArchiveContent | undefined;
    let error: string | null = null;
    if (!file || file.kind !== 'import') error = 'The import file is no longer available';
    else if ('error' in file) error = file.error;
    else
      try {
        content = parseArchive(file.files);
      } catch (e) {
        if (!(e instanceof ArchiveError)) throw e;
        error = e.message;
      }
    const target = i.original_path === null ? undefined : overwriteTarget(d, i);
    if (!error && target !== undefined) error = overwriteRefusal(d, i);
    if (error !== null || !content) return failImport(d, i, error ?? 'The archive could not be read');
    const now = iso(job.due_ms);
    const failures = restoreProject(d, i.project_id, i.user_id, content, i.overrides, now);
    i.failed_relations = failures.slice(0, MAX_FAILED_RELATIONS).map((f) => ({
      id: nextId(d, 'import_failures'),
      created_at: now,
      ...f,
    }));
    if (target !== undefined) overwriteProject(d, i.project_id, target, now);
    i.status = 'finished';
    (tget(d.projects, i.project_id) as Draft<Project>).import_status = 'finished';
  });

  // Queued after each finishing job for the same time: if that one crashed (a bug, logged), the import
  // does not stay `started` for ever.
  r.job(JOB.importGuard, (d, job) => {
    const i = importOf(d, job, 'started');
    if (i && !i.awaiting_unpack) failImport(d, i, 'The import could not be completed');
  });
}

/** The archive of project `pid`'s import is unpacked: a finishing step that waited for it runs now. */
export function resumeImport(fx: Fx, pid: number): void {
  if (!tget(fx.store.state.importExport.imports, pid)?.awaiting_unpack) return;
  fx.store.write((d) => {
    const i = tget(d.importExport.imports, pid);
    if (!i?.awaiting_unpack || i.status !== 'started') return;
    delete i.awaiting_unpack;
    const now = fx.clock.ms();
    scheduleJob(d, JOB.importFinish, now, { project_id: pid });
    scheduleJob(d, JOB.importGuard, now, { project_id: pid });
  });
}

function exportOf(d: S, job: JobRecord, step: 'queued' | 'started') {
  const e = tget(d.importExport.exports, job.payload.project_id as number);
  return e && e.generation === job.payload.generation && e.step === step ? e : undefined;
}

function importOf(d: S, job: JobRecord, status: ImportRecord['status']) {
  const i = tget(d.importExport.imports, job.payload.project_id as number);
  return i && i.status === status && tget(d.projects, i.project_id) ? i : undefined;
}

/** `mark_as_failed`: the message as `Projects::ImportService` words it (the import URL is blank here). */
function failImport(d: S, i: Draft<ImportRecord>, message: string): void {
  const p = tget(d.projects, i.project_id) as Draft<Project>;
  i.status = 'failed';
  i.error = `Error importing repository  into ${p.path_with_namespace} - ${message}`;
  p.import_status = 'failed';
  p.import_error = i.error;
}

/** The project an `overwrite` import replaces: the one at the original path, if it still exists. */
function overwriteTarget(d: S, i: ImportRecord): number | undefined {
  const p = tget(d.projects, i.project_id)!;
  const ns = p.path_with_namespace.slice(0, p.path_with_namespace.lastIndexOf('/'));
  const id = iget(d.idx.projects, `${ns}/${i.original_path}`.toLowerCase());
  return id === i.project_id ? undefined : id;
}

/** `admin_namespace` is needed to overwrite: the group's owners, the namespace's user, admins. */
function overwriteRefusal(d: S, i: ImportRecord): string | null {
  const p = tget(d.projects, i.project_id) as Project;
  const user = tget(d.users, i.user_id);
  if (!user) return 'The importing user no longer exists';
  if (user.admin) return null;
  if (p.namespace_kind === 'user' ? p.owner_id === user.id : canOwnGroup(d, user.id, p.namespace_id))
    return null;
  const nsPath = p.path_with_namespace.slice(0, p.path_with_namespace.lastIndexOf('/'));
  return `User ${user.username} (${user.id}) cannot overwrite a project in ${nsPath.split('/').pop()}`;
}

function canOwnGroup(d: S, userId: number, groupId: number): boolean {
  const g = tget(d.groups, groupId);
  return !!g && groupAccess(d, tget(d.users, userId)!, g) >= ACCESS.OWNER;
}

/**
 * `Projects::OverwriteProjectService`: the old project's stars, members and group shares move to the
 * imported one (where it has none of its own), the old project is deleted, and the imported one takes
 * its name and path.
 */
function overwriteProject(d: S, pid: number, oldId: number, now: string): void {
  const old = tget(d.projects, oldId) as Project;
  for (const sid of mget(d.idx.starsBy, String(oldId))) {
    const s = tget(d.stars, sid)!;
    addStar(d, pid, s.user_id, s.created_at);
  }
  for (const mid of mget(d.idx.membersBySource, `project:${oldId}`)) {
    const m = tget(d.members, mid)!;
    if (iget(d.idx.members, `project:${pid}:${m.user_id}`) === undefined)
      tget(
        d.members,
        setMember(d, 'project', pid, m.user_id, m.access_level, now, m.expires_at),
      )!.created_at = m.created_at;
  }
  for (const sid of mget(d.idx.sharesBy, String(oldId))) {
    const s = tget(d.shares, sid)!;
    if (iget(d.idx.shares, `${pid}:${s.group_id}`) === undefined)
      addShare(d, pid, s.group_id, s.group_access, s.created_at, s.expires_at);
  }
  const { name, path, path_with_namespace } = old;
  deleteProject(d, oldId);
  const p = tget(d.projects, pid) as Draft<Project>;
  idelete(d.idx.projects, p.path_with_namespace.toLowerCase());
  unindexProjectName(d.idx.projectNames, p);
  p.name = name;
  p.path = path;
  p.path_with_namespace = path_with_namespace;
  iset(d.idx.projects, path_with_namespace.toLowerCase(), pid);
  indexProjectName(d.idx.projectNames, p);
}
