import { defineArea } from '../../core/area.js';
import { tokensRoutes } from './routes.js';

export const tokensArea = defineArea({
  name: 'tokens',
  routes: tokensRoutes,
});
