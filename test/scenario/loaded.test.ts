import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { ScenarioError } from '../../src/scenario/index.js';
import { LoadedScenarios, loadOnce, processScenarios, scenarioKey } from '../../src/scenario/loaded.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';

/** A scenario no other test uses: its key is new to this process. */
let n = 0;
const fresh = (): ScenarioFile => ({
  now: '2021-03-01T12:00:00Z',
  users: [{ username: `loaded-${++n}`, admin: true, tokens: [{ token: `loaded-token-${n}` }] }],
  projects: [{ path: `loaded-${n}/app` }],
});

describe('scenarioKey', () => {
  it('gives equal inputs one key, and inputs validation tells apart different keys', () => {
    expect(scenarioKey({ users: [{ username: 'a' }] })).toBe(scenarioKey({ users: [{ username: 'a' }] }));
    const pairs: [object, object][] = [
      [{ now: undefined }, {}],
      [{ now: new Date('2021-03-01T12:00:00Z') }, { now: '2021-03-01T12:00:00.000Z' }],
      [{ seed: NaN }, { seed: null }],
      [{ seed: Infinity }, { seed: null }],
      [{ seed: -0 }, { seed: 0 }],
      [{ now: '\u0000undefined' }, { now: undefined }],
      [{ users: [{ username: 'a', name: undefined }] }, { users: [{ username: 'a' }] }],
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
    ];
    for (const [a, b] of pairs) {
      expect(scenarioKey(a)).toBeTypeOf('string');
      expect(scenarioKey(b)).toBeTypeOf('string');
      expect(scenarioKey(a)).not.toBe(scenarioKey(b));
    }
  });

  it('gives none for a path, `extends`, functions, class instances, cycles or more than 256 KB of JSON', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    class Settings {
      x = 1;
    }
    for (const input of [
      'scenario.json',
      { extends: 'base.json' },
      { settings: { f: () => 1 } },
      { settings: new Settings() },
      { settings: new Map() },
      { seed: 10n },
      cycle,
      { users: [{ username: 'x'.repeat(256 * 1024) }] },
      [],
      null,
    ])
      expect(scenarioKey(input)).toBeUndefined();
    expect(scenarioKey({ users: [{ username: 'x'.repeat(200 * 1024) }] })).toBeTypeOf('string');
    expect(scenarioKey(Object.assign(Object.create(null) as object, { seed: 1 }))).toBeTypeOf('string');
  });
});

describe('LoadedScenarios', () => {
  it('hands out copies, and keeps the 16 most recently used', () => {
    const kept = new LoadedScenarios();
    const s = loadOnce(fresh());
    kept.set('a', s);
    const one = kept.get('a')!;
    const two = kept.get('a')!;
    expect(one).toEqual(s);
    expect(one).not.toBe(two);
    expect(one.users).not.toBe(two.users);
    one.users.length = 0;
    expect(kept.get('a')).toEqual(s);
    for (let i = 0; i < 16; i++) kept.set(`k${i}`, s);
    // 'a' was the least recently used of 17: it went.
    expect([kept.size, kept.has('a'), kept.has('k0'), kept.has('k15')]).toEqual([16, false, true, true]);
    kept.get('k0');
    kept.set('k16', s);
    expect([kept.has('k0'), kept.has('k1')]).toEqual([true, false]);
  });
});

describe('scenarios validated once per process', () => {
  it('createFauxlab: a scenario object is validated once, and each instance has its own world and scenario', async () => {
    const input = fresh();
    const key = scenarioKey(input)!;
    expect(processScenarios.has(key)).toBe(false);
    const a = createFauxlab({ scenario: input });
    expect(processScenarios.has(key)).toBe(true);
    const b = createFauxlab({ scenario: structuredClone(input) });
    expect(b.scenario).toEqual(a.scenario);
    expect(b.scenario).not.toBe(a.scenario);
    expect(b.state).not.toBe(a.state);
    expect(JSON.stringify(b.snapshot().state)).toBe(JSON.stringify(a.snapshot().state));
    // A write in one instance is its own.
    const token = input.users![0]!.tokens![0]!.token!;
    const res = await a.app.request('/api/v4/projects', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'only-in-a' }),
    });
    expect(res.status).toBe(201);
    const list = async (fx: typeof a) =>
      (
        (await (
          await fx.app.request('/api/v4/projects', { headers: { 'PRIVATE-TOKEN': token } })
        ).json()) as {
          name: string;
        }[]
      ).map((p) => p.name);
    expect(await list(a)).toContain('only-in-a');
    expect(await list(b)).not.toContain('only-in-a');
    // Changing one instance's scenario object changes nothing for the next.
    a.scenario.users.length = 0;
    expect(createFauxlab({ scenario: input }).scenario.users).toHaveLength(1);
  });

  it('createFauxlab: an input changed between two calls is validated and built as it is now', () => {
    const input = fresh();
    createFauxlab({ scenario: input });
    input.users!.push({ username: `loaded-extra-${n}` });
    const fx = createFauxlab({ scenario: input });
    expect(fx.scenario.users.map((u) => u.username)).toEqual([
      input.users![0]!.username,
      `loaded-extra-${n}`,
    ]);
    expect(fx.state.users.size).toBe(2);
    // Made invalid: refused every time, and nothing kept for it.
    input.users!.push({ username: input.users![0]!.username });
    expect(() => createFauxlab({ scenario: input })).toThrow(ScenarioError);
    expect(processScenarios.has(scenarioKey(input)!)).toBe(false);
    expect(() => createFauxlab({ scenario: input })).toThrow(ScenarioError);
  });

  it('load(): an equal input reuses the validated scenario, and reset() returns to it', async () => {
    const input = fresh();
    const fx = createFauxlab();
    fx.load(input);
    const other = createFauxlab({ scenario: input });
    expect(fx.scenario).toEqual(other.scenario);
    expect(fx.state.users.size).toBe(1);
    fx.reset();
    expect(fx.state.users.size).toBe(1);
    const token = input.users![0]!.tokens![0]!.token!;
    const me = await fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': token } });
    expect(((await me.json()) as { username: string }).username).toBe(input.users![0]!.username);
  });
});
