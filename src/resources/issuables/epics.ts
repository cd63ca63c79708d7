/**
 * Group epics (paid tiers, `ee/lib/api/epics.rb`): list, show, create, update and delete. Reads need no
 * user (`authenticate_non_get!`); the group must be readable (`find_group!`, 404). An epic is found
 * with `find_by` and then authorized, so a missing epic is the same `403 Forbidden` as a hidden one.
 * Reporters administer epics (`admin_epic`); owners delete them (`destroy_epic`). Confidential epics
 * are for reporters and up.
 */
import type { Draft } from 'immer';
import { canReadGroup, findGroup, groupAccess } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { atLeastOneOf, p, type Parsed } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { sendJson } from '../../core/respond.js';
import type { GroupRecord, PlatformState } from '../../core/state.js';
import { mget, mremove, tdelete, tget, tvalues } from '../../core/table.js';
import { descendantIds, selfAndAncestors } from '../groups/model.js';
import { issuableRenderer, type IssuableRenderer } from './entities.js';
import { deleteNote, removeAward, removeTargetSatellites, resourceEvent } from './model.js';
import { createEpic, unlinkEpic } from './model/snippets.js';
import type { EpicRecord } from './store.js';

/** `authorize!`: a bare `403 Forbidden`, the reason only in the journal. */
const denied = (explain: string) => apiError(403, '403 Forbidden', explain);

const TITLE_MAX = 255;
const DESCRIPTION_MAX = 1_048_576;
const LABELS_MAX = 100;

/** What the viewer may do with a group's epics. */
export function epicLevel(st: PlatformState, c: Ctx, g: GroupRecord) {
  const user = c.get('viewer').user;
  const admin = user?.admin === true;
  const level = groupAccess(st, user, g);
  return {
    reporter: admin || level >= 20,
    owner: admin || level >= 50,
  };
}

/** `read_epic`: a confidential epic is for reporters and up. */
export const canReadEpic = (st: PlatformState, c: Ctx, e: EpicRecord, g: GroupRecord) =>
  !e.confidential || epicLevel(st, c, g).reporter;

/** `epic` then `authorize!`: a missing epic and one the viewer may not read are both `403 Forbidden`. */
export function findEpic(c: Ctx, g: GroupRecord, iid: number): EpicRecord {
  const st = state(c);
  const id = mget(st.issuables.idx.owned, `eg${g.id}`).find((x) => tget(st.issuables.epics, x)?.iid === iid);
  const e = id === undefined ? undefined : tget(st.issuables.epics, id);
  if (!e) throw denied(`no epic &${iid} in this group`);
  if (!canReadEpic(st, c, e, g)) throw denied('a confidential epic, for reporters and up');
  return e;
}

function votes(st: PlatformState, e: EpicRecord, name: string): number {
  return mget(st.issuables.idx.awards, `Epic:${e.id}`).filter(
    (a) => tget(st.issuables.awards, a)?.name === name,
  ).length;
}

/** `LabelBasic` of the group label (of the group or an ancestor) with that name; just the name without one. */
function labelDetails(st: PlatformState, r: IssuableRenderer, g: GroupRecord, name: string) {
  for (const x of selfAndAncestors(st, g))
    for (const id of mget(st.issuables.idx.owned, `lg${x.id}`)) {
      const l = tget(st.issuables.labels, id);
      if (l && l.title === name) return r.label(l);
    }
  return { name };
}

/** `EE::API::Entities::Epic`. */
export function epicEntity(c: Ctx, e: EpicRecord, o: { subscribed?: boolean; labelsDetails?: boolean } = {}) {
  const st = state(c);
  const r = issuableRenderer(c);
  const g = tget(st.groups, e.group_id)!;
  const api = `${r.base}/api/v4/groups/${g.id}/epics/${e.iid}`;
  const startFixed = e.start_date_fixed ?? null;
  const dueFixed = e.due_date_fixed ?? null;
  // Without issues and milestones the inherited dates are empty; a fixed date counts when flagged.
  const start = e.start_date_is_fixed ? startFixed : null;
  const due = e.due_date_is_fixed ? dueFixed : null;
  const labels = [...(e.labels ?? [])].sort();
  const out: Record<string, unknown> = {
    id: e.id,
    iid: e.iid,
    group_id: e.group_id,
    parent_id: e.parent_id ?? null,
    title: e.title,
    description: e.description,
    state: e.state ?? 'opened',
    confidential: e.confidential,
    web_url: `${r.base}/groups/${g.full_path}/-/epics/${e.iid}`,
    reference: `&${e.iid}`,
    references: { short: `&${e.iid}`, relative: `&${e.iid}`, full: `${g.full_path}&${e.iid}` },
    author: r.user(e.author_id),
    start_date: start,
    start_date_is_fixed: e.start_date_is_fixed ?? false,
    start_date_fixed: startFixed,
    start_date_from_milestones: null,
    start_date_from_inherited_source: null,
    end_date: due,
    due_date: due,
    due_date_is_fixed: e.due_date_is_fixed ?? false,
    due_date_fixed: dueFixed,
    due_date_from_milestones: null,
    due_date_from_inherited_source: null,
    created_at: e.created_at,
    updated_at: e.updated_at,
    closed_at: e.closed_at ?? null,
    labels: o.labelsDetails ? labels.map((name) => labelDetails(st, r, g, name)) : labels,
    upvotes: votes(st, e, 'thumbsup'),
    downvotes: votes(st, e, 'thumbsdown'),
  };
  if (o.subscribed) {
    const user = c.get('viewer').user;
    out.subscribed = !!user && user.id === e.author_id;
  }
  const parent = e.parent_id == null ? undefined : tget(st.issuables.epics, e.parent_id);
  out._links = {
    self: api,
    epic_issues: `${api}/issues`,
    group: `${r.base}/api/v4/groups/${g.id}`,
    parent: parent ? `${r.base}/api/v4/groups/${parent.group_id}/epics/${parent.iid}` : null,
  };
  return out;
}

/** The group label (of the group or an ancestor) an epic's label name stands for. */
function labelIdOf(st: PlatformState, g: GroupRecord, name: string): number | undefined {
  for (const x of selfAndAncestors(st, g))
    for (const id of mget(st.issuables.idx.owned, `lg${x.id}`))
      if (tget(st.issuables.labels, id)?.title === name) return id;
  return undefined;
}

/** `ResourceEvents::ChangeLabelsService`: an event per label added or removed (names of no label: none). */
function recordLabelEvents(
  d: Draft<PlatformState>,
  g: GroupRecord,
  epicId: number,
  before: readonly string[],
  after: readonly string[],
  userId: number,
  now: string,
): void {
  const t = { type: 'Epic' as const, id: epicId };
  const ids = (names: readonly string[]) =>
    names.flatMap((n) => {
      const id = labelIdOf(d, g, n);
      return id === undefined ? [] : [id];
    });
  const [was, is] = [ids(before), ids(after)];
  for (const id of is)
    if (!was.includes(id)) resourceEvent(d, t, userId, now, { kind: 'label', label_id: id, action: 'add' });
  for (const id of was)
    if (!is.includes(id)) resourceEvent(d, t, userId, now, { kind: 'label', label_id: id, action: 'remove' });
}

const ORDER = ['created_at', 'updated_at'] as const;

function list(c: Ctx): Response {
  const prm = parse(c, {
    order_by: p.str().values(ORDER).default('created_at'),
    sort: p
      .str()
      .values(['asc', 'desc'] as const)
      .default('desc'),
    search: p.str(),
    state: p
      .str()
      .values(['opened', 'closed', 'all'] as const)
      .default('all'),
    author_id: p.int(),
    labels: p.strArray({ commaSeparated: true }),
    with_labels_details: p.bool().default(false),
    created_after: p.datetime(),
    created_before: p.datetime(),
    updated_after: p.datetime(),
    updated_before: p.datetime(),
    include_ancestor_groups: p.bool().default(false),
    include_descendant_groups: p.bool().default(true),
    my_reaction_emoji: p.str(),
    ...paginationParams,
  });
  const g = findGroup(c, c.req.param('id') ?? '');
  const st = state(c);
  const user = c.get('viewer').user;
  const groups = new Map<number, GroupRecord>([[g.id, g]]);
  const readable = (id: number) => {
    const x = tget(st.groups, id);
    if (!x || groups.has(id)) return;
    if (canReadGroup(st, user, x)) groups.set(id, x);
  };
  if (prm.include_descendant_groups) descendantIds(st, g.id).forEach(readable);
  if (prm.include_ancestor_groups) selfAndAncestors(st, g).forEach((a) => readable(a.id));
  const search = prm.search?.toLowerCase();
  const wanted = (prm.labels ?? []).filter((l) => l !== '');
  const ms = (t: string | undefined) => (t === undefined ? undefined : Date.parse(t));
  const [ca, cb, ua, ub] = [prm.created_after, prm.created_before, prm.updated_after, prm.updated_before].map(
    ms,
  );
  const reacted = (e: EpicRecord, name: string) =>
    !!user &&
    mget(st.issuables.idx.awards, `Epic:${e.id}`).some((a) => {
      const aw = tget(st.issuables.awards, a);
      return aw?.user_id === user.id && (name === 'Any' || aw.name === name);
    });
  const epics: EpicRecord[] = [];
  for (const x of groups.values())
    for (const id of mget(st.issuables.idx.owned, `eg${x.id}`)) {
      const e = tget(st.issuables.epics, id);
      if (!e || !canReadEpic(st, c, e, x)) continue;
      if (prm.state !== 'all' && (e.state ?? 'opened') !== prm.state) continue;
      if (prm.author_id !== undefined && e.author_id !== prm.author_id) continue;
      if (search && !`${e.title}\n${e.description ?? ''}`.toLowerCase().includes(search)) continue;
      const names = e.labels ?? [];
      if (wanted.length === 1 && wanted[0]!.toLowerCase() === 'none') {
        if (names.length) continue;
      } else if (wanted.length === 1 && wanted[0]!.toLowerCase() === 'any') {
        if (!names.length) continue;
      } else if (!wanted.every((l) => names.includes(l))) continue;
      const created = Date.parse(e.created_at);
      const updated = Date.parse(e.updated_at);
      if ((ca !== undefined && created < ca) || (cb !== undefined && created > cb)) continue;
      if ((ua !== undefined && updated < ua) || (ub !== undefined && updated > ub)) continue;
      const emoji = prm.my_reaction_emoji;
      if (emoji !== undefined && (emoji === 'None' ? reacted(e, 'Any') : !reacted(e, emoji))) continue;
      epics.push(e);
    }
  const key = prm.order_by;
  const dir = prm.sort === 'asc' ? 1 : -1;
  epics.sort((a, b) => (a[key] < b[key] ? -dir : a[key] > b[key] ? dir : (a.id - b.id) * dir));
  return paginate(c, epics, (e) => epicEntity(c, e, { labelsDetails: prm.with_labels_details }));
}

function show(c: Ctx): Response {
  const prm = parse(c, { epic_iid: p.int().required() });
  const g = findGroup(c, c.req.param('id') ?? '');
  return sendJson(epicEntity(c, findEpic(c, g, prm.epic_iid), { subscribed: true }));
}

/** A date the model's date column takes from a string: `YYYY-MM-DD`, anything else is nil. */
function dateOf(v: string | undefined): string | null | undefined {
  if (v === undefined) return undefined;
  const m = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})/.exec(v);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return Number.isNaN(d.getTime()) || d.getUTCMonth() !== Number(m[2]) - 1
    ? null
    : d.toISOString().slice(0, 10);
}

const writable = {
  title: p.str(),
  description: p.str(),
  confidential: p.bool(),
  labels: p.strArray({ commaSeparated: true }),
  start_date_is_fixed: p.bool(),
  start_date_fixed: p.str(),
  start_date: p.str(),
  due_date_is_fixed: p.bool(),
  due_date_fixed: p.str(),
  end_date: p.str(),
  parent_id: p.int(),
};

type Writable = Parsed<typeof writable>;

/** The model's validations, in the `{"message": {attr: [...]}}` shape. */
function validate(st: PlatformState, g: GroupRecord, e: Partial<EpicRecord>, self?: number): void {
  const errors: Record<string, string[]> = {};
  if (e.title !== undefined) {
    if (e.title.trim() === '') errors.title = ["can't be blank"];
    else if (e.title.length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`];
  }
  if (e.description && e.description.length > DESCRIPTION_MAX)
    errors.description = [`is too long (maximum is ${DESCRIPTION_MAX} characters)`];
  if (e.parent_id != null) {
    const parent = tget(st.issuables.epics, e.parent_id);
    const family = new Set(selfAndAncestors(st, g).map((x) => x.id));
    if (!parent || !family.has(parent.group_id) || parent.id === self) errors.parent = ['is invalid'];
  }
  if (Object.keys(errors).length) throw validationError(errors);
}

function changesOf(prm: Writable): Partial<EpicRecord> {
  const out: Partial<EpicRecord> = {};
  if (prm.title !== undefined) out.title = prm.title;
  if (prm.description !== undefined) out.description = prm.description;
  if (prm.confidential !== undefined) out.confidential = prm.confidential;
  if (prm.labels !== undefined)
    out.labels = [...new Set(prm.labels.map((l) => l.trim()).filter((l) => l !== ''))].slice(0, LABELS_MAX);
  if (prm.start_date_is_fixed !== undefined) out.start_date_is_fixed = prm.start_date_is_fixed;
  const start = dateOf(prm.start_date_fixed ?? prm.start_date);
  if (start !== undefined) out.start_date_fixed = start;
  if (prm.due_date_is_fixed !== undefined) out.due_date_is_fixed = prm.due_date_is_fixed;
  const due = dateOf(prm.due_date_fixed ?? prm.end_date);
  if (due !== undefined) out.due_date_fixed = due;
  if (prm.parent_id !== undefined) out.parent_id = prm.parent_id;
  return out;
}

function create(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, { ...writable, title: p.str().required(), created_at: p.datetime() });
  const g = findGroup(c, c.req.param('id') ?? '');
  const st = state(c);
  const lv = epicLevel(st, c, g);
  if (!lv.reporter) throw denied('creating epics needs reporter access to the group');
  const changes = changesOf(prm);
  validate(st, g, changes);
  const now = c.get('fx').clock.iso();
  // `created_at` is for group owners and admins; the service drops it for anyone else.
  const created = prm.created_at !== undefined && lv.owner ? new Date(prm.created_at).toISOString() : now;
  const id = write(c, (d) => {
    const made = createEpic(d, {
      group_id: g.id,
      author_id: c.get('viewer').user!.id,
      title: prm.title,
      description: null,
      confidential: false,
      ...changes,
      state: 'opened',
      closed_at: null,
      created_at: created,
      updated_at: created,
    });
    recordLabelEvents(d, g, made, [], changes.labels ?? [], c.get('viewer').user!.id, now);
    return made;
  });
  return sendJson(epicEntity(c, tget(state(c).issuables.epics, id)!), 201);
}

const UPDATE_AT_LEAST = [
  'title',
  'description',
  'confidential',
  'labels',
  'start_date_is_fixed',
  'start_date_fixed',
  'start_date',
  'due_date_is_fixed',
  'due_date_fixed',
  'end_date',
  'parent_id',
  'state_event',
];

function update(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, {
    ...writable,
    epic_iid: p.int().required(),
    state_event: p.str().values(['close', 'reopen'] as const),
  });
  atLeastOneOf(c.get('params'), ...UPDATE_AT_LEAST);
  const g = findGroup(c, c.req.param('id') ?? '');
  const e = findEpic(c, g, prm.epic_iid);
  const st = state(c);
  if (!epicLevel(st, c, g).reporter) throw denied('updating epics needs reporter access to the group');
  const changes = changesOf(prm);
  validate(st, g, changes, e.id);
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const rec = tget(d.issuables.epics, e.id)!;
    if (changes.labels !== undefined)
      recordLabelEvents(d, g, e.id, rec.labels ?? [], changes.labels, c.get('viewer').user!.id, now);
    Object.assign(rec, changes);
    const was = rec.state ?? 'opened';
    if (prm.state_event === 'close' && was === 'opened')
      Object.assign(rec, { state: 'closed', closed_at: now });
    if (prm.state_event === 'reopen' && was === 'closed')
      Object.assign(rec, { state: 'opened', closed_at: null });
    rec.updated_at = now;
  });
  return sendJson(epicEntity(c, tget(state(c).issuables.epics, e.id)!));
}

function remove(c: Ctx): Response {
  requireUser(c);
  const prm = parse(c, { epic_iid: p.int().required() });
  const g = findGroup(c, c.req.param('id') ?? '');
  const e = findEpic(c, g, prm.epic_iid);
  if (!epicLevel(state(c), c, g).owner) throw denied('deleting epics needs owner access to the group');
  write(c, (d) => {
    for (const n of mget(d.issuables.idx.notes, `Epic:${e.id}`)) deleteNote(d, n);
    for (const a of mget(d.issuables.idx.awards, `Epic:${e.id}`)) removeAward(d, a);
    unlinkEpic(d, e.id);
    // Its todos and resource events go with it.
    removeTargetSatellites(d, 'Epic', e.id);
    // Children lose their parent rather than going with it.
    for (const x of tvalues(d.issuables.epics)) if (x.parent_id === e.id) x.parent_id = null;
    tdelete(d.issuables.epics, e.id);
    mremove(d.issuables.idx.owned, `eg${g.id}`, e.id);
  });
  return c.body(null, 204);
}

export function epicsRoutes(r: ApiRouter): void {
  const o = { tier: 'premium' } as const;
  r.get('/groups/:id/epics', o, list);
  r.get('/groups/:id/epics/:epic_iid', o, show);
  r.post('/groups/:id/epics', o, create);
  r.put('/groups/:id/epics/:epic_iid', o, update);
  r.delete('/groups/:id/epics/:epic_iid', o, remove);
}
