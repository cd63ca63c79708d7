import { defineArea } from '../../core/area.js';
import { ciRoutes } from './routes.js';

export const ciArea = defineArea({
  name: 'ci',
  routes: ciRoutes,
});
