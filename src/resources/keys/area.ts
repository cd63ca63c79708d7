import { defineArea } from '../../core/area.js';
import { keysRoutes } from './routes.js';

/** The keys live with the user profiles; this area only looks them up. */
export const keysArea = defineArea({ name: 'keys', routes: keysRoutes });
