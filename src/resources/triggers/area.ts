import { deleteProjectTriggers } from './model.js';
import { defineArea } from '../../core/area.js';
import { triggersRoutes } from './routes.js';
import {
  buildTriggers,
  exportTriggers,
  triggerProblems,
  triggerProjectFields,
  type TriggerProject,
} from './scenario.js';
import { emptyTriggers } from './store.js';

export const triggersArea = defineArea({
  name: 'triggers',
  state: { key: 'triggers', empty: emptyTriggers },
  routes: triggersRoutes,
  scenario: {
    projectFields: triggerProjectFields,
    problems: (s: { projects?: TriggerProject[] }, refs) => triggerProblems(s, refs),
    buildProject: (st, id, p: TriggerProject, b) => buildTriggers(st, id, p, b),
    export: exportTriggers,
  },
  cascade: { project: deleteProjectTriggers },
});
