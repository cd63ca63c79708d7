import { deleteGroupIssuables, deleteProjectIssuables } from './model.js';
import { defineArea } from '../../core/area.js';
import { epicTreeProblems } from './epic-tree-scenario.js';
import { exportIssuables } from './export.js';
import { generateIssuables, generateIssuablesFields } from './generate.js';
import {
  buildGroupLabels,
  buildProjectLabelSettings,
  exportLabels,
  labelGroupFields,
  labelProjectFields,
  labelScenarioProblems,
  type LabelsScenario,
} from './labels/scenario.js';
import {
  buildEpics,
  buildIssueMoves,
  buildProjectIssuables,
  epicFields,
  issuableProblems,
  projectIssuablesFields,
  realizeDeclaredMergeRequests,
  type IssuablesScenario,
  type ProjectEntry,
} from './scenario.js';
import { issuablesRoutes } from './routes.js';
import { emptyIssuables } from './store.js';
import { issuablesAfterPush } from './model/push.js';

type Scenario = IssuablesScenario & LabelsScenario;
type Project = ProjectEntry & LabelsScenario['projects'][number];

export const issuablesArea = defineArea({
  name: 'issuables',
  state: { key: 'issuables', empty: emptyIssuables },
  routes: issuablesRoutes,
  scenario: {
    fields: epicFields,
    groupFields: labelGroupFields,
    projectFields: { ...projectIssuablesFields, ...labelProjectFields },
    problems: (s: Scenario, refs) => [
      ...issuableProblems(s.projects, s.epics, refs.users, refs.groups),
      ...epicTreeProblems(s.epics),
      ...labelScenarioProblems(s, refs),
    ],
    buildGroup: (st, id, g: LabelsScenario['groups'][number], b) =>
      buildGroupLabels(st, id, g.labels, b.uid, b.now),
    buildProject: (st, id, p: Project, b) => {
      buildProjectIssuables(st, id, p, b.uid, b.now);
      buildProjectLabelSettings(st, id, p, b.uid);
    },
    build: (st, s: IssuablesScenario, b) => {
      realizeDeclaredMergeRequests(st);
      buildEpics(st, s.epics, b.uid, b.now);
      buildIssueMoves(st, s.projects);
    },
    generateFields: generateIssuablesFields,
    generate: generateIssuables,
    export: (st, out) => {
      exportIssuables(st, out);
      exportLabels(st, out);
    },
  },
  cascade: { project: deleteProjectIssuables, group: deleteGroupIssuables },
  push: issuablesAfterPush,
});
