#!/usr/bin/env node
/**
 * The `fauxlab` command: serve a scenario over HTTP, validate scenario files, list routes.
 *
 * Start-up time matters (a test suite may launch it per run): only yargs is imported up front, each
 * command imports what it needs, and faker is loaded only for a scenario with a `generate` block.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  try {
    return loadScenario(file);
  } catch (e) {
    if (e instanceof ScenarioError) throw new CliError(e.message);
    throw e;
  }
}

interface ServeArgs {
  port: number;
  host: string;
  scenario?: string;
  seed?: number;
  tier?: 'free' | 'premium' | 'ultimate';
  baseUrl?: string;
  controlPlane: boolean;
  frozenClock: boolean;
}

/** The first active admin's first usable token with the `api` scope, as written in the scenario. */
function adminToken(scenario: Scenario, today: string): { username: string; token: string } | undefined {
  for (const u of scenario.users) {
    if (!u.admin || u.state !== 'active') continue;
    const t = u.tokens.find(
      (t) => !t.revoked && t.scopes.includes('api') && (t.expires_at === null || t.expires_at > today),
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

async function serveCommand(args: ServeArgs): Promise<void> {
  const file = args.scenario ? resolve(args.scenario) : DEFAULT_SCENARIO;
  const appModule = import('../src/app.js');
  const serverModule = import('@hono/node-server');
  const scenario = await readScenario(file);
  if (scenario.generate) await (await import('../src/scenario/index.js')).preloadGenerator();
  const start = scenario.now ? new Date(scenario.now) : new Date();
  const { createFauxlab } = await appModule;
  const fx = createFauxlab({
    scenario,
    seed: args.seed,
    tier: args.tier,
    baseUrl: args.baseUrl,
    controlPlane: args.controlPlane,
    now: start,
    realtimeClock: !args.frozenClock,
  });
  const { serve } = await serverModule;

  const server = serve({ fetch: fx.fetch, port: args.port, hostname: args.host }, (info) => {
    const url = localUrl(args.host, info.port);
    const admin = adminToken(scenario, start.toISOString().slice(0, 10));
    const lines = [`fauxlab ${version()} serving ${file}`, `  base URL:  ${url}`];
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
    if (args.controlPlane) lines.push(`  control:   ${url}/__fauxlab/ (reset, scenario, clock, state)`);
    console.log(lines.join('\n'));
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
    .option('base-url', {
      type: 'string',
      describe: 'external URL for links in responses, e.g. http://gitlab.example.com',
    })
    .option('control-plane', {
      type: 'boolean',
      default: true,
      describe: 'serve /__fauxlab/ (--no-control-plane: off)',
    })
    .option('frozen-clock', {
      type: 'boolean',
      default: false,
      describe: 'freeze the clock at its start instead of running in real time',
    })
    .check((a) => {
      if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535)
        throw new Error('--port must be an integer from 0 to 65535');
      if (a.seed !== undefined && !Number.isSafeInteger(a.seed)) throw new Error('--seed must be an integer');
      if (typeof a.baseUrl === 'string' && !/^https?:\/\/[^/]/.test(a.baseUrl))
        throw new Error('--base-url must be an http(s) URL');
      return true;
    });
}

const cli = yargs(hideBin(process.argv))
  .scriptName('fauxlab')
  .usage('$0 [command] [options]\n\nA high-fidelity in-memory mock of the GitLab REST API v4.')
  .command(['serve', '$0'], 'serve a scenario over HTTP (the default command)', serveOptions, (a) =>
    serveCommand(a as unknown as ServeArgs),
  )
  .command('scenario', 'work with scenario files: validate, schema', (y) =>
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
      .demandCommand(1, 'name a scenario command: validate or schema'),
  )
  .command('routes', 'list every API route, one per line', {}, () => routesCommand())
  .strict()
  .help()
  .alias('h', 'help')
  .version(version())
  .wrap(Math.min(110, process.stdout.columns || 80))
  .fail((msg, err) => {
    // Usage errors (unknown flags, failed checks) come with a message; a handler's own errors without.
    if (err instanceof CliError || !msg) throw err;
    throw new CliError(`${msg}\nRun "fauxlab --help" for usage.`, 2);
  });

try {
  await cli.parseAsync();
} catch (e) {
  process.stderr.write(`fauxlab: ${e instanceof Error ? e.message : String(e)}\n`);
  // A bug rather than a user error: the stack is there for whoever asks.
  if (!(e instanceof CliError) && process.env.FAUXLAB_DEBUG) console.error(e);
  process.exitCode = e instanceof CliError ? e.exitCode : 1;
}
