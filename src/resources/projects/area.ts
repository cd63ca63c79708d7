import { defineArea } from '../../core/area.js';
import { projectsRoutes } from './routes.js';

export const projectsArea = defineArea({
  name: 'projects',
  routes: projectsRoutes,
});
