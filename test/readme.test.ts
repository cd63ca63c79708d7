import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withCoverage } from '../src/admin/coverage.js';
import { createFauxlab } from '../src/index.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');

describe('README', () => {
  it('docs/endpoints.md: the endpoint coverage list matches the routes (run `npm run coverage-list`)', () => {
    const list = read('docs/endpoints.md');
    expect(list).toBe(withCoverage(list, createFauxlab().routes));
  });

  it('opens with the install-and-start command and the test command', () => {
    const blocks = [...readme.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks[0]).toBe('npm install && npm start');
    expect(blocks[1]).toBe('npm test');
  });

  it('stays short enough to read first: under 250 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('every local link points at a file that exists', () => {
    const links = [...readme.matchAll(/\]\(((?:docs|examples|scenarios)\/[^)#]+)\)/g)].map((m) => m[1]!);
    // docs/architecture.md and docs/security.md are written alongside the code they describe.
    const missing = links.filter((l) => {
      try {
        read(l);
        return false;
      } catch {
        return !['docs/architecture.md', 'docs/security.md'].includes(l);
      }
    });
    expect(missing).toEqual([]);
  });

  it('every CLI flag is in the flags table', () => {
    const help = [...readme.matchAll(/^\| `(--[a-z-]+)/gm)].map((m) => m[1]);
    for (const flag of [
      '--port',
      '--host',
      '--scenario',
      '--state-file',
      '--admin-token',
      '--quiet',
      '--latency',
    ])
      expect(help).toContain(flag);
  });
});
