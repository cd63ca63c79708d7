import { defineArea } from '../../core/area.js';
import { deleteParentBoards } from './model.js';
import { boardsRoutes } from './routes.js';
import { boardFields, boardProblems, buildBoards, exportBoards, type BoardEntry } from './scenario.js';
import { emptyBoards } from './store.js';

export const boardsArea = defineArea({
  name: 'boards',
  state: { key: 'boards', empty: emptyBoards },
  routes: boardsRoutes,
  scenario: {
    projectFields: boardFields,
    groupFields: boardFields,
    projectProblems: (e: BoardEntry, at) => boardProblems(e, at),
    problems: (s: { groups?: BoardEntry[] }) =>
      (s.groups ?? []).flatMap((g, i) => boardProblems(g, `groups[${i}]`)),
    buildProject: (st, id, e: BoardEntry, b) => buildBoards(st, { project_id: id, group_id: null }, e, b),
    buildGroup: (st, id, e: BoardEntry, b) => buildBoards(st, { project_id: null, group_id: id }, e, b),
    export: exportBoards,
  },
  cascade: {
    project: (st, id) => deleteParentBoards(st, { project_id: id, group_id: null }),
    group: (st, id) => deleteParentBoards(st, { project_id: null, group_id: id }),
  },
});
