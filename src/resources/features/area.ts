import { defineArea } from '../../core/area.js';
import { featureRoutes } from './routes.js';

export const featuresArea = defineArea({
  name: 'features',
  routes: featureRoutes,
});
