/** Issue boards of projects and groups, and their lists (`Board`, `List`). */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export interface BoardRecord {
  id: number;
  /** One of the two is set: a project's or a group's board. */
  project_id: number | null;
  group_id: number | null;
  name: string;
  hide_backlog_list: boolean;
  hide_closed_list: boolean;
  /** Scoped boards (paid tiers): a milestone id, or a special filter (-1 any, -2 upcoming, -3 started). */
  milestone_id: number | null;
  assignee_id: number | null;
  label_ids: number[];
  weight: number | null;
  created_at: string;
  updated_at: string;
}

export type ListType = 'backlog' | 'label' | 'closed' | 'assignee' | 'milestone';

export interface ListRecord {
  id: number;
  board_id: number;
  list_type: ListType;
  label_id: number | null;
  user_id: number | null;
  milestone_id: number | null;
  /** The place among the movable lists (label, assignee, milestone); null for backlog and closed. */
  position: number | null;
  max_issue_count: number;
  max_issue_weight: number;
  limit_metric: string | null;
  created_at: string;
  updated_at: string;
}

export interface BoardsState {
  boards: Table<BoardRecord>;
  lists: Table<ListRecord>;
  idx: {
    /** `p<project id>` / `g<group id>` -> board ids */
    byParent: MultiIndex;
    /** board id -> list ids */
    lists: MultiIndex;
  };
}

export const emptyBoards = (): BoardsState => ({
  boards: emptyTable(),
  lists: emptyTable(),
  idx: { byParent: emptyIndex(), lists: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    boards: BoardsState;
  }
}
