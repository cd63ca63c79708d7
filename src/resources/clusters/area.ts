import { defineArea } from '../../core/area.js';
import { annotationsRoutes } from './annotations.js';
import { deleteGroupClusters, deleteProjectClusters } from './model.js';
import { clustersRoutes } from './routes.js';
import {
  buildClusters,
  clusterFields,
  clusterProblems,
  exportClusters,
  type ClustersScenario,
} from './scenario.js';
import { emptyClusters } from './store.js';

export const clustersArea = defineArea({
  name: 'clusters',
  state: { key: 'clusters', empty: emptyClusters },
  routes: (r) => {
    clustersRoutes(r);
    annotationsRoutes(r);
  },
  scenario: {
    fields: clusterFields,
    problems: (s: ClustersScenario, refs) => clusterProblems(s, refs),
    build: (st, s: ClustersScenario, b) => buildClusters(st, s, b),
    export: exportClusters,
  },
  cascade: { project: deleteProjectClusters, group: deleteGroupClusters },
});
