/**
 * The merge requests API: the lists (`/merge_requests`, `/groups/:id/merge_requests`,
 * `/projects/:id/merge_requests`), a project's merge request get, create, update, delete and merge,
 * participants, commits, changes, closes_issues, diff versions, subscribe, unsubscribe, todo and rebase.
 *
 * `merge_status` is rechecked asynchronously: showing a merge request (or listing with
 * `with_merge_status_recheck=true`) asks for a check, which completes a moment later on the instance clock.
 */
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import {
  apiError,
  conflict,
  forbidden,
  notFound,
  recordNotFound,
  unauthorized,
  unprocessable,
  validationError,
} from '../../core/errors.js';
import { offsetPage, paginate, paginationParams, requestBase, sendPageBytes } from '../../core/pagination.js';
import { mergeBlocked } from '../../core/merge-checks.js';
import { atLeastOneOf, p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { mget, tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { readableRepo } from '../repository/access.js';
import { findCommit } from '../repository/commits.js';
import { isAncestor } from '../repository/history.js';
import { objectsOf } from '../repository/store.js';
import { abilities, canSeeIssue, canUpdateMergeRequest } from './access.js';
import { findMergeRequest, mergeRequestByIid, isSubscribed, loadProject, participants } from './common.js';
import { canMerge, issuableRenderer, type From } from './entities.js';
import type { FindRequest } from './finder.js';
import { issuableAttributes } from './issues.js';
import { listFilters, parseMrList, type MrListParams } from './listparams.js';
import { headsOf } from './model/git.js';
import {
  createdEvents,
  createMergeRequest,
  defaultMergeCommitMessage,
  deleteMergeRequest,
  duplicateMergeRequest,
  checkedMergeStatus,
  keepDiffCommits,
  updateMergeRef,
  labelIdsFor,
  mergeMergeRequest,
  requestMergeCheck,
  updateMergeRequest,
  type MergeRequestChanges,
} from './model.js';
import { emitEvent } from '../integrations/events.js';
import { livePipeline } from '../ci/model.js';
import { headPipeline, mergeRequestPipelineIfAny, pipelineActive } from '../ci/mr-pipelines.js';
import { announceMerged, receiveMerged } from './merge-push.js';
import { enableAutoMerge } from './mr-pipelines.js';
import { rebaseRoutes } from './rebase.js';
import { listSource, sendMarkedTodo, toggleSubscription, type ListScope } from './routing.js';
import { chunkIds, type IssueRecord, type MergeRequestRecord } from './store.js';
import { isWip } from './text.js';
import { jsonResponse } from '../../core/respond.js';

// ---------------------------------------------------------------------------------------------------
// Lists

function mrRequest(c: Ctx, prm: MrListParams): FindRequest {
  const filters = listFilters(state(c), prm, c.get('params'), c.get('fx').tier() !== 'free', prm);
  // Approvals are not modelled: nobody approved anything and no rule names approvers.
  const extra = prm as unknown as Record<string, string[] | number[] | undefined>;
  // `iids` is a project-list filter only.
  delete filters.iids;
  const iids = extra.iids as number[] | undefined;
  if (iids !== undefined && iids.length > 0) filters.iids = iids;
  for (const k of ['approver_ids', 'approved_by_ids']) {
    const v = extra[k] as string[] | undefined;
    if (v !== undefined && !(v.length === 1 && v[0]!.toLowerCase() === 'none')) filters.iids = [];
  }
  return { kind: 'm', filters, orderBy: prm.order_by, sort: prm.sort };
}

function sendMergeRequests(c: Ctx, list: MergeRequestRecord[], prm: MrListParams, from: From): Response {
  const page = offsetPage(c, list);
  if (prm.view !== 'simple' && prm.with_merge_status_recheck) {
    const due = page.items.filter(
      (mr) => mr.state === 'opened' && mr.merge_status === 'unchecked' && !mr.merge_check_due_at,
    );
    if (due.length) {
      const nowMs = c.get('fx').clock.ms();
      write(c, (d) => {
        for (const mr of due) requestMergeCheck(d, mr.id, nowMs);
      });
      const st = state(c);
      page.items = page.items.map((mr) => tget(st.issuables.mergeRequests, mr.id) ?? mr);
    }
  }
  const r = issuableRenderer(c, from);
  r.withLabelsDetails = prm.with_labels_details;
  return sendPageBytes(page, (mr) =>
    prm.view === 'simple' ? r.mergeRequestSimpleBytes(mr) : r.mergeRequestBytes(mr),
  );
}

/** The lists; the global one keeps archived projects' merge requests whatever `non_archived` says. */
const listMergeRequests = (scope: ListScope) => (c: Ctx) => {
  const prm = parseMrList(c, scope);
  const src = listSource(c, scope, (project) => {
    if (!abilities(state(c), c.get('viewer').user, project).mergeRequests) throw forbidden();
  });
  const nonArchived = scope !== 'global' && prm.non_archived !== false;
  const list = src.find<MergeRequestRecord>(mrRequest(c, prm), nonArchived);
  return sendMergeRequests(c, list, prm, src.from);
};

// ---------------------------------------------------------------------------------------------------
// One merge request

const iidShape = { merge_request_iid: p.int().required() };

function sendMergeRequest(
  c: Ctx,
  id: number,
  status: 200 | 201,
  project: Project,
  o: { divergedCommits?: boolean; rebaseInProgress?: boolean; firstContribution?: boolean } = {},
): Response {
  const st = state(c);
  const mr = tget(st.issuables.mergeRequests, id)!;
  const r = issuableRenderer(c, { project });
  const subscribed = isSubscribed(st, 'MergeRequest', mr, c.get('viewer').user);
  return jsonResponse(r.mergeRequestFullBytes(mr, { subscribed, ...o }), status);
}

/**
 * `find_merge_request_with_access`: found by iid without the finder (`404 Not found` when there is none),
 * then `authorize!` of the ability on it (403).
 */
function withAccess(c: Ctx, project: Project, iid: number, ability: 'read' | 'update'): MergeRequestRecord {
  const st = state(c);
  const mr = mergeRequestByIid(st, project.id, iid);
  if (!mr) throw recordNotFound('no such merge request');
  const a = abilities(st, c.get('viewer').user, project);
  if (!a.mergeRequests) throw forbidden();
  if (ability === 'update' && !canUpdateMergeRequest(a, mr)) throw forbidden();
  return mr;
}

function showMergeRequest(c: Ctx): Response {
  const prm = parse(c, {
    ...iidShape,
    render_html: p.bool(),
    include_diverged_commits_count: p.bool(),
    include_rebase_in_progress: p.bool(),
  });
  const project = loadProject(c);
  if (!abilities(state(c), c.get('viewer').user, project).mergeRequests) throw notFound('Merge Request');
  const mr = withAccess(c, project, prm.merge_request_iid, 'read');
  // Showing a merge request asks for an asynchronous mergeability check.
  if (mr.state === 'opened' && mr.merge_status === 'unchecked' && !mr.merge_check_due_at) {
    const nowMs = c.get('fx').clock.ms();
    write(c, (d) => requestMergeCheck(d, mr.id, nowMs));
  }
  return sendMergeRequest(c, mr.id, 200, project, {
    divergedCommits: prm.include_diverged_commits_count,
    rebaseInProgress: prm.include_rebase_in_progress,
    firstContribution: true,
  });
}

const labelsParam = () => p.strArray({ commaSeparated: true });

const optionalParams = {
  assignee_id: p.int(),
  assignee_ids: p.intArray({ commaSeparated: true }),
  reviewer_ids: p.intArray({ commaSeparated: true }),
  description: p.str(),
  labels: labelsParam(),
  add_labels: labelsParam(),
  remove_labels: labelsParam(),
  milestone_id: p.int(),
  remove_source_branch: p.bool(),
  allow_collaboration: p.bool(),
  allow_maintainer_to_push: p.bool(),
  squash: p.bool(),
};
const paidParams = { approvals_before_merge: p.int() };

const createShape = {
  title: p.str().required(),
  source_branch: p.str().required(),
  target_branch: p.str().required(),
  target_project_id: p.int(),
  ...optionalParams,
};
const createShapePaid = { ...createShape, ...paidParams };

const updateShape = {
  ...iidShape,
  title: p.str().notBlank(),
  target_branch: p.str().notBlank(),
  state_event: p.str().values(['close', 'reopen'] as const),
  discussion_locked: p.bool(),
  ...optionalParams,
};
const updateShapePaid = { ...updateShape, ...paidParams };

const UPDATE_AT_LEAST = [
  'assignee_id',
  'assignee_ids',
  'reviewer_ids',
  'description',
  'labels',
  'add_labels',
  'remove_labels',
  'milestone_id',
  'remove_source_branch',
  'allow_collaboration',
  'allow_maintainer_to_push',
  'squash',
  'target_branch',
  'title',
  'state_event',
  'discussion_locked',
];

const SAME_BRANCH = "You can't use same project/branch for source and target";

function createMergeRequestRoute(c: Ctx): Response {
  const paid = c.get('fx').tier() !== 'free';
  const prm = parse(c, paid ? createShapePaid : createShape) as ReturnType<
    typeof parse<typeof createShapePaid>
  >;
  const source = loadProject(c);
  const st = state(c);
  const user = requireUser(c);
  const a = abilities(st, user, source);
  if (!a.developer || !a.mergeRequests) throw forbidden();
  let target = source;
  if (prm.target_project_id !== undefined && prm.target_project_id !== source.id) {
    const t = tget(st.projects, prm.target_project_id) as Project | undefined;
    if (!t || source.forked_from_project_id !== t.id)
      throw unprocessable(['Source project is not a fork of the target project']);
    if (!abilities(st, user, t).mergeRequests)
      throw unprocessable(['You are not allowed to create merge requests in this project']);
    target = t;
  }
  if (prm.title.trim() === '') throw validationError({ title: ["can't be blank"] });
  if (target.id === source.id && prm.source_branch === prm.target_branch) throw unprocessable([SAME_BRANCH]);
  const dup = duplicateMergeRequest(st, target.id, source.id, prm.source_branch, prm.target_branch);
  if (dup) throw conflict([`Another open merge request already exists for this source branch: !${dup.iid}`]);
  // 13.12's `MergeRequests::CreateService` does not look for the branches: a merge request naming one
  // that does not exist is made, and shows as broken (no diff, cannot be merged) until it is pushed.
  const ta = abilities(st, user, target);
  const { changes, newLabels } = issuableAttributes(
    st,
    target,
    { ...ta, adminIssue: ta.developer },
    prm,
    null,
    paid,
  );
  const reviewers =
    prm.reviewer_ids && ta.developer ? prm.reviewer_ids.filter((id) => tget(st.users, id)) : [];
  const now = c.get('fx').clock.iso();
  let pipeline: number | undefined;
  const id = write(c, (d) => {
    const labelIds = newLabels ? labelIdsFor(d, target, newLabels, ta.developer, now) : [];
    const mrId = createMergeRequest(
      d,
      {
        project_id: target.id,
        source_project_id: source.id,
        author_id: user.id,
        title: prm.title,
        description: prm.description ?? null,
        source_branch: prm.source_branch,
        target_branch: prm.target_branch,
        assignee_ids: changes.assignee_ids ?? [],
        reviewer_ids: paid ? reviewers : reviewers.slice(0, 1),
        label_ids: labelIds,
        milestone_id: changes.milestone_id ?? null,
        squash: prm.squash ?? false,
        force_remove_source_branch: prm.remove_source_branch ?? null,
        allow_collaboration: prm.allow_collaboration ?? prm.allow_maintainer_to_push ?? false,
      },
      now,
    );
    const made = tget(d.issuables.mergeRequests, mrId)!;
    keepDiffCommits(d, made);
    if (paid && prm.approvals_before_merge !== undefined)
      made.approvals_before_merge = prm.approvals_before_merge;
    const t = { type: 'MergeRequest' as const, id: mrId, project_id: target.id };
    createdEvents(d, t, user.id, now, made.label_ids, made.milestone_id, made.state);
    // `MergeRequests::AfterCreateService#create_pipeline_for`: when the CI file runs jobs for merge requests.
    pipeline = mergeRequestPipelineIfAny(d, made as MergeRequestRecord, user.id, now, requestBase(c));
    return mrId;
  });
  emitEvent(c, { kind: 'merge_request', id, before: null });
  if (pipeline !== undefined) emitEvent(c, { kind: 'pipeline', id: pipeline });
  return sendMergeRequest(c, id, 201, target);
}

function updateMergeRequestRoute(c: Ctx): Response {
  const paid = c.get('fx').tier() !== 'free';
  const prm = parse(c, paid ? updateShapePaid : updateShape) as ReturnType<
    typeof parse<typeof updateShapePaid>
  >;
  atLeastOneOf(c.get('params'), ...UPDATE_AT_LEAST, ...(paid ? ['approvals_before_merge'] : []));
  const project = loadProject(c);
  const st = state(c);
  const user = requireUser(c);
  const mr = withAccess(c, project, prm.merge_request_iid, 'update');
  const a = abilities(st, user, project);
  const target = prm.target_branch ?? mr.target_branch;
  if (prm.target_branch !== undefined) {
    if (mr.source_project_id === mr.project_id && target === mr.source_branch)
      throw unprocessable([SAME_BRANCH]);
    const dup = duplicateMergeRequest(st, project.id, mr.source_project_id, mr.source_branch, target, mr.id);
    if (dup && mr.state === 'opened')
      throw conflict([`Another open merge request already exists for this source branch: !${dup.iid}`]);
  }
  const { changes, newLabels } = issuableAttributes(
    st,
    project,
    { ...a, adminIssue: a.developer },
    prm,
    mr,
    paid,
  );
  const ch: MergeRequestChanges = {
    description: changes.description,
    assignee_ids: changes.assignee_ids,
    milestone_id: changes.milestone_id,
    discussion_locked: changes.discussion_locked,
  };
  if (prm.title !== undefined) ch.title = prm.title;
  if (prm.target_branch !== undefined) ch.target_branch = prm.target_branch;
  if (prm.reviewer_ids !== undefined && a.developer)
    ch.reviewer_ids = prm.reviewer_ids.filter((id) => tget(st.users, id)).slice(0, paid ? undefined : 1);
  if (prm.squash !== undefined) ch.squash = prm.squash;
  if (prm.remove_source_branch !== undefined) ch.force_remove_source_branch = prm.remove_source_branch;
  const collab = prm.allow_collaboration ?? prm.allow_maintainer_to_push;
  if (collab !== undefined) ch.allow_collaboration = collab;
  if (prm.state_event) ch.state_event = prm.state_event;
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    if (newLabels) ch.label_ids = labelIdsFor(d, project, newLabels, a.developer, now);
    updateMergeRequest(d, mr.id, ch, user.id, now);
    if (paid && prm.approvals_before_merge !== undefined)
      tget(d.issuables.mergeRequests, mr.id)!.approvals_before_merge = prm.approvals_before_merge;
  });
  emitEvent(c, { kind: 'merge_request', id: mr.id, before: mr.state, prev: mr });
  return sendMergeRequest(c, mr.id, 200, project);
}

function deleteMergeRequestRoute(c: Ctx): Response {
  const prm = parse(c, iidShape);
  const project = loadProject(c);
  const mr = findMergeRequest(c, project, prm.merge_request_iid);
  if (!abilities(state(c), c.get('viewer').user, project).owner) throw forbidden();
  checkUnmodifiedSince(c, mr.updated_at);
  write(c, (d) => deleteMergeRequest(d, mr.id));
  return c.body(null, 204);
}

const mergeShape = {
  ...iidShape,
  merge_commit_message: p.str(),
  squash_commit_message: p.str(),
  should_remove_source_branch: p.bool(),
  merge_when_pipeline_succeeds: p.bool(),
  sha: p.str(),
  squash: p.bool(),
};

/** `PUT .../merge`: 401 without push rights, 405 when not mergeable, 406 on conflicts, 409 on a stale sha. */
function mergeRoute(c: Ctx): Response {
  const prm = parse(c, mergeShape);
  const project = loadProject(c);
  const st = state(c);
  const user = requireUser(c);
  const mr = findMergeRequest(c, project, prm.merge_request_iid);
  if (!canMerge(st, user, project, mr.target_branch)) throw unauthorized();
  // `mergeable_state?`: open, not a draft, both branches there, and (`mergeable_ci_state?`, unless the
  // merge waits for the pipeline) a green head pipeline when the project asks for one.
  const heads = headsOf(st, mr);
  const hp = headPipeline(st, mr);
  const nowMs = c.get('fx').clock.ms();
  const green = hp !== undefined && livePipeline(hp, nowMs).status === 'success';
  const stateOk = mr.state === 'opened' && !isWip(mr.title, st.version) && heads !== undefined;
  const ciOk = !project.only_allow_merge_if_pipeline_succeeds || green;
  // `automatically_mergeable?` and `immediately_mergeable?` of the merge endpoint.
  const automatically =
    prm.merge_when_pipeline_succeeds === true && stateOk && hp !== undefined && pipelineActive(hp, nowMs);
  const immediately = prm.merge_when_pipeline_succeeds === true ? green : stateOk && ciOk;
  if (!immediately && !automatically) throw apiError(405, '405 Method Not Allowed');
  if (!stateOk || (!automatically && !ciOk)) throw apiError(406, 'Branch cannot be merged');
  // `mergeable?` runs the mergeability check synchronously; fast-forward methods need the target's head
  // in the source's history (`should_be_rebased?`).
  const ffOnly = project.merge_method === 'ff' || project.merge_method === 'rebase_merge';
  // Paid tiers' checks (missing approvals) make it unmergeable too: EE's `mergeable?`.
  if (
    checkedMergeStatus(st, mr) !== 'can_be_merged' ||
    (ffOnly && !isAncestor(objectsOf(st), heads.start, heads.head)) ||
    mergeBlocked(st, mr.id)
  )
    throw apiError(406, 'Branch cannot be merged');
  const head = tget(st.issuables.diffs, mr.diff_id)?.head_commit_sha ?? '';
  if (prm.sha !== undefined && prm.sha !== head)
    throw conflict(`SHA does not match HEAD of source branch: ${head}`);
  if (!immediately) {
    enableAutoMerge(c, mr, user.id, {
      squash: prm.squash,
      should_remove_source_branch: prm.should_remove_source_branch,
      message: prm.merge_commit_message,
      squash_message: prm.squash_commit_message,
    });
    return sendMergeRequest(c, mr.id, 200, project);
  }
  const now = c.get('fx').clock.iso();
  const a = abilities(st, user, project);
  const closes = mget(st.issuables.idx.closing, `m${mr.id}`).filter((id) => {
    const i = tget(st.issuables.issues, id);
    return i !== undefined && canSeeIssue(a, i);
  });
  const fullRef = `${project.path_with_namespace}!${mr.iid}`;
  const base = requestBase(c);
  const received = write(c, (d) => {
    const moved = mergeMergeRequest(d, mr.id, user.id, now, {
      squash: prm.squash || undefined,
      should_remove_source_branch: prm.should_remove_source_branch,
      message: prm.merge_commit_message ?? defaultMergeCommitMessage(st, mr, closes, fullRef),
      squash_message: prm.squash_commit_message,
      closes,
    });
    return receiveMerged(d, moved, user.id, now, base);
  });
  announceMerged(c.get('fx'), base, user.id, received, mr);
  return sendMergeRequest(c, mr.id, 200, project);
}

/**
 * `GET .../merge_ref` (13.12 `lib/api/merge_requests.rb`): `MergeabilityCheckService#execute(recheck:
 * true)`, which merges into `refs/merge-requests/:iid/merge` and answers its commit as `commit_id`; 400
 * `Invalid argument` for a merge request that is not open, `Merge request is not mergeable` when it
 * cannot be merged (conflicts, a missing branch).
 */
function mergeRefRoute(c: Ctx): Response {
  const prm = parse(c, iidShape);
  const project = loadProject(c);
  const mr = findMergeRequest(c, project, prm.merge_request_iid);
  if (mr.state !== 'opened') throw apiError(400, 'Invalid argument');
  const st = state(c);
  if (checkedMergeStatus(st, mr) !== 'can_be_merged' || headsOf(st, mr) === undefined)
    throw apiError(400, 'Merge request is not mergeable');
  const now = c.get('fx').clock.iso();
  const fullRef = `${project.path_with_namespace}!${mr.iid}`;
  const closes = mget(st.issuables.idx.closing, `m${mr.id}`);
  const id = write(c, (d) =>
    updateMergeRef(d, mr.id, now, defaultMergeCommitMessage(st, mr, closes, fullRef)),
  );
  if (id === undefined) throw apiError(400, 'Merge ref cannot be updated');
  return c.json({ commit_id: id });
}

function participantsRoute(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const project = loadProject(c);
  if (!abilities(state(c), c.get('viewer').user, project).mergeRequests) throw notFound('Merge Request');
  const mr = withAccess(c, project, prm.merge_request_iid, 'read');
  const r = issuableRenderer(c, { project });
  return paginate(c, participants(state(c), 'MergeRequest', mr), (u) => r.users.basic(u));
}

function commitsRoute(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const project = loadProject(c);
  if (!abilities(state(c), c.get('viewer').user, project).mergeRequests) throw notFound('Merge Request');
  const mr = withAccess(c, project, prm.merge_request_iid, 'read');
  const r = issuableRenderer(c, { project });
  const diff = tget(state(c).issuables.diffs, mr.diff_id)!;
  return paginate(c, r.versionCommits(diff, project), (cm) => cm);
}

function changesRoute(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, access_raw_diffs: p.bool() });
  const project = loadProject(c);
  if (!abilities(state(c), c.get('viewer').user, project).mergeRequests) throw notFound('Merge Request');
  const mr = withAccess(c, project, prm.merge_request_iid, 'read');
  const st = state(c);
  const r = issuableRenderer(c, { project });
  const out = r.mergeRequestFull(mr, {
    subscribed: isSubscribed(st, 'MergeRequest', mr, c.get('viewer').user),
  });
  const diff = tget(st.issuables.diffs, mr.diff_id)!;
  out.changes = r.diffVersion(diff, true).diffs;
  out.overflow = diff.real_size.endsWith('+');
  return c.json(out);
}

function closesIssues(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const project = loadProject(c);
  const mr = withAccess(c, project, prm.merge_request_iid, 'read');
  const st = state(c);
  const a = abilities(st, c.get('viewer').user, project);
  const issues = mget(st.issuables.idx.closing, `m${mr.id}`)
    .map((id) => tget(st.issuables.issues, id))
    .filter((i): i is IssueRecord => !!i && canSeeIssue(a, i));
  const r = issuableRenderer(c);
  return paginate(c, issues, (i) => r.issue(i, { basic: true }));
}

function versions(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const project = loadProject(c);
  const mr = withAccess(c, project, prm.merge_request_iid, 'read');
  const st = state(c);
  const list = mget(st.issuables.idx.diffs, String(mr.id))
    .sort((x, y) => y - x)
    .map((id) => tget(st.issuables.diffs, id)!);
  const r = issuableRenderer(c, { project });
  return paginate(c, list, (d) => r.diffVersion(d, false));
}

function version(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, version_id: p.int().required() });
  const project = loadProject(c);
  const mr = withAccess(c, project, prm.merge_request_iid, 'read');
  const st = state(c);
  const d = tget(st.issuables.diffs, prm.version_id);
  if (!d || d.merge_request_id !== mr.id) throw recordNotFound('no such diff version');
  return c.json(issuableRenderer(c, { project }).diffVersion(d, true));
}

/**
 * `GET /projects/:id/repository/commits/:sha/merge_requests`: the merge requests of the project whose
 * latest diff version holds the commit (`MergeRequestsFinder` with `commit_sha`), newest first.
 */
function commitMergeRequests(c: Ctx): Response {
  parse(c, { id: p.str().required(), sha: p.str().required(), ...paginationParams });
  const project = readableRepo(c);
  const sha = findCommit(c, project, c.req.param('sha') ?? '');
  const st = state(c);
  const a = abilities(st, c.get('viewer').user, project);
  const meta = tget(st.issuables.projectMeta, project.id);
  const list: MergeRequestRecord[] = [];
  if (a.mergeRequests && meta)
    for (const id of chunkIds(st.issuables.idx.byProject, 'm', project.id, meta.mr_iid)) {
      const mr = tget(st.issuables.mergeRequests, id);
      if (mr && tget(st.issuables.diffs, mr.diff_id)?.commits.some((cm) => cm.id === sha)) list.push(mr);
    }
  list.sort((x, y) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : y.id - x.id));
  const r = issuableRenderer(c, { project });
  return paginate(c, list, (mr) => r.mergeRequest(mr));
}

/** The iid segment of subscribe and todo routes (`subscribable_id` is a String param there). */
function routeMergeRequest(c: Ctx, project: Project, ability: 'read' | 'update'): MergeRequestRecord {
  const raw = c.req.param('merge_request_iid') ?? '';
  if (!/^\d+$/.test(raw)) throw recordNotFound('no such merge request');
  return withAccess(c, project, Number(raw), ability);
}

function subscription(subscribe: boolean) {
  return (c: Ctx): Response => {
    const project = loadProject(c);
    const user = requireUser(c);
    // `subscriptions.rb` finds merge requests with `:update_merge_request`.
    const mr = routeMergeRequest(c, project, 'update');
    toggleSubscription(c, 'MergeRequest', mr, project, user, subscribe);
    return sendMergeRequest(c, mr.id, 201, project);
  };
}

function todo(c: Ctx): Response {
  const project = loadProject(c);
  const user = requireUser(c);
  const mr = routeMergeRequest(c, project, 'read');
  return sendMarkedTodo(c, 'MergeRequest', mr, user, (r, st) =>
    r.mergeRequestFull(tget(st.issuables.mergeRequests, mr.id)!, { subscribed: false }),
  );
}

export function mergeRequestsRoutes(r: ApiRouter): void {
  r.get('/merge_requests', listMergeRequests('global'));
  r.get('/groups/:id/merge_requests', listMergeRequests('group'));
  r.get('/projects/:id/merge_requests', listMergeRequests('project'));
  r.post('/projects/:id/merge_requests', createMergeRequestRoute);
  r.get('/projects/:id/merge_requests/:merge_request_iid', showMergeRequest);
  r.put('/projects/:id/merge_requests/:merge_request_iid', updateMergeRequestRoute);
  r.delete('/projects/:id/merge_requests/:merge_request_iid', deleteMergeRequestRoute);
  r.put('/projects/:id/merge_requests/:merge_request_iid/merge', mergeRoute);
  rebaseRoutes(r);
  r.get('/projects/:id/merge_requests/:merge_request_iid/participants', participantsRoute);
  r.get('/projects/:id/merge_requests/:merge_request_iid/merge_ref', mergeRefRoute);
  r.get('/projects/:id/merge_requests/:merge_request_iid/commits', commitsRoute);
  r.get('/projects/:id/merge_requests/:merge_request_iid/changes', changesRoute);
  r.get('/projects/:id/merge_requests/:merge_request_iid/closes_issues', closesIssues);
  r.get('/projects/:id/merge_requests/:merge_request_iid/versions', versions);
  r.get('/projects/:id/merge_requests/:merge_request_iid/versions/:version_id', version);
  r.post('/projects/:id/merge_requests/:merge_request_iid/subscribe', subscription(true));
  r.post('/projects/:id/merge_requests/:merge_request_iid/unsubscribe', subscription(false));
  r.post('/projects/:id/merge_requests/:merge_request_iid/todo', todo);
  r.get('/projects/:id/repository/commits/:sha/merge_requests', commitMergeRequests);
}
