import { defineArea } from '../../core/area.js';
import { exportIssuables } from './export.js';
import { issuablesRoutes } from './routes.js';
import { emptyIssuables } from './store.js';

export const issuablesArea = defineArea({
  name: 'issuables',
  state: { key: 'issuables', empty: emptyIssuables },
  routes: issuablesRoutes,
  scenario: { export: exportIssuables },
});
