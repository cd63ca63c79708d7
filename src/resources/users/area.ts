import { defineArea } from '../../core/area.js';
import { usersRoutes } from './routes.js';

export const usersArea = defineArea({
  name: 'users',
  routes: usersRoutes,
});
