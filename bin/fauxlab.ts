#!/usr/bin/env node
/**
 * The `fauxlab` command: serve a scenario over HTTP, validate scenario files, list routes.
 *
 * Start-up time matters (a test suite may launch it per run): only yargs (and the short, dependency-free
 * list of GitLab versions the flags are checked against) is imported up front, each
 * command imports what it needs, and faker is loaded only for a scenario with a `generate` block.
 */
import { existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseVersion } from '../src/core/versions.js';
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import type { Scenario } from '../src/scenario/index.js';

/** The package root: two levels up from dist/bin/, one from bin/ (running the source). */
const packageRoot = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const dir of [join(here, '..', '..'), join(here, '..')])
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'scenarios'))) return dir;
  return join(here, '..', '..');
})();

const DEFAULT_SCENARIO = join(packageRoot, 'scenarios', 'demo.yaml');

/** A problem to report in one line or a few (no stack trace), with an exit code. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}

/** Validates a scenario file; a bad one is a CliError carrying the file and field paths. */
async function readScenario(file: string): Promise<Scenario> {
  const { loadScenario, ScenarioError } = await import('../src/scenario/index.js');
  // A command parses one file once: zod's generated parsers cost more to compile than they save. The
  // setting is the command's own (its bundle has its own zod), never a library user's.
  (await import('zod')).config({ jitless: true });
  try {
    return loadScenario(file);
  } catch (e) {
    if (e instanceof ScenarioError) throw new CliError(e.message);
    throw e;
  }
}

/** A `--scenario` value as a file: a built-in scenario's name (`demo`), or a path from the working directory. */
async function scenarioPath(value: string): Promise<string> {
  return (await import('../src/scenario/builtin.js')).builtInScenario(value) ?? resolve(value);
}

interface ServeArgs {
  port: number;
  host: string;
  scenario?: string;
  seed?: number;
  tier?: 'free' | 'premium' | 'ultimate';
  gitlabVersion?: string;
  baseUrl?: string;
  controlPlane: boolean;
  adminToken?: string;
  frozenClock: boolean;
  explain: boolean;
  latency?: string;
  stateFile?: string;
  journalSize: number;
  journalBodyBytes?: string;
  maxBodySize?: string;
  maxUploadsTotal?: string;
  responseCache: boolean;
  quiet: boolean;
}

/** Size units, 1024-based, for the size flags. */
const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 2 ** 10,
  kb: 2 ** 10,
  kib: 2 ** 10,
  m: 2 ** 20,
  mb: 2 ** 20,
  mib: 2 ** 20,
  g: 2 ** 30,
  gb: 2 ** 30,
  gib: 2 ** 30,
};

/** `65536`, `64k`, `64MiB`, `1.5GB` → bytes (1024-based units, case-insensitive); undefined if invalid. */
function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/** The first active admin's first usable token with the `api` scope, as written in the scenario. */
function adminToken(scenario: Scenario, today: string): { username: string; token: string } | undefined {
  for (const u of scenario.users) {
    if (!u.admin || u.state !== 'active') continue;
    // A token given only as a digest cannot be shown.
    const t = u.tokens.find(
      (t) =>
        t.token !== '' &&
        !t.revoked &&
        t.scopes.includes('api') &&
        (t.expires_at === null || t.expires_at > today),
    );
    if (t) return { username: u.username, token: t.token };
  }
  return undefined;
}

/** `http://127.0.0.1:4000`: a URL a local client can reach, for a wildcard address too. */
function localUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/**
 * Refuses a state file that could not be saved on exit, before anything is served: a session's work
 * would otherwise be lost at the end. Saving writes a temporary file next to it, so that is what is tried.
 */
function checkStateFile(file: string): void {
  const dir = dirname(file);
  const kind = (path: string) => {
    try {
      return statSync(path).isDirectory() ? 'directory' : 'file';
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
      throw new CliError(`--state-file: cannot use ${path} (${(e as NodeJS.ErrnoException).code})`);
    }
  };
  const dirKind = kind(dir);
  if (dirKind === 'none') throw new CliError(`--state-file: directory ${dir} does not exist`);
  if (dirKind !== 'directory') throw new CliError(`--state-file: ${dir} is not a directory`);
  if (kind(file) === 'directory') throw new CliError(`--state-file: ${file} is a directory`);
  const probe = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(probe, '');
    unlinkSync(probe);
  } catch (e) {
    throw new CliError(`--state-file: cannot write in ${dir} (${(e as NodeJS.ErrnoException).code})`);
  }
}

/** `1,234`. */
const thousands = (n: number) => n.toLocaleString('en-US');

/**
 * Shows a generated world's build on a terminal: one line, rewritten as records are made (a large world
 * takes tens of seconds). Returns the function that clears it.
 */
async function showProgress(): Promise<() => void> {
  const { onGenerateProgress } = await import('../src/scenario/progress.js');
  let shown = 0;
  let last = 0;
  onGenerateProgress((what, done, total) => {
    const now = performance.now();
    if (now - last < 100 && done !== total) return;
    last = now;
    const line = `  generating ${what}: ${thousands(done)} / ${thousands(total)}`;
    process.stderr.write(`\r${line.padEnd(shown)}`);
    shown = line.length;
  });
  return () => {
    onGenerateProgress(undefined);
    if (shown) process.stderr.write(`\r${' '.repeat(shown)}\r`);
  };
}

/** The size of what was built: the records a generated world is made of, the time and the memory. */
function worldSummary(st: import('../src/core/state.js').PlatformState, ms: number): string {
  const n = (k: number, what: string) => `${thousands(k)} ${what}${k === 1 ? '' : 's'}`;
  const counts = [
    n(st.users.size, 'user'),
    n(st.groups.size, 'group'),
    n(st.projects.size, 'project'),
    n(st.issuables.issues.size, 'issue'),
    n(st.issuables.mergeRequests.size, 'merge request'),
  ];
  const { heapUsed, rss } = process.memoryUsage();
  const mb = (bytes: number) => `${thousands(Math.round(bytes / 2 ** 20))} MiB`;
  return `${counts.join(', ')}; built in ${(ms / 1000).toFixed(1)} s, heap ${mb(heapUsed)}, RSS ${mb(rss)}`;
}

type Handler = (request: Request, env?: object) => Response | Promise<Response>;

/**
 * Writes one line per request to stdout: method, path (without the query, which may carry a token),
 * status, time and acting user. The user is the journal's (authentication is the instance's business),
 * so the lines come from its entries; without a journal, and for the control plane (never journaled),
 * from the exchange itself.
 */
function logRequests(fx: import('../src/app.js').Fauxlab, handler: Handler): Handler {
  let logged = 0;
  const line = (method: string, path: string, status: number, ms: number, user: string | null) =>
    process.stdout.write(
      `${method} ${path} ${status} ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms ${user ?? '-'}\n`,
    );
  const journaled = fx.requests.capacity > 0;
  const done = (request: Request, t0: number) => (res: Response) => {
    const path = pathOf(request.url);
    if (journaled && !path.startsWith('/__fauxlab/')) {
      // A reset empties the journal and numbers its entries from 1 again.
      if (fx.requests.lastId < logged) logged = 0;
      // The entries' summaries, not the entries: making them (the query and headers parsed, filtered)
      // for a line each would cost more than answering the request.
      for (const e of fx.requests.summaries(logged)) {
        line(e.method, e.path, e.status, e.durationMs, e.user);
        logged = e.id;
      }
    } else line(request.method, path, res.status, performance.now() - t0, null);
    return res;
  };
  return (request, env) => {
    const t0 = performance.now();
    const res = handler(request, env);
    return res instanceof Promise ? res.then(done(request, t0)) : done(request, t0)(res);
  };
}

/** The path of an absolute URL as sent, without query or fragment (cheaper than a `URL`). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  let end = url.length;
  for (let i = start; i < url.length; i++)
    if (url[i] === '?' || url[i] === '#') {
      end = i;
      break;
    }
  return url.slice(start, end);
}

async function serveCommand(args: ServeArgs): Promise<void> {
  const file = args.scenario ? await scenarioPath(args.scenario) : DEFAULT_SCENARIO;
  const stateFile = args.stateFile ? resolve(args.stateFile) : undefined;
  if (stateFile) checkStateFile(stateFile);
  const appModule = import('../src/app.js');
  const serverModule = import('../src/host/node-server.js');
  const guard = await import('../src/admin/guard.js');
  let token: string | undefined;
  try {
    token = guard.adminTokenOf(args.adminToken, process.env.FAUXLAB_ADMIN_TOKEN);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const scenario = await readScenario(file);
  if (scenario.generate) await (await import('../src/scenario/index.js')).preloadGenerator();
  const start = scenario.now ? new Date(scenario.now) : new Date();
  const { createFauxlab } = await appModule;
  const endProgress = scenario.generate && process.stderr.isTTY ? await showProgress() : undefined;
  const t0 = performance.now();
  const fx = createFauxlab({
    scenario,
    seed: args.seed,
    tier: args.tier,
    ...(args.gitlabVersion !== undefined && { version: args.gitlabVersion }),
    baseUrl: args.baseUrl,
    controlPlane: args.controlPlane,
    ...(token !== undefined && { controlPlaneToken: token }),
    now: start,
    realtimeClock: !args.frozenClock,
    explain: args.explain,
    journal: {
      size: args.journalSize,
      ...(args.journalBodyBytes !== undefined && { bodyBytes: parseSize(args.journalBodyBytes) }),
    },
    faults: args.latency ? [{ latency: args.latency }] : [],
    ...(args.maxBodySize !== undefined && { maxBodySize: parseSize(args.maxBodySize) }),
    ...(args.maxUploadsTotal !== undefined && { maxUploadsTotal: parseSize(args.maxUploadsTotal) }),
    ...(!args.responseCache && { responseCache: false as const }),
  });
  endProgress?.();
  const built = scenario.generate ? worldSummary(fx.state, performance.now() - t0) : undefined;
  const stateFiles = stateFile ? await import('../src/admin/state-file.js') : undefined;
  let restored: string | undefined;
  if (stateFile && stateFiles) {
    let saved;
    try {
      saved = stateFiles.readStateFile(stateFile);
    } catch (e) {
      throw new CliError(`cannot load the state file: ${(e as Error).message}`);
    }
    if (saved) {
      fx.restore(saved);
      restored = new Date(saved.clock).toISOString();
    }
  }
  // Also saved a second after writes settle: a process killed without SIGINT/SIGTERM loses at most that.
  const stopAutosave = stateFile
    ? stateFiles?.autosave(fx, stateFile, (e) =>
        process.stderr.write(`fauxlab: cannot save the state file: ${e.message}\n`),
      )
    : undefined;
  const { serveNode } = await serverModule;

  const fetch = args.quiet ? fx.app.fetch : logRequests(fx, fx.app.fetch);
  const server = serveNode({ fetch, port: args.port, hostname: args.host }, (info) => {
    const url = localUrl(args.host, info.port);
    const admin = adminToken(scenario, start.toISOString().slice(0, 10));
    const lines = [`fauxlab ${version()} serving ${file}`];
    if (built) lines.push(`  world:     ${built}`);
    lines.push(`  base URL:  ${url}`);
    if (args.baseUrl) lines.push(`  external:  ${args.baseUrl} (in URLs the API returns)`);
    if (admin) {
      lines.push(`  admin:     ${admin.username}, token ${admin.token}`);
      lines.push(`  try:       curl -H "PRIVATE-TOKEN: ${admin.token}" ${url}/api/v4/user`);
    } else {
      // Anonymous callers may look users up by username (a bare list is 403 on the platform).
      const who = scenario.users[0]?.username ?? 'root';
      lines.push('  admin:     none (no active admin with an unexpired api token in this scenario)');
      lines.push(`  try:       curl "${url}/api/v4/users?username=${encodeURIComponent(who)}"`);
    }
    if (args.controlPlane)
      lines.push(
        `  control:   ${url}/__fauxlab/ (reset, scenario, state, clock, requests, faults, snapshots)`,
      );
    if (stateFile)
      lines.push(
        restored
          ? `  state:     ${stateFile} (restored; clock at ${restored}); saved again on exit`
          : `  state:     ${stateFile} (new; saved on exit)`,
      );
    if (args.latency) lines.push(`  latency:   ${args.latency} ms added to every request`);
    if (!args.quiet) lines.push('  requests:  one line each below (--quiet: none)');
    console.log(lines.join('\n'));
    const warning = guard.exposureWarning(args.host, info.port, token);
    if (warning) console.error(warning);
  }) as Server;
  // Node's 5 s default races the pooled connections of clients such as undici, which then see ECONNRESET.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  await new Promise<void>((done, fail) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      fail(
        new CliError(
          e.code === 'EADDRINUSE'
            ? `cannot listen on ${args.host}:${args.port}: the address is in use (try --port)`
            : `cannot listen on ${args.host}:${args.port}: ${e.message}`,
        ),
      ),
    );
    const stop = () => {
      stopAutosave?.();
      if (stateFile && stateFiles) {
        try {
          stateFiles.writeStateFile(stateFile, fx.snapshot());
        } catch (e) {
          process.stderr.write(`fauxlab: cannot save the state file: ${(e as Error).message}\n`);
          process.exitCode = 1;
        }
      }
      server.close(() => done());
      setTimeout(() => process.exit(0), 3000).unref();
      // Idle keep-alive connections would hold close() open for the whole keep-alive timeout.
      server.closeAllConnections();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

async function validateCommand(file: string): Promise<void> {
  const s = await readScenario(file);
  const parts = [
    count(s.users.length, 'user'),
    count(s.groups.length, 'group'),
    count(s.projects.length, 'project'),
  ];
  const g = s.generate;
  const gen = g
    ? `; generates ${count(g.users, 'user')}, ${count(g.groups, 'group')}, ${count(g.projects, 'project')}`
    : '';
  console.log(`${file}: ok (${parts.join(', ')}${gen})`);
}

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

async function routesCommand(): Promise<void> {
  const { createFauxlab } = await import('../src/app.js');
  const routes = [...createFauxlab().routes].sort(
    (a, b) =>
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
  );
  process.stdout.write(routes.map((r) => `${r.method} /api/v4${r.path}\n`).join(''));
}

interface ExportArgs {
  url?: string;
  adminToken?: string;
  stateFile?: string;
  scenario?: string;
  format: 'yaml' | 'json';
  output?: string;
}

/** Prints (or writes) the current state of a running server, a state file or a scenario as a scenario. */
async function exportCommand(args: ExportArgs): Promise<void> {
  const { exportScenario } = await import('../src/scenario/export.js');
  let out: unknown;
  if (args.url) {
    const url = `${args.url.replace(/\/+$/, '')}/__fauxlab/scenario`;
    let res: Response;
    try {
      res = await fetch(
        url,
        (args.adminToken ?? process.env.FAUXLAB_ADMIN_TOKEN)
          ? { headers: { Authorization: `Bearer ${args.adminToken ?? process.env.FAUXLAB_ADMIN_TOKEN}` } }
          : {},
      );
    } catch (e) {
      throw new CliError(`cannot reach ${url}: ${(e as Error).cause ?? (e as Error).message}`);
    }
    if (res.status === 401 || res.status === 403)
      throw new CliError(
        args.adminToken === undefined
          ? `${url} answered ${res.status}: the control plane needs --admin-token`
          : `${url} answered ${res.status}: the control plane refused this --admin-token`,
      );
    if (!res.ok)
      throw new CliError(`${url} answered ${res.status} (is it a fauxlab server with its control plane on?)`);
    out = await res.json();
  } else if (args.stateFile) {
    const { readStateFile } = await import('../src/admin/state-file.js');
    let saved;
    try {
      saved = readStateFile(resolve(args.stateFile));
    } catch (e) {
      throw new CliError((e as Error).message);
    }
    if (!saved) throw new CliError(`${args.stateFile}: no such file`);
    out = exportScenario(saved.state, { now: new Date(saved.clock).toISOString() });
  } else {
    const scenario = await readScenario(await scenarioPath(args.scenario!));
    if (scenario.generate) await (await import('../src/scenario/index.js')).preloadGenerator();
    const { createFauxlab } = await import('../src/app.js');
    const fx = createFauxlab({ scenario });
    out = exportScenario(fx.state, { now: fx.clock.iso() });
  }
  const text =
    args.format === 'json'
      ? `${JSON.stringify(out, null, 2)}\n`
      : (await import('yaml')).stringify(out, { lineWidth: 0 });
  if (args.output) writeFileSync(args.output, text);
  else process.stdout.write(text);
}

/** `scenario capture` (src/capture/command.ts); its failures are a user's, with no stack. */
async function captureCommand(args: import('../src/capture/command.js').CaptureArgs): Promise<void> {
  const { runCapture, CaptureError } = await import('../src/capture/command.js');
  try {
    await runCapture(args);
  } catch (e) {
    if (e instanceof CaptureError) throw new CliError(e.message);
    throw e;
  }
}

async function schemaCommand(): Promise<void> {
  const { scenarioJsonSchemaText } = await import('../src/scenario/json-schema.js');
  process.stdout.write(scenarioJsonSchemaText());
}

function serveOptions(y: Argv) {
  return y
    .option('port', {
      alias: 'p',
      type: 'number',
      default: 4000,
      describe: 'port to listen on (0: any free port)',
    })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
    .option('scenario', {
      alias: 's',
      type: 'string',
      describe: 'scenario file (.yaml, .yml or .json); default the demo world',
    })
    .option('seed', { type: 'number', describe: "seed for generated records (overrides the scenario's)" })
    .option('tier', {
      choices: ['free', 'premium', 'ultimate'] as const,
      describe: "tier (overrides the scenario's)",
    })
    .option('gitlab-version', {
      type: 'string',
      describe:
        "GitLab version to answer as: a minor such as 15.4, or a release such as 15.4.6 (overrides the scenario's; 13.12 to 18.11)",
    })
    .option('base-url', {
      type: 'string',
      describe: 'external URL for links in responses, e.g. http://gitlab.example.com',
    })
    .option('control-plane', {
      type: 'boolean',
      default: true,
      describe: 'serve /__fauxlab/ (--no-control-plane: off)',
    })
    .option('admin-token', {
      type: 'string',
      describe:
        'require "Authorization: Bearer TOKEN" on /__fauxlab/ (for a shared host); or FAUXLAB_ADMIN_TOKEN',
    })
    .option('frozen-clock', {
      type: 'boolean',
      default: false,
      describe: 'freeze the clock at its start instead of running in real time',
    })
    .option('explain', {
      type: 'boolean',
      default: false,
      describe: "send each 404's reason in an X-Fauxlab-Explain header (the platform sends none)",
    })
    .option('latency', {
      type: 'string',
      describe: 'add latency to every request: ms (200) or a range (100-500)',
    })
    .option('state-file', {
      type: 'string',
      describe: 'load the world from FILE on start (if it exists); save it there after writes and on exit',
    })
    .option('journal-size', {
      type: 'number',
      default: 1000,
      describe: 'requests kept in the journal (GET /__fauxlab/requests); 0 turns it off',
    })
    .option('journal-body-bytes', {
      type: 'string',
      describe:
        'bodies the journal keeps, newest first (default 8MiB; older entries keep the rest, not the body)',
    })
    .option('max-body-size', {
      type: 'string',
      describe: 'refuse request bodies larger than SIZE with 413 (bytes, or 512k, 64MiB, 1GB; default 64MiB)',
    })
    .option('response-cache', {
      type: 'boolean',
      default: true,
      describe: 'answer a repeated GET from memory while the world is unchanged (--no-response-cache: off)',
    })
    .option('quiet', {
      alias: 'q',
      type: 'boolean',
      default: false,
      describe: 'print no line per request (the banner and errors still show)',
    })
    .option('max-uploads-total', {
      type: 'string',
      describe: 'refuse uploads once all stored files would pass SIZE, with 413 (default 512MiB)',
    })
    .check((a) => {
      for (const [flag, v] of [
        ['--max-body-size', a.maxBodySize],
        ['--max-uploads-total', a.maxUploadsTotal],
        ['--journal-body-bytes', a.journalBodyBytes],
      ] as const)
        if (typeof v === 'string' && parseSize(v) === undefined)
          throw new Error(`${flag} must be a size: bytes, or a number with k, M or G (64MiB)`);
      if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535)
        throw new Error('--port must be an integer from 0 to 65535');
      if (a.seed !== undefined && !Number.isSafeInteger(a.seed)) throw new Error('--seed must be an integer');
      if (typeof a.gitlabVersion === 'string')
        try {
          parseVersion(a.gitlabVersion);
        } catch (e) {
          throw new Error(`--gitlab-version: ${(e as Error).message}`);
        }
      if (typeof a.baseUrl === 'string' && !/^https?:\/\/[^/]/.test(a.baseUrl))
        throw new Error('--base-url must be an http(s) URL');
      if (!Number.isInteger(a.journalSize) || (a.journalSize as number) < 0)
        throw new Error('--journal-size must be an integer >= 0');
      if (typeof a.latency === 'string' && !/^\s*\d+(\.\d+)?\s*(-\s*\d+(\.\d+)?\s*)?$/.test(a.latency))
        throw new Error('--latency must be milliseconds (200) or a range (100-500)');
      if (typeof a.latency === 'string') {
        const [lo, hi = lo] = a.latency.split('-').map(Number);
        if (lo! > hi!) throw new Error('--latency: the range must go from low to high');
      }
      return true;
    });
}

const cli = yargs(hideBin(process.argv))
  .scriptName('fauxlab')
  .usage('$0 [command] [options]\n\nA high-fidelity in-memory mock of the GitLab REST API v4.')
  .command(['serve', '$0'], 'serve a scenario over HTTP (the default command)', serveOptions, (a) =>
    serveCommand(a as unknown as ServeArgs),
  )
  .command('scenario', 'work with scenario files: validate, schema, export, capture', (y) =>
    y
      .command(
        'validate <file>',
        'check a scenario file, cross-references included',
        (y) =>
          y.positional('file', {
            type: 'string',
            demandOption: true,
            describe: 'a .yaml, .yml or .json file',
          }),
        (a) => validateCommand(String(a.file)),
      )
      .command('schema', 'print the JSON Schema of scenario files', {}, () => schemaCommand())
      .command(
        'export',
        'print a world as a scenario file: a running server (--url), a state file, or a scenario with ' +
          'extends and generate resolved',
        (y) =>
          y
            .option('url', { type: 'string', describe: 'a running fauxlab, e.g. http://127.0.0.1:4000' })
            .option('admin-token', { type: 'string', describe: "the server's --admin-token, if it has one" })
            .option('state-file', { type: 'string', describe: 'a file written by serve --state-file' })
            .option('scenario', { alias: 's', type: 'string', describe: 'a scenario file' })
            .option('format', { choices: ['yaml', 'json'] as const, default: 'yaml' as const })
            .option('output', { alias: 'o', type: 'string', describe: 'write to FILE instead of stdout' })
            .check((a) => {
              const given = [a.url, a.stateFile, a.scenario].filter((v) => v !== undefined).length;
              if (given !== 1) throw new Error('give exactly one of --url, --state-file or --scenario');
              if (typeof a.url === 'string' && !/^https?:\/\/[^/]/.test(a.url))
                throw new Error('--url must be an http(s) URL');
              return true;
            }),
        (a) => exportCommand(a as unknown as ExportArgs),
      )
      .command(
        'capture',
        'read a running GitLab (or any server speaking its API) through the REST API and git, and write a scenario',
        (y) =>
          y
            .option('url', {
              type: 'string',
              demandOption: true,
              describe: 'the instance, e.g. https://gitlab.example.com',
            })
            .option('token', {
              type: 'string',
              demandOption: true,
              describe: 'a personal access token (api or read_api)',
            })
            .option('group', {
              type: 'string',
              array: true,
              describe: 'a group to capture, subgroups included (repeatable)',
            })
            .option('project', { type: 'string', array: true, describe: 'a project to capture (repeatable)' })
            .option('with-secrets', {
              type: 'boolean',
              default: false,
              describe: "write CI variables' values",
            })
            .option('format', { choices: ['yaml', 'json'] as const, default: 'yaml' as const })
            .option('output', { alias: 'o', type: 'string', describe: 'write to FILE instead of stdout' })
            .check((a) => {
              if (!/^https?:\/\/[^/]/.test(a.url)) throw new Error('--url must be an http(s) URL');
              return true;
            }),
        (a) => captureCommand(a as unknown as import('../src/capture/command.js').CaptureArgs),
      )
      .demandCommand(1, 'name a scenario command: validate, schema, export or capture'),
  )
  .command('routes', 'list every API route, one per line', {}, () => routesCommand())
  .strict()
  .help()
  .alias('h', 'help')
  .version(version())
  .alias('v', 'version')
  .wrap(Math.min(110, process.stdout.columns || 80))
  .fail((msg, err) => {
    // Usage errors (unknown flags, failed checks) come with a message; a handler's own errors without.
    if (err instanceof CliError || !msg) throw err;
    throw new CliError(`${msg}\nRun "fauxlab --help" for usage.`, 2);
  });

/** Flags that take a value (aliases included), in every command. */
const VALUE_FLAGS = new Set([
  'port',
  'p',
  'host',
  'scenario',
  's',
  'seed',
  'tier',
  'gitlab-version',
  'base-url',
  'admin-token',
  'latency',
  'state-file',
  'journal-size',
  'journal-body-bytes',
  'max-body-size',
  'max-uploads-total',
  'url',
  'format',
  'output',
  'o',
  'token',
  'group',
  'project',
]);

/**
 * The first value flag given without a value: last on the line, or followed by another flag. The
 * parser would take such a flag as empty, or keep the default (`--port` alone served on 4000).
 * `--admin-token ""` is an explicit value and is left to the checks of that flag.
 */
function missingValue(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    const m = /^--?([^=]+)(=(.*))?$/.exec(arg);
    if (!m || !VALUE_FLAGS.has(m[1]!)) continue;
    const flag = m[1]!.length === 1 ? `-${m[1]}` : `--${m[1]}`;
    if (m[2] !== undefined) {
      if (m[3] === '' && m[1] !== 'admin-token') return flag;
      continue;
    }
    const next = argv[i + 1];
    // A negative number is a value (`--seed -3`); anything else starting with a dash is a flag.
    if (next === undefined || (next.startsWith('-') && !/^-\d/.test(next))) return flag;
    if (next === '' && m[1] !== 'admin-token') return flag;
    i++;
  }
  return undefined;
}

// No top-level await: the bundled bin is a script, which cannot have one.
async function main(): Promise<void> {
  try {
    const missing = missingValue(hideBin(process.argv));
    if (missing) throw new CliError(`${missing} needs a value\nRun "fauxlab --help" for usage.`, 2);
    await cli.parseAsync();
  } catch (e) {
    process.stderr.write(`fauxlab: ${e instanceof Error ? e.message : String(e)}\n`);
    // A bug rather than a user error: the stack is there for whoever asks.
    if (!(e instanceof CliError) && process.env.FAUXLAB_DEBUG) console.error(e);
    process.exitCode = e instanceof CliError ? e.exitCode : 1;
  }
}

void main();
