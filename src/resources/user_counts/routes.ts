/**
 * `GET /user_counts` (`lib/api/user_counts.rb`): the current user's open issuables, as the top bar
 * counts them. 13.12 has `merge_requests` (deprecated, the assigned count again), `assigned_issues`,
 * `assigned_merge_requests` and `review_requested_merge_requests` (13.8); `todos` came with 14.2.
 *
 * Each count is `User#assigned_open_issues_count`, `#assigned_open_merge_requests_count` and
 * `#review_requested_open_merge_requests_count`: the finder as the user (`IssuesFinder` /
 * `MergeRequestsFinder` with `state: 'opened', non_archived: true` and the user as assignee or
 * reviewer), so that only what the user may see counts. The platform keeps each count in the Rails
 * cache for up to 20 minutes and clears it when an assignment changes; fauxlab counts every time.
 */
import { unauthorized } from '../../core/errors.js';
import { state, type Ctx } from '../../core/context.js';
import type { ApiRouter } from '../../core/router.js';
import type { Filters } from '../issuables/filters.js';
import { findContext } from '../issuables/common.js';
import { findInProjects, projectsWithIssuables } from '../issuables/finder.js';
import type { Kind } from '../issuables/store.js';

/** Open issuables of `kind` the viewer may see that pass `who` (the user as assignee or reviewer). */
function openCount(c: Ctx, kind: Kind, who: Pick<Filters, 'assignee' | 'reviewer'>): number {
  const filters: Filters = { scope: 'all', state: 'opened', not: {}, ...who };
  const req = { kind, filters, orderBy: 'created_at' as const, sort: 'desc' as const };
  return findInProjects(findContext(c), projectsWithIssuables(state(c)), req, true).length;
}

export function userCountsRoutes(r: ApiRouter): void {
  // `unauthorized! unless current_user`: the route itself is open, so a bad token is still refused first.
  r.get('/user_counts', { auth: 'optional' }, (c) => {
    const user = c.get('viewer').user;
    if (!user) throw unauthorized();
    const assignedMrs = openCount(c, 'm', { assignee: [user.id] });
    return c.json({
      merge_requests: assignedMrs,
      assigned_issues: openCount(c, 'i', { assignee: [user.id] }),
      assigned_merge_requests: assignedMrs,
      review_requested_merge_requests: openCount(c, 'm', { reviewer: user.id }),
    });
  });
}
