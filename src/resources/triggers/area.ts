import { defineArea } from '../../core/area.js';
import { triggersRoutes } from './routes.js';
import { emptyTriggers } from './store.js';

export const triggersArea = defineArea({
  name: 'triggers',
  state: { key: 'triggers', empty: emptyTriggers },
  routes: triggersRoutes,
});
