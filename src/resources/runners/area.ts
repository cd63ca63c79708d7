import { defineArea } from '../../core/area.js';
import { forgetGroup, forgetProject } from './model.js';
import { runnersRoutes } from './routes.js';
import {
  buildRunners,
  exportRunners,
  runnerFields,
  runnerProblems,
  type RunnersScenario,
} from './scenario.js';
import { emptyRunners } from './store.js';

export const runnersArea = defineArea({
  name: 'runners',
  state: { key: 'runners', empty: emptyRunners },
  routes: runnersRoutes,
  scenario: {
    fields: runnerFields,
    problems: (s: RunnersScenario, refs) => runnerProblems(s, refs),
    build: (st, s: RunnersScenario, b) => buildRunners(st, s, b),
    export: exportRunners,
  },
  cascade: { project: forgetProject, group: forgetGroup },
});
