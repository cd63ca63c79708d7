/** The scenario format as a JSON Schema, for editors (`$schema`) and `fauxlab scenario schema`. */
import { z } from 'zod';
import { strictScenarioSchema } from './strict.js';

/** The JSON Schema (draft 2020-12) of what a scenario file may contain: the schema's input side. */
export function scenarioJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(strictScenarioSchema(), { io: 'input' });
  return { $schema, title: 'fauxlab scenario', ...rest };
}

/** The text of scenarios/schema.json: `npm run schema` writes it, a test keeps it current. */
export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
