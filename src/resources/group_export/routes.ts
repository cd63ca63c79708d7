/**
 * `POST /groups/:id/export`, `GET /groups/:id/export/download` (`lib/api/group_export.rb`: group owners)
 * and `POST /groups/import` (`lib/api/group_import.rb`). 13.12 has no status endpoint for either: a
 * client polls the download until the file is there. The steps run as jobs on the instance clock.
 */
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx, type Fx } from '../../core/context.js';
import { apiError, forbidden } from '../../core/errors.js';
import { fileBytes } from '../../core/files.js';
import { scheduleJob } from '../../core/jobs.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { tget, tset } from '../../core/table.js';
import { canAdminGroup, canCreateSubgroup, findGroupRecord } from '../groups/access.js';
import { groupValidationErrors, rubyInspect, type Group } from '../groups/model.js';
import { ArchiveError } from '../import_export/archive.js';
import { unpackUpload } from '../import_export/unpack.js';
import { exportFilename } from '../import_export/jobs.js';
import { fileStore, type StoredFile } from '../import_export/store.js';
import { packed } from '../import_export/uploads.js';
import { createGroup, setMember } from '../projects/model.js';
import { ACCESS } from '../../core/access.js';
import type { Visibility } from '../../core/state.js';
import { groupArchiveFiles, restoreGroup } from './archive.js';
import { GROUP_JOB, type GroupExportRecord, type GroupImportRecord } from './store.js';

const accepted = (c: Ctx) => c.json({ message: '202 Accepted' }, 202);

/** The export API's `before`: `authorize! :admin_group` on the group. */
function ownedGroup(c: Ctx): Group {
  const user = requireUser(c);
  const g = findGroupRecord(c, c.req.param('id') ?? '');
  if (!canAdminGroup(state(c), user, g)) throw forbidden();
  return g;
}

/** `ActionDispatch::Http::ContentDisposition`, as the project export's download sends it. */
const contentDisposition = (name: string) =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

/** `ImportExportUploader::EXTENSION_WHITELIST` by `File.extname`: `.gz` only. */
const validArchiveName = (name: string) => /\.gz$/i.test(name);

/** The most an uploaded group archive may hold, unpacked or not. */
const MAX_ARCHIVE_BYTES = 50 * 1024 * 1024;

export function groupExportRoutes(r: ApiRouter): void {
  r.post('/groups/:id/export', (c) => {
    const g = ownedGroup(c);
    const user = requireUser(c);
    const fx = c.get('fx');
    const now = fx.clock.ms();
    const removed = write(c, (d) => {
      const old = tget(d.groupExport.exports, g.id);
      const rec: GroupExportRecord = {
        group_id: g.id,
        user_id: user.id,
        step: 'queued',
        generation: (old?.generation ?? 0) + 1,
        // A new export removes the previous file at once (`remove_exports`).
        file: null,
        pending: null,
      };
      tset(d.groupExport.exports, g.id, rec);
      scheduleJob(d, GROUP_JOB.exportStart, now + d.importExport.delays.export_queued_ms, {
        group_id: g.id,
        generation: rec.generation,
      });
      return [old?.file?.file_id ?? null, old?.pending?.file_id ?? null];
    });
    for (const id of removed) fileStore(fx.clock).delete(id);
    return accepted(c);
  });

  r.get('/groups/:id/export/download', { auth: 'required' }, async (c) => {
    const g = ownedGroup(c);
    const e = tget(state(c).groupExport.exports, g.id);
    const ref = e?.step === 'finished' ? e.file : null;
    const file = fileStore(c.get('fx').clock).get(ref?.file_id) as StoredFile | undefined;
    if (!ref || file?.kind !== 'export') throw apiError(404, '404 Not found or has expired');
    const bytes = await packed(file);
    return c.body(new Uint8Array(bytes), 200, {
      'Content-Type': 'application/gzip',
      'Content-Disposition': contentDisposition(ref.filename),
      'Content-Transfer-Encoding': 'binary',
    });
  });

  r.post('/groups/import', async (c) => {
    const prm = parse(c, {
      path: p.str().required(),
      name: p.str().required(),
      file: p.file().required(),
      parent_id: p.int(),
    });
    const user = requireUser(c);
    // `authorize! :create_group`.
    if (!user.admin && !user.can_create_group) throw forbidden();
    if (!validArchiveName(prm.file.name)) throw apiError(400, 'The file is invalid');
    const st = state(c);
    const parent = prm.parent_id === undefined ? undefined : findGroupRecord(c, String(prm.parent_id));
    // `closest_allowed_visibility_level`: the parent's, else private.
    const visibility: Visibility = parent ? parent.visibility : 'private';
    const errors = groupValidationErrors(st, { name: prm.name, path: prm.path, visibility }, parent);
    if (parent && !canCreateSubgroup(st, user, parent))
      errors.parent_id = ['You don’t have permission to create a subgroup in this group.'];
    if (Object.keys(errors).length > 0) throw apiError(400, `Failed to save group ${rubyInspect(errors)}`);
    const bytes = fileBytes(prm.file) ?? new Uint8Array(await prm.file.arrayBuffer());
    const fx = c.get('fx');
    let fileId: number;
    let start: ((unpacked: () => void) => void) | undefined;
    if (bytes.length > MAX_ARCHIVE_BYTES)
      fileId = fileStore(fx.clock).add({ kind: 'import', error: 'The archive is too large' });
    else {
      // Unpacked off the request path; what it unpacks to is bounded as the upload is.
      ({ fileId, start } = unpackUpload(fx.clock, bytes, {
        maxBytes: MAX_ARCHIVE_BYTES,
        wanted: groupArchiveFile,
      }));
    }
    const now = fx.clock.iso();
    const gid = write(c, (d) => {
      const gid = createGroup(
        d,
        { name: prm.name, path: prm.path, parent_id: parent?.id ?? null, visibility },
        now,
      );
      setMember(d, 'group', gid, user.id, ACCESS.OWNER, now);
      tset<GroupImportRecord>(d.groupExport.imports, gid, {
        group_id: gid,
        user_id: user.id,
        status: 'scheduled',
        file_id: fileId,
        error: null,
      });
      scheduleJob(d, GROUP_JOB.importStart, fx.clock.ms() + d.importExport.delays.import_scheduled_ms, {
        group_id: gid,
      });
      return gid;
    });
    start?.(() => resumeGroupImport(fx, gid));
    return accepted(c);
  });
}

export function groupExportJobs(r: ApiRouter): void {
  r.job(GROUP_JOB.exportStart, (d, job, fx) => {
    const e = tget(d.groupExport.exports, job.payload.group_id as number);
    if (!e || e.generation !== job.payload.generation || e.step !== 'queued') return;
    if (!tget(fx.store.state.groups, e.group_id)) return;
    const files = groupArchiveFiles(fx.store.state, e.group_id);
    e.step = 'started';
    e.pending = { file_id: fileStore(fx.clock).add({ kind: 'export', files }), filename: '' };
    scheduleJob(d, GROUP_JOB.exportFinish, job.due_ms + d.importExport.delays.export_started_ms, job.payload);
  });

  r.job(GROUP_JOB.exportFinish, (d, job) => {
    const e = tget(d.groupExport.exports, job.payload.group_id as number);
    const g = e && tget(d.groups, e.group_id);
    if (!e || !g || e.generation !== job.payload.generation || e.step !== 'started' || !e.pending) return;
    e.file = { file_id: e.pending.file_id, filename: exportFilename(job.due_ms, g.full_path) };
    e.pending = null;
    e.step = 'finished';
  });

  r.job(GROUP_JOB.importStart, (d, job) => {
    const i = tget(d.groupExport.imports, job.payload.group_id as number);
    if (!i || i.status !== 'scheduled' || !tget(d.groups, i.group_id)) return;
    i.status = 'started';
    scheduleJob(d, GROUP_JOB.importFinish, job.due_ms + d.importExport.delays.import_started_ms, job.payload);
  });

  r.job(GROUP_JOB.importFinish, (d, job, fx) => {
    const i = tget(d.groupExport.imports, job.payload.group_id as number);
    if (!i || i.status !== 'started' || !tget(d.groups, i.group_id)) return;
    const files = fileStore(fx.clock);
    const file = files.get(i.file_id);
    // Still being unpacked: the import stays `started` until the archive is read.
    if (file?.kind === 'import' && 'unpacking' in file) {
      i.awaiting_unpack = true;
      return;
    }
    if (i.awaiting_unpack !== undefined) delete i.awaiting_unpack;
    files.delete(i.file_id);
    if (!file || file.kind !== 'import' || !('files' in file)) {
      i.status = 'failed';
      i.error = file && 'error' in file ? file.error : 'The import file is no longer available';
      return;
    }
    try {
      restoreGroup(d, i.group_id, i.user_id, file.files, new Date(job.due_ms).toISOString());
      i.status = 'finished';
    } catch (e) {
      if (!(e instanceof ArchiveError)) throw e;
      i.status = 'failed';
      i.error = e.message;
    }
  });
}

/** The files a group import reads; the rest of an archive is skipped. */
const groupArchiveFile = (name: string) =>
  name === 'VERSION' || name === 'GITLAB_VERSION' || name.startsWith('tree/');

/** The archive of group `gid`'s import is unpacked: a finishing step that waited for it runs now. */
function resumeGroupImport(fx: Fx, gid: number): void {
  if (!tget(fx.store.state.groupExport.imports, gid)?.awaiting_unpack) return;
  fx.store.write((d) => {
    const i = tget(d.groupExport.imports, gid);
    if (!i?.awaiting_unpack || i.status !== 'started') return;
    delete i.awaiting_unpack;
    scheduleJob(d, GROUP_JOB.importFinish, fx.clock.ms(), { group_id: gid });
  });
}
