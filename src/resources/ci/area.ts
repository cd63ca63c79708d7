import { defineArea } from '../../core/area.js';
import { exportProjectCi } from './scenario.js';
import { ciRoutes } from './routes.js';

export const ciArea = defineArea({
  name: 'ci',
  routes: ciRoutes,
  scenario: { export: exportProjectCi },
});
