import { defineArea } from '../../core/area.js';
import { jobsControl } from './control.js';
import { jobsRoutes } from './routes.js';
import { emptyCiJobs } from './store.js';

export const jobsArea = defineArea({
  name: 'jobs',
  state: { key: 'ciJobs', empty: emptyCiJobs },
  routes: jobsRoutes,
  control: jobsControl,
});
