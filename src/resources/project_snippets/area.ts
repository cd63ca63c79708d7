import { defineArea } from '../../core/area.js';
import { projectSnippetsRoutes } from './routes.js';

/** Project snippets keep their records with the issuables (one snippet table, personal ones included). */
export const projectSnippetsArea = defineArea({ name: 'project_snippets', routes: projectSnippetsRoutes });
