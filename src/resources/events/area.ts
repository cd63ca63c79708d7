import { defineArea } from '../../core/area.js';
import { eventsRoutes } from './routes.js';
import { deleteProjectPushes, emptyEvents } from './store.js';

export const eventsArea = defineArea({
  name: 'events',
  state: { key: 'events', empty: emptyEvents },
  routes: eventsRoutes,
  cascade: { project: deleteProjectPushes },
});
