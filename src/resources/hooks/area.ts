import { defineArea } from '../../core/area.js';
import { deleteGroupHooks, deleteProjectHooks } from './model.js';
import { hooksRoutes } from './routes.js';
import {
  buildHooks,
  exportHooks,
  hookFields,
  hookGroupFields,
  hookProjectFields,
  type HooksEntry,
} from './scenario.js';
import { emptyHooks } from './store.js';

export const hooksArea = defineArea({
  name: 'hooks',
  state: { key: 'hooks', empty: emptyHooks },
  routes: hooksRoutes,
  scenario: {
    fields: hookFields,
    groupFields: hookGroupFields,
    projectFields: hookProjectFields,
    buildProject: (st, id, p: HooksEntry, b) => buildHooks(st, 'project', { project_id: id }, p.hooks, b),
    buildGroup: (st, id, g: HooksEntry, b) => buildHooks(st, 'group', { group_id: id }, g.hooks, b),
    build: (st, s: { system_hooks?: HooksEntry['hooks'] }, b) =>
      buildHooks(st, 'system', {}, s.system_hooks, b),
    export: exportHooks,
  },
  cascade: { project: deleteProjectHooks, group: deleteGroupHooks },
});
