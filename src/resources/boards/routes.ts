/**
 * Issue boards (`lib/api/boards.rb`, `group_boards.rb`, `boards_responses.rb`): every route needs a user;
 * whoever reads the project (with issues on) or group reads its boards, reporters edit their lists.
 * Paid tiers add creating, scoping, editing and deleting boards, and milestone and assignee lists.
 */
import { ACCESS, findGroup, findProject, groupAccess, projectAccess } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { badRequest, forbidden, grapeError, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { has } from '../../core/versions.js';
import { issuableRenderer } from '../issuables/entities.js';
import type { LabelRecord } from '../issuables/store.js';
import { featureAvailable } from '../projects/access.js';
import { projectEntity } from '../projects/entities.js';
import type { Project } from '../projects/model.js';
import {
  addList,
  createBoard,
  deleteBoard,
  deleteList,
  destroyableLists,
  moveList,
  parentBoards,
  updateBoard,
  type BoardFields,
  type Parent,
} from './model.js';
import { DELETE_LAST_BOARD } from './versions.js';
import type { BoardRecord, ListRecord } from './store.js';

/** The board parent of a request and what the viewer may do there. */
interface Scope {
  parent: Parent;
  read: boolean;
  admin: boolean;
  /** Labels a list may show: the parent's own and its ancestor groups'. */
  labels(): LabelRecord[];
  /** Milestones a scoped board or milestone list may name (the same parents). */
  milestoneIds(): Set<number>;
}

const paid = (c: Ctx) => c.get('fx').tier() !== 'free';

/** A group and its ancestors, nearest first. */
function groupChain(st: PlatformState, groupId: number | null): number[] {
  const out: number[] = [];
  for (let g = groupId === null ? undefined : tget(st.groups, groupId); g;) {
    out.push(g.id);
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id);
  }
  return out;
}

function ownedBy(st: PlatformState, keys: string[]): number[] {
  return keys.flatMap((k) => mget(st.issuables.idx.owned, k));
}

function projectScope(c: Ctx): Scope {
  requireUser(c);
  const proj = findProject(c, c.req.param('id') ?? '') as Project;
  const st = state(c);
  const user = c.get('viewer').user;
  const admin = user?.admin === true;
  const level = projectAccess(st, user, proj);
  // Boards close with the issues feature.
  const issues = featureAvailable(proj.issues_access_level, 'issues', level, admin);
  const groups = proj.namespace_kind === 'group' ? groupChain(st, proj.namespace_id) : [];
  return {
    parent: { project_id: proj.id, group_id: null },
    read: issues,
    admin: issues && (admin || level >= ACCESS.REPORTER),
    labels: () =>
      ownedBy(st, [`lp${proj.id}`, ...groups.map((g) => `lg${g}`)]).map((id) =>
        tget(st.issuables.labels, id)!,
      ),
    milestoneIds: () => new Set(ownedBy(st, [`p${proj.id}`, ...groups.map((g) => `g${g}`)])),
  };
}

function groupScope(c: Ctx): Scope {
  requireUser(c);
  const group = findGroup(c, c.req.param('id') ?? '');
  const st = state(c);
  const user = c.get('viewer').user;
  const level = groupAccess(st, user, group);
  const chain = groupChain(st, group.id);
  return {
    parent: { project_id: null, group_id: group.id },
    read: true,
    admin: user?.admin === true || level >= ACCESS.REPORTER,
    labels: () =>
      ownedBy(
        st,
        chain.map((g) => `lg${g}`),
      ).map((id) => tget(st.issuables.labels, id)!),
    milestoneIds: () =>
      new Set(
        ownedBy(
          st,
          chain.map((g) => `g${g}`),
        ),
      ),
  };
}

/** `board_parent.boards.find(params[:board_id])`. */
function boardOf(c: Ctx, s: Scope, id: number): BoardRecord {
  const b = tget(state(c).boards.boards, id);
  if (!b || b.project_id !== s.parent.project_id || b.group_id !== s.parent.group_id)
    throw recordNotFound('no board with this id here');
  return b;
}

/** `board.destroyable_lists.find(params[:list_id])`. */
function listOf(c: Ctx, board: BoardRecord, id: number): ListRecord {
  const l = destroyableLists(state(c), board.id).find((x) => x.id === id);
  if (!l) throw recordNotFound('no such list on this board');
  return l;
}

/** `Milestone::Any`, `Upcoming` and `Started`: the filters a scoped board may name instead of a milestone. */
const SPECIAL_MILESTONES: ReadonlyMap<number, string> = new Map([
  [-1, 'Any Milestone'],
  [-2, 'Upcoming'],
  [-3, 'Started'],
]);

/** `Entities::List` (with the paid tiers' fields). */
function listEntity(c: Ctx, l: ListRecord) {
  const r = issuableRenderer(c);
  const st = state(c);
  const label = l.label_id === null ? undefined : tget(st.issuables.labels, l.label_id);
  const out: Record<string, unknown> = {
    id: l.id,
    label: label ? r.label(label) : null,
    position: l.position,
  };
  if (!paid(c)) return out;
  if (l.list_type === 'milestone')
    out.milestone = r.milestone(
      l.milestone_id === null ? null : tget(st.issuables.milestones, l.milestone_id),
    );
  if (l.list_type === 'assignee') {
    const u = l.user_id === null ? undefined : tget(st.users, l.user_id);
    out.assignee = u ? { id: u.id, username: u.username, name: u.name } : null;
  }
  out.max_issue_count = l.max_issue_count;
  out.max_issue_weight = l.max_issue_weight;
  out.limit_metric = l.limit_metric;
  return out;
}

/** `Entities::Board`; the paid tiers add the group and the scope. */
function boardEntity(c: Ctx, b: BoardRecord) {
  const st = state(c);
  const out: Record<string, unknown> = {
    id: b.id,
    name: b.name,
    hide_backlog_list: b.hide_backlog_list,
    hide_closed_list: b.hide_closed_list,
    project:
      b.project_id === null ? null : projectEntity(c, tget(st.projects, b.project_id)!, { shape: 'basic' }),
    lists: destroyableLists(st, b.id).map((l) => listEntity(c, l)),
  };
  if (!paid(c)) return out;
  const g = b.group_id === null ? undefined : tget(st.groups, b.group_id);
  out.group = g ? { id: g.id, web_url: groupWebUrl(c, g.full_path), name: g.name } : null;
  const r = issuableRenderer(c);
  const special = b.milestone_id === null ? undefined : SPECIAL_MILESTONES.get(b.milestone_id);
  out.milestone = special
    ? { title: special }
    : r.milestone(b.milestone_id === null ? null : tget(st.issuables.milestones, b.milestone_id));
  out.assignee = r.user(b.assignee_id);
  out.labels = b.label_ids.flatMap((id) => {
    const l = tget(st.issuables.labels, id);
    return l ? [r.label(l)] : [];
  });
  out.weight = b.weight;
  return out;
}

const groupWebUrl = (c: Ctx, fullPath: string) => `${requestBase(c)}/groups/${fullPath}`;

/** A board as `Board.new` leaves it (id 0 has no lists). */
const blankBoard = (name: string, now: string): BoardRecord => ({
  id: 0,
  project_id: null,
  group_id: null,
  name,
  hide_backlog_list: false,
  hide_closed_list: false,
  milestone_id: null,
  assignee_id: null,
  label_ids: [],
  weight: null,
  created_at: now,
  updated_at: now,
});

const boardId = { board_id: p.int().required() };
const listId = { ...boardId, list_id: p.int().required() };

function boardRoutes(r: ApiRouter, base: string, scope: (c: Ctx) => Scope): void {
  r.get(`${base}/:id/boards`, { params: paginationParams }, (c) => {
    const s = scope(c);
    if (!s.read) throw forbidden();
    return paginate(c, parentBoards(state(c), s.parent), (b) => boardEntity(c, b));
  });

  r.get(`${base}/:id/boards/:board_id`, { params: boardId }, (c, prm) => {
    const s = scope(c);
    if (!s.read) throw forbidden();
    return c.json(boardEntity(c, boardOf(c, s, prm.board_id)));
  });

  r.get(`${base}/:id/boards/:board_id/lists`, { params: { ...boardId, ...paginationParams } }, (c, prm) => {
    const s = scope(c);
    if (!s.read) throw forbidden();
    const b = boardOf(c, s, prm.board_id);
    return paginate(c, destroyableLists(state(c), b.id), (l) => listEntity(c, l));
  });

  r.get(`${base}/:id/boards/:board_id/lists/:list_id`, { params: listId }, (c, prm) => {
    const s = scope(c);
    if (!s.read) throw forbidden();
    return c.json(listEntity(c, listOf(c, boardOf(c, s, prm.board_id), prm.list_id)));
  });

  r.post(
    `${base}/:id/boards/:board_id/lists`,
    { params: { ...boardId, label_id: p.int(), milestone_id: p.int(), assignee_id: p.int() } },
    (c, prm) => {
      const raw = c.get('params');
      const given = (['label_id', 'milestone_id', 'assignee_id'] as const).filter(
        (k) => raw[k] !== undefined,
      );
      // The free tier knows label lists only (`requires :label_id`); paid tiers take exactly one kind.
      if (!paid(c)) {
        if (prm.label_id === undefined) throw grapeError(400, 'label_id is missing');
      } else if (given.length !== 1)
        throw grapeError(
          400,
          given.length === 0
            ? 'label_id, milestone_id, assignee_id are missing, exactly one parameter must be provided'
            : `${given.join(', ')} are mutually exclusive`,
        );
      const s = scope(c);
      const st = state(c);
      // `authorize_list_type_resource!` runs before `authorize!`: a stranger's bad label is a 400 first.
      if (prm.label_id !== undefined && !s.labels().some((l) => l.id === prm.label_id))
        throw grapeError(400, 'Label not found!');
      let board: BoardRecord | undefined;
      if (paid(c) && prm.milestone_id !== undefined) {
        board = boardOf(c, s, prm.board_id);
        if (!s.milestoneIds().has(prm.milestone_id)) throw grapeError(400, 'Milestone not found!');
      }
      if (paid(c) && prm.assignee_id !== undefined) {
        board = boardOf(c, s, prm.board_id);
        if (!assignable(c, s, prm.assignee_id)) throw grapeError(400, 'User not found!');
      }
      if (!s.admin) throw forbidden();
      board ??= boardOf(c, s, prm.board_id);
      const b = board;
      const lists = destroyableLists(st, b.id);
      const field =
        prm.label_id !== undefined ? 'label_id' : prm.milestone_id !== undefined ? 'milestone_id' : 'user_id';
      const target = prm.label_id ?? prm.milestone_id ?? prm.assignee_id!;
      if (lists.some((l) => l[field] === target))
        throw validationError({ [field]: ['has already been taken'] });
      const type = field === 'label_id' ? 'label' : field === 'milestone_id' ? 'milestone' : 'assignee';
      const now = c.get('fx').clock.iso();
      const id = write(c, (d) => addList(d, b.id, type, { [field]: target }, now));
      return c.json(listEntity(c, tget(state(c).boards.lists, id)!), 201);
    },
  );

  r.put(
    `${base}/:id/boards/:board_id/lists/:list_id`,
    { params: { ...listId, position: p.int().required() } },
    (c, prm) => {
      const s = scope(c);
      const list = listOf(c, boardOf(c, s, prm.board_id), prm.list_id);
      if (!s.admin) throw forbidden();
      const now = c.get('fx').clock.iso();
      const moved = write(c, (d) => moveList(d, list.id, prm.position, now));
      if (!moved) throw grapeError(400, 'List could not be moved!');
      return c.json(listEntity(c, tget(state(c).boards.lists, list.id)!));
    },
  );

  r.delete(`${base}/:id/boards/:board_id/lists/:list_id`, { params: listId }, (c, prm) => {
    const s = scope(c);
    if (!s.admin) throw forbidden();
    const list = listOf(c, boardOf(c, s, prm.board_id), prm.list_id);
    checkUnmodifiedSince(c, list.updated_at);
    write(c, (d) => deleteList(d, list.id));
    return c.body(null, 204);
  });

  paidBoardRoutes(r, base, scope);
}

/** `Boards::UsersFinder`: members of the board's parent (and, for a project, its groups). */
function assignable(c: Ctx, s: Scope, userId: number): boolean {
  const st = state(c);
  const u = tget(st.users, userId);
  if (!u) return false;
  if (s.parent.project_id !== null) return projectAccess(st, u, tget(st.projects, s.parent.project_id)!) > 0;
  return groupAccess(st, u, tget(st.groups, s.parent.group_id!)!) > 0;
}

/** EE's board CRUD: creating and deleting need multiple boards, which every paid tier has. */
function paidBoardRoutes(r: ApiRouter, base: string, scope: (c: Ctx) => Scope): void {
  r.post(`${base}/:id/boards`, { tier: 'premium', params: { name: p.str().required() } }, (c, prm) => {
    const s = scope(c);
    if (!s.admin) throw forbidden();
    const now = c.get('fx').clock.iso();
    // A blank name saves nothing, yet the API presents the unsaved board.
    if (prm.name.trim() === '') {
      const draft: BoardRecord = { ...blankBoard(prm.name, now), ...s.parent };
      return c.json({ ...boardEntity(c, draft), id: null }, 201);
    }
    const id = write(c, (d) => createBoard(d, s.parent, { name: prm.name }, now));
    return c.json(boardEntity(c, tget(state(c).boards.boards, id)!), 201);
  });

  r.put(
    `${base}/:id/boards/:board_id`,
    {
      tier: 'premium',
      params: {
        ...boardId,
        name: p.str(),
        assignee_id: p.int(),
        milestone_id: p.int(),
        labels: p.str(),
        weight: p.int(),
      },
    },
    (c, prm) => {
      const s = scope(c);
      if (!s.admin) throw forbidden();
      const b = boardOf(c, s, prm.board_id);
      const ch: Partial<BoardFields> = {};
      if (prm.name !== undefined) ch.name = prm.name;
      // `Boards::UpdateService` drops a scope it cannot resolve rather than failing.
      if (prm.assignee_id !== undefined && assignable(c, s, prm.assignee_id))
        ch.assignee_id = prm.assignee_id;
      if (
        prm.milestone_id !== undefined &&
        (SPECIAL_MILESTONES.has(prm.milestone_id) || s.milestoneIds().has(prm.milestone_id))
      )
        ch.milestone_id = prm.milestone_id;
      if (prm.labels !== undefined) {
        const titles = prm.labels.split(',').map((t) => t.trim());
        const available = s.labels();
        ch.label_ids = titles.flatMap((t) =>
          available
            .filter((l) => l.title === t)
            .slice(0, 1)
            .map((l) => l.id),
        );
      }
      if (prm.weight !== undefined) ch.weight = prm.weight;
      if (ch.name !== undefined && ch.name.trim() === '')
        throw badRequest(`Failed to save board {:name=>["can't be blank"]}`);
      const now = c.get('fx').clock.iso();
      write(c, (d) => updateBoard(d, b.id, ch, now));
      return c.json(boardEntity(c, tget(state(c).boards.boards, b.id)!));
    },
  );

  r.delete(`${base}/:id/boards/:board_id`, { tier: 'premium', params: boardId }, (c, prm) => {
    const s = scope(c);
    if (!s.admin) throw forbidden();
    const b = boardOf(c, s, prm.board_id);
    checkUnmodifiedSince(c, b.updated_at);
    // `Boards::DestroyService` keeps a parent's last board until 15.4 (DELETE_LAST_BOARD); the API
    // answers 204 all the same.
    if (has(c, DELETE_LAST_BOARD) || parentBoards(state(c), s.parent).length > 1)
      write(c, (d) => deleteBoard(d, b.id));
    return c.body(null, 204);
  });
}

export function boardsRoutes(r: ApiRouter): void {
  boardRoutes(r, '/projects', projectScope);
  boardRoutes(r, '/groups', groupScope);
}
