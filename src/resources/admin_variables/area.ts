import { deleteGroupVariables } from './model.js';
import { defineArea } from '../../core/area.js';
import {
  buildGroupVariables,
  buildInstanceVariables,
  ciVariableProblems,
  exportCiVariables,
  groupVariableFields,
  instanceVariableFields,
  type VariablesScenario,
} from './scenario.js';
import { ciVariablesRoutes } from './routes.js';
import { emptyCiVariables } from './store.js';

export const adminVariablesArea = defineArea({
  name: 'admin_variables',
  state: { key: 'ciVariables', empty: emptyCiVariables },
  routes: ciVariablesRoutes,
  scenario: {
    fields: instanceVariableFields,
    groupFields: groupVariableFields,
    problems: (s: VariablesScenario) => ciVariableProblems(s),
    buildGroup: (st, id, g: VariablesScenario['groups'][number], b) =>
      buildGroupVariables(st, id, g.variables, b.now),
    build: (st, s: VariablesScenario) => buildInstanceVariables(st, s.variables),
    export: exportCiVariables,
  },
  cascade: { group: deleteGroupVariables },
});
