import { defineArea } from '../../core/area.js';
import { exportPersonalSnippets } from './scenario.js';
import { snippetsRoutes } from './routes.js';

export const snippetsArea = defineArea({
  name: 'snippets',
  routes: snippetsRoutes,
  scenario: { export: exportPersonalSnippets },
});
