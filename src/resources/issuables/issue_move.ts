/**
 * `POST /projects/:id/issues/:issue_iid/move` and `PUT /projects/:id/issues/:issue_iid/reorder`.
 *
 * Both find the issue among the project's issues by iid without the finder (a confidential issue the
 * caller cannot see is found, and then refused by the permission check). A move's refusals are the
 * service's `MoveError`s, answered 400 with their message; a reorder whose neighbours are not found
 * answers 422 as the service's `false`.
 */
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, notFound } from '../../core/errors.js';
import { atLeastOneOf, p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { emitEvent } from '../integrations/events.js';
import type { Project } from '../projects/model.js';
import { abilities, canSeeIssue, canUpdateIssue } from './access.js';
import { issueByIid, isSubscribed, loadProject } from './common.js';
import { issuableRenderer } from './entities.js';
import { moveIssue, placeIssue } from './model.js';
import type { IssueRecord } from './store.js';

/** `Issue#can_move?`: `admin_issue` on the issue and on the target, and not moved before. */
function canMove(
  st: PlatformState,
  user: UserRecord,
  issue: IssueRecord,
  from: Project,
  to: Project,
): boolean {
  // Archived projects lose every write ability, `admin_issue` with them.
  const admin = (p: Project) => !p.archived && abilities(st, user, p).adminIssue;
  return admin(to) && issue.moved_to_id === null && admin(from);
}

function send(c: Ctx, issueId: number, status: 200 | 201, project: Project): Response {
  const st = state(c);
  const issue = tget(st.issuables.issues, issueId)!;
  const r = issuableRenderer(c, { project });
  return c.json(
    r.issue(issue, { subscribed: isSubscribed(st, 'Issue', issue, c.get('viewer').user) }),
    status,
  );
}

function moveRoute(c: Ctx): Response {
  const prm = parse(c, { issue_iid: p.int().required(), to_project_id: p.int().required() });
  const project = loadProject(c);
  const user = requireUser(c);
  const st = state(c);
  const issue = issueByIid(st, project.id, prm.issue_iid);
  if (!issue) throw notFound('Issue');
  // `Project.find_by(id:)`: any project, visible or not; the permission check refuses the others.
  const target = tget(st.projects, prm.to_project_id) as Project | undefined;
  if (!target) throw notFound('Project');
  if (!canMove(st, user, issue, project, target))
    throw apiError(400, 'Cannot move issue due to insufficient permissions!');
  if (target.id === project.id) throw apiError(400, 'Cannot move issue to project it originates from!');
  const now = c.get('fx').clock.iso();
  const newId = write(c, (d) => moveIssue(d, issue.id, project, target, user.id, now));
  emitEvent(c, { kind: 'issue', id: newId, before: null });
  emitEvent(c, { kind: 'issue', id: issue.id, before: issue.state, prev: issue });
  // The entity is presented with the source project as its `project` option, as the platform does.
  return send(c, newId, 201, project);
}

function reorderRoute(c: Ctx): Response {
  const raw = c.get('params');
  const prm = parse(c, {
    issue_iid: p.int().required(),
    move_after_id: p.int(),
    move_before_id: p.int(),
  });
  atLeastOneOf(raw, 'move_after_id', 'move_before_id');
  const project = loadProject(c);
  const user = requireUser(c);
  const st = state(c);
  const issue = issueByIid(st, project.id, prm.issue_iid);
  if (!issue) throw notFound('Issue');
  const a = abilities(st, user, project);
  if (!a.issues || !canSeeIssue(a, issue) || !canUpdateIssue(a, issue)) throw forbidden();
  // `ReorderService`: ids that are not positive count as absent; `get_issue_if_allowed` takes the
  // project's issues only, and drops those the caller may not update.
  const neighbour = (id: number | undefined): number | null | 'missing' => {
    if (id === undefined || id <= 0) return null;
    const other = tget(st.issuables.issues, id);
    if (!other || other.project_id !== project.id) return 'missing';
    return canSeeIssue(a, other) && canUpdateIssue(a, other) ? other.id : null;
  };
  const after = neighbour(prm.move_after_id);
  const before = neighbour(prm.move_before_id);
  if (after === 'missing' || before === 'missing' || (after === null && before === null))
    throw apiError(422, { error: 'Unprocessable Entity' });
  // A change of position alone does not touch `updated_at` (`update_timestamp?`).
  write(c, (d) => placeIssue(d, issue.id, before, after));
  return send(c, issue.id, 200, project);
}

export function issueMoveRoutes(r: ApiRouter): void {
  r.post('/projects/:id/issues/:issue_iid/move', moveRoute);
  r.put('/projects/:id/issues/:issue_iid/reorder', reorderRoute);
}
