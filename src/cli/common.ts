/**
 * What the commands share: the package root, the one error a command reports, reading a scenario file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../scenario/index.js';

/** The package root: two levels up from dist/bin/, one from bin/ (running the source). */
export const packageRoot = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const dir of [join(here, '..', '..'), join(here, '..'), join(here, '..', '..', '..')])
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'scenarios'))) return dir;
  return join(here, '..', '..');
})();

export const DEFAULT_SCENARIO = join(packageRoot, 'scenarios', 'demo.yaml');

/** A problem to report in one line or a few (no stack trace), with an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function version(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}

/** Validates a scenario file; a bad one is a CliError carrying the file and field paths. */
export async function readScenario(file: string): Promise<Scenario> {
  const { loadScenario, ScenarioError } = await import('../scenario/index.js');
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
export async function scenarioPath(value: string): Promise<string> {
  return (await import('../scenario/builtin.js')).builtInScenario(value) ?? resolve(value);
}

export const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
