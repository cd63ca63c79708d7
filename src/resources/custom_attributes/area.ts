import { defineArea } from '../../core/area.js';
import { customAttributesRoutes } from './routes.js';

export const customAttributesArea = defineArea({ name: 'custom_attributes', routes: customAttributesRoutes });
