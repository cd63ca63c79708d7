import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withCoverage } from '../src/admin/coverage.js';
import { createFauxlab } from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('the endpoint coverage list matches the routes (run `npm run coverage-list`)', () => {
    expect(readme).toBe(withCoverage(readme, createFauxlab().routes));
  });

  it('opens with the install-and-start command and the test command', () => {
    const blocks = [...readme.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks[0]).toBe('npm install && npm start');
    expect(blocks[1]).toBe('npm test');
  });
});
