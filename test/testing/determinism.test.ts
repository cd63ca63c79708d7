import { describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab, type ScenarioFile } from '../../src/index.js';

/** A generated world (faker, seeded) plus known accounts. */
const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00Z',
  seed: 1234,
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-token', scopes: ['api', 'sudo'] }] },
    { username: 'alice', tokens: [{ token: 'alice-token' }] },
  ],
  groups: [{ path: 'acme', visibility: 'public', members: [{ username: 'alice', access_level: 'owner' }] }],
  projects: [{ path: 'acme/app', visibility: 'public' }],
  generate: { users: 60, groups: 6, projects: 30 },
};

type Step = { method?: string; path: string; token?: string; body?: unknown; sudo?: string };

/** A scripted session: reads, writes (ids, timestamps), errors, pagination, clock moves and faults. */
const steps: Step[] = [
  { path: '/api/v4/users?per_page=7&page=2', token: 'root-token' },
  { path: '/api/v4/users?search=a&order_by=username&sort=desc', token: 'root-token' },
  { path: '/api/v4/users/5', token: 'alice-token' },
  { path: '/api/v4/user', token: 'root-token', sudo: 'alice' },
  {
    method: 'POST',
    path: '/api/v4/users',
    token: 'root-token',
    body: { username: 'dora', name: 'Dora', email: 'dora@example.com', password: 'password123' },
  },
  { method: 'PUT', path: '/api/v4/users/3', token: 'root-token', body: { bio: 'changed' } },
  { path: '/__fauxlab/clock', method: 'POST', body: { advance: '2h' } },
  {
    method: 'POST',
    path: '/api/v4/users',
    token: 'root-token',
    body: { username: 'eve', name: 'Eve', email: 'eve@example.com', password: 'password123' },
  },
  { method: 'POST', path: '/api/v4/users/4/block', token: 'root-token' },
  { path: '/api/v4/users?blocked=true', token: 'root-token' },
  { path: '/api/v4/users/99999', token: 'root-token' },
  { path: '/api/v4/nothing' },
  { method: 'POST', path: '/api/v4/users', token: 'alice-token', body: { username: 'x' } },
  { path: '/api/v4/projects?per_page=5', token: 'alice-token' },
  { path: '/api/v4/projects/acme%2Fapp', token: 'alice-token' },
  { path: '/api/v4/groups?per_page=3', token: 'root-token' },
  { path: '/__fauxlab/faults', method: 'POST', body: { status: 503, probability: 0.5 } },
  ...Array.from({ length: 12 }, (_, i) => ({ path: `/api/v4/users/${i + 1}`, token: 'root-token' })),
  { path: '/__fauxlab/faults', method: 'DELETE' },
  { path: '/api/v4/users?per_page=100', token: 'root-token' },
  { path: '/__fauxlab/scenario' },
];

async function run(fx: Fauxlab): Promise<string[]> {
  const out: string[] = [];
  for (const s of steps) {
    const headers: Record<string, string> = {};
    if (s.token) headers['PRIVATE-TOKEN'] = s.token;
    if (s.sudo) headers.Sudo = s.sudo;
    if (s.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fx.fetch(
      new Request(`http://gitlab.test${s.path}`, {
        method: s.method ?? 'GET',
        headers,
        body: s.body === undefined ? undefined : JSON.stringify(s.body),
      }),
    );
    out.push(
      `${s.method ?? 'GET'} ${s.path}\n${res.status}\n${[...res.headers].join('\n')}\n\n${await res.text()}`,
    );
  }
  return out;
}

describe('determinism', () => {
  it('the same scenario and seed give byte-identical responses, every one, run after run', async () => {
    const a = await run(createFauxlab({ scenario }));
    const b = await run(createFauxlab({ scenario }));
    expect(b).toHaveLength(steps.length);
    for (let i = 0; i < a.length; i++) expect(b[i], steps[i]!.path).toBe(a[i]);
    // The session did real work: writes, reads, errors and injected faults.
    const statuses = a.map((r) => Number(r.split('\n')[1]));
    for (const s of [200, 201, 404, 503]) expect(statuses).toContain(s);
  });

  it('reset() gives the same run again, journal ids and fault draws included', async () => {
    const fx = createFauxlab({ scenario });
    const first = await run(fx);
    const journal = fx.requests().map(({ durationMs: _d, ...e }) => e);
    fx.reset();
    expect(await run(fx)).toEqual(first);
    expect(fx.requests().map(({ durationMs: _d, ...e }) => e)).toEqual(journal);
  });

  it('another seed gives another generated world', async () => {
    const a = await run(createFauxlab({ scenario }));
    const b = await run(createFauxlab({ scenario, seed: 4321 }));
    expect(b[0]).not.toBe(a[0]);
  });
});
