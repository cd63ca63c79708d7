/**
 * The pipeline schedules API (`lib/api/ci/pipeline_schedules.rb` of 13.12): every route needs a user;
 * whoever reads the project's pipelines reads its schedules (a schedule they may not read is the
 * `Pipeline Schedule` 404), developers create and play them, the schedule's owner (a developer) and
 * maintainers change, take over and delete them.
 */
import { findProject } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, notFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { authorizeCi, canCi } from '../ci/access.js';
import { PipelineRenderer } from '../ci/entities.js';
import { userRenderer } from '../users/entities.js';
import {
  createSchedule,
  deleteSchedule,
  deleteVariable,
  projectSchedules,
  putVariable,
  queuePlay,
  RUN_JOB,
  runSchedule,
  scheduleErrors,
  updateSchedule,
  variableErrors,
  type ScheduleFields,
} from './model.js';
import type { ScheduleRecord, ScheduleVariable } from './store.js';

const project = (c: Ctx) => findProject(c, c.req.param('id') ?? '');
const idShape = { pipeline_schedule_id: p.int().required() };

/** `pipeline_schedule`: the project's schedule, when the caller may read it. */
function findSchedule(c: Ctx, proj: ProjectRecord, id: number): ScheduleRecord {
  const s = tget(state(c).pipelineSchedules.records, id);
  if (!s || s.project_id !== proj.id || !canCi(c, proj, 'read_pipeline')) throw notFound('Pipeline Schedule');
  return s;
}

/** `update_pipeline_schedule` and `admin_pipeline_schedule`: maintainers, and the owner as a developer. */
function canAdmin(c: Ctx, proj: ProjectRecord, s: ScheduleRecord): boolean {
  if (canCi(c, proj, 'admin_build')) return true;
  const user = c.get('viewer').user;
  return canCi(c, proj, 'update_pipeline') && user !== null && s.owner_id === user.id;
}

const variableEntity = (v: ScheduleVariable) => ({
  variable_type: v.variable_type,
  key: v.key,
  value: v.value,
});

/** `Entities::Ci::PipelineSchedule`, and with `details` `PipelineScheduleDetails`. */
function scheduleEntity(c: Ctx, proj: ProjectRecord, s: ScheduleRecord, details = false) {
  const st = state(c);
  const owner = s.owner_id === null ? undefined : tget(st.users, s.owner_id);
  const out: Record<string, unknown> = {
    id: s.id,
    description: s.description,
    ref: s.ref,
    cron: s.cron,
    cron_timezone: s.cron_timezone,
    next_run_at: s.next_run_at,
    active: s.active,
    created_at: s.created_at,
    updated_at: s.updated_at,
    owner: owner ? userRenderer(c).basic(owner) : null,
  };
  if (!details) return out;
  const lastId = s.pipeline_ids.findLast((id) => tget(st.pipelines, id) !== undefined);
  const last = lastId === undefined ? undefined : tget(st.pipelines, lastId);
  out.last_pipeline = last ? new PipelineRenderer(c).basic(last, proj) : null;
  out.variables = s.variables.map(variableEntity);
  return out;
}

const fieldShape = {
  description: p.str(),
  ref: p.str(),
  cron: p.str(),
  cron_timezone: p.str(),
  active: p.bool(),
};

const variableShape = { key: p.str(), value: p.str(), variable_type: p.str().values(['env_var', 'file']) };

export function pipelineScheduleRoutes(r: ApiRouter): void {
  r.job(RUN_JOB, (d, job, fx) => runSchedule(d, job.payload, job.due_ms, fx.clock.ms()));

  r.get('/projects/:id/pipeline_schedules', (c) => {
    requireUser(c);
    const prm = parse(c, { ...paginationParams, scope: p.str().values(['active', 'inactive']) });
    const proj = project(c);
    authorizeCi(c, proj, 'read_pipeline');
    let list = projectSchedules(state(c), proj.id);
    if (prm.scope !== undefined) list = list.filter((s) => s.active === (prm.scope === 'active'));
    return paginate(c, list, (s) => scheduleEntity(c, proj, s));
  });

  r.get('/projects/:id/pipeline_schedules/:pipeline_schedule_id', (c) => {
    requireUser(c);
    const prm = parse(c, idShape);
    const proj = project(c);
    return c.json(scheduleEntity(c, proj, findSchedule(c, proj, prm.pipeline_schedule_id), true));
  });

  r.post('/projects/:id/pipeline_schedules', (c) => {
    requireUser(c);
    const prm = parse(c, {
      description: p.str().required(),
      ref: p.str().required(),
      cron: p.str().required(),
      cron_timezone: p.str().default('UTC'),
      active: p.bool().default(true),
    });
    const proj = project(c);
    authorizeCi(c, proj, 'create_pipeline');
    const fields: ScheduleFields = prm;
    const errors = scheduleErrors(fields);
    if (Object.keys(errors).length) throw validationError(errors);
    const now = c.get('fx').clock.ms();
    const userId = c.get('viewer').user!.id;
    const id = write(c, (d) => createSchedule(d, proj.id, fields, userId, now));
    return c.json(scheduleEntity(c, proj, tget(state(c).pipelineSchedules.records, id)!, true), 201);
  });

  r.put('/projects/:id/pipeline_schedules/:pipeline_schedule_id', (c) => {
    requireUser(c);
    const prm = parse(c, { ...idShape, ...fieldShape });
    const proj = project(c);
    const s = findSchedule(c, proj, prm.pipeline_schedule_id);
    if (!canAdmin(c, proj, s)) throw forbidden();
    const ch: Partial<ScheduleFields> = {};
    for (const k of ['description', 'ref', 'cron', 'cron_timezone'] as const)
      if (prm[k] !== undefined) ch[k] = prm[k];
    if (prm.active !== undefined) ch.active = prm.active;
    const errors = scheduleErrors({ ...s, ...ch });
    if (Object.keys(errors).length) throw validationError(errors);
    const now = c.get('fx').clock.ms();
    write(c, (d) => updateSchedule(d, s.id, ch, now));
    return c.json(scheduleEntity(c, proj, tget(state(c).pipelineSchedules.records, s.id)!, true));
  });

  r.post('/projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership', (c) => {
    requireUser(c);
    const prm = parse(c, idShape);
    const proj = project(c);
    const s = findSchedule(c, proj, prm.pipeline_schedule_id);
    if (!canAdmin(c, proj, s)) throw forbidden();
    const now = c.get('fx').clock.ms();
    const userId = c.get('viewer').user!.id;
    write(c, (d) => updateSchedule(d, s.id, { owner_id: userId }, now));
    return c.json(scheduleEntity(c, proj, tget(state(c).pipelineSchedules.records, s.id)!, true), 201);
  });

  r.delete('/projects/:id/pipeline_schedules/:pipeline_schedule_id', (c) => {
    requireUser(c);
    const prm = parse(c, idShape);
    const proj = project(c);
    const s = findSchedule(c, proj, prm.pipeline_schedule_id);
    if (!canAdmin(c, proj, s)) throw forbidden();
    checkUnmodifiedSince(c, s.updated_at);
    write(c, (d) => deleteSchedule(d, s.id));
    return c.body(null, 204);
  });

  r.post('/projects/:id/pipeline_schedules/:pipeline_schedule_id/play', (c) => {
    requireUser(c);
    const prm = parse(c, idShape);
    const proj = project(c);
    const s = findSchedule(c, proj, prm.pipeline_schedule_id);
    // `play_pipeline_schedule`: developers.
    if (!canCi(c, proj, 'update_pipeline')) throw forbidden();
    const now = c.get('fx').clock.ms();
    const userId = c.get('viewer').user!.id;
    write(c, (d) => queuePlay(d, s.id, userId, now));
    // `created!`: the run is queued (it starts before the next request).
    return c.json({ message: '201 Created' }, 201);
  });

  // ---- Variables
  const vars = '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables';

  r.post(vars, (c) => {
    requireUser(c);
    const prm = parse(c, {
      ...idShape,
      key: p.str().required(),
      value: p.str().required(),
      variable_type: p.str().values(['env_var', 'file']).default('env_var'),
    });
    const proj = project(c);
    const s = findSchedule(c, proj, prm.pipeline_schedule_id);
    if (!canAdmin(c, proj, s)) throw forbidden();
    const v: ScheduleVariable = { key: prm.key, value: prm.value, variable_type: prm.variable_type };
    const errors = variableErrors(s, v);
    if (Object.keys(errors).length) throw validationError(errors);
    write(c, (d) => putVariable(d, s.id, v));
    return c.json(variableEntity(v), 201);
  });

  const oneVar = (c: Ctx) => {
    requireUser(c);
    const prm = parse(c, { ...idShape, key: p.str().required() });
    const proj = project(c);
    const s = findSchedule(c, proj, prm.pipeline_schedule_id);
    if (!canAdmin(c, proj, s)) throw forbidden();
    const v = s.variables.find((x) => x.key === prm.key);
    if (!v) throw notFound('Pipeline Schedule Variable');
    return { s, v };
  };

  r.put(`${vars}/:key`, (c) => {
    const { s, v } = oneVar(c);
    const prm = parse(c, { value: p.str(), variable_type: variableShape.variable_type });
    const next: ScheduleVariable = {
      ...v,
      ...(prm.value !== undefined && { value: prm.value }),
      ...(prm.variable_type !== undefined && { variable_type: prm.variable_type }),
    };
    write(c, (d) => putVariable(d, s.id, next, v.key));
    return c.json(variableEntity(next));
  });

  r.delete(`${vars}/:key`, (c) => {
    const { s, v } = oneVar(c);
    write(c, (d) => deleteVariable(d, s.id, v.key));
    // `status :accepted` with the variable destroyed.
    return c.json(variableEntity(v), 202);
  });
}
