import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { versionsMarkdown } from '../../src/admin/versions-doc.js';
import { createFauxlab } from '../../src/index.js';
import {
  declarations,
  DEFAULT_MINOR,
  inSpan,
  MINORS,
  parseVersion,
  RELEASES,
  versioned,
} from '../../src/core/versions.js';
import { DEFAULT_BRANCH_MAIN } from '../../src/resources/projects/versions.js';
import { exportScenario } from '../../src/scenario/export.js';
import { ScenarioError } from '../../src/scenario/index.js';

const ROOT = { username: 'root', admin: true, tokens: [{ token: 'root-api', scopes: ['api' as const] }] };
const scenario = (extra: Record<string, unknown> = {}) => ({ users: [ROOT], ...extra });
const get = async (fx: ReturnType<typeof createFauxlab>, path: string) => {
  const res = await fx.app.request(`/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('GitLab versions: the mechanism', () => {
  it('parseVersion: a supported minor, or a release of one; anything else names the supported range', () => {
    expect(parseVersion('15.4')).toEqual({ minor: '15.4' });
    expect(parseVersion('15.4.2')).toEqual({ minor: '15.4', release: '15.4.2' });
    expect(parseVersion('13.12.3-ee')).toEqual({ minor: '13.12', release: '13.12.3-ee' });
    expect(parseVersion(' 14.0 ')).toEqual({ minor: '14.0' });
    for (const bad of ['13.11', '19.0', '15', '15.4.x', 'latest', '', '015.4'])
      expect(() => parseVersion(bad), bad).toThrow(
        `GitLab version ${JSON.stringify(bad)} is not supported: fauxlab answers as GitLab 13.12 to 18.11`,
      );
  });

  it('releases: every minor from 13.12 to 18.11, oldest first, each reporting a release of itself', () => {
    expect(MINORS[0]).toBe('13.12');
    expect(MINORS.at(-1)).toBe('18.11');
    expect(MINORS).toHaveLength(60);
    for (const m of MINORS) expect(RELEASES[m].startsWith(`${m}.`), m).toBe(true);
    expect(DEFAULT_MINOR).toBe('13.12');
  });

  it('inSpan: from since (included) until until (excluded)', () => {
    expect(inSpan('14.2', { since: '14.3' })).toBe(false);
    expect(inSpan('14.3', { since: '14.3' })).toBe(true);
    expect(inSpan('14.10', { since: '14.3', until: '15.0' })).toBe(true);
    expect(inSpan('15.0', { since: '14.3', until: '15.0' })).toBe(false);
    expect(inSpan('13.12', { until: '14.0' })).toBe(true);
    // 14.10 comes after 14.9, not before 14.2.
    expect(inSpan('14.10', { since: '14.9' })).toBe(true);
    expect(inSpan('14.10', { until: '14.2' })).toBe(false);
  });

  it("GET /version: the minor's release (-ee on paid tiers), a given release as given; the scenario's version, the option over it", async () => {
    expect((await get(createFauxlab({ scenario: scenario() }), '/version')).body.version).toBe('13.12.15');
    expect(
      (await get(createFauxlab({ scenario: scenario(), version: '15.4' }), '/version')).body.version,
    ).toBe('15.4.6');
    expect(
      (await get(createFauxlab({ scenario: scenario({ tier: 'ultimate' }), version: '15.4' }), '/version'))
        .body.version,
    ).toBe('15.4.6-ee');
    expect(
      (await get(createFauxlab({ scenario: scenario(), version: '15.4.2' }), '/version')).body.version,
    ).toBe('15.4.2');
    const fromFile = createFauxlab({ scenario: scenario({ version: '14.0' }) });
    expect((await get(fromFile, '/version')).body.version).toBe('14.0.0');
    expect(fromFile.state.version).toBe('14.0');
    const overridden = createFauxlab({ scenario: scenario({ version: '14.0' }), version: '15.11' });
    expect(overridden.state.version).toBe('15.11');
  });

  it('an unsupported version: createFauxlab throws, a scenario is refused naming the field and the range', () => {
    expect(() => createFauxlab({ version: '19.0' })).toThrow(
      /not supported: fauxlab answers as GitLab 13\.12 to 18\.11/,
    );
    let err: unknown;
    try {
      createFauxlab({ scenario: scenario({ version: '12.10' }) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioError);
    expect((err as Error).message).toMatch(
      /version: GitLab version "12.10" is not supported: give a minor release from 13\.12 to 18\.11/,
    );
  });

  it('the version is part of the world: exported when not the default, reset and snapshots keep it', async () => {
    const at15 = createFauxlab({ scenario: scenario({ version: '15.4' }) });
    const out = exportScenario(at15.state, { now: at15.clock.iso() }) as Record<string, unknown>;
    expect(out.version).toBe('15.4');
    expect(createFauxlab({ scenario: out }).state.version).toBe('15.4');
    const at13 = createFauxlab({ scenario: scenario() });
    expect('version' in (exportScenario(at13.state, { now: at13.clock.iso() }) as object)).toBe(false);
    at15.reset();
    expect(at15.state.version).toBe('15.4');
    const snap = at15.snapshot();
    const other = createFauxlab({ scenario: scenario() });
    other.restore(snap);
    expect(other.state.version).toBe('15.4');
    expect((await get(other, '/version')).body.version).toBe('15.4.6');
  });

  it('a dated route: 404 (the catch-all, explained) outside its span, served inside it; OPTIONS lists it only there', async () => {
    const routes = (
      r: Parameters<NonNullable<Parameters<typeof createFauxlab>[0]>['routes'] & object>[0],
    ) => {
      r.get('/dated', { since: '14.3', source: 'a test' }, (c) => c.json({ ok: true }));
      r.get('/retired', { until: '15.0', source: 'a test' }, (c) => c.json({ ok: true }));
    };
    const at = (version: string) => createFauxlab({ scenario: scenario(), version, routes, explain: true });
    const before = await at('14.2').app.request('/api/v4/dated', {
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(before.status).toBe(404);
    expect(await before.json()).toEqual({ error: '404 Not Found' });
    expect(before.headers.get('x-fauxlab-explain')).toBe('no such route in GitLab 14.2 (it is in 14.3 on)');
    expect((await get(at('14.3'), '/dated')).status).toBe(200);
    expect((await get(at('14.10'), '/retired')).status).toBe(200);
    const gone = await at('15.0').app.request('/api/v4/retired', {
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(gone.status).toBe(404);
    expect(gone.headers.get('x-fauxlab-explain')).toBe('no such route in GitLab 15.0 (it is in until 15.0)');
    const options = async (v: string) =>
      (await at(v).app.request('/api/v4/dated', { method: 'OPTIONS' })).status;
    expect(await options('14.3')).toBe(204);
    expect(await options('14.2')).toBe(404);
    expect(at('14.3').routes.find((r) => r.path === '/dated')).toEqual({
      method: 'GET',
      path: '/dated',
      since: '14.3',
      source: 'a test',
    });
  });

  it('a dated route out of its span leaves its path to a later route that takes it (Grape has only that one)', async () => {
    const routes = (
      r: Parameters<NonNullable<Parameters<typeof createFauxlab>[0]>['routes'] & object>[0],
    ) => {
      r.get('/things/self', { since: '15.5', source: 'a test' }, (c) => c.json({ self: true }));
      r.get('/things/:id', (c) => c.json({ id: c.req.param('id') }));
      r.get('/other/self', { since: '15.5', source: 'a test' }, (c) => c.json({ self: true }));
      r.get('/other/:id', { since: '15.1', source: 'a test' }, (c) => c.json({ id: c.req.param('id') }));
    };
    const at = (version: string) => createFauxlab({ scenario: scenario(), version, routes, explain: true });
    expect((await get(at('15.5'), '/things/self')).body).toEqual({ self: true });
    expect((await get(at('15.4'), '/things/self')).body).toEqual({ id: 'self' });
    expect((await get(at('15.4'), '/other/self')).body).toEqual({ id: 'self' });
    // Out of both spans: the first route's explanation.
    const none = await at('15.0').app.request('/api/v4/other/self', {
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(none.status).toBe(404);
    expect(none.headers.get('x-fauxlab-explain')).toBe('no such route in GitLab 15.0 (it is in 15.5 on)');
  });

  it('a dated route without its source, or with a span outside the supported range, is refused when registered', () => {
    expect(() => createFauxlab({ routes: (r) => r.get('/x', { since: '14.3' }, (c) => c.json({})) })).toThrow(
      'GET /x: a dated route needs its source',
    );
    expect(() =>
      createFauxlab({
        routes: (r) => r.get('/x', { since: '15.0', until: '14.0', source: 's' }, (c) => c.json({})),
      }),
    ).toThrow('GET /x: since 15.0 is not before until 14.0');
  });

  it('versioned: one declaration per thing, dated within the supported range, with its source', () => {
    const base = { kind: 'behaviour' as const, what: 'w', source: 's' };
    expect(() => versioned({ ...base, name: 'test: undated' })).toThrow('test: undated: no version dates it');
    expect(() => versioned({ ...base, name: 'test: no source', since: '14.0', source: ' ' })).toThrow(
      'no source dates it',
    );
    expect(() => versioned({ ...base, name: 'test: too late', since: '19.0' as '14.0' })).toThrow(
      'test: too late: 19.0 is not a supported version',
    );
    expect(() => versioned({ ...base, name: DEFAULT_BRANCH_MAIN.name, since: '14.0' })).toThrow(
      'is declared twice',
    );
    // Every declaration the areas make is well formed.
    for (const d of declarations()) {
      expect(d.since ?? d.until, d.name).toBeDefined();
      expect(d.source.trim(), d.name).not.toBe('');
      expect(d.what.trim(), d.name).not.toBe('');
      for (const v of [d.since, d.until]) if (v) expect(MINORS, d.name).toContain(v);
    }
  });

  it('docs/versions.md is generated from the declarations (npm run coverage-list rewrites it)', () => {
    const doc = readFileSync(new URL('../../docs/versions.md', import.meta.url), 'utf8');
    const real = declarations().filter((d) => !d.name.startsWith('test: '));
    expect(doc).toBe(versionsMarkdown(createFauxlab().routes, real));
  });

  it("GET /__fauxlab/: the instance's GitLab version and tier", async () => {
    const fx = createFauxlab({ scenario: scenario({ tier: 'premium' }), version: '15.4' });
    const index = (await (await fx.app.request('/__fauxlab/')).json()) as { gitlab: unknown };
    expect(index.gitlab).toEqual({ version: '15.4', tier: 'premium' });
  });
});

describe('GitLab versions: projects', () => {
  const create = async (version: string, settings: Record<string, unknown> = {}) => {
    const fx = createFauxlab({ scenario: scenario({ settings }), version });
    const res = await fx.app.request('/api/v4/projects', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'app', initialize_with_readme: true }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { default_branch: string }).default_branch;
  };

  it("a new project's default branch: master in 13.12, main from 14.0; default_branch_name wins in both", async () => {
    expect(await create('13.12')).toBe('master');
    expect(await create('14.0')).toBe('main');
    expect(await create('15.4')).toBe('main');
    expect(await create('13.12', { default_branch_name: 'trunk' })).toBe('trunk');
    expect(await create('15.4', { default_branch_name: 'trunk' })).toBe('trunk');
  });
});
