#!/usr/bin/env node
/**
 * Builds dist/ (scripts/build.js) only when a source is newer than the build, so that `npm start` starts
 * at once instead of recompiling every time; a fresh clone (no dist/) builds once. Plain JavaScript: it runs
 * before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/**
 * What a build writes: tsc rewrites every file it emits, so its entry point stands for the library; the
 * command is three files of esbuild's.
 */
const outputs = ['src/index.js', 'bin/fauxlab.js', 'bin/fauxlab.bundle.cjs', 'bin/worker.js'].map((f) =>
  join(root, 'dist', f),
);

function newest(path) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return path.endsWith('.ts') || path.endsWith('.json') ? st.mtimeMs : 0;
  let max = 0;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const built = Math.min(...outputs.map((f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0));
const sources = Math.max(
  ...['src', 'bin', 'bench', 'tsconfig.json', 'tsconfig.build.json'].map((p) => newest(join(root, p))),
  statSync(join(root, 'scripts', 'build.js')).mtimeMs,
);
if (built === 0 || sources > built) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build.js')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
