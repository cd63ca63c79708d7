import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, loadScenario, ScenarioError } from '../../src/index.js';
import { scenarioJsonSchema } from '../../src/scenario/json-schema.js';
import { json } from '../helpers.js';
import { tvalues } from '../../src/core/table.js';

const dir = mkdtempSync(join(tmpdir(), 'fauxlab-scenarios-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const problems = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems;
    throw e;
  }
  throw new Error('expected a ScenarioError');
};
const demo = new URL('../../scenarios/demo.yaml', import.meta.url).pathname;

describe('scenario extends', () => {
  file(
    'base.yaml',
    [
      'now: "2021-03-01T09:00:00Z"',
      'tier: free',
      'settings: { signup_enabled: true, gravatar_enabled: true }',
      'users:',
      '  - { username: root, admin: true, tokens: [{ token: base-root }] }',
      '  - { username: alice, name: Alice, tokens: [{ token: base-alice }] }',
      'groups:',
      '  - { path: team, members: [{ username: alice, access_level: owner }] }',
      'projects:',
      '  - { path: team/app }',
    ].join('\n'),
  );

  it('builds on another file: inherited entries, replaced ones by key, scalars and settings overridden', () => {
    const child = file(
      'child.yaml',
      [
        'extends: base.yaml',
        'tier: premium',
        'settings: { signup_enabled: false }',
        'users:',
        '  - { username: Alice, name: Alice Replaced, tokens: [{ token: child-alice }] }',
        '  - { username: bob }',
        'projects:',
        '  - { path: team/web, visibility: public }',
      ].join('\n'),
    );
    const s = loadScenario(child);
    expect(s.tier).toBe('premium');
    expect(s.now).toBe('2021-03-01T09:00:00Z');
    expect(s.settings).toEqual({ signup_enabled: false, gravatar_enabled: true });
    expect(s.users.map((u) => [u.username, u.name])).toEqual([
      ['root', undefined],
      ['Alice', 'Alice Replaced'],
      ['bob', undefined],
    ]);
    expect(s.projects.map((p) => p.path)).toEqual(['team/app', 'team/web']);
    expect(s.groups).toHaveLength(1);
    expect(s.extends).toBeUndefined();
  });

  it('the merged world works: inherited tokens authenticate, replaced ones are gone', async () => {
    const child = file(
      'child2.yaml',
      'extends: base.yaml\nusers: [{ username: alice, tokens: [{ token: new-alice }] }]',
    );
    const fx = createFauxlab({ scenario: child });
    const who = async (t: string) =>
      (await fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': t } })).status;
    expect(await who('base-root')).toBe(200);
    expect(await who('new-alice')).toBe(200);
    expect(await who('base-alice')).toBe(401);
  });

  it('extends several files in order, and chains', () => {
    file('extra.yaml', 'extends: base.yaml\nusers: [{ username: carol }]');
    file('more.json', JSON.stringify({ users: [{ username: 'dave' }], tier: 'ultimate' }));
    const s = loadScenario(file('multi.yaml', 'extends: [extra.yaml, more.json]\nseed: 9'));
    expect(s.users.map((u) => u.username)).toEqual(['root', 'alice', 'carol', 'dave']);
    expect([s.tier, s.seed]).toEqual(['ultimate', 9]);
  });

  it('an object scenario extends paths from the working directory (absolute paths work anywhere)', () => {
    const s = loadScenario({ extends: join(dir, 'base.yaml'), users: [{ username: 'erin' }] });
    expect(s.users.map((u) => u.username)).toEqual(['root', 'alice', 'erin']);
  });

  it('a missing base, a cycle, or a bad base is an error naming the file', () => {
    const missing = file('missing.yaml', 'extends: nowhere.yaml');
    expect(problems(() => loadScenario(missing))).toEqual(['extends: no such file "nowhere.yaml"']);
    file('loop-a.yaml', 'extends: loop-b.yaml');
    file('loop-b.yaml', 'extends: loop-a.yaml');
    expect(problems(() => loadScenario(join(dir, 'loop-a.yaml')))[0]).toMatch(
      /^extends: "loop-a\.yaml" extends itself \(.*loop-a\.yaml -> .*loop-b\.yaml -> .*loop-a\.yaml\)$/,
    );
    file('bad-base.yaml', 'tier: gold');
    const err = (() => {
      try {
        loadScenario(file('bad-child.yaml', 'extends: bad-base.yaml'));
      } catch (e) {
        return e as ScenarioError;
      }
    })();
    expect(err?.file).toMatch(/bad-base\.yaml$/);
    expect(err?.problems[0]).toMatch(/^tier: /);
  });

  it('cross-reference problems in inherited entries name the file and index they came from', () => {
    file(
      'orphan-base.yaml',
      'users: [{ username: root }]\nprojects: [{ path: root/app, members: [{ username: ghost, access_level: 30 }] }]',
    );
    const child = file(
      'orphan-child.yaml',
      'extends: orphan-base.yaml\nprojects: [{ path: root/web, creator: nobody }]',
    );
    expect(problems(() => loadScenario(child))).toEqual([
      'orphan-base.yaml: projects[0].members[0].username: no user "ghost"',
      'projects[1].creator: no user "nobody"',
    ]);
  });
});

describe('scenario export', () => {
  it('exports a world as a scenario that rebuilds the same world (export, load, export: equal)', async () => {
    const fx = createFauxlab({ scenario: demo });
    const root = { 'PRIVATE-TOKEN': 'glpat-fauxlab-demo-root', 'Content-Type': 'application/json' };
    let res = await fx.app.request('/api/v4/users', {
      method: 'POST',
      headers: root,
      body: JSON.stringify({
        username: 'newbie',
        name: 'New Bie',
        email: 'newbie@example.com',
        password: 'password1',
        bio: 'hi',
      }),
    });
    expect(res.status).toBe(201);
    res = await fx.app.request('/api/v4/users/3/block', { method: 'POST', headers: root });
    expect(res.status).toBe(201);
    const first = exportScenario(fx.state, { now: fx.clock.iso() });
    const again = createFauxlab({ scenario: first });
    expect(exportScenario(again.state, { now: again.clock.iso() })).toEqual(first);
    // Every user is as it was, field for field, but for the namespace ids (numbered again).
    const users = (st: typeof fx.state) =>
      tvalues(st.users).map(({ namespace_id: _ns, ...u }) => Object.fromEntries(Object.entries(u).sort()));
    expect(users(again.state)).toEqual(users(fx.state));
    // The same secrets work: tokens and passwords travel as digests.
    res = await again.app.request('/api/v4/user', {
      headers: { 'PRIVATE-TOKEN': 'glpat-fauxlab-demo-alice' },
    });
    expect((await json(res)).username).toBe('alice');
    expect(JSON.stringify(first)).not.toContain('glpat-fauxlab-demo');
    expect(JSON.stringify(first)).not.toContain('password1');
  });

  it('leaves out what a fresh import gives anyway', () => {
    const fx = createFauxlab({ scenario: { users: [{ username: 'solo', tokens: [{ token: 't' }] }] } });
    expect(exportScenario(fx.state, { now: fx.clock.iso() })).toEqual({
      now: '2021-01-04T10:00:00.000Z',
      tier: 'free',
      users: [{ username: 'solo', tokens: [{ token_digest: expect.stringMatching(/^[0-9a-f]{64}$/) }] }],
    });
  });

  it('GET /__fauxlab/scenario answers the export', async () => {
    const fx = createFauxlab({ scenario: demo });
    const res = await fx.app.request('/__fauxlab/scenario');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(
      JSON.parse(JSON.stringify(exportScenario(fx.state, { now: fx.clock.iso() }))),
    );
  });

  it('a token needs exactly one of token and token_digest', () => {
    expect(problems(() => loadScenario({ users: [{ username: 'a', tokens: [{ name: 'x' }] }] }))[0]).toMatch(
      /^users\[0\]\.tokens\[0\]: give token or token_digest/,
    );
    expect(
      problems(() =>
        loadScenario({ users: [{ username: 'a', tokens: [{ token: 'x', token_digest: 'a'.repeat(64) }] }] }),
      ),
    ).toHaveLength(1);
    expect(
      problems(() => loadScenario({ users: [{ username: 'a', tokens: [{ token_digest: 'nothex' }] }] }))[0],
    ).toMatch(/token_digest: must be a SHA-256 digest/);
  });
});

describe('scenario JSON Schema', () => {
  it('describes extends, token_digest and password_digest', () => {
    const schema = scenarioJsonSchema() as any;
    expect(schema.properties.extends).toBeDefined();
    const user = schema.properties.users.items;
    expect(user.properties.password_digest).toBeDefined();
    expect(user.properties.tokens.items.properties.token_digest).toBeDefined();
  });
});
