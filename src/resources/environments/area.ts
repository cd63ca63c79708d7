import { defineArea } from '../../core/area.js';
import { environmentsRoutes } from './routes.js';
import { emptyEnvironments } from './store.js';

export const environmentsArea = defineArea({
  name: 'environments',
  state: { key: 'environments', empty: emptyEnvironments },
  routes: environmentsRoutes,
});
