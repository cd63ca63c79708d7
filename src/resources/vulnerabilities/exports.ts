/**
 * Vulnerability exports (EE `vulnerability_exports.rb`, ultimate): a CSV of a project's, a group's (its
 * projects and its subgroups') or the caller's instance security dashboard's vulnerabilities, made in the
 * background on the instance clock (`VulnerabilityExports::ExportWorker`): `created`, `running` a second
 * later, `finished` with its file a second after that. Only its author reads it, while still allowed to
 * export what it covers (`Vulnerabilities::ExportPolicy`); until it is finished or failed the GET answers
 * 202 with `Poll-Interval` (`Gitlab::PollingInterval.set_api_header`, 5 000 ms).
 */
import type { Draft } from 'immer';
import { findGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, notFound, recordNotFound } from '../../core/errors.js';
import { scheduleJob } from '../../core/jobs.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { nextId, type PlatformState, type UserRecord } from '../../core/state.js';
import { mget, tget, tset } from '../../core/table.js';
import { descendantIds } from '../groups/model.js';
import { loadProject } from '../projects/helpers.js';
import { parameterize } from '../projects/validation.js';
import { authorizeProject, canReadGroupVulnerabilities, canReadVulnerabilities } from './access.js';
import { exportCsv } from './csv.js';
import { exportEntity } from './entities.js';
import { vulnerabilitiesOf } from './model.js';
import type { ExportRecord } from './store.js';

const ULT = { tier: 'ultimate' } as const;
const JOB = { start: 'vulnerability_export_start', finish: 'vulnerability_export_finish' } as const;
/** The worker's stand-in run time: queued to running, running to finished. */
const STEP_MS = 1000;
/** `Vulnerabilities::Export.formats`. */
const formatParam = { export_format: p.str().values(['csv']).default('csv') };

function createExport(c: Ctx, projectId: number | null, groupId: number | null): Response {
  const user = c.get('viewer').user!;
  const fx = c.get('fx');
  const now = fx.clock.iso();
  const ms = fx.clock.ms();
  const rec = write(c, (d) => {
    const id = nextId(d, 'vulnerability_exports');
    const e: ExportRecord = {
      id,
      project_id: projectId,
      group_id: groupId,
      author_id: user.id,
      format: 'csv',
      status: 'created',
      started_at: null,
      finished_at: null,
      created_at: now,
      updated_at: now,
      file: null,
      filename: null,
    };
    tset(d.vulnerabilities.exports, id, e);
    scheduleJob(d, JOB.start, ms + STEP_MS, { id });
    return e;
  });
  return c.json(exportEntity(c, rec), 201);
}

/** Whether the user may still export what the export covers (`create_vulnerability_export` on it). */
function mayExport(st: PlatformState, user: UserRecord, e: ExportRecord): boolean {
  if (e.project_id !== null) {
    const project = tget(st.projects, e.project_id);
    return !!project && canReadVulnerabilities(st, user, project);
  }
  if (e.group_id !== null) {
    const group = tget(st.groups, e.group_id);
    return !!group && canReadGroupVulnerabilities(st, user, group);
  }
  return true;
}

/** `Vulnerabilities::Export.find`, then `read_vulnerability_export`: its author, while allowed. */
function findExport(c: Ctx, id: number): ExportRecord {
  const user = requireUser(c);
  const st = state(c);
  const e = tget(st.vulnerabilities.exports, id);
  if (!e) throw recordNotFound('no vulnerability export with this id');
  if (e.author_id !== user.id || !mayExport(st, user, e)) throw forbidden();
  return e;
}

/** What the export covers, and the exportable's `full_path` for the file name. */
function exported(st: PlatformState, e: ExportRecord, author: UserRecord | undefined) {
  if (e.project_id !== null) {
    const project = tget(st.projects, e.project_id);
    return {
      path: project?.path_with_namespace ?? '',
      list: project ? vulnerabilitiesOf(st, project.id) : [],
    };
  }
  if (e.group_id !== null) {
    const group = tget(st.groups, e.group_id);
    if (!group) return { path: '', list: [] };
    const groups = [group.id, ...descendantIds(st, group.id)];
    const projects = groups.flatMap((g) => mget(st.idx.projectsByNamespace, `group:${g}`));
    const list = projects.flatMap((pid) => vulnerabilitiesOf(st, pid)).sort((a, b) => a.id - b.id);
    return { path: group.full_path, list };
  }
  // The instance dashboard lists the projects its user added to it; fauxlab's users have added none.
  return { path: author?.username ?? '', list: [] };
}

export function exportJobs(r: ApiRouter): void {
  r.job(JOB.start, (d, job) => {
    const e = tget(d.vulnerabilities.exports, job.payload.id as number) as Draft<ExportRecord> | undefined;
    if (!e || e.status !== 'created') return;
    const at = new Date(job.due_ms).toISOString();
    e.status = 'running';
    e.started_at = e.updated_at = at;
    scheduleJob(d, JOB.finish, job.due_ms + STEP_MS, job.payload);
  });
  r.job(JOB.finish, (d, job, fx) => {
    const e = tget(d.vulnerabilities.exports, job.payload.id as number) as Draft<ExportRecord> | undefined;
    if (!e || e.status !== 'running') return;
    // The rows as the export's project or group stands when the worker writes them.
    const st = fx.store.state;
    const at = new Date(job.due_ms);
    const { path, list } = exported(st, e, tget(st.users, e.author_id));
    e.file = exportCsv(st, list);
    // `ExportService#filename`: the exportable's path, parameterized, and the UTC minute.
    const stamp = `${at.toISOString().slice(0, 10)}T${at.toISOString().slice(11, 13)}${at.toISOString().slice(14, 16)}`;
    e.filename = `${parameterize(path.replace(/\//g, '-'))}_vulnerabilities_${stamp}.csv`;
    e.status = 'finished';
    e.finished_at = e.updated_at = at.toISOString();
  });
}

export function exportRoutes(r: ApiRouter): void {
  r.post(
    '/security/projects/:id/vulnerability_exports',
    { ...ULT, params: { id: p.str().required(), ...formatParam } },
    (c) => {
      requireUser(c);
      const project = loadProject(c);
      authorizeProject(c, project);
      return createExport(c, project.id, null);
    },
  );

  r.post(
    '/security/groups/:id/vulnerability_exports',
    { ...ULT, params: { id: p.str().required(), ...formatParam } },
    (c, prm) => {
      const user = requireUser(c);
      const group = findGroup(c, prm.id);
      if (!canReadGroupVulnerabilities(state(c), user, group)) throw forbidden();
      return createExport(c, null, group.id);
    },
  );

  // `current_user.security_dashboard`: every signed-in user has one.
  r.post('/security/vulnerability_exports', { ...ULT, params: formatParam }, (c) => {
    requireUser(c);
    return createExport(c, null, null);
  });

  const idParam = { id: p.int().required() };
  r.get('/security/vulnerability_exports/:id', { ...ULT, params: idParam }, (c, prm) => {
    const e = findExport(c, prm.id);
    const body = exportEntity(c, e);
    if (e.status === 'finished' || e.status === 'failed') return c.json(body);
    return c.json(body, 202, { 'Poll-Interval': '5000' });
  });

  r.get('/security/vulnerability_exports/:id/download', { ...ULT, params: idParam }, (c, prm) => {
    const e = findExport(c, prm.id);
    if (e.status !== 'finished' || e.file === null) throw notFound('Vulnerability Export');
    const name = e.filename ?? `vulnerabilities_${e.id}.csv`;
    return c.body(e.file, 200, {
      'Content-Type': 'text/csv',
      'Content-Disposition': `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    });
  });
}
