import { defineArea } from '../../core/area.js';
import { searchRoutes } from './routes.js';

export const searchArea = defineArea({ name: 'search', routes: searchRoutes });
