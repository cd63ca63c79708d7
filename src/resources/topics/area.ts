import { defineArea } from '../../core/area.js';
import { exportTopics } from './scenario.js';
import { topicsRoutes } from './routes.js';
import { emptyTopics } from './store.js';

export const topicsArea = defineArea({
  name: 'topics',
  state: { key: 'topics', empty: emptyTopics },
  routes: topicsRoutes,
  scenario: { export: exportTopics },
});
