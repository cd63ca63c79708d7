import { defineArea } from '../../core/area.js';
import { userCountsRoutes } from './routes.js';

export const userCountsArea = defineArea({
  name: 'user_counts',
  routes: userCountsRoutes,
});
