/**
 * Issues in an epic (paid tiers, `ee/lib/api/epic_issues.rb`). Every route needs a user; the epic is
 * found as the epics API finds it (missing or hidden: `403 Forbidden`). Listing needs `read_epic`;
 * assigning needs `admin_epic` and an issue the user reads in a project of the epic's group or its
 * subgroups; an issue is in one epic at most, so assigning moves it. Reordering and removing need
 * `admin_epic`, and the link must belong to the epic.
 */
import { requireUser } from '../../core/auth.js';
import { findGroup } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { atLeastOneOf, p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { sendJson } from '../../core/respond.js';
import type { GroupRecord, PlatformState } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { descendantIds } from '../groups/model.js';
import type { Project } from '../projects/model.js';
import { abilities, canSeeIssue } from './access.js';
import { issuableRenderer } from './entities.js';
import { epicEntity, epicLevel, findEpic } from './epics.js';
import { EPIC_ISSUE_GAP, linkEpicIssue, unlinkEpicIssue } from './model/snippets.js';
import type { EpicIssueRecord, EpicRecord } from './store.js';

const denied = (explain: string) => apiError(403, '403 Forbidden', explain);

/** The epic's links in the platform's order (`relative_position`, then id), their issues readable. */
function readableLinks(c: Ctx, e: EpicRecord): EpicIssueRecord[] {
  const st = state(c);
  const user = c.get('viewer').user;
  return mget(st.issuables.idx.owned, `ee${e.id}`)
    .map((id) => tget(st.issuables.epicIssues, id)!)
    .filter((l) => {
      const issue = tget(st.issuables.issues, l.issue_id);
      const project = issue && (tget(st.projects, issue.project_id) as Project | undefined);
      return !!issue && !!project && canSeeIssue(abilities(st, user, project), issue);
    })
    .sort((a, b) => a.relative_position - b.relative_position || a.id - b.id);
}

/** `EpicIssue`: the issue with the link's id and position. */
function epicIssueEntity(c: Ctx, l: EpicIssueRecord) {
  const r = issuableRenderer(c);
  const issue = tget(state(c).issuables.issues, l.issue_id)!;
  return { ...(r.issue(issue) as object), epic_issue_id: l.id, relative_position: l.relative_position };
}

/** `EpicIssueLink`. */
function linkEntity(c: Ctx, l: EpicIssueRecord) {
  const st = state(c);
  const r = issuableRenderer(c);
  return {
    id: l.id,
    relative_position: l.relative_position,
    epic: epicEntity(c, tget(st.issuables.epics, l.epic_id)!),
    issue: r.issue(tget(st.issuables.issues, l.issue_id)!),
  };
}

function epicOf(c: Ctx, iid: number): { g: GroupRecord; e: EpicRecord } {
  const g = findGroup(c, c.req.param('id') ?? '');
  return { g, e: findEpic(c, g, iid) };
}

function requireAdmin(c: Ctx, g: GroupRecord): void {
  if (!epicLevel(state(c), c, g).reporter)
    throw denied('changing epic issues needs reporter access to the group');
}

/** `epic.epic_issues.find`: a link of another epic is the record's 404. */
function linkOf(st: PlatformState, e: EpicRecord, linkId: number): EpicIssueRecord {
  const l = tget(st.issuables.epicIssues, linkId);
  if (!l || l.epic_id !== e.id) throw recordNotFound(`no issue link ${linkId} in this epic`);
  return l;
}

const iidShape = { epic_iid: p.int().required() };

function list(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const { e } = epicOf(c, prm.epic_iid);
  return paginate(c, readableLinks(c, e), (l) => epicIssueEntity(c, l));
}

function assign(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, { ...iidShape, issue_id: p.int().required() });
  const { g, e } = epicOf(c, prm.epic_iid);
  const st = state(c);
  const issue = tget(st.issuables.issues, prm.issue_id);
  if (!issue) throw recordNotFound(`no issue with id ${prm.issue_id}`);
  requireAdmin(c, g);
  const project = tget(st.projects, issue.project_id) as Project | undefined;
  const family = new Set([g.id, ...descendantIds(st, g.id)]);
  const readable = !!project && canSeeIssue(abilities(st, c.get('viewer').user, project), issue);
  if (!project || !readable || project.namespace_kind !== 'group' || !family.has(project.namespace_id))
    throw apiError(404, 'No Issue found for given params');
  const current = mget(st.issuables.idx.owned, `ie${issue.id}`)[0];
  if (current !== undefined && tget(st.issuables.epicIssues, current)?.epic_id === e.id)
    throw apiError(409, 'Issue(s) already assigned');
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => linkEpicIssue(d, e.id, issue.id, now));
  return sendJson(linkEntity(c, tget(state(c).issuables.epicIssues, id)!), 201);
}

function reorder(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, {
    ...iidShape,
    epic_issue_id: p.int().required(),
    move_before_id: p.int(),
    move_after_id: p.int(),
  });
  atLeastOneOf(c.get('params'), 'move_before_id', 'move_after_id');
  const { g, e } = epicOf(c, prm.epic_iid);
  requireAdmin(c, g);
  const st = state(c);
  const moved = linkOf(st, e, prm.epic_issue_id);
  const sibling = (id: number | undefined) => {
    if (id === undefined) return undefined;
    const l = tget(st.issuables.epicIssues, id);
    return l && l.epic_id === e.id && l.id !== moved.id ? l : null;
  };
  const before = sibling(prm.move_before_id);
  const after = sibling(prm.move_after_id);
  if (before === null || after === null) throw apiError(400, { error: 'Issue could not be moved!' });
  // The new order: the moved link right after `before` (the one placed above it), or right before `after`.
  const order = mget(st.issuables.idx.owned, `ee${e.id}`)
    .map((id) => tget(st.issuables.epicIssues, id)!)
    .filter((l) => l.id !== moved.id)
    .sort((a, b) => a.relative_position - b.relative_position || a.id - b.id);
  const at = before
    ? order.findIndex((l) => l.id === before.id) + 1
    : order.findIndex((l) => l.id === after!.id);
  order.splice(at, 0, moved);
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const prev = order[at - 1]?.relative_position;
    const next = order[at + 1]?.relative_position;
    const rec = tget(d.issuables.epicIssues, moved.id)!;
    const between =
      prev === undefined
        ? next! - EPIC_ISSUE_GAP
        : next === undefined
          ? prev + EPIC_ISSUE_GAP
          : Math.floor((prev + next) / 2);
    if (between !== prev && between !== next) rec.relative_position = between;
    // No room between the neighbours: spread the whole list again.
    else
      order.forEach((l, k) => (tget(d.issuables.epicIssues, l.id)!.relative_position = k * EPIC_ISSUE_GAP));
    rec.updated_at = now;
  });
  return paginate(c, readableLinks(c, tget(state(c).issuables.epics, e.id)!), (l) => epicIssueEntity(c, l));
}

function remove(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, { ...iidShape, epic_issue_id: p.int().required() });
  const { g, e } = epicOf(c, prm.epic_iid);
  requireAdmin(c, g);
  const l = linkOf(state(c), e, prm.epic_issue_id);
  const body = linkEntity(c, l);
  write(c, (d) => unlinkEpicIssue(d, l.id));
  return sendJson(body);
}

export function epicIssuesRoutes(r: ApiRouter): void {
  const o = { tier: 'premium' } as const;
  r.get('/groups/:id/epics/:epic_iid/issues', o, list);
  r.post('/groups/:id/epics/:epic_iid/issues/:issue_id', o, assign);
  r.put('/groups/:id/epics/:epic_iid/issues/:epic_issue_id', o, reorder);
  r.delete('/groups/:id/epics/:epic_iid/issues/:epic_issue_id', o, remove);
}
