#!/usr/bin/env node
/** Rewrites the endpoint coverage list (docs/endpoints.md) from the routes. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withCoverage } from '../src/admin/coverage.js';
import { createFauxlab } from '../src/index.js';

const list = fileURLToPath(new URL('../../docs/endpoints.md', import.meta.url));
writeFileSync(list, withCoverage(readFileSync(list, 'utf8'), createFauxlab().routes));
console.log('docs/endpoints.md updated');
