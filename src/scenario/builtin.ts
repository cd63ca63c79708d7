/**
 * Scenarios shipped with the package, named without a path (`scenario: 'demo'`, `--scenario demo`,
 * `extends: demo`): a path would be read from the caller's directory, where an installed package's
 * files are not.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A bare name: no separator or extension, so that it cannot be mistaken for a file the caller means. */
const NAME = /^[a-z][a-z0-9-]{0,63}$/;

/** The directory of the shipped scenarios: above src/scenario/ in the sources, dist/src/scenario/ built. */
const scenariosDir = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    dir = dirname(dir);
    if (existsSync(join(dir, 'scenarios', 'demo.yaml')) && existsSync(join(dir, 'package.json')))
      return join(dir, 'scenarios');
  }
  return undefined;
})();

/** The file of a built-in scenario (`demo`, or an example's name such as `minimal`), if `name` is one. */
export function builtInScenario(name: string): string | undefined {
  // scenarios/schema.json sits next to them but is no scenario.
  if (!scenariosDir || !NAME.test(name) || name === 'schema') return undefined;
  for (const dir of [scenariosDir, join(scenariosDir, 'examples')])
    for (const ext of ['.yaml', '.yml', '.json']) {
      const file = join(dir, name + ext);
      if (existsSync(file)) return file;
    }
  return undefined;
}

/** `input` as a file to read: a built-in scenario's file, or `input` itself. */
export const scenarioFile = (input: string): string => builtInScenario(input) ?? input;
