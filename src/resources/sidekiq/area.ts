import { defineArea } from '../../core/area.js';
import { sidekiqRoutes } from './routes.js';

export const sidekiqArea = defineArea({ name: 'sidekiq', routes: sidekiqRoutes });
