import { defineArea } from '../../core/area.js';
import { metadataRoutes } from './routes.js';

export const metadataArea = defineArea({
  name: 'metadata',
  routes: metadataRoutes,
});
