/**
 * Project and group milestones: list, get, create, update (`state_event` close/activate), delete, their
 * issues and merge requests, burndown events (paid tiers) and promotion of a project milestone to a
 * group milestone. Every route needs a user first (`before { authenticate! }`).
 */
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { canReadGroup, findGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { atLeastOneOf, p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { rubyInspect } from '../groups/model.js';
import type { Project } from '../projects/model.js';
import { abilities, canAdminGroupMilestones } from './access.js';
import { findContext, loadProject } from './common.js';
import { issuableRenderer } from './entities.js';
import { findInOneProject, findInProjects, groupProjectIds, parseSearch, type Filters } from './finder.js';
import {
  createMilestone,
  deleteMilestone,
  milestoneProjects,
  milestoneTitleTaken,
  promoteMilestone,
} from './model.js';
import type { IssueRecord, MergeRequestRecord, MilestoneRecord } from './store.js';

type Parent = { kind: 'project'; project: Project } | { kind: 'group'; group: GroupRecord };

const ownerOf = (parent: Parent) =>
  parent.kind === 'project' ? { project_id: parent.project.id } : { group_id: parent.group.id };

/** `user_project` / `user_group`, after the user check every milestone route starts with. */
function loadParent(c: Ctx, kind: 'project' | 'group'): Parent {
  requireUser(c);
  return kind === 'project'
    ? { kind, project: loadProject(c) }
    : { kind, group: findGroup(c, c.req.param('id') ?? '') };
}

/** `admin_milestone`: developers and up of the project or group, and admins. */
function canAdmin(st: PlatformState, c: Ctx, parent: Parent): boolean {
  const user = c.get('viewer').user;
  if (parent.kind === 'group') return canAdminGroupMilestones(st, user, parent.group);
  return abilities(st, user, parent.project).developer;
}

function ownMilestones(st: PlatformState, parent: Parent): MilestoneRecord[] {
  const key = parent.kind === 'project' ? `p${parent.project.id}` : `g${parent.group.id}`;
  return mget(st.issuables.idx.owned, key).map((id) => tget(st.issuables.milestones, id)!);
}

function findMilestone(st: PlatformState, parent: Parent, id: number): MilestoneRecord {
  const m = tget(st.issuables.milestones, id);
  const mine =
    m && (parent.kind === 'project' ? m.project_id === parent.project.id : m.group_id === parent.group.id);
  if (!m || !mine) throw recordNotFound('no such milestone here');
  return m;
}

/** The group and its ancestors the viewer can read (`include_parent_milestones`). */
function ancestorGroups(c: Ctx, start: GroupRecord | undefined): GroupRecord[] {
  const st = state(c);
  const out: GroupRecord[] = [];
  for (let g = start; g; g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id))
    if (canReadGroup(st, c.get('viewer').user, g)) out.push(g);
  return out;
}

const listShape = {
  state: p.str().values(['active', 'closed', 'all']).default('all'),
  iids: p.intArray({ commaSeparated: true }),
  title: p.str(),
  search: p.str(),
  include_parent_milestones: p.bool(),
  ...paginationParams,
};

function list(kind: 'project' | 'group') {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, listShape);
    const parent = loadParent(c, kind);
    const st = state(c);
    let all = ownMilestones(st, parent);
    if (prm.include_parent_milestones) {
      const start =
        parent.kind === 'group'
          ? parent.group
          : parent.project.namespace_kind === 'group'
            ? tget(st.groups, parent.project.namespace_id)
            : undefined;
      const groups = ancestorGroups(c, start);
      for (const g of groups)
        if (parent.kind === 'project' || g.id !== parent.group.id)
          all = all.concat(ownMilestones(st, { kind: 'group', group: g }));
    }
    if (prm.state !== 'all') all = all.filter((m) => m.state === prm.state);
    if (prm.iids?.length && !prm.include_parent_milestones)
      all = all.filter((m) => prm.iids!.includes(m.iid));
    if (prm.title !== undefined) all = all.filter((m) => m.title === prm.title);
    if (prm.search) {
      const s = parseSearch(prm.search)!;
      const hit = (t: string | null) =>
        t !== null &&
        (s.exact !== null ? t.toLowerCase() === s.exact : s.words.every((w) => t.toLowerCase().includes(w)));
      all = all.filter((m) => hit(m.title) || hit(m.description));
    }
    all.sort((a, b) => b.id - a.id);
    const r = issuableRenderer(c);
    return paginate(c, all, (m) => r.milestone(m));
  };
}

function show(kind: 'project' | 'group') {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, { milestone_id: p.int().required() });
    const parent = loadParent(c, kind);
    return c.json(issuableRenderer(c).milestone(findMilestone(state(c), parent, prm.milestone_id)));
  };
}

/** `YYYY-MM-DD` as ActiveRecord casts a date string; anything else is no date. */
function castDate(s: string | undefined): string | null | undefined {
  if (s === undefined) return undefined;
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(s.trim());
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCDate() !== Number(m[3]) ? null : d.toISOString().slice(0, 10);
}

function milestoneErrors(
  st: PlatformState,
  parent: Parent,
  m: { title: string; start_date: string | null; due_date: string | null },
  exceptId?: number,
): Record<string, string[]> | null {
  const errors: Record<string, string[]> = {};
  if (m.title.trim() === '') errors.title = ["can't be blank"];
  else if (milestoneTitleTaken(st, ownerOf(parent), m.title, exceptId))
    errors.title = ['has already been taken'];
  if (m.start_date && m.due_date && m.due_date < m.start_date)
    errors.due_date = ['must be greater than start date'];
  return Object.keys(errors).length ? errors : null;
}

const optionalParams = { description: p.str(), due_date: p.str(), start_date: p.str() };

function create(kind: 'project' | 'group') {
  return (c: Ctx): Response => {
    const prm = parse(c, { title: p.str().required(), ...optionalParams });
    const parent = loadParent(c, kind);
    const st = state(c);
    if (!canAdmin(st, c, parent)) throw forbidden();
    const fields = {
      title: prm.title,
      description: prm.description ?? null,
      due_date: castDate(prm.due_date) ?? null,
      start_date: castDate(prm.start_date) ?? null,
    };
    const errors = milestoneErrors(st, parent, fields);
    if (errors) throw apiError(400, `Failed to create milestone ${rubyInspect(errors)}`);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => createMilestone(d, ownerOf(parent), fields, now));
    return c.json(issuableRenderer(c).milestone(tget(state(c).issuables.milestones, id)), 201);
  };
}

function update(kind: 'project' | 'group') {
  return (c: Ctx): Response => {
    const prm = parse(c, {
      milestone_id: p.int().required(),
      title: p.str(),
      state_event: p.str().values(['close', 'activate'] as const),
      ...optionalParams,
    });
    atLeastOneOf(c.get('params'), 'title', 'description', 'start_date', 'due_date', 'state_event');
    const parent = loadParent(c, kind);
    const st = state(c);
    if (!canAdmin(st, c, parent)) throw forbidden();
    const m = findMilestone(st, parent, prm.milestone_id);
    const next = {
      title: prm.title ?? m.title,
      description: prm.description !== undefined ? prm.description : m.description,
      due_date: prm.due_date !== undefined ? (castDate(prm.due_date) ?? null) : m.due_date,
      start_date: prm.start_date !== undefined ? (castDate(prm.start_date) ?? null) : m.start_date,
    };
    const errors = milestoneErrors(st, parent, next, m.id);
    if (errors) throw apiError(400, `Failed to update milestone ${rubyInspect(errors)}`);
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      const rec = tget(d.issuables.milestones, m.id)!;
      let changed = false;
      for (const k of ['title', 'description', 'due_date', 'start_date'] as const)
        if (rec[k] !== next[k]) {
          (rec as Record<string, unknown>)[k] = next[k];
          changed = true;
        }
      const nextState =
        prm.state_event === 'close' ? 'closed' : prm.state_event === 'activate' ? 'active' : rec.state;
      if (nextState !== rec.state) {
        rec.state = nextState;
        changed = true;
      }
      if (changed) rec.updated_at = now;
      // Lists show milestones inside issues: their projects' caches must see the change.
      for (const pid of milestoneProjects(d, rec)) {
        const meta = tget(d.issuables.projectMeta, pid);
        if (meta) meta.version++;
      }
    });
    return c.json(issuableRenderer(c).milestone(tget(state(c).issuables.milestones, m.id)));
  };
}

function remove(kind: 'project' | 'group') {
  return (c: Ctx): Response => {
    const prm = parse(c, { milestone_id: p.int().required() });
    const parent = loadParent(c, kind);
    const st = state(c);
    if (!canAdmin(st, c, parent)) throw forbidden();
    const m = findMilestone(st, parent, prm.milestone_id);
    checkUnmodifiedSince(c, m.updated_at);
    const user = c.get('viewer').user!;
    const now = c.get('fx').clock.iso();
    write(c, (d) => deleteMilestone(d, m.id, user.id, now));
    return c.body(null, 204);
  };
}

/** The issues or merge requests of a milestone: by its title, in label priority order. */
function issuables(kind: 'project' | 'group', what: 'i' | 'm') {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, { milestone_id: p.int().required(), ...paginationParams });
    const parent = loadParent(c, kind);
    const st = state(c);
    const m = findMilestone(st, parent, prm.milestone_id);
    const filters: Filters = { scope: 'all', milestone: m.title, not: {} };
    const req = { kind: what, filters, orderBy: 'label_priority' as const, sort: 'asc' as const };
    const ctx = findContext(c);
    const list =
      parent.kind === 'project'
        ? findInOneProject<IssueRecord | MergeRequestRecord>(ctx, parent.project, req)
        : findInProjects<IssueRecord | MergeRequestRecord>(
            ctx,
            groupProjectIds(st, parent.group.id),
            req,
            false,
          );
    const r = issuableRenderer(c);
    return paginate(c, list, (x) =>
      what === 'i' ? r.issue(x as IssueRecord, { basic: true }) : r.mergeRequest(x as MergeRequestRecord),
    );
  };
}

/** Burndown chart events (paid tiers): each issue's creation, closing and reopening, oldest first. */
function burndown(kind: 'project' | 'group') {
  return (c: Ctx): Response => {
    requireUser(c);
    // Paginated with the usual headers: the spec gives every array answer its pagination headers.
    const prm = parse(c, { milestone_id: p.int().required(), ...paginationParams });
    const parent = loadParent(c, kind);
    const st = state(c);
    const m = findMilestone(st, parent, prm.milestone_id);
    const req = {
      kind: 'i' as const,
      filters: { scope: 'all', not: {} } as Filters,
      orderBy: 'created_at' as const,
      sort: 'asc' as const,
    };
    const ctx = findContext(c);
    const issues =
      parent.kind === 'project'
        ? findInOneProject<IssueRecord>(ctx, parent.project, req)
        : findInProjects<IssueRecord>(ctx, groupProjectIds(st, parent.group.id), req, false);
    const events: { created_at: string; weight: number | null; action: string }[] = [];
    for (const i of issues) {
      if (i.milestone_id !== m.id) continue;
      events.push({ created_at: i.created_at, weight: i.weight, action: 'created' });
      for (const eid of mget(st.issuables.idx.byTarget, `eIssue:${i.id}`)) {
        const e = tget(st.issuables.events, eid)!;
        if (e.kind === 'state' && (e.state === 'closed' || e.state === 'reopened'))
          events.push({ created_at: e.created_at, weight: i.weight, action: e.state });
      }
    }
    events.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    return paginate(c, events, (e) => e);
  };
}

function promote(c: Ctx): Response {
  const prm = parse(c, { milestone_id: p.int().required() });
  const parent = loadParent(c, 'project') as { kind: 'project'; project: Project };
  const st = state(c);
  const project = parent.project;
  if (!canAdmin(st, c, parent)) throw forbidden();
  const group = project.namespace_kind === 'group' ? tget(st.groups, project.namespace_id) : undefined;
  if (!group || !canAdminGroupMilestones(st, c.get('viewer').user, group)) throw forbidden();
  const m = findMilestone(st, parent, prm.milestone_id);
  if (milestoneTitleTaken(st, { group_id: group.id }, m.title))
    throw apiError(400, 'Promotion failed - Title has already been taken');
  const now = c.get('fx').clock.iso();
  write(c, (d) => promoteMilestone(d, m.id, group.id, now));
  return c.json(200, 200);
}

export function milestonesRoutes(r: ApiRouter): void {
  for (const kind of ['project', 'group'] as const) {
    const base = kind === 'project' ? '/projects/:id/milestones' : '/groups/:id/milestones';
    r.get(base, list(kind));
    r.get(`${base}/:milestone_id`, show(kind));
    r.post(base, create(kind));
    r.put(`${base}/:milestone_id`, update(kind));
    r.delete(`${base}/:milestone_id`, remove(kind));
    r.get(`${base}/:milestone_id/issues`, issuables(kind, 'i'));
    r.get(`${base}/:milestone_id/merge_requests`, issuables(kind, 'm'));
    r.get(`${base}/:milestone_id/burndown_events`, { tier: 'premium' }, burndown(kind));
  }
  r.post('/projects/:id/milestones/:milestone_id/promote', promote);
}
