import { defineArea } from '../../core/area.js';
import { deleteProjectFetches } from './model.js';
import { projectStatisticsRoutes } from './routes.js';
import {
  buildFetchStatistics,
  exportFetchStatistics,
  fetchStatisticsFields,
  type FetchStatisticsProject,
} from './scenario.js';
import { emptyProjectStatistics } from './store.js';

/** A project's daily fetch statistics (`GET /projects/:id/statistics`), counted by git over HTTP. */
export const projectStatisticsArea = defineArea({
  name: 'project_statistics',
  state: { key: 'project_statistics', empty: emptyProjectStatistics },
  routes: projectStatisticsRoutes,
  scenario: {
    projectFields: fetchStatisticsFields,
    buildProject: (st, id, p: FetchStatisticsProject) => buildFetchStatistics(st, id, p),
    export: exportFetchStatistics,
  },
  cascade: { project: deleteProjectFetches },
});
