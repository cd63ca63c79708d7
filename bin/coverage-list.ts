#!/usr/bin/env node
/** Rewrites the README's endpoint coverage list from the routes. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withCoverage } from '../src/admin/coverage.js';
import { createFauxlab } from '../src/index.js';

const readme = fileURLToPath(new URL('../../README.md', import.meta.url));
writeFileSync(readme, withCoverage(readFileSync(readme, 'utf8'), createFauxlab().routes));
console.log('README coverage list updated');
