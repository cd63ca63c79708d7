import { deleteProjectCi } from './model.js';
import { defineArea } from '../../core/area.js';
import { tget } from '../../core/table.js';
import {
  buildProjectCi,
  ciProjectFields,
  ciScenarioProblems,
  exportProjectCi,
  type ScenarioProject,
} from './scenario.js';
import { ciRoutes } from './routes.js';

export const ciArea = defineArea({
  name: 'ci',
  routes: ciRoutes,
  scenario: {
    projectFields: ciProjectFields,
    projectProblems: (p: ScenarioProject, at, refs) => ciScenarioProblems(p, at, refs.users),
    buildProject: (st, id, p: ScenarioProject, b) =>
      buildProjectCi(st, tget(st.projects, id)!, p, b.uid, b.now),
    export: exportProjectCi,
  },
  cascade: { project: deleteProjectCi },
});
