import { defineArea } from '../../core/area.js';
import { transfersRoutes } from './routes.js';

export const transfersArea = defineArea({ name: 'transfers', routes: transfersRoutes });
