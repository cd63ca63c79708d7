import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { targetHttp } from '../../bench/target.js';

const dirs: string[] = [];
afterEach(() => {
  delete process.env.FAUXLAB_BENCH_TARGET;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A file tree under a new temporary directory. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'fauxlab-target-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('bench target', () => {
  it('targetHttp: this checkout loads the Hono and serve it already has (one copy in the process)', async () => {
    const http = await targetHttp();
    expect(http.Hono).toBe((await import('hono')).Hono);
    expect(http.serve).toBe((await import('@hono/node-server')).serve);
  });

  it("targetHttp: a build in another checkout gets that checkout's copies, by their ESM entries", async () => {
    const root = tree({
      'dist/src/index.js': 'export {};\n',
      'node_modules/hono/package.json': JSON.stringify({
        name: 'hono',
        type: 'module',
        exports: { '.': { import: './dist/index.js', require: './dist/cjs/index.js' } },
      }),
      'node_modules/hono/dist/index.js': "export class Hono { static copy = 'target'; }\n",
      'node_modules/@hono/node-server/package.json': JSON.stringify({
        name: '@hono/node-server',
        exports: {
          '.': { import: { default: './dist/index.mjs' }, require: { default: './dist/index.cjs' } },
        },
      }),
      'node_modules/@hono/node-server/dist/index.mjs': "export const serve = () => 'target';\n",
    });
    process.env.FAUXLAB_BENCH_TARGET = root;
    const http = await targetHttp();
    expect((http.Hono as unknown as { copy: string }).copy).toBe('target');
    expect((http.serve as unknown as () => string)()).toBe('target');
  });
});
