#!/usr/bin/env node
/**
 * Runs npm scripts side by side (`node scripts/checks.js typecheck lint`), each one's output printed
 * whole when it ends, in the order named; fails when any of them fails. The typecheck and the linters
 * each keep one core busy for about half a minute: on a machine with two cores, one after the other left
 * a core idle. Plain JavaScript: it runs before anything is compiled.
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import process from 'node:process';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node scripts/checks.js <npm script> [<npm script> ...]');
  process.exit(64);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** One script's run: its exit code and everything it printed, in the order printed. */
const run = (name) =>
  new Promise((resolve) => {
    const out = [];
    const child = spawn(npm, ['run', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => out.push(b));
    child.on('error', (e) => resolve({ name, code: 1, text: `${name}: ${e.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ name, code: code ?? (signal ? 1 : 0), text: Buffer.concat(out).toString('utf8') }),
    );
  });

const started = names.map(run);
let failed = 0;
for (const p of started) {
  const { name, code, text } = await p;
  process.stdout.write(text);
  if (code !== 0) {
    failed++;
    console.error(`checks: npm run ${name} failed (exit ${code})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
