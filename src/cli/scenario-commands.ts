/**
 * `fauxlab scenario validate|export|capture|schema` and `fauxlab routes`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, readScenario, scenarioPath, count } from './common.js';

export async function validateCommand(file: string): Promise<void> {
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

export async function routesCommand(): Promise<void> {
  const { createFauxlab } = await import('../app.js');
  const routes = [...createFauxlab().routes].sort(
    (a, b) =>
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
  );
  process.stdout.write(routes.map((r) => `${r.method} /api/v4${r.path}\n`).join(''));
}

export interface ExportArgs {
  url?: string;
  adminToken?: string;
  stateFile?: string;
  scenario?: string;
  format: 'yaml' | 'json';
  output?: string;
}

/** Prints (or writes) the current state of a running server, a state file or a scenario as a scenario. */
export async function exportCommand(args: ExportArgs): Promise<void> {
  const { exportScenario } = await import('../scenario/export.js');
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
    const { readStateFile } = await import('../admin/state-file.js');
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
    if (scenario.generate) await (await import('../scenario/index.js')).preloadGenerator();
    const { createFauxlab } = await import('../app.js');
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
export async function captureCommand(args: import('../capture/command.js').CaptureArgs): Promise<void> {
  const { runCapture, CaptureError } = await import('../capture/command.js');
  try {
    await runCapture(args);
  } catch (e) {
    if (e instanceof CaptureError) throw new CliError(e.message);
    throw e;
  }
}

export async function schemaCommand(): Promise<void> {
  const { scenarioJsonSchemaText } = await import('../scenario/json-schema.js');
  process.stdout.write(scenarioJsonSchemaText());
}
