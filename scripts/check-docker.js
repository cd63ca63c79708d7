#!/usr/bin/env node
/**
 * `npm run check:docker`: the final stage of the Dockerfile, run without Docker. Its instructions are
 * read from the Dockerfile itself and carried out in a scratch directory (COPY from this checkout, the
 * build stage's output from dist/, RUN as shell commands, CMD started with FAUXLAB_ADMIN_TOKEN set),
 * then one API request and the control plane's token check are tried. A Dockerfile that drifts from
 * what runs fails here.
 */
import { execSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { readFileSync } from 'node:fs';

const root = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'check-docker-token';

function fail(message) {
  console.error(`check:docker: ${message}`);
  process.exit(1);
}

/** The final stage's instructions, continuation lines joined, comments left out. */
function finalStage(text) {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const from = lines.findLastIndex((l) => /^FROM\s/i.test(l));
  return lines
    .slice(from + 1)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\w+)\s+(.*)$/.exec(l);
      return { op: m[1].toUpperCase(), arg: m[2] };
    });
}

execSync(`${JSON.stringify(process.execPath)} scripts/build-if-stale.js`, { cwd: root, stdio: 'inherit' });
const work = mkdtempSync(join(tmpdir(), 'fauxlab-docker-'));
const env = { ...process.env, npm_config_prefer_offline: 'true' };
let cmd;
let port;
try {
  for (const { op, arg } of finalStage(readFileSync(join(root, 'Dockerfile'), 'utf8'))) {
    if (op === 'ENV') for (const [, k, v] of arg.matchAll(/(\w+)=(\S+)/g)) env[k] = v;
    else if (op === 'COPY') {
      const parts = arg.split(/\s+/);
      const fromBuild = parts[0].startsWith('--from=');
      const [sources, dest] = [parts.slice(fromBuild ? 1 : 0, -1), parts.at(-1)];
      for (const s of sources) {
        // The build stage's WORKDIR is /app, where it ran `npm run build`: its output is this checkout's.
        const src = join(root, fromBuild ? s.replace(/^\/app\//, '') : s);
        const into = dest === './' || sources.length > 1 ? join(work, s.split('/').pop()) : join(work, dest);
        mkdirSync(dirname(into), { recursive: true });
        cpSync(src, into, { recursive: true });
      }
    } else if (op === 'RUN') {
      console.log(`check:docker: RUN ${arg}`);
      execSync(arg, { cwd: work, env, stdio: 'inherit' });
    } else if (op === 'EXPOSE') port = arg.trim();
    else if (op === 'CMD') cmd = JSON.parse(arg);
  }
  if (!cmd || !port) fail('the final stage needs EXPOSE and CMD');
  // The exposed port may be taken on this machine: the check serves on a free one.
  const args = cmd.map((a) => a.replace(`--port ${port}`, '--port 0'));
  const child = spawn(args[0], args.slice(1), { cwd: work, env: { ...env, FAUXLAB_ADMIN_TOKEN: TOKEN } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const base = await new Promise((done) => {
    const timer = setTimeout(() => done(undefined), 30_000);
    child.stdout.on('data', () => {
      const m = /base URL:\s+(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]);
      }
    });
    child.on('close', () => done(undefined));
  });
  try {
    if (!base) fail(`the server did not start:\n${out}`);
    const api = await fetch(`${base}/api/v4/version`, {
      headers: { 'PRIVATE-TOKEN': 'glpat-fauxlab-demo-root' },
    });
    if (api.status !== 200) fail(`GET /api/v4/version answered ${api.status}`);
    const open = await fetch(`${base}/__fauxlab/clock`);
    if (open.status !== 401) fail(`the control plane answered ${open.status} without the token`);
    const authed = await fetch(`${base}/__fauxlab/clock`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    if (authed.status !== 200) fail(`the control plane answered ${authed.status} with the token`);
    console.log(
      `check:docker: ok (${(await api.json()).version} served on ${base}; control plane needs the token)`,
    );
  } finally {
    child.kill('SIGTERM');
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
