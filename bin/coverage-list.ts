#!/usr/bin/env node
/**
 * Rewrites the endpoint coverage list (docs/endpoints.md) and the GitLab 13.12 route comparison
 * (docs/gitlab-13.12-routes.md) from the routes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withCoverage } from '../src/admin/coverage.js';
import { platformRoutesMarkdown } from '../src/admin/platform-routes-doc.js';
import { parsePlatformRoutes } from '../src/admin/platform-routes.js';
import { createFauxlab } from '../src/index.js';

const at = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const routes = createFauxlab().routes;
const list = at('docs/endpoints.md');
writeFileSync(list, withCoverage(readFileSync(list, 'utf8'), routes));
console.log('docs/endpoints.md updated');
const platform = parsePlatformRoutes(readFileSync(at('src/admin/gitlab-13.12-routes.txt'), 'utf8'));
writeFileSync(at('docs/gitlab-13.12-routes.md'), platformRoutesMarkdown(platform, routes));
console.log('docs/gitlab-13.12-routes.md updated');
