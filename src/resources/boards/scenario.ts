/** Scenario files' `boards` of a project or group: named boards with label lists, in order. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { mget, tget, tvalues } from '../../core/table.js';
import { createLabel } from '../issuables/model/labels.js';
import { addList, createBoard, destroyableLists, type Parent } from './model.js';

const boardSchema = z.strictObject({
  name: z.string().min(1),
  lists: z
    .array(z.string().min(1))
    .max(100)
    .default([])
    .describe('label titles, one list each, in order; missing labels are created'),
});

export const boardFields = { boards: z.array(boardSchema).max(1000).optional() };

export interface BoardEntry {
  boards?: z.output<typeof boardSchema>[];
}

export function boardProblems(e: BoardEntry, at: string): string[] {
  const problems: string[] = [];
  (e.boards ?? []).forEach((b, j) => {
    const seen = new Set<string>();
    b.lists.forEach((title, k) => {
      if (seen.has(title))
        problems.push(`${at}.boards[${j}].lists[${k}]: the label "${title}" is listed twice`);
      seen.add(title);
    });
  });
  return problems;
}

/** The labels a board of `parent` may show: the parent's own, then its groups' (nearest first). */
function labelKeys(st: PlatformState, parent: Parent): string[] {
  const keys: string[] = [];
  let groupId: number | null = parent.group_id;
  if (parent.project_id !== null) {
    keys.push(`lp${parent.project_id}`);
    const p = tget(st.projects, parent.project_id)!;
    groupId = p.namespace_kind === 'group' ? p.namespace_id : null;
  }
  for (let g = groupId === null ? undefined : tget(st.groups, groupId); g;) {
    keys.push(`lg${g.id}`);
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id);
  }
  return keys;
}

export function buildBoards(st: Draft<PlatformState>, parent: Parent, e: BoardEntry, b: ScenarioBuild): void {
  for (const board of e.boards ?? []) {
    const id = createBoard(st, parent, { name: board.name }, b.now);
    for (const title of board.lists) {
      const found = labelKeys(st, parent)
        .flatMap((k) => mget(st.issuables.idx.owned, k))
        .find((lid) => tget(st.issuables.labels, lid)!.title === title);
      const owner =
        parent.project_id !== null ? { project_id: parent.project_id } : { group_id: parent.group_id! };
      const labelId = found ?? createLabel(st, owner, { title }, b.now);
      addList(st, id, 'label', { label_id: labelId }, b.now);
    }
  }
}

/** Boards with their label lists; the paid tiers' scopes and other list kinds are not part of the format. */
export function exportBoards(st: PlatformState, out: ScenarioOut): void {
  for (const board of tvalues(st.boards.boards).sort((a, b) => a.id - b.id)) {
    const e = board.project_id !== null ? out.project(board.project_id) : out.group(board.group_id!);
    if (!e) continue;
    const lists = destroyableLists(st, board.id).flatMap((l) => {
      const label = l.label_id === null ? undefined : tget(st.issuables.labels, l.label_id);
      return label ? [label.title] : [];
    });
    ((e.boards ??= []) as unknown[]).push(lists.length ? { name: board.name, lists } : { name: board.name });
  }
}
