import { defineArea } from '../../core/area.js';
import { scimRoutes } from './routes.js';

export const scimArea = defineArea({
  name: 'scim',
  routes: scimRoutes,
});
