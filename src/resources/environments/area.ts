import { deleteProjectEnvironments } from './model.js';
import { defineArea } from '../../core/area.js';
import { environmentsRoutes } from './routes.js';
import {
  buildEnvironments,
  environmentProblems,
  environmentProjectFields,
  exportEnvironments,
  type EnvironmentProject,
} from './scenario.js';
import { emptyEnvironments } from './store.js';

export const environmentsArea = defineArea({
  name: 'environments',
  state: { key: 'environments', empty: emptyEnvironments },
  routes: environmentsRoutes,
  scenario: {
    projectFields: environmentProjectFields,
    projectProblems: (p: EnvironmentProject, at) => environmentProblems(p, at),
    buildProject: (st, id, p: EnvironmentProject, b) => buildEnvironments(st, id, p, b),
    export: exportEnvironments,
  },
  cascade: { project: deleteProjectEnvironments },
});
