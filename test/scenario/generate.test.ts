import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/app.js';
import { VISIBILITY_LEVEL } from '../../src/core/access.js';
import type { PlatformState } from '../../src/core/state.js';
import { tget, tvalues } from '../../src/core/table.js';
import { buildWorld, loadScenario, type ScenarioFile } from '../../src/scenario/index.js';
import { onGenerateProgress } from '../../src/scenario/progress.js';

const NOW = new Date('2021-03-01T09:00:00Z');
const build = (s: ScenarioFile, seed?: number) => buildWorld(loadScenario(s), { now: NOW, seed });
const root = { username: 'root', admin: true, tokens: [{ token: 'root-token', scopes: ['api' as const] }] };
const medium: ScenarioFile = { users: [root], generate: { users: 300, groups: 40, projects: 400 } };

/** Usernames and group/project paths as the platform accepts them. */
const PATH = /^(?:[a-zA-Z0-9_]|[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-])$/;

describe('generate', () => {
  it('creates the requested counts after the explicit records', () => {
    const st = build({
      users: [root, { username: 'alice' }],
      groups: [{ path: 'acme', members: [{ username: 'alice', access_level: 50 }] }],
      projects: [{ path: 'acme/site' }],
      generate: { users: 50, groups: 10, projects: 30 },
    });
    expect(st.users.size).toBe(52);
    expect(st.groups.size).toBe(11);
    expect(st.projects.size).toBe(31);
    // Explicit records keep the first ids.
    expect(tget(st.users, 1)!.username).toBe('root');
    expect(tget(st.projects, 1)!.path_with_namespace).toBe('acme/site');
  });

  it('the same seed gives a byte-identical state', () => {
    expect(JSON.stringify(build(medium))).toBe(JSON.stringify(build(medium)));
  });

  it('a different seed gives a different world', () => {
    const a = build({ ...medium, seed: 1 });
    const b = build({ ...medium, seed: 2 });
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(b));
    expect(tget(a.users, 2)!.username).not.toBe(tget(b.users, 2)!.username);
  });

  it('the seed option overrides the scenario seed', () => {
    expect(JSON.stringify(build({ ...medium, seed: 1 }, 7))).toBe(
      JSON.stringify(build({ ...medium, seed: 7 })),
    );
    expect(JSON.stringify(createFauxlab({ scenario: { ...medium, seed: 1 }, seed: 7, now: NOW }).state)).toBe(
      JSON.stringify(createFauxlab({ scenario: { ...medium, seed: 7 }, now: NOW }).state),
    );
  });

  it('users have realistic, unique usernames, names and e-mails', () => {
    const st = build({ generate: { users: 2000 } });
    const users = tvalues(st.users);
    const usernames = users.map((u) => u.username.toLowerCase());
    const emails = users.map((u) => u.email.toLowerCase());
    expect(new Set(usernames).size).toBe(2000);
    expect(new Set(emails).size).toBe(2000);
    for (const u of users) {
      expect(u.username).toMatch(PATH);
      expect(u.name).toMatch(/^\S+( \S+)+$/);
      expect(u.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
    }
    // Not `user1`, `user2`: names come from faker's lists.
    expect(usernames.filter((n) => /^user\d+$/.test(n))).toEqual([]);
    expect(new Set(users.map((u) => u.name.split(' ')[0])).size).toBeGreaterThan(200);
    // Some users are blocked or external, as on a real instance.
    expect(users.some((u) => u.state !== 'active')).toBe(true);
    expect(users.some((u) => u.external)).toBe(true);
  });

  it('a generated username that an explicit user holds gets a suffix', () => {
    const first = tget(build({ generate: { users: 1 } }).users, 1)!;
    const st = build({ users: [{ username: first.username, email: first.email }], generate: { users: 1 } });
    const generated = tget(st.users, 2)!;
    expect(generated.name).toBe(first.name);
    expect(generated.username).toBe(`${first.username}2`);
    expect(generated.email).not.toBe(first.email);
  });

  it('groups get realistic paths, some are subgroups, none more visible than its parent', () => {
    const st = build({ generate: { users: 50, groups: 300 } });
    const groups = tvalues(st.groups);
    expect(new Set(groups.map((g) => g.full_path.toLowerCase())).size).toBe(300);
    for (const g of groups) {
      expect(g.path).toMatch(PATH);
      expect(g.path).not.toMatch(/^group\d+$/);
      if (g.parent_id !== null) {
        const parent = tget(st.groups, g.parent_id)!;
        expect(g.full_path).toBe(`${parent.full_path}/${g.path}`);
        expect(VISIBILITY_LEVEL[g.visibility]).toBeLessThanOrEqual(VISIBILITY_LEVEL[parent.visibility]);
      }
    }
    const nested = groups.filter((g) => g.parent_id !== null).length;
    expect(nested).toBeGreaterThan(30);
    expect(nested).toBeLessThan(200);
    // Each group has an owner.
    const owned = new Set(
      tvalues(st.members)
        .filter((m) => m.source === 'group' && m.access_level === 50)
        .map((m) => m.source_id),
    );
    expect(owned.size).toBe(300);
  });

  it('projects are spread over groups and users, with mixed visibility and members', () => {
    const st = build(medium);
    const projects = tvalues(st.projects);
    const kinds = new Set(projects.map((p) => p.namespace_kind));
    expect(kinds).toEqual(new Set(['group', 'user']));
    expect(new Set(projects.map((p) => p.visibility))).toEqual(new Set(['private', 'internal', 'public']));
    expect(new Set(projects.map((p) => p.path_with_namespace.toLowerCase())).size).toBe(400);
    for (const p of projects) {
      expect(p.path).toMatch(PATH);
      expect(tget(st.users, p.creator_id)).toBeDefined();
      if (p.namespace_kind === 'group') {
        const g = tget(st.groups, p.namespace_id)!;
        expect(p.path_with_namespace).toBe(`${g.full_path}/${p.path}`);
        expect(VISIBILITY_LEVEL[p.visibility]).toBeLessThanOrEqual(VISIBILITY_LEVEL[g.visibility]);
      } else {
        expect(p.path_with_namespace).toBe(`${tget(st.users, p.owner_id!)!.username}/${p.path}`);
      }
    }
    const members = tvalues(st.members).filter((m) => m.source === 'project');
    expect(members.length).toBeGreaterThan(100);
    expect(new Set(members.map((m) => m.access_level)).size).toBeGreaterThan(2);
  });

  it('creation times lie before the clock start and rise with the id', () => {
    const st = build(medium);
    const times = tvalues(st.projects).map((p) => p.created_at);
    expect(times.every((t) => t < NOW.toISOString())).toBe(true);
    expect([...times].sort()).toEqual(times);
  });

  it('creation times are instants as Date#toISOString writes them, many to a day', () => {
    const st = build({ users: [root], generate: { users: 2000, groups: 20, projects: 4000 } });
    const times = [...tvalues(st.users), ...tvalues(st.groups), ...tvalues(st.projects)].map(
      (r) => r.created_at,
    );
    expect(times.every((t) => new Date(t).toISOString() === t)).toBe(true);
    expect(new Set(times.map((t) => t.slice(0, 10))).size).toBeLessThan(times.length / 3);
  });

  it('the built world is frozen, deeply', () => {
    const st: PlatformState = build(medium);
    expect(Object.isFrozen(st)).toBe(true);
    expect(Object.isFrozen(st.users.buckets)).toBe(true);
    expect(Object.isFrozen(tget(st.users, 5))).toBe(true);
    expect(Object.isFrozen(tget(st.users, 5)!.identities)).toBe(true);
    expect(Object.isFrozen(tget(st.projects, 5))).toBe(true);
  });

  it('generated users are served by the API', async () => {
    const fx = createFauxlab({ scenario: medium, now: NOW });
    const user = tget(fx.state.users, 42)!;
    const res = await fx.app.request(`/api/v4/users/${user.id}`, {
      headers: { 'PRIVATE-TOKEN': 'root-token' },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { username: string }).username).toBe(user.username);
  });

  it('reset returns to the same generated world', async () => {
    const fx = createFauxlab({ scenario: medium, now: NOW });
    const before = JSON.stringify(fx.state);
    fx.reset();
    expect(JSON.stringify(fx.state)).toBe(before);
  });

  // How long these take is measured by `npm run bench` (target: under 2 s each).
  it('100,000 users build', () => {
    const st = buildWorld(loadScenario({ generate: { users: 100_000 } }), { now: NOW });
    expect(st.users.size).toBe(100_000);
  }, 60_000);

  it('100,000 projects build', () => {
    const s = loadScenario({ generate: { users: 1000, groups: 200, projects: 100_000 } });
    const st = buildWorld(s, { now: NOW });
    expect(st.projects.size).toBe(100_000);
  }, 60_000);
});

describe('generate: progress', () => {
  it('generate: reports progress every 1,024 records and at the end of each kind', () => {
    const seen: string[] = [];
    onGenerateProgress((what, done, total) => seen.push(`${what} ${done}/${total}`));
    try {
      buildWorld(loadScenario({ generate: { users: 2100, groups: 3, projects: 5, issues_per_project: 1 } }), {
        now: NOW,
      });
    } finally {
      onGenerateProgress(undefined);
    }
    expect(seen).toEqual([
      'users 1024/2100',
      'users 2048/2100',
      'users 2100/2100',
      'groups 3/3',
      'projects 5/5',
      'issues and merge requests (projects done) 5/5',
    ]);
  });
});
