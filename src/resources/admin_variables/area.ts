import { defineArea } from '../../core/area.js';
import { exportCiVariables } from './scenario.js';
import { ciVariablesRoutes } from './routes.js';
import { emptyCiVariables } from './store.js';

export const adminVariablesArea = defineArea({
  name: 'admin_variables',
  state: { key: 'ciVariables', empty: emptyCiVariables },
  routes: ciVariablesRoutes,
  scenario: { export: exportCiVariables },
});
