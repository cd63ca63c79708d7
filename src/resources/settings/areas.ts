/**
 * The instance and content areas, registered together: application settings, integrations, personal
 * snippets, templates and Markdown.
 */
import type { ApiRouter } from '../../core/router.js';
import { integrationsRoutes } from '../integrations/routes.js';
import { markdownRoutes } from '../markdown/routes.js';
import { snippetsRoutes } from '../snippets/routes.js';
import { templatesRoutes } from '../templates/routes.js';
import { settingsRoutes } from './routes.js';

export function instanceContentRoutes(r: ApiRouter): void {
  settingsRoutes(r);
  snippetsRoutes(r);
  templatesRoutes(r);
  markdownRoutes(r);
  integrationsRoutes(r);
}
