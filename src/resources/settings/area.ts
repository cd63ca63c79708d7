import { defineArea } from '../../core/area.js';
import { settingsRoutes } from './routes.js';

export const settingsArea = defineArea({
  name: 'settings',
  routes: settingsRoutes,
});
