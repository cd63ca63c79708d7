/** The orders of issue and merge request lists (`order_by`), as the finders sort them. */
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { labelPriorityIn } from './model/labels.js';
import type { IssueRecord, MergeRequestRecord } from './store.js';

type Rec = IssueRecord | MergeRequestRecord;

export type IssueOrder =
  | 'created_at'
  | 'updated_at'
  | 'priority'
  | 'due_date'
  | 'relative_position'
  | 'label_priority'
  | 'milestone_due'
  | 'popularity'
  | 'weight';

/** The lowest priority among a record's labels (lower is more important), null when none has one. */
function labelPriority(st: PlatformState, r: Rec): number | null {
  let best: number | null = null;
  for (const id of r.label_ids) {
    const l = tget(st.issuables.labels, id);
    const p = l ? labelPriorityIn(st, r.project_id, l) : null;
    if (p !== null && (best === null || p < best)) best = p;
  }
  return best;
}

function milestoneDue(st: PlatformState, r: Rec): string | null {
  return r.milestone_id === null ? null : (tget(st.issuables.milestones, r.milestone_id)?.due_date ?? null);
}

/** Compares with nulls last whatever the direction. */
function nullsLast<V extends number | string>(a: V | null, b: V | null, dir: number): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return (a < b ? -1 : 1) * dir;
}

/** The platform's orderings, each with its tie-breaker. */
export function comparator(
  st: PlatformState,
  orderBy: IssueOrder,
  sort: 'asc' | 'desc',
): (a: Rec, b: Rec) => number {
  const dir = sort === 'asc' ? 1 : -1;
  const idDesc = (a: Rec, b: Rec) => b.id - a.id;
  switch (orderBy) {
    case 'created_at':
    case 'updated_at':
      return (a, b) => {
        const x = a[orderBy];
        const y = b[orderBy];
        return x === y ? (a.id - b.id) * dir : (x < y ? -1 : 1) * dir;
      };
    case 'due_date':
      return (a, b) =>
        nullsLast((a as IssueRecord).due_date ?? null, (b as IssueRecord).due_date ?? null, dir) ||
        idDesc(a, b);
    case 'relative_position':
      return (a, b) =>
        nullsLast(
          (a as IssueRecord).relative_position ?? null,
          (b as IssueRecord).relative_position ?? null,
          dir,
        ) || idDesc(a, b);
    case 'weight':
      return (a, b) =>
        nullsLast((a as IssueRecord).weight ?? null, (b as IssueRecord).weight ?? null, dir) || idDesc(a, b);
    case 'popularity':
      return (a, b) => (a.upvotes - b.upvotes) * dir || idDesc(a, b);
    case 'milestone_due':
      return (a, b) => nullsLast(milestoneDue(st, a), milestoneDue(st, b), dir) || idDesc(a, b);
    case 'label_priority':
      return (a, b) => nullsLast(labelPriority(st, a), labelPriority(st, b), dir) || idDesc(a, b);
    case 'priority':
      return (a, b) =>
        nullsLast(milestoneDue(st, a), milestoneDue(st, b), dir) ||
        nullsLast(labelPriority(st, a), labelPriority(st, b), dir) ||
        idDesc(a, b);
  }
}
