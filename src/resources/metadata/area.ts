import { defineArea } from '../../core/area.js';
import {
  buildGroupSetup,
  buildInstanceSetup,
  buildProjectSetup,
  groupSetupFields,
  projectSetupFields,
  setupScenarioFields,
  setupScenarioProblems,
  type GroupSetup,
  type ProjectSetup,
  type SetupScenario,
} from './scenario.js';
import { metadataRoutes } from './routes.js';

export const metadataArea = defineArea({
  name: 'metadata',
  routes: metadataRoutes,
  scenario: {
    fields: setupScenarioFields,
    groupFields: groupSetupFields,
    projectFields: projectSetupFields,
    problems: (s: SetupScenario) => setupScenarioProblems(s),
    buildGroup: (st, id, g: GroupSetup, b) => buildGroupSetup(st, id, g, b.now),
    buildProject: (st, id, p: ProjectSetup, b) => buildProjectSetup(st, id, p, b.now),
    build: (st, s: SetupScenario) => buildInstanceSetup(st, s),
  },
});
