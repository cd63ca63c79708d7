/**
 * The issues API: the lists (`/issues`, `/groups/:id/issues`, `/projects/:id/issues`) with every filter,
 * statistics, and a project's issue get, create, update, delete, closed_by, participants,
 * related merge requests, user agent detail, subscribe, unsubscribe and todo.
 *
 * Check order is the platform's: writes need a user (401), params are validated (400), the project
 * must be readable (404), the issue found (404), then the permission (403), then the model (400).
 */
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, notFound, recordNotFound, validationError } from '../../core/errors.js';
import {
  offsetPage,
  paginate,
  paginateBytes,
  paginationParams,
  sendPageBytes,
} from '../../core/pagination.js';
import { atLeastOneOf, p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { abilities, canCreateIssue, canSeeIssue, canUpdateIssue, type ProjectAbilities } from './access.js';
import { findIssue, isoMs, isSubscribed, issueByIid, loadProject, participants } from './common.js';
import { issuableRenderer, type From } from './entities.js';
import { isKeptList, projectSet, type FindRequest } from './finder.js';
import { deepFreeze, listFilters, parseIssueList, type IssueListParams } from './listparams.js';
import {
  createdEvents,
  createIssue,
  deleteIssue,
  labelIdsFor,
  updateIssue,
  type IssueChanges,
} from './model.js';
import { emitEvent } from '../integrations/events.js';
import { listSource, sendMarkedTodo, toggleSubscription, type ListScope } from './routing.js';
import type { IssueRecord, MergeRequestRecord } from './store.js';
import { jsonResponse } from '../../core/respond.js';

type S = PlatformState;

// ---------------------------------------------------------------------------------------------------
// Lists

/**
 * The find request of a parse kept by `parseIssueList` (frozen, one per URL and tier), when it names no
 * user by username: its filters then read nothing but the URL, and the same request answers each time.
 */
const keptRequests = new WeakMap<IssueListParams, FindRequest>();

const USERNAMES = ['author_username', 'assignee_username', 'reviewer_username'] as const;

/** Whether the filters read usernames (looked up in the users table): the request is then made each time. */
function namesUsers(raw: Record<string, unknown> | undefined): boolean {
  if (raw === undefined) return false;
  for (const k of USERNAMES) if (raw[k] !== undefined) return true;
  return false;
}

function issueRequest(c: Ctx, prm: IssueListParams): FindRequest {
  let req = keptRequests.get(prm);
  if (req !== undefined) return req;
  const paid = c.get('fx').tier() !== 'free';
  const raw = c.get('params');
  req = {
    kind: 'i',
    filters: listFilters(state(c), prm, raw, paid),
    orderBy: prm.order_by,
    sort: prm.sort,
  };
  if (Object.isFrozen(prm) && !namesUsers(raw) && !namesUsers(prm.not))
    keptRequests.set(prm, deepFreeze(req));
  return req;
}

function sendIssues(c: Ctx, list: IssueRecord[], prm: IssueListParams, from: From): Response {
  const r = issuableRenderer(c, from);
  r.withLabelsDetails = prm.with_labels_details;
  if (!isKeptList(list)) return paginateBytes(c, list, (i) => r.issueBytes(i));
  // A list the finder keeps answers again: its pages are kept whole (`issuePageBytes`).
  const page = offsetPage(c, list);
  if (page.items.length === 0) return sendPageBytes(page, (i) => r.issueBytes(i));
  const start = (Number(page.headers['X-Page']) - 1) * Number(page.headers['X-Per-Page']);
  const headers: Record<string, string> = {};
  for (const k in page.headers) headers[k.toLowerCase()] = page.headers[k]!;
  return jsonResponse(r.issuePageBytes(list, start, page.items), 200, headers);
}

/** A list route's issues, with its params and where they are from. */
function findIssues(c: Ctx, scope: ListScope) {
  const prm = parseIssueList(c, scope);
  const src = listSource(c, scope);
  const list = src.find<IssueRecord>(issueRequest(c, prm), prm.non_archived !== false);
  return { prm, list, from: src.from };
}

const listIssues = (scope: ListScope) => (c: Ctx) => {
  const { prm, list, from } = findIssues(c, scope);
  return sendIssues(c, list, prm, from);
};

/** `issues_statistics`: the counts of the list's matches by state. */
const statistics = (scope: ListScope) => (c: Ctx) => {
  const { list } = findIssues(c, scope);
  let opened = 0;
  for (const i of list) if (i.state === 'opened') opened++;
  return c.json({ statistics: { counts: { all: list.length, closed: list.length - opened, opened } } });
};

// ---------------------------------------------------------------------------------------------------
// Create and update

const labelsParam = () => p.strArray({ commaSeparated: true });

const issueParams = {
  description: p.str(),
  assignee_ids: p.intArray({ commaSeparated: true }),
  assignee_id: p.int(),
  milestone_id: p.int(),
  labels: labelsParam(),
  add_labels: labelsParam(),
  remove_labels: labelsParam(),
  due_date: p.str(),
  confidential: p.bool(),
  discussion_locked: p.bool(),
  issue_type: p.str().values(['issue', 'incident', 'test_case']),
};
const paidIssueParams = { weight: p.int(), epic_id: p.int(), epic_iid: p.int() };

const createShape = {
  title: p.str().required(),
  created_at: p.datetime(),
  merge_request_to_resolve_discussions_of: p.int(),
  discussion_to_resolve: p.str(),
  iid: p.int(),
  ...issueParams,
};
const createShapePaid = { ...createShape, ...paidIssueParams };

const updateShape = {
  issue_iid: p.int().required(),
  title: p.str(),
  updated_at: p.datetime().notBlank(),
  state_event: p.str().values(['reopen', 'close'] as const),
  ...issueParams,
};
const updateShapePaid = { ...updateShape, ...paidIssueParams };

const UPDATE_AT_LEAST = [
  'assignee_id',
  'assignee_ids',
  'confidential',
  'created_at',
  'description',
  'discussion_locked',
  'due_date',
  'labels',
  'add_labels',
  'remove_labels',
  'milestone_id',
  'state_event',
  'title',
];

type IssueInput = Partial<{
  description: string;
  assignee_ids: number[];
  assignee_id: number;
  milestone_id: number;
  labels: string[];
  add_labels: string[];
  remove_labels: string[];
  due_date: string;
  confidential: boolean;
  discussion_locked: boolean;
  weight: number;
}>;

/** `YYYY-MM-DD` as ActiveRecord casts a date string; anything else is no date. */
function castDate(s: string | undefined): string | null | undefined {
  if (s === undefined) return undefined;
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(s.trim());
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return Number.isNaN(d.getTime()) || d.getUTCDate() !== Number(m[3]) ? null : d.toISOString().slice(0, 10);
}

const splitLabels = (v: string[] | undefined) =>
  v === undefined
    ? undefined
    : v
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter((s) => s !== '');

/** Users who may be assigned: existing users who can read the project's issues. */
function assignable(st: S, project: Project, ids: readonly number[], multiple: boolean): number[] {
  const out: number[] = [];
  for (const id of ids) {
    if (id === 0) continue;
    const u = tget(st.users, id);
    if (!u || out.includes(id)) continue;
    if (!abilities(st, u, project).issues && !u.admin) continue;
    const readable =
      project.visibility === 'public' ||
      u.admin ||
      abilities(st, u, project).level >= 10 ||
      (project.visibility === 'internal' && !u.external);
    if (readable) out.push(id);
  }
  return multiple ? out : out.slice(0, 1);
}

/** Milestones an issuable of the project may use: the project's and its groups'. */
export function milestoneAvailable(st: S, project: Project, id: number): boolean {
  const m = tget(st.issuables.milestones, id);
  if (!m) return false;
  if (m.project_id !== null) return m.project_id === project.id;
  if (project.namespace_kind !== 'group') return false;
  for (
    let g = tget(st.groups, project.namespace_id);
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  )
    if (g.id === m.group_id) return true;
  return false;
}

/**
 * The issuable attributes a request sets, after `IssuableBaseService#filter_params`: callers without
 * `admin_issue` cannot set assignees, milestones, labels, due dates or locking; unknown users and
 * milestones are dropped; the community edition keeps one assignee.
 */
export function issuableAttributes(
  st: S,
  project: Project,
  a: ProjectAbilities,
  input: IssueInput,
  current: { label_ids: readonly number[] } | null,
  multipleAssignees: boolean,
): { changes: IssueChanges; newLabels: string[] | null } {
  const ch: IssueChanges = {};
  if (input.description !== undefined) ch.description = input.description;
  if (input.confidential !== undefined) ch.confidential = input.confidential;
  let newLabels: string[] | null = null;
  if (a.adminIssue) {
    const assigneeIds =
      input.assignee_ids ?? (input.assignee_id !== undefined ? [input.assignee_id] : undefined);
    if (assigneeIds !== undefined) ch.assignee_ids = assignable(st, project, assigneeIds, multipleAssignees);
    if (input.milestone_id !== undefined)
      ch.milestone_id =
        input.milestone_id > 0 && milestoneAvailable(st, project, input.milestone_id)
          ? input.milestone_id
          : null;
    if (input.due_date !== undefined) ch.due_date = castDate(input.due_date);
    if (input.discussion_locked !== undefined) ch.discussion_locked = input.discussion_locked;
    if (input.weight !== undefined) ch.weight = input.weight;
    const labels = splitLabels(input.labels);
    const add = splitLabels(input.add_labels);
    const remove = splitLabels(input.remove_labels);
    if (labels !== undefined || add !== undefined || remove !== undefined) {
      // Titles resolve (and missing ones are created) inside the write; here only the wish list.
      const base =
        labels ?? (current ? current.label_ids.map((id) => tget(st.issuables.labels, id)!.title) : []);
      const wanted = [...base, ...(add ?? [])];
      const removed = new Set(remove ?? []);
      newLabels = wanted.filter((t) => !removed.has(t));
    }
  }
  return { changes: ch, newLabels };
}

const titleErrors = (title: string | undefined): Record<string, string[]> | null => {
  if (title === undefined) return null;
  if (title.trim() === '') return { title: ["can't be blank"] };
  if (title.length > 255) return { title: ['is too long (maximum is 255 characters)'] };
  return null;
};

function descriptionErrors(description: string | undefined): Record<string, string[]> | null {
  if (description !== undefined && description.length > 1_048_576)
    return { description: ['is too long (maximum is 1048576 characters)'] };
  return null;
}

function sendIssue(c: Ctx, issueId: number, status: 200 | 201, project: Project): Response {
  const st = state(c);
  const issue = tget(st.issuables.issues, issueId)!;
  const r = issuableRenderer(c, { project });
  return jsonResponse(
    r.issueBytes(issue, { subscribed: isSubscribed(st, 'Issue', issue, c.get('viewer').user) }),
    status,
  );
}

function createIssueRoute(c: Ctx): Response {
  const paid = c.get('fx').tier() !== 'free';
  const prm = parse(c, paid ? createShapePaid : createShape) as ReturnType<
    typeof parse<typeof createShapePaid>
  >;
  const project = loadProject(c);
  const st = state(c);
  const user = requireUser(c);
  const a = abilities(st, user, project);
  if (!canCreateIssue(a)) throw forbidden();
  // `set_issue_created_at` / `set_issue_iid`: admins and owners only; others' values are dropped.
  const iid = a.owner ? prm.iid : undefined;
  const createdAt = a.owner ? prm.created_at : undefined;
  const errors = titleErrors(prm.title) ?? descriptionErrors(prm.description);
  if (errors) throw validationError(errors);
  if (iid !== undefined && issueByIid(st, project.id, iid)) throw apiError(409, 'Duplicated issue');
  const { changes, newLabels } = issuableAttributes(st, project, a, prm, null, paid);
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => {
    const labelIds = newLabels ? labelIdsFor(d, project, newLabels, a.adminIssue, now) : [];
    const issueId = createIssue(
      d,
      {
        project_id: project.id,
        author_id: user.id,
        title: prm.title,
        description: changes.description ?? null,
        iid: iid !== undefined && iid > 0 ? iid : undefined,
        assignee_ids: changes.assignee_ids ?? [],
        label_ids: labelIds,
        milestone_id: changes.milestone_id ?? null,
        confidential: changes.confidential ?? false,
        discussion_locked: changes.discussion_locked ?? null,
        due_date: changes.due_date ?? null,
        weight: paid ? (changes.weight ?? null) : null,
        created_at: createdAt ? isoMs(createdAt) : undefined,
        user_agent: c.req.header('user-agent') ?? null,
        ip_address: (c.req.header('x-forwarded-for') ?? '127.0.0.1').split(',')[0]!.trim(),
        issue_type: prm.issue_type === 'incident' ? 'incident' : 'issue',
      },
      now,
    );
    const made = tget(d.issuables.issues, issueId)!;
    const t = { type: 'Issue' as const, id: issueId, project_id: project.id };
    createdEvents(d, t, user.id, now, made.label_ids, made.milestone_id, made.state);
    return issueId;
  });
  emitEvent(c, { kind: 'issue', id, before: null });
  return sendIssue(c, id, 201, project);
}

function updateIssueRoute(c: Ctx): Response {
  const paid = c.get('fx').tier() !== 'free';
  const raw = c.get('params');
  const prm = parse(c, paid ? updateShapePaid : updateShape) as ReturnType<
    typeof parse<typeof updateShapePaid>
  >;
  atLeastOneOf(raw, ...UPDATE_AT_LEAST, ...(paid ? ['weight', 'epic_id', 'epic_iid'] : []));
  const project = loadProject(c);
  const st = state(c);
  const user = requireUser(c);
  const issue = issueByIid(st, project.id, prm.issue_iid);
  if (!issue) throw recordNotFound('no such issue');
  const a = abilities(st, user, project);
  if (!a.issues || !canSeeIssue(a, issue) || !canUpdateIssue(a, issue)) throw forbidden();
  const errors = titleErrors(prm.title) ?? descriptionErrors(prm.description);
  if (errors) throw validationError(errors);
  const { changes, newLabels } = issuableAttributes(st, project, a, prm, issue, paid);
  if (prm.title !== undefined) changes.title = prm.title;
  if (prm.state_event) changes.state_event = prm.state_event;
  // A JSON null clears (Grape passes nil through).
  if (a.adminIssue && raw.milestone_id === null) changes.milestone_id = null;
  if (a.adminIssue && raw.due_date === null) changes.due_date = null;
  if (!paid) delete changes.weight;
  if (prm.updated_at && a.owner) changes.updated_at = isoMs(prm.updated_at);
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    if (newLabels) changes.label_ids = labelIdsFor(d, project, newLabels, a.adminIssue, now);
    updateIssue(d, issue.id, changes, user.id, now);
  });
  emitEvent(c, { kind: 'issue', id: issue.id, before: issue.state, prev: issue });
  return sendIssue(c, issue.id, 200, project);
}

function deleteIssueRoute(c: Ctx): Response {
  const prm = parse(c, { issue_iid: p.int().required() });
  const project = loadProject(c);
  const st = state(c);
  const issue = issueByIid(st, project.id, prm.issue_iid);
  if (!issue) throw notFound('Issue');
  const a = abilities(st, c.get('viewer').user, project);
  if (!a.owner) throw forbidden();
  checkUnmodifiedSince(c, issue.updated_at);
  write(c, (d) => deleteIssue(d, issue.id));
  return c.body(null, 204);
}

// ---------------------------------------------------------------------------------------------------
// Single-issue reads and actions

const iidShape = { issue_iid: p.int().required() };

function showIssue(c: Ctx): Response {
  const prm = parse(c, iidShape);
  const project = loadProject(c);
  const issue = findIssue(c, project, prm.issue_iid);
  return sendIssue(c, issue.id, 200, project);
}

/** `GET /issues/:id`: any issue by its global id, for admins. */
function showIssueById(c: Ctx): Response {
  const prm = parse(c, { id: p.str().required() });
  const st = state(c);
  const issue = /^\d+$/.test(prm.id) ? tget(st.issuables.issues, Number(prm.id)) : undefined;
  if (!issue) throw recordNotFound('no issue with this id');
  const project = tget(st.projects, issue.project_id) as Project;
  return sendIssue(c, issue.id, 200, project);
}

/** Merge requests of the project the viewer can read, among `ids`. */
function readableMergeRequests(c: Ctx, project: Project, ids: number[]): MergeRequestRecord[] {
  const st = state(c);
  if (!abilities(st, c.get('viewer').user, project).mergeRequests) return [];
  return ids
    .map((id) => tget(st.issuables.mergeRequests, id))
    .filter((mr): mr is MergeRequestRecord => !!mr && mr.project_id === project.id)
    .sort((x, y) => y.id - x.id);
}

function closedBy(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const project = loadProject(c);
  const issue = findIssue(c, project, prm.issue_iid);
  const list = readableMergeRequests(c, project, mget(state(c).issuables.idx.closing, `i${issue.id}`));
  const r = issuableRenderer(c, { project });
  return paginate(c, list, (mr) => r.mergeRequest(mr));
}

/** `related_merge_requests`: merge requests whose title or description mention the issue. */
function relatedMergeRequests(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const project = loadProject(c);
  const issue = findIssue(c, project, prm.issue_iid);
  const st = state(c);
  const ref = new RegExp(`(^|[^\\w/])#${issue.iid}(?!\\d)`);
  const ids = new Set(mget(st.issuables.idx.closing, `i${issue.id}`));
  for (const mr of projectSet<MergeRequestRecord>(st, 'm', project.id).all)
    if (ref.test(`${mr.title}\n${mr.description ?? ''}`)) ids.add(mr.id);
  const list = readableMergeRequests(c, project, [...ids]);
  const r = issuableRenderer(c, { project });
  return paginate(c, list, (mr) => ({ ...r.mergeRequestFull(mr), subscribed: undefined }));
}

function participantsRoute(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const project = loadProject(c);
  const issue = findIssue(c, project, prm.issue_iid);
  const r = issuableRenderer(c, { project });
  return paginate(c, participants(state(c), 'Issue', issue), (u: UserRecord) => r.users.basic(u));
}

function userAgentDetail(c: Ctx): Response {
  const prm = parse(c, iidShape);
  const project = loadProject(c);
  const issue = findIssue(c, project, prm.issue_iid);
  if (issue.user_agent === null && issue.ip_address === null) throw notFound('UserAgentDetail');
  return c.json({ user_agent: issue.user_agent, ip_address: issue.ip_address, akismet_submitted: false });
}

function subscription(subscribe: boolean) {
  return (c: Ctx): Response => {
    // `subscribable_id` is a String param there: anything that is not an iid is simply not found.
    const raw = c.req.param('issue_iid') ?? '';
    const project = loadProject(c);
    const user = requireUser(c);
    if (!/^\d+$/.test(raw)) throw recordNotFound('no such issue');
    const issue = findIssue(c, project, Number(raw));
    toggleSubscription(c, 'Issue', issue, project, user, subscribe);
    return sendIssue(c, issue.id, 201, project);
  };
}

function todo(c: Ctx): Response {
  const prm = parse(c, iidShape);
  const project = loadProject(c);
  const user = requireUser(c);
  const issue = findIssue(c, project, prm.issue_iid);
  return sendMarkedTodo(c, 'Issue', issue, user, (r, st) =>
    r.issue(tget(st.issuables.issues, issue.id)!, { subscribed: false }),
  );
}

// ---------------------------------------------------------------------------------------------------

export function issuesRoutes(r: ApiRouter): void {
  r.get('/issues', listIssues('global'));
  r.get('/issues/:id', { auth: 'admin' }, showIssueById);
  r.get('/issues_statistics', statistics('global'));
  r.get('/groups/:id/issues', listIssues('group'));
  r.get('/groups/:id/issues_statistics', statistics('group'));
  r.get('/projects/:id/issues', listIssues('project'));
  r.get('/projects/:id/issues_statistics', statistics('project'));
  r.post('/projects/:id/issues', createIssueRoute);
  r.get('/projects/:id/issues/:issue_iid', showIssue);
  r.put('/projects/:id/issues/:issue_iid', updateIssueRoute);
  r.delete('/projects/:id/issues/:issue_iid', deleteIssueRoute);
  r.get('/projects/:id/issues/:issue_iid/closed_by', closedBy);
  r.get('/projects/:id/issues/:issue_iid/related_merge_requests', relatedMergeRequests);
  r.get('/projects/:id/issues/:issue_iid/participants', participantsRoute);
  r.get('/projects/:id/issues/:issue_iid/user_agent_detail', { auth: 'admin' }, userAgentDetail);
  r.post('/projects/:id/issues/:issue_iid/subscribe', subscription(true));
  r.post('/projects/:id/issues/:issue_iid/unsubscribe', subscription(false));
  r.post('/projects/:id/issues/:issue_iid/todo', todo);
}
