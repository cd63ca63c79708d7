/**
 * `fauxlab serve`: a scenario served over HTTP, its flags checked, the banner with the base URL and a token.
 */
import { statSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname, resolve } from 'node:path';
import type { Scenario } from '../scenario/index.js';
import { DEFAULT_SCENARIO, CliError, version, readScenario, scenarioPath } from './common.js';
import { showProgress, worldSummary, logRequests } from './serve-output.js';

export interface ServeArgs {
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
export function parseSize(text: string): number | undefined {
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

export async function serveCommand(args: ServeArgs): Promise<void> {
  const file = args.scenario ? await scenarioPath(args.scenario) : DEFAULT_SCENARIO;
  const stateFile = args.stateFile ? resolve(args.stateFile) : undefined;
  if (stateFile) checkStateFile(stateFile);
  const appModule = import('../app.js');
  const serverModule = import('../host/node-server.js');
  const guard = await import('../admin/guard.js');
  let token: string | undefined;
  try {
    token = guard.adminTokenOf(args.adminToken, process.env.FAUXLAB_ADMIN_TOKEN);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const scenario = await readScenario(file);
  if (scenario.generate) await (await import('../scenario/index.js')).preloadGenerator();
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
  const stateFiles = stateFile ? await import('../admin/state-file.js') : undefined;
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
