import { defineArea } from '../../core/area.js';
import { jobsControl } from './control.js';
import { jobsRoutes } from './routes.js';
import { buildCi, ciFields, exportCi, type CiScenario } from './scenario.js';
import { emptyCiJobs } from './store.js';

export const jobsArea = defineArea({
  name: 'jobs',
  state: { key: 'ciJobs', empty: emptyCiJobs },
  routes: jobsRoutes,
  control: jobsControl,
  scenario: {
    fields: ciFields,
    build: (st, s: CiScenario) => buildCi(st, s),
    export: exportCi,
  },
});
