/**
 * Child epics (`ee/lib/api/epic_links.rb`): list, link, create-and-link, reorder and unlink. Every route
 * needs a user (`authenticate!`) and a readable group (`find_group!`, 404). Listing needs `read_epic`;
 * linking, creating and reordering need the licensed `subepics` feature (ultimate: 403 below it) and
 * `admin_epic_link` (reporters); unlinking needs only `destroy_epic_link` (reporters, any paid tier). The
 * parent is found as the epics API finds it (missing or hidden: `403 Forbidden`); a child is found by its
 * global id among the epics of the group and its subgroups the user reads.
 */
import { canReadGroup, findGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, notFound, validationError } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { sendJson } from '../../core/respond.js';
import type { GroupRecord, PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { descendantIds } from '../groups/model.js';
import { issuableRenderer } from './entities.js';
import { canReadEpic, epicEntity, epicLevel, findEpic } from './epics.js';
import { createEpic, EPIC_ISSUE_GAP } from './model/snippets.js';
import type { EpicRecord } from './store.js';

const denied = (explain: string) => apiError(403, '403 Forbidden', explain);

/** `Epic::MAX_HIERARCHY_DEPTH`. */
export const MAX_HIERARCHY_DEPTH = 7;
const TITLE_MAX = 255;

/** The epics by parent id, for one request's walk of the tree. */
function childrenMap(st: PlatformState): Map<number, EpicRecord[]> {
  const out = new Map<number, EpicRecord[]>();
  for (const e of tvalues(st.issuables.epics)) {
    if (e.parent_id == null) continue;
    const l = out.get(e.parent_id);
    if (l) l.push(e);
    else out.set(e.parent_id, [e]);
  }
  return out;
}

/** `base_and_ancestors.count`: none for an epic without a parent (the platform's `none` scope), else itself and every ancestor. */
function baseAndAncestorsCount(st: PlatformState, e: EpicRecord): number {
  if (e.parent_id == null) return 0;
  const seen = new Set<number>();
  for (let x: EpicRecord | undefined = e; x && !seen.has(x.id);) {
    seen.add(x.id);
    x = x.parent_id == null ? undefined : tget(st.issuables.epics, x.parent_id);
  }
  return seen.size;
}

/** `has_ancestor?`: whether `ancestor` is above `e`. */
function hasAncestor(st: PlatformState, e: EpicRecord, ancestor: EpicRecord): boolean {
  const seen = new Set<number>([e.id]);
  for (let id = e.parent_id; id != null && !seen.has(id);) {
    if (id === ancestor.id) return true;
    seen.add(id);
    id = tget(st.issuables.epics, id)?.parent_id;
  }
  return false;
}

/** `hierarchy.max_descendants_depth`: 1 for an epic alone, one more per level of children below it. */
function descendantsDepth(kids: Map<number, EpicRecord[]>, e: EpicRecord): number {
  let depth = 0;
  const seen = new Set<number>();
  for (let level = [e]; level.length; depth++) {
    level.forEach((x) => seen.add(x.id));
    level = level.flatMap((x) => kids.get(x.id) ?? []).filter((x) => !seen.has(x.id));
  }
  return depth;
}

/** `Epic#validate_parent`: the first rule a child breaks under `parent`, as the model words it. */
function parentProblem(st: PlatformState, child: EpicRecord, parent: EpicRecord): string | undefined {
  const kids = childrenMap(st);
  const parentGroup = tget(st.groups, parent.group_id);
  const family = new Set(parentGroup ? [parentGroup.id, ...descendantIds(st, parentGroup.id)] : []);
  if (child.id === parent.id) return 'This epic cannot be added. An epic cannot be added to itself.';
  if (child.parent_id === parent.id)
    return 'This epic cannot be added. It is already assigned to the parent epic.';
  if (hasAncestor(st, parent, child))
    return 'This epic cannot be added. It is already an ancestor of the parent epic.';
  if (!family.has(child.group_id))
    return 'This epic cannot be added. An epic must belong to the same group or subgroup as its parent epic.';
  if (descendantsDepth(kids, child) + baseAndAncestorsCount(st, parent) >= MAX_HIERARCHY_DEPTH)
    return `This epic cannot be added. One or more epics would exceed the maximum depth (${MAX_HIERARCHY_DEPTH}) from its most distant ancestor.`;
  return undefined;
}

/** The model's confidentiality rules on save (`validate_confidential_issues_and_subepics`, `validate_confidential_parent`). */
function confidentialityProblems(st: PlatformState, e: EpicRecord, parent: EpicRecord | undefined): string[] {
  const out: string[] = [];
  if (e.confidential) {
    const issues = [...tvalues(st.issuables.epicIssues)].filter((l) => l.epic_id === e.id);
    if (issues.some((l) => tget(st.issuables.issues, l.issue_id)?.confidential === false))
      out.push('Cannot make the epic confidential if it contains non-confidential issues');
    if ((childrenMap(st).get(e.id) ?? []).some((x) => !x.confidential))
      out.push('Cannot make the epic confidential if it contains non-confidential child epics');
  }
  if (parent && !e.confidential && parent.confidential)
    out.push('A non-confidential epic cannot be assigned to a confidential parent epic');
  return out;
}

/** Rails' `Array#to_sentence`. */
const toSentence = (l: string[]) =>
  l.length < 3 ? l.join(' and ') : `${l.slice(0, -1).join(', ')}, and ${l[l.length - 1]}`;

/** `find_epics(finder_params: { group_id })`: the group's and its subgroups' epics the user reads. */
function childEpic(c: Ctx, g: GroupRecord, id: number): EpicRecord | undefined {
  const st = state(c);
  const e = tget(st.issuables.epics, id);
  if (!e) return undefined;
  const eg = tget(st.groups, e.group_id);
  if (!eg || (eg.id !== g.id && !descendantIds(st, g.id).includes(eg.id))) return undefined;
  if (!canReadGroup(st, c.get('viewer').user, eg) || !canReadEpic(st, c, e, eg)) return undefined;
  return e;
}

/** `EpicsFinder(parent_id:, group_id:, sort: 'relative_position')`: `relative_position ASC` (nulls last), `id DESC`. */
function children(c: Ctx, g: GroupRecord, parent: EpicRecord): EpicRecord[] {
  const st = state(c);
  const pos = (e: EpicRecord) => e.relative_position ?? Number.POSITIVE_INFINITY;
  return [...tvalues(st.issuables.epics)]
    .filter((e) => e.parent_id === parent.id && childEpic(c, g, e.id) !== undefined)
    .sort((a, b) => (pos(a) === pos(b) ? b.id - a.id : pos(a) < pos(b) ? -1 : 1));
}

/** The parent's children in the tree's order, the one moved left out. */
function siblingsOf(st: PlatformState, parentId: number | null | undefined, except: number): EpicRecord[] {
  const pos = (e: EpicRecord) => e.relative_position ?? Number.POSITIVE_INFINITY;
  return [...tvalues(st.issuables.epics)]
    .filter((e) => (e.parent_id ?? null) === (parentId ?? null) && e.id !== except)
    .sort((a, b) => (pos(a) === pos(b) ? b.id - a.id : pos(a) < pos(b) ? -1 : 1));
}

/** `EE::API::Entities::LinkedEpic`. */
function linkedEpicEntity(c: Ctx, e: EpicRecord) {
  const st = state(c);
  const base = issuableRenderer(c).base;
  const g = tget(st.groups, e.group_id)!;
  const parent = tget(st.issuables.epics, e.parent_id!)!;
  const pg = tget(st.groups, parent.group_id)!;
  const kids = childrenMap(st);
  return {
    id: e.id,
    iid: e.iid,
    title: e.title,
    group_id: e.group_id,
    parent_id: e.parent_id ?? null,
    has_children: (kids.get(e.id) ?? []).length > 0,
    has_issues: [...tvalues(st.issuables.epicIssues)].some((l) => l.epic_id === e.id),
    // `to_reference(parent.group)`: the group's path only across groups.
    reference: e.group_id === pg.id ? `&${e.iid}` : `${g.full_path}&${e.iid}`,
    url: `${base}/groups/${g.full_path}/-/epics/${e.iid}`,
    relation_url: `${base}/groups/${pg.full_path}/-/epics/${parent.iid}/links/${e.id}`,
  };
}

/** `authorize_subepics_feature!`: multi-level epics are an ultimate feature. */
function requireSubepics(c: Ctx): void {
  if (state(c).tier !== 'ultimate') throw denied('child epics need the subepics feature (ultimate)');
}

/** `authorize_can_admin_epic_link!` / `authorize_can_destroy_epic_link!`: the epic, then reporters. */
function adminEpic(c: Ctx, g: GroupRecord, iid: number): EpicRecord {
  const e = findEpic(c, g, iid);
  if (!epicLevel(state(c), c, g).reporter) throw denied('epic links need reporter access to the group');
  return e;
}

const iidShape = { epic_iid: p.int().required() };
const groupOf = (c: Ctx) => findGroup(c, c.req.param('id') ?? '');

function list(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, iidShape);
  const g = groupOf(c);
  const e = findEpic(c, g, prm.epic_iid);
  return sendJson(children(c, g, e).map((x) => epicEntity(c, x)));
}

/** The top of the parent's list (`move_to_start`). */
function startPosition(st: PlatformState, parentId: number, except: number): number {
  const taken = siblingsOf(st, parentId, except)
    .map((x) => x.relative_position)
    .filter((x): x is number => typeof x === 'number');
  return taken.length ? Math.min(...taken) - EPIC_ISSUE_GAP : 0;
}

function link(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, { ...iidShape, child_epic_id: p.int().required() });
  const g = groupOf(c);
  requireSubepics(c);
  const parent = adminEpic(c, g, prm.epic_iid);
  const st = state(c);
  const child = childEpic(c, g, prm.child_epic_id);
  // `EpicLinks::CreateService`: no child found is the service's 404; a parent at the bottom is a 409.
  if (!child) throw apiError(404, 'No Epic found for given params');
  if (baseAndAncestorsCount(st, parent) >= MAX_HIERARCHY_DEPTH)
    throw apiError(
      409,
      "This epic can't be added because the parent is already at the maximum depth from its most distant ancestor",
    );
  const problem = parentProblem(st, child, parent);
  if (problem) throw apiError(409, problem);
  const onSave = confidentialityProblems(st, child, parent);
  if (onSave.length) throw apiError(409, toSentence(onSave));
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const rec = tget(d.issuables.epics, child.id)!;
    rec.relative_position = startPosition(st, parent.id, child.id);
    rec.parent_id = parent.id;
    rec.updated_at = now;
  });
  return sendJson(epicEntity(c, tget(state(c).issuables.epics, child.id)!), 201);
}

function create(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, {
    ...iidShape,
    title: p.str().required(),
    confidential: p.bool(),
    subgroup_id: p.str(),
  });
  const g = groupOf(c);
  requireSubepics(c);
  const parent = adminEpic(c, g, prm.epic_iid);
  let target = g;
  if (prm.subgroup_id !== undefined && prm.subgroup_id !== '') {
    // `find_group_with_ancestor!`: a readable group below the epic's group.
    const sub = findGroup(c, prm.subgroup_id);
    if (!descendantIds(state(c), g.id).includes(sub.id))
      throw notFound('Group', 'not a subgroup of the group');
    target = sub;
  }
  const st = state(c);
  const confidential = prm.confidential ?? parent.confidential;
  const errors: Record<string, string[]> = {};
  if (prm.title.trim() === '') errors.title = ["can't be blank"];
  else if (prm.title.length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`];
  // `validate_parent` on create: a new epic has no descendants (depth 0).
  if (baseAndAncestorsCount(st, parent) >= MAX_HIERARCHY_DEPTH)
    errors.parent = [
      `This epic cannot be added. One or more epics would exceed the maximum depth (${MAX_HIERARCHY_DEPTH}) from its most distant ancestor.`,
    ];
  if (!confidential && parent.confidential)
    errors.confidential = ['A non-confidential epic cannot be assigned to a confidential parent epic'];
  if (Object.keys(errors).length) throw validationError(errors);
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) =>
    createEpic(d, {
      group_id: target.id,
      author_id: c.get('viewer').user!.id,
      title: prm.title,
      description: null,
      confidential,
      created_at: now,
      updated_at: now,
      state: 'opened',
      closed_at: null,
      labels: [],
      parent_id: parent.id,
      relative_position: null,
    }),
  );
  return sendJson(linkedEpicEntity(c, tget(state(c).issuables.epics, id)!), 201);
}

function reorder(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, {
    ...iidShape,
    child_epic_id: p.int().required(),
    move_before_id: p.int(),
    move_after_id: p.int(),
  });
  const g = groupOf(c);
  requireSubepics(c);
  const parent = adminEpic(c, g, prm.epic_iid);
  const st = state(c);
  const notFoundHere = () => apiError(404, 'Epic not found for given params');
  const child = childEpic(c, g, prm.child_epic_id);
  if (!child) throw notFoundHere();
  if (prm.move_before_id !== undefined || prm.move_after_id !== undefined) {
    // `Epic.in_parents(child.parent_id).find`: the neighbours are the child's own siblings.
    const sibling = (id: number | undefined) => {
      if (id === undefined) return undefined;
      const s = tget(st.issuables.epics, id);
      if (!s || (s.parent_id ?? null) !== (child.parent_id ?? null)) throw notFoundHere();
      return s;
    };
    const before = sibling(prm.move_before_id);
    const after = sibling(prm.move_after_id);
    const order = siblingsOf(st, child.parent_id, child.id);
    // `move_between`: after `before`, before `after` (both given: between them, in position order).
    const ix = (e: EpicRecord | undefined) => (e ? order.findIndex((x) => x.id === e.id) : -1);
    const at =
      before && after
        ? Math.max(ix(before), ix(after))
        : before
          ? ix(before) + 1
          : after
            ? Math.max(ix(after), 0)
            : order.length;
    order.splice(at, 0, child);
    // Positions spread again over the list (the order is what the API shows); `save!(touch: false)`
    // leaves updated_at.
    write(c, (d) => {
      order.forEach((x, k) => {
        const rec = tget(d.issuables.epics, x.id)!;
        if (rec.relative_position !== k * EPIC_ISSUE_GAP) rec.relative_position = k * EPIC_ISSUE_GAP;
      });
    });
  }
  return sendJson(children(c, g, tget(state(c).issuables.epics, parent.id)!).map((x) => epicEntity(c, x)));
}

function unlink(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, { ...iidShape, child_epic_id: p.int().required() });
  const g = groupOf(c);
  adminEpic(c, g, prm.epic_iid);
  const child = childEpic(c, g, prm.child_epic_id);
  if (!child) throw apiError(404, '404 Not found', 'no such epic in the group or its subgroups');
  // `Epics::UpdateService(parent: nil)` on the epic named, whichever parent it has.
  const now = c.get('fx').clock.iso();
  if (child.parent_id != null)
    write(c, (d) => {
      const rec = tget(d.issuables.epics, child.id)!;
      rec.parent_id = null;
      rec.updated_at = now;
    });
  return sendJson(epicEntity(c, tget(state(c).issuables.epics, child.id)!));
}

export function epicLinksRoutes(r: ApiRouter): void {
  // Mounted on every paid tier; the licensed `subepics` feature is checked per route.
  const o = { tier: 'premium' } as const;
  r.get('/groups/:id/epics/:epic_iid/epics', o, list);
  r.post('/groups/:id/epics/:epic_iid/epics', o, create);
  r.post('/groups/:id/epics/:epic_iid/epics/:child_epic_id', o, link);
  r.put('/groups/:id/epics/:epic_iid/epics/:child_epic_id', o, reorder);
  r.delete('/groups/:id/epics/:epic_iid/epics/:child_epic_id', o, unlink);
}
