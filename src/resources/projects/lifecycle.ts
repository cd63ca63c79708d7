/**
 * Adjourned deletion (paid tiers): `DELETE /projects/:id` marks a project (and archives it); the platform's
 * background worker removes it `deletion_adjourned_period` days later. fauxlab has no worker: the removal
 * happens when a projects route next reads the state after that day, on the instance clock.
 */
import type { Ctx } from '../../core/context.js';
import type { PlatformState } from '../../core/state.js';
import { mcount, mget, tget } from '../../core/table.js';
import { setting } from '../settings/model.js';
import { deleteProject, type Project } from './model.js';

const DAY = 86_400_000;

/** `deletion_adjourned_period` (days, default 7). */
export function adjournedPeriod(st: PlatformState): number {
  return Math.max(0, Math.min(90, setting(st, 'deletion_adjourned_period')));
}

/** The projects whose adjourned deletion is due on `today` (`YYYY-MM-DD`). */
function dueProjects(st: PlatformState, today: string): number[] {
  const period = adjournedPeriod(st);
  const now = Date.parse(`${today}T00:00:00Z`);
  return mget(st.idx.projectsMarked, 'all').filter((id) => {
    const on = (tget(st.projects, id) as Project | undefined)?.marked_for_deletion_on;
    return !!on && Date.parse(`${on}T00:00:00Z`) + period * DAY <= now;
  });
}

/**
 * Removes the projects whose adjourned deletion is due. This is the platform's worker catching up, not
 * the request's own change, so it is committed on its own before the request reads anything.
 */
export function settleDeletions(c: Ctx): void {
  const st = c.get('fx').store.state;
  if (mcount(st.idx.projectsMarked, 'all') === 0) return;
  const due = dueProjects(st, c.get('fx').clock.today());
  if (due.length === 0) return;
  c.get('fx').store.write((d) => {
    for (const id of due) deleteProject(d, id);
  });
}
