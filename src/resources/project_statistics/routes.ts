/**
 * `GET /projects/:id/statistics` (`lib/api/project_statistics.rb`): `authenticate!`, then
 * `authorize! :daily_statistics` (13.12's ProjectPolicy gives it with write access to the repository:
 * developers and up), answering `Entities::ProjectDailyStatistics`.
 */
import { requireUser } from '../../core/auth.js';
import { state } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import { ACCESS, findProject, projectAccess } from '../../core/access.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { lastFetches } from './model.js';

export function projectStatisticsRoutes(r: ApiRouter): void {
  r.get('/projects/:id/statistics', { params: { id: p.str().required() } }, (c) => {
    const user = requireUser(c);
    const project = findProject(c, c.req.param('id') ?? '');
    const st = state(c);
    if (!user.admin && projectAccess(st, user, project) < ACCESS.DEVELOPER) throw forbidden();
    const { total, days } = lastFetches(st, project.id, c.get('fx').clock.ms());
    return c.json({ fetches: { total, days: days.map((x) => ({ count: x.count, date: x.date })) } });
  });
}
