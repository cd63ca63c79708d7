#!/usr/bin/env node
/** Rewrites the generated docs: the endpoint coverage list (docs/endpoints.md) and docs/versions.md. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withCoverage } from '../src/admin/coverage.js';
import { versionsMarkdown } from '../src/admin/versions-doc.js';
import { declarations } from '../src/core/versions.js';
import { createFauxlab } from '../src/index.js';

const doc = (name: string) => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));
const { routes } = createFauxlab();
writeFileSync(doc('endpoints.md'), withCoverage(readFileSync(doc('endpoints.md'), 'utf8'), routes));
writeFileSync(doc('versions.md'), versionsMarkdown(routes, declarations()));
console.log('docs/endpoints.md and docs/versions.md updated');
