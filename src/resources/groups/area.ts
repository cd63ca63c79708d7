import { defineArea } from '../../core/area.js';
import { groupsRoutes } from './routes.js';

export const groupsArea = defineArea({
  name: 'groups',
  routes: groupsRoutes,
});
