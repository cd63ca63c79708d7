/**
 * The freeze periods API (`lib/api/freeze_periods.rb`, 13.0): `authenticate!` first, then the project,
 * then `read_`/`create_`/`update_`/`destroy_freeze_period`, which maintainers have.
 */
import { ACCESS, findProject, projectAccess } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import {
  createFreezePeriod,
  deleteFreezePeriod,
  freezeErrors,
  freezePeriodsOf,
  stripped,
  updateFreezePeriod,
} from './model.js';
import type { FreezePeriodRecord } from './store.js';

/** `Entities::FreezePeriod`. */
const freezeEntity = (f: FreezePeriodRecord) => ({
  id: f.id,
  freeze_start: f.freeze_start,
  freeze_end: f.freeze_end,
  cron_timezone: f.cron_timezone,
  created_at: f.created_at,
  updated_at: f.updated_at,
});

/** `before { authenticate! }`, `user_project`, then the maintainer's `*_freeze_period` ability. */
function maintainedProject(c: Ctx): ProjectRecord {
  const user = requireUser(c);
  const proj = findProject(c, c.req.param('id') ?? '');
  if (!user.admin && projectAccess(state(c), user, proj) < ACCESS.MAINTAINER) throw forbidden();
  return proj;
}

function findPeriod(c: Ctx, proj: ProjectRecord, id: number): FreezePeriodRecord {
  const f = tget(state(c).freeze_periods.records, id);
  if (!f || f.project_id !== proj.id) throw recordNotFound('no freeze period by this id');
  return f;
}

const idShape = { id: p.str().required() };
const oneShape = { ...idShape, freeze_period_id: p.int().required() };

export function freezePeriodsRoutes(r: ApiRouter): void {
  r.get('/projects/:id/freeze_periods', { params: { ...idShape, ...paginationParams } }, (c) => {
    const proj = maintainedProject(c);
    return paginate(c, freezePeriodsOf(state(c), proj.id), freezeEntity);
  });

  r.get('/projects/:id/freeze_periods/:freeze_period_id', { params: oneShape }, (c, prm) => {
    const proj = maintainedProject(c);
    return c.json(freezeEntity(findPeriod(c, proj, prm.freeze_period_id)));
  });

  r.post(
    '/projects/:id/freeze_periods',
    {
      params: {
        ...idShape,
        freeze_start: p.str().required(),
        freeze_end: p.str().required(),
        cron_timezone: p.str(),
      },
    },
    (c, prm) => {
      const proj = maintainedProject(c);
      const fields = stripped({
        freeze_start: prm.freeze_start,
        freeze_end: prm.freeze_end,
        cron_timezone: prm.cron_timezone ?? '',
      });
      const errors = freezeErrors(fields);
      if (Object.keys(errors).length) throw validationError(errors);
      const now = c.get('fx').clock.iso();
      const rec = write(c, (d) => createFreezePeriod(d, proj.id, fields, now));
      return c.json(freezeEntity(rec), 201);
    },
  );

  r.put(
    '/projects/:id/freeze_periods/:freeze_period_id',
    { params: { ...oneShape, freeze_start: p.str(), freeze_end: p.str(), cron_timezone: p.str() } },
    (c, prm) => {
      const proj = maintainedProject(c);
      const f = findPeriod(c, proj, prm.freeze_period_id);
      const fields = stripped({
        freeze_start: prm.freeze_start ?? f.freeze_start,
        freeze_end: prm.freeze_end ?? f.freeze_end,
        cron_timezone: prm.cron_timezone ?? f.cron_timezone,
      });
      const errors = freezeErrors(fields);
      if (Object.keys(errors).length) throw validationError(errors);
      const now = c.get('fx').clock.iso();
      write(c, (d) => updateFreezePeriod(d, f.id, fields, now));
      return c.json(freezeEntity(tget(state(c).freeze_periods.records, f.id)!));
    },
  );

  r.delete('/projects/:id/freeze_periods/:freeze_period_id', { params: oneShape }, (c, prm) => {
    const proj = maintainedProject(c);
    const f = findPeriod(c, proj, prm.freeze_period_id);
    checkUnmodifiedSince(c, f.updated_at);
    write(c, (d) => deleteFreezePeriod(d, f));
    return c.body(null, 204);
  });
}
