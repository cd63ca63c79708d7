/**
 * Issue links (`lib/api/issue_links.rb`): an issue's related issues, relating two issues (across
 * projects with `target_project_id`) and removing a relation. Every route needs a user first; relating
 * and removing need `admin_issue_link` (reporters) on both issues; `blocks` and `is_blocked_by` are for
 * paid tiers (`relates_to` everywhere).
 */
import { findProject } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { madd, mget, tget, tset } from '../../core/table.js';
import { nextId } from '../../core/state.js';
import type { Project } from '../projects/model.js';
import { abilities, canSeeIssue } from './access.js';
import { findIssue, loadProject } from './common.js';
import { issuableRenderer } from './entities.js';
import { projectMeta, removeIssueLink } from './model.js';
import type { IssueLinkRecord, IssueRecord } from './store.js';

const LINK_TYPES = ['relates_to', 'blocks', 'is_blocked_by'] as const;

/** `admin_issue_link` on an issue's project: reporters and up. */
function canLink(c: Ctx, issue: IssueRecord): boolean {
  const project = tget(state(c).projects, issue.project_id) as Project;
  return abilities(state(c), c.get('viewer').user, project).adminIssue;
}

/** `find_project_issue(iid, project_id)`: the project (404 Project), then the issue through the finder. */
function findIn(c: Ctx, projectId: string, iid: number): IssueRecord {
  const project = findProject(c, projectId) as Project;
  return findIssue(c, project, iid);
}

/** `Entities::IssueLink`. */
function linkEntity(c: Ctx, l: IssueLinkRecord) {
  const st = state(c);
  const r = issuableRenderer(c);
  return {
    source_issue: r.issue(tget(st.issuables.issues, l.source_id)!, { basic: true }),
    target_issue: r.issue(tget(st.issuables.issues, l.target_id)!, { basic: true }),
    link_type: l.link_type,
  };
}

const iidShape = { issue_iid: p.int().required() };

function list(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const issue = findIssue(c, loadProject(c), prm.issue_iid);
  const st = state(c);
  const user = c.get('viewer').user;
  const related = mget(st.issuables.idx.links, String(issue.id)).flatMap((id) => {
    const l = tget(st.issuables.links, id)!;
    const other = tget(st.issuables.issues, l.source_id === issue.id ? l.target_id : l.source_id);
    const project = other && (tget(st.projects, other.project_id) as Project | undefined);
    if (!other || !project || !canSeeIssue(abilities(st, user, project), other)) return [];
    // A `blocks` link reads the other way round from its target.
    const type = l.link_type === 'blocks' && l.target_id === issue.id ? 'is_blocked_by' : l.link_type;
    return [{ l, other, type }];
  });
  const r = issuableRenderer(c);
  // `Entities::RelatedIssue`: the issue, with the link's id, type and times (13.7+).
  return paginate(c, related, (x) => ({
    ...r.issue(x.other),
    issue_link_id: x.l.id,
    link_type: x.type,
    link_created_at: x.l.created_at,
    link_updated_at: x.l.updated_at,
  }));
}

function create(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, {
    ...iidShape,
    target_project_id: p.str().required(),
    target_issue_iid: p.int().required(),
    link_type: p.str().values(LINK_TYPES),
  });
  const source = findIssue(c, loadProject(c), prm.issue_iid);
  const target = findIn(c, prm.target_project_id, prm.target_issue_iid);
  const type = prm.link_type ?? 'relates_to';
  if (type !== 'relates_to' && c.get('fx').tier() === 'free')
    throw apiError(403, 'Blocked issues not available for current license');
  if (!canLink(c, source) || !canLink(c, target))
    throw apiError(404, 'No matching issue found. Make sure that you are adding a valid issue URL.');
  const st = state(c);
  const linked = mget(st.issuables.idx.links, String(source.id)).some((id) => {
    const l = tget(st.issuables.links, id)!;
    return (l.source_id === source.id ? l.target_id : l.source_id) === target.id;
  });
  if (linked) throw apiError(409, 'Issue(s) already assigned');
  if (source.id === target.id)
    throw apiError(422, `#${target.iid} cannot be added: cannot be related to itself`);
  const now = c.get('fx').clock.iso();
  // `is_blocked_by` is kept as the target blocking the source.
  const [from, to] = type === 'is_blocked_by' ? [target, source] : [source, target];
  const id = write(c, (d) => {
    const id = nextId(d, 'issue_links');
    tset(d.issuables.links, id, {
      id,
      source_id: from.id,
      target_id: to.id,
      link_type: type === 'relates_to' ? 'relates_to' : 'blocks',
      created_at: now,
      updated_at: now,
    });
    madd(d.issuables.idx.links, String(from.id), id);
    madd(d.issuables.idx.links, String(to.id), id);
    projectMeta(d, from.project_id);
    projectMeta(d, to.project_id);
    return id;
  });
  return c.json(linkEntity(c, tget(state(c).issuables.links, id)!), 201);
}

function remove(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, { ...iidShape, issue_link_id: p.int().required() });
  const st = state(c);
  const link = tget(st.issuables.links, prm.issue_link_id);
  if (!link) throw recordNotFound('no such issue link');
  findIssue(c, loadProject(c), prm.issue_iid);
  const target = tget(st.issuables.issues, link.target_id)!;
  findIn(c, String(target.project_id), target.iid);
  const source = tget(st.issuables.issues, link.source_id)!;
  if (!canLink(c, source) || !canLink(c, target)) throw apiError(404, 'No Issue Link found');
  const body = linkEntity(c, link);
  write(c, (d) => {
    removeIssueLink(d, link.id);
    projectMeta(d, source.project_id);
    projectMeta(d, target.project_id);
  });
  return c.json(body);
}

export function issueLinksRoutes(r: ApiRouter): void {
  r.get('/projects/:id/issues/:issue_iid/links', list);
  r.post('/projects/:id/issues/:issue_iid/links', create);
  r.delete('/projects/:id/issues/:issue_iid/links/:issue_link_id', remove);
}
