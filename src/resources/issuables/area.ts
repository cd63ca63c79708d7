import { deleteGroupIssuables, deleteProjectIssuables } from './model.js';
import { defineArea } from '../../core/area.js';
import { exportIssuables } from './export.js';
import { generateIssuables, generateIssuablesFields } from './generate.js';
import {
  buildEpics,
  buildProjectIssuables,
  epicFields,
  issuableProblems,
  projectIssuablesFields,
  type IssuablesScenario,
  type ProjectEntry,
} from './scenario.js';
import { issuablesRoutes } from './routes.js';
import { emptyIssuables } from './store.js';

export const issuablesArea = defineArea({
  name: 'issuables',
  state: { key: 'issuables', empty: emptyIssuables },
  routes: issuablesRoutes,
  scenario: {
    fields: epicFields,
    projectFields: projectIssuablesFields,
    problems: (s: IssuablesScenario, refs) => issuableProblems(s.projects, s.epics, refs.users, refs.groups),
    buildProject: (st, id, p: ProjectEntry, b) => buildProjectIssuables(st, id, p, b.uid, b.now),
    build: (st, s: IssuablesScenario, b) => buildEpics(st, s.epics, b.uid, b.now),
    generateFields: generateIssuablesFields,
    generate: generateIssuables,
    export: exportIssuables,
  },
  cascade: { project: deleteProjectIssuables, group: deleteGroupIssuables },
});
