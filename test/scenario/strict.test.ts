import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/app.js';
import { loadScenario, ScenarioError } from '../../src/scenario/index.js';
import { scenarioJsonSchema } from '../../src/scenario/json-schema.js';
import { didYouMean } from '../../src/scenario/strict.js';

/** The problems a scenario is refused with. */
function problems(scenario: object): string[] {
  try {
    loadScenario(scenario);
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems;
    throw e;
  }
  throw new Error('the scenario was accepted');
}

const demo = fileURLToPath(new URL('../../scenarios/demo.yaml', import.meta.url));

describe('scenario files: unknown fields', () => {
  it('scenario: a typo in a user is refused with the field it resembles', () => {
    expect(problems({ users: [{ username: 'a', admn: true }] })).toEqual([
      'users[0]: unknown field "admn" (did you mean "admin"?)',
    ]);
  });

  it('scenario: a typo in a group is refused with the field it resembles', () => {
    expect(problems({ groups: [{ path: 'g', visiblity: 'public' }] })).toEqual([
      'groups[0]: unknown field "visiblity" (did you mean "visibility"?)',
    ]);
  });

  it('scenario: a typo in a project is refused with the field it resembles', () => {
    expect(
      problems({ users: [{ username: 'a' }], projects: [{ path: 'a/p', visiblity: 'public' }] }),
    ).toEqual(['projects[0]: unknown field "visiblity" (did you mean "visibility"?)']);
  });

  it('scenario: typos in nested objects are refused at their path', () => {
    expect(
      problems({
        users: [{ username: 'a', tokens: [{ token: 't', scops: ['api'] }] }],
        groups: [{ path: 'g', members: [{ username: 'a', access_level: 30, expires_on: '2030-01-01' }] }],
        projects: [
          {
            path: 'g/p',
            issues: [{ title: 'x', titel: 'y' }],
            integrations: [{ slug: 'slack', webhok: 'https://hooks.example.com/x' }],
          },
        ],
      }),
    ).toEqual([
      'users[0].tokens[0]: unknown field "scops" (did you mean "scopes"?)',
      'groups[0].members[0]: unknown field "expires_on" (did you mean "expires_at"?)',
      // A project's fields come in the area list's order: issuables before integrations.
      'projects[0].issues[0]: unknown field "titel" (did you mean "title"?)',
      'projects[0].integrations[0]: unknown field "webhok" (did you mean "webhook"?)',
    ]);
  });

  it('scenario: a setting that does not exist is refused with the setting it resembles', () => {
    expect(problems({ settings: { signup_enabld: false } })).toEqual([
      'settings: unknown field "signup_enabld" (did you mean "signup_enabled"?)',
    ]);
    expect(loadScenario({ settings: { signup_enabled: false } }).settings).toEqual({ signup_enabled: false });
  });

  it('scenario: an unknown top-level field is refused with the field it resembles', () => {
    expect(problems({ usres: [] })).toEqual(['(root): unknown field "usres" (did you mean "users"?)']);
  });

  it('scenario: unknown fields with nothing close are named without a suggestion', () => {
    expect(problems({ users: [{ username: 'a', colour: 'red', admn: true }] })).toEqual([
      'users[0]: unknown fields "colour", "admn" (did you mean "admin"?)',
    ]);
  });

  it('scenario: a file names the file and the path of the unknown field', () => {
    const fx = () => createFauxlab({ scenario: { groups: [{ path: 'g', descripton: 'x' }] } });
    expect(fx).toThrow('groups[0]: unknown field "descripton" (did you mean "description"?)');
  });

  it('scenario: a huge object of unknown keys is reported briefly', () => {
    const user: Record<string, unknown> = { username: 'a' };
    for (let i = 0; i < 5000; i++) user[`k${i}`] = i;
    const [line] = problems({ users: [user] });
    expect(line).toMatch(/^users\[0\]: unknown fields "k0", "k1", .*"k19", and 4980 more$/);
  });

  it('scenario: the fields a user, group or project record has stay accepted', () => {
    const s = loadScenario({
      users: [{ username: 'a', bio: 'hello', location: 'Paris' }],
      groups: [{ path: 'g', lfs_enabled: false, request_access_enabled: false }],
      projects: [{ path: 'g/p', star_count: 0, merge_method: 'ff', lfs_enabled: false }],
    });
    expect(s.users[0]).toMatchObject({ bio: 'hello', location: 'Paris' });
    expect(s.projects[0]).toMatchObject({ merge_method: 'ff' });
  });

  it('scenario: a typo in an inherited file is refused naming that file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fauxlab-strict-'));
    try {
      writeFileSync(join(dir, 'base.json'), JSON.stringify({ users: [{ username: 'a', nmae: 'A' }] }));
      writeFileSync(join(dir, 'top.json'), JSON.stringify({ extends: 'base.json' }));
      expect(() => loadScenario(join(dir, 'top.json'))).toThrow(
        'base.json: invalid scenario\n  users[0]: unknown field "nmae" (did you mean "name"?)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('POST /__fauxlab/scenario: unknown fields', () => {
  it('POST /__fauxlab/scenario: 400 naming the unknown field and its near miss; the world stays', async () => {
    const fx = createFauxlab({ scenario: { users: [{ username: 'root' }] } });
    const before = fx.state;
    const res = await fx.fetch('http://x.test/__fauxlab/scenario', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ users: [{ username: 'a', admn: true }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      message: { scenario: ['users[0]: unknown field "admn" (did you mean "admin"?)'] },
    });
    expect(fx.state).toBe(before);
  });
});

describe('scenarios/schema.json: unknown fields', () => {
  it('every object of the JSON Schema refuses unknown fields', () => {
    const open: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${at}[${i}]`));
      if (typeof node !== 'object' || node === null) return;
      const o = node as Record<string, unknown>;
      // Maps keyed by the user (settings, custom attributes) declare no properties of their own.
      if (o.type === 'object' && o.properties && o.additionalProperties !== false) open.push(at);
      for (const [k, v] of Object.entries(o)) visit(v, `${at}.${k}`);
    };
    visit(scenarioJsonSchema(), '#');
    expect(open).toEqual([]);
    const users = (scenarioJsonSchema().properties as Record<string, { items: Record<string, unknown> }>)
      .users!;
    expect(users.items.additionalProperties).toBe(false);
    expect(Object.keys(users.items.properties as object)).toEqual(expect.arrayContaining(['admin', 'bio']));
  });
});

describe('didYouMean', () => {
  it('suggests the closest field within one edit in four characters, and nothing farther', () => {
    const known = ['admin', 'name', 'username', 'visibility', 'id'];
    expect(didYouMean('admn', known)).toBe('admin');
    expect(didYouMean('visiblity', known)).toBe('visibility');
    expect(didYouMean('Visibility', known)).toBe('visibility');
    expect(didYouMean('nmae', known)).toBe('name');
    expect(didYouMean('colour', known)).toBeUndefined();
    expect(didYouMean('ix', known)).toBeUndefined();
    expect(didYouMean('x'.repeat(1000), known)).toBeUndefined();
  });
});

describe('built-in scenarios', () => {
  it('scenario: "demo" names the demo world shipped with the package', () => {
    // The working directory (the repository root here) has no file named `demo`.
    expect(loadScenario('demo')).toEqual(loadScenario(demo));
    expect(loadScenario('minimal').users.map((u) => u.username)).toEqual(['root', 'alice']);
  });

  it('scenario: extends may name a built-in scenario', () => {
    const s = loadScenario({ extends: 'demo', users: [{ username: 'zed' }] });
    expect(s.users.map((u) => u.username)).toContain('root');
    expect(s.users.at(-1)!.username).toBe('zed');
  });

  it('scenario: a name that is no built-in scenario is read as a file', () => {
    expect(() => loadScenario('nonesuch')).toThrow('nonesuch: invalid scenario\n  no such file');
    expect(() => loadScenario('schema')).toThrow('schema: invalid scenario\n  no such file');
  });
});
