#!/usr/bin/env node
/**
 * Rewrites the generated docs from the routes and the declarations: the endpoint coverage list
 * (docs/endpoints.md), the GitLab 13.12 route comparison (docs/gitlab-13.12-routes.md) and
 * docs/versions.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withCoverage } from '../src/admin/coverage.js';
import { platformRoutesMarkdown } from '../src/admin/platform-routes-doc.js';
import { parsePlatformRoutes } from '../src/admin/platform-routes.js';
import { versionsMarkdown } from '../src/admin/versions-doc.js';
import { declarations } from '../src/core/versions.js';
import { createFauxlab } from '../src/index.js';

const at = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const routes = createFauxlab().routes;
const list = at('docs/endpoints.md');
writeFileSync(list, withCoverage(readFileSync(list, 'utf8'), routes));
const platform = parsePlatformRoutes(readFileSync(at('src/admin/gitlab-13.12-routes.txt'), 'utf8'));
writeFileSync(at('docs/gitlab-13.12-routes.md'), platformRoutesMarkdown(platform, routes));
writeFileSync(at('docs/versions.md'), versionsMarkdown(routes, declarations()));
console.log('docs/endpoints.md, docs/gitlab-13.12-routes.md and docs/versions.md updated');
