/**
 * A scenario is checked against a format made strict only in the fields it gives (strictSchemaFor),
 * which must answer exactly as the fully strict format does: the same data, the same problems.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenario, readScenarioFile } from '../../src/scenario/index.js';
import { strictScenarioSchema, strictSchemaFor } from '../../src/scenario/strict.js';

const demo = readScenarioFile(fileURLToPath(new URL('../../scenarios/demo.yaml', import.meta.url)));

const INPUTS: [string, unknown][] = [
  ['an empty file', {}],
  ['the demo world', demo],
  ['a typo at the top', { userz: [] }],
  ['a typo in a user', { users: [{ username: 'a', admn: true }] }],
  ['a typo in a token', { users: [{ username: 'a', tokens: [{ token: 't', scope: ['api'] }] }] }],
  ['a typo in a project', { groups: [{ path: 'g' }], projects: [{ path: 'g/p', visiblity: 'public' }] }],
  [
    'a typo in an integration',
    { groups: [{ path: 'g' }], projects: [{ path: 'g/p', integrations: [{ slug: 'slack', webhok: 'x' }] }] },
  ],
  ['an unknown setting', { settings: { signup_enabeld: true } }],
  ['a field given as undefined', { users: undefined, now: '2021-01-04T10:00:00Z' }],
  ['a wrong type', { users: 'root' }],
  ['generate', { generate: { users: 3, groups: 1, projects: 2, projectz: 1 } }],
  ['empty lists and objects', { users: [], groups: [], settings: {}, features: [], generate: {} }],
  ['empty lists beside a project', { groups: [{ path: 'g' }], users: [], projects: [{ path: 'g/p', x: 1 }] }],
  ['a scenario as loaded, given again', loadScenario({})],
  ['the demo world as loaded, given again', loadScenario(demo as object)],
  ['settings as a Map', { settings: new Map([['signup_enabled', true]]) }],
  ['settings with a null prototype', { settings: Object.create(null) as object }],
  ['an array', []],
  ['null', null],
  ['a string', 'users'],
];

/** What a parse answers, comparable: the data, or each problem's path and message. */
function answer(schema: ReturnType<typeof strictScenarioSchema>, input: unknown): unknown {
  const r = schema.safeParse(input);
  return r.success ? { data: r.data } : { issues: r.error.issues.map((i) => [i.path, i.message]) };
}

describe('scenario files: strict in the fields given', () => {
  for (const [what, input] of INPUTS)
    it(`strictSchemaFor: ${what} gets the fully strict format's answer`, () => {
      expect(answer(strictSchemaFor(input), input)).toEqual(answer(strictScenarioSchema(), input));
    });

  it('strictSchemaFor: the same schema again for files that give the same fields', () => {
    expect(strictSchemaFor({ users: [{ username: 'y' }] })).toBe(
      strictSchemaFor({ users: [{ username: 'x' }] }),
    );
    expect(strictSchemaFor({ users: [{ username: 'x' }] })).not.toBe(
      strictSchemaFor({ groups: [{ path: 'g' }] }),
    );
    // Nothing to refuse in empty lists: the same schema as for no fields.
    expect(strictSchemaFor({ users: [], groups: [] })).toBe(strictSchemaFor({}));
  });
});
