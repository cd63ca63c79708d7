/** Board and list writes, as the platform's board services make them. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { BoardRecord, ListRecord, ListType } from './store.js';

type S = Draft<PlatformState>;

export type Parent = { project_id: number; group_id: null } | { project_id: null; group_id: number };
export const parentKey = (p: Pick<BoardRecord, 'project_id' | 'group_id'>) =>
  p.project_id !== null ? `p${p.project_id}` : `g${p.group_id}`;

const MOVABLE: ReadonlySet<ListType> = new Set(['label', 'assignee', 'milestone']);
export const movable = (l: ListRecord) => MOVABLE.has(l.list_type);

/** The parent's boards, in id order. */
export function parentBoards(st: PlatformState, parent: Parent): BoardRecord[] {
  return mget(st.boards.idx.byParent, parentKey(parent))
    .sort((a, b) => a - b)
    .map((id) => tget(st.boards.boards, id)!);
}

/** All lists of a board, in the board's order: backlog, the movable lists by position, closed. */
export function boardLists(st: PlatformState, boardId: number): ListRecord[] {
  const rank = (l: ListRecord) => (l.list_type === 'backlog' ? 0 : l.list_type === 'closed' ? 2 : 1);
  return mget(st.boards.idx.lists, String(boardId))
    .map((id) => tget(st.boards.lists, id)!)
    .sort((a, b) => rank(a) - rank(b) || (a.position ?? 0) - (b.position ?? 0) || a.id - b.id);
}

/**
 * `Board#destroyable_lists`: the lists the API shows and edits. A label list whose label was deleted is
 * gone (the platform's foreign key removes it); the writers below drop such lists for good.
 */
export const destroyableLists = (st: PlatformState, boardId: number) =>
  boardLists(st, boardId).filter((l) => movable(l) && !dangling(st, l));

const dangling = (st: PlatformState, l: ListRecord) =>
  l.list_type === 'label' && (l.label_id === null || !tget(st.issuables.labels, l.label_id));

/**
 * Removes a board's lists of deleted labels. Their places stay empty, as after the platform's cascading
 * delete (only `Boards::Lists::DestroyService` moves the later lists up).
 */
function dropDangling(st: S, boardId: number): void {
  for (const l of boardLists(st, boardId))
    if (dangling(st, l)) {
      mremove(st.boards.idx.lists, String(boardId), l.id);
      tdelete(st.boards.lists, l.id);
    }
}

export interface BoardFields {
  name: string;
  milestone_id?: number | null;
  assignee_id?: number | null;
  label_ids?: number[];
  weight?: number | null;
  hide_backlog_list?: boolean;
  hide_closed_list?: boolean;
}

/** `Boards::CreateService`: the board with its backlog and closed lists. */
export function createBoard(st: S, parent: Parent, f: BoardFields, now: string): number {
  const id = nextId(st, 'boards');
  const rec: BoardRecord = {
    id,
    ...parent,
    name: f.name,
    hide_backlog_list: f.hide_backlog_list ?? false,
    hide_closed_list: f.hide_closed_list ?? false,
    milestone_id: f.milestone_id ?? null,
    assignee_id: f.assignee_id ?? null,
    label_ids: f.label_ids ?? [],
    weight: f.weight ?? null,
    created_at: now,
    updated_at: now,
  };
  tset(st.boards.boards, id, rec);
  madd(st.boards.idx.byParent, parentKey(parent), id);
  addList(st, id, 'backlog', {}, now);
  addList(st, id, 'closed', {}, now);
  return id;
}

export function updateBoard(st: S, id: number, f: Partial<BoardFields>, now: string): void {
  const b = tget(st.boards.boards, id)!;
  for (const [k, v] of Object.entries(f)) if (v !== undefined) (b as Record<string, unknown>)[k] = v;
  b.updated_at = now;
}

export function deleteBoard(st: S, id: number): void {
  const b = tget(st.boards.boards, id)!;
  for (const lid of mget(st.boards.idx.lists, String(id))) tdelete(st.boards.lists, lid);
  mremove(st.boards.idx.byParent, parentKey(b), id);
  tdelete(st.boards.boards, id);
}

/** `Boards::Lists::CreateService`: a movable list goes after the others. */
export function addList(
  st: S,
  boardId: number,
  type: ListType,
  target: { label_id?: number; user_id?: number; milestone_id?: number },
  now: string,
): number {
  dropDangling(st, boardId);
  const id = nextId(st, 'board_lists');
  let position: number | null = null;
  if (MOVABLE.has(type)) {
    const positions = destroyableLists(st, boardId).map((l) => l.position ?? 0);
    position = positions.length ? Math.max(...positions) + 1 : 0;
  }
  tset<ListRecord>(st.boards.lists, id, {
    id,
    board_id: boardId,
    list_type: type,
    label_id: target.label_id ?? null,
    user_id: target.user_id ?? null,
    milestone_id: target.milestone_id ?? null,
    position,
    max_issue_count: 0,
    max_issue_weight: 0,
    limit_metric: null,
    created_at: now,
    updated_at: now,
  });
  madd(st.boards.idx.lists, String(boardId), id);
  return id;
}

/**
 * `Boards::Lists::MoveService`: only to another place among the movable lists; the lists between the
 * old and new place shift by one. False when the move is not valid (the API's 400).
 */
export function moveList(st: S, listId: number, to: number, now: string): boolean {
  dropDangling(st, tget(st.boards.lists, listId)!.board_id);
  const list = tget(st.boards.lists, listId)!;
  const others = destroyableLists(st, list.board_id);
  const from = list.position ?? 0;
  if (!movable(list) || to === from || to < 0 || to >= others.length) return false;
  for (const l of others) {
    const p = l.position ?? 0;
    const rec = tget(st.boards.lists, l.id)!;
    if (to > from && p > from && p <= to) rec.position = p - 1;
    if (to < from && p >= to && p < from) rec.position = p + 1;
  }
  list.position = to;
  list.updated_at = now;
  return true;
}

/** `Boards::Lists::DestroyService`: the later lists move up. */
export function deleteList(st: S, listId: number): void {
  dropDangling(st, tget(st.boards.lists, listId)!.board_id);
  const list = tget(st.boards.lists, listId)!;
  for (const l of destroyableLists(st, list.board_id))
    if ((l.position ?? 0) > (list.position ?? 0))
      tget(st.boards.lists, l.id)!.position = (l.position ?? 0) - 1;
  mremove(st.boards.idx.lists, String(list.board_id), listId);
  tdelete(st.boards.lists, listId);
}

/** Everything of a deleted project or group. */
export function deleteParentBoards(st: S, parent: Parent): void {
  for (const id of mget(st.boards.idx.byParent, parentKey(parent))) deleteBoard(st, id);
}
