import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('examples/', () => {
  it('the example vitest suite (gitbeaker against fauxlab through MSW) passes', () => {
    const r = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'examples/vitest.config.ts'],
      { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CI: '1' } },
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    // eslint-disable-next-line no-control-regex
    expect(r.stdout.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/Tests\s+5 passed \(5\)/);
  }, 130_000);
});
