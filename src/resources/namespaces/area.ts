import { defineArea } from '../../core/area.js';
import { namespacesRoutes } from './routes.js';

export const namespacesArea = defineArea({ name: 'namespaces', routes: namespacesRoutes });
