/** What the issue and merge request routes share: where a list looks, subscriptions and todos. */
import { findGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { notModified } from '../../core/errors.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { findContext, isSubscribed, loadProject, pendingTodo } from './common.js';
import { issuableRenderer, type From, type IssuableRenderer } from './entities.js';
import {
  findInOneProject,
  findInProjects,
  groupProjectIds,
  projectsWithIssuables,
  type FindRequest,
} from './finder.js';
import { markTodo, setSubscription } from './model.js';
import type { IssueRecord, MergeRequestRecord } from './store.js';

export type ListScope = 'global' | 'group' | 'project';

type Rec = IssueRecord | MergeRequestRecord;
type Json = Record<string, unknown>;

/** Where a list route looks, resolved (with its 401/404s) before the request's filters are read. */
export interface ListSource {
  from: From;
  /** The matches; `nonArchived` leaves out archived projects where the list spans several. */
  find<R extends Rec>(req: FindRequest, nonArchived: boolean): R[];
}

/**
 * Every project with issuables (a user is needed unless `scope=all`, the raw value), the group's projects,
 * or the project (`canList` may refuse it).
 */
export function listSource(c: Ctx, scope: ListScope, canList?: (project: Project) => void): ListSource {
  if (scope === 'global') {
    if (c.get('params').scope !== 'all') requireUser(c);
    return {
      from: null,
      find: (req, nonArchived) =>
        findInProjects(findContext(c), projectsWithIssuables(state(c)), req, nonArchived),
    };
  }
  if (scope === 'group') {
    const group = findGroup(c, c.req.param('id') ?? '');
    return {
      from: { group },
      find: (req, nonArchived) =>
        findInProjects(findContext(c), groupProjectIds(state(c), group.id), req, nonArchived),
    };
  }
  const project = loadProject(c);
  canList?.(project);
  return { from: { project }, find: (req) => findInOneProject(findContext(c), project, req) };
}

/** `POST .../subscribe` and `.../unsubscribe` once the target is found: 304 when nothing changes. */
export function toggleSubscription(
  c: Ctx,
  type: 'Issue' | 'MergeRequest',
  rec: Rec,
  project: Project,
  user: UserRecord,
  subscribe: boolean,
): void {
  if (isSubscribed(state(c), type, rec, user) === subscribe) throw notModified();
  write(c, (d) => setSubscription(d, type, rec.id, project.id, user.id, subscribe));
}

/** `POST .../todo` once the target is found: a `marked` todo (304 when one is pending), with its target. */
export function sendMarkedTodo(
  c: Ctx,
  type: 'Issue' | 'MergeRequest',
  rec: Rec,
  user: UserRecord,
  renderTarget: (r: IssuableRenderer, st: PlatformState) => Json,
): Response {
  if (pendingTodo(state(c), type, rec.id, user.id) !== undefined) throw notModified();
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => markTodo(d, type, rec, user.id, now));
  const st = state(c);
  const r = issuableRenderer(c);
  const target = renderTarget(r, st);
  return c.json(r.todo(tget(st.issuables.todos, id)!, target, target.web_url as string), 201);
}
