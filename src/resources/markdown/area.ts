import { defineArea } from '../../core/area.js';
import { markdownRoutes } from './routes.js';

export const markdownArea = defineArea({
  name: 'markdown',
  routes: markdownRoutes,
});
