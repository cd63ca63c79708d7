#!/usr/bin/env node
/**
 * Builds dist/ only when a source is newer than the build, so that `npm start` starts in about a second
 * instead of recompiling every time; a fresh clone (no dist/) builds once. Plain JavaScript: it runs
 * before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Every file tsc writes is rewritten by a build: this one stands for the whole output. */
const output = join(root, 'dist', 'bin', 'fauxlab.js');

function newest(path) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return path.endsWith('.ts') || path.endsWith('.json') ? st.mtimeMs : 0;
  let max = 0;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const built = statSync(output, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const sources = Math.max(
  ...['src', 'bin', 'bench', 'tsconfig.json', 'tsconfig.build.json'].map((p) => newest(join(root, p))),
);
if (built === 0 || sources > built) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
