import { defineArea } from '../../core/area.js';
import { forksRoutes } from './routes.js';

export const forksArea = defineArea({ name: 'forks', routes: forksRoutes });
