import { defineArea } from '../../core/area.js';
import { templatesRoutes } from './routes.js';

export const templatesArea = defineArea({
  name: 'templates',
  routes: templatesRoutes,
});
