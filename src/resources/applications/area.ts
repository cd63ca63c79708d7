import { defineArea } from '../../core/area.js';
import { applicationsRoutes } from './routes.js';

export const applicationsArea = defineArea({
  name: 'applications',
  routes: applicationsRoutes,
});
