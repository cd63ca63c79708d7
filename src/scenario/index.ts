/**
 * Scenario files: loading (JSON or YAML), validation with errors that name the file and field path,
 * and building the initial state of an instance.
 */
import { readFileSync } from 'node:fs';
import type { Draft } from 'immer';
import { createRequire } from 'node:module';
import type { z } from 'zod';
import { emptyFeature } from '../core/features.js';
import { emptyState, type PlatformState, type Tier } from '../core/state.js';
import { iget, tget, tvalues } from '../core/table.js';
import { createGroup, createProject, setMember } from '../resources/projects/model.js';
import { addToken, createUser } from '../resources/users/model.js';
import { generate } from './generate.js';
import { scenarioSchema, type Scenario, type ScenarioFile } from './schema.js';

export { preloadGenerator } from './generate.js';

export type { Scenario, ScenarioFile };
/** A scenario object, or the path of a `.json`, `.yaml` or `.yml` file. */
export type ScenarioInput = ScenarioFile | string;

/** A scenario that does not validate; the message names the file and each field path. */
export class ScenarioError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: invalid scenario\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ScenarioError';
  }
}

/** `users[2].tokens[0].scopes` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path)
    out += typeof seg === 'number' ? `[${seg}]` : out === '' ? String(seg) : `.${String(seg)}`;
  return out || '(root)';
}

function issuesOf(error: z.ZodError): string[] {
  return error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
}

/** The YAML parser, loaded on the first YAML file: a tenth of start-up for worlds given otherwise. */
const yaml = () => createRequire(import.meta.url)('yaml') as typeof import('yaml');

export function readScenarioFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new ScenarioError(file, [
      err.code === 'ENOENT' ? 'no such file' : `cannot read file: ${err.message}`,
    ]);
  }
  try {
    return /\.ya?ml$/i.test(file) ? yaml().parse(text) : JSON.parse(text);
  } catch (e) {
    throw new ScenarioError(file, [
      `not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${(e as Error).message}`,
    ]);
  }
}

/** Reads (if a path) and validates a scenario, including its cross-references. */
export function loadScenario(input: ScenarioInput): Scenario {
  const file = typeof input === 'string' ? input : '(scenario)';
  const raw = typeof input === 'string' ? readScenarioFile(input) : input;
  const result = scenarioSchema.safeParse(raw ?? {});
  if (!result.success) throw new ScenarioError(file, issuesOf(result.error));
  const problems = crossReferenceProblems(result.data);
  if (problems.length) throw new ScenarioError(file, problems);
  return result.data;
}

function crossReferenceProblems(s: Scenario): string[] {
  const problems: string[] = [];
  const users = new Set<string>();
  s.users.forEach((u, i) => {
    const k = u.username.toLowerCase();
    if (users.has(k)) problems.push(`users[${i}].username: "${u.username}" is used twice`);
    users.add(k);
  });
  const emails = new Set<string>();
  s.users.forEach((u, i) => {
    const e = (u.email ?? `${u.username}@example.com`).toLowerCase();
    if (emails.has(e)) problems.push(`users[${i}].email: "${e}" is used twice`);
    emails.add(e);
  });
  const tokens = new Set<string>();
  s.users.forEach((u, i) =>
    u.tokens.forEach((t, j) => {
      if (tokens.has(t.token)) problems.push(`users[${i}].tokens[${j}].token: the same token is given twice`);
      tokens.add(t.token);
    }),
  );
  const features = new Set<string>();
  s.features.forEach((f, i) => {
    if (features.has(f.name)) problems.push(`features[${i}].name: "${f.name}" is listed twice`);
    features.add(f.name);
  });
  const memberProblems = (at: string, members: readonly { username: string }[]) => {
    const seen = new Set<string>();
    members.forEach((m, j) => {
      const k = m.username.toLowerCase();
      if (!users.has(k)) problems.push(`${at}.members[${j}].username: no user "${m.username}"`);
      else if (seen.has(k)) problems.push(`${at}.members[${j}].username: "${m.username}" is listed twice`);
      seen.add(k);
    });
  };
  const groups = new Set<string>();
  s.groups.forEach((g, i) => {
    const k = g.path.toLowerCase();
    const parent = k.includes('/') ? k.slice(0, k.lastIndexOf('/')) : null;
    if (groups.has(k) || users.has(k)) problems.push(`groups[${i}].path: "${g.path}" is already taken`);
    if (parent && !groups.has(parent))
      problems.push(`groups[${i}].path: parent group "${parent}" must be listed before "${g.path}"`);
    groups.add(k);
    memberProblems(`groups[${i}]`, g.members);
  });
  const projects = new Set<string>();
  s.projects.forEach((p, i) => {
    const k = p.path.toLowerCase();
    const ns = k.slice(0, k.lastIndexOf('/'));
    if (!groups.has(ns) && !users.has(ns)) problems.push(`projects[${i}].path: no group or user "${ns}"`);
    if (projects.has(k)) problems.push(`projects[${i}].path: "${p.path}" is used twice`);
    projects.add(k);
    if (p.creator && !users.has(p.creator.toLowerCase()))
      problems.push(`projects[${i}].creator: no user "${p.creator}"`);
    memberProblems(`projects[${i}]`, p.members);
    p.starred_by.forEach((u, j) => {
      if (!users.has(u.toLowerCase())) problems.push(`projects[${i}].starred_by[${j}]: no user "${u}"`);
    });
  });
  const gen = s.generate;
  if (gen && gen.projects > 0 && gen.users + s.users.length + gen.groups + s.groups.length === 0)
    problems.push('generate.projects: projects need an owner: give users or groups (or generate.users)');
  return problems;
}

export interface BuildOptions {
  /** Seed of the generated records; overrides the scenario's. */
  seed?: number;
  tier?: Tier;
  now: Date;
}

/** Builds a frozen initial state from a validated scenario. */
export function buildWorld(s: Scenario, opts: BuildOptions): PlatformState {
  // Built by plain mutation, then frozen once: much cheaper than drafting a large world.
  const st = emptyState(opts.tier ?? s.tier) as Draft<PlatformState>;
  const now = opts.now.toISOString();
  st.settings = { ...s.settings };

  for (const f of s.features) {
    const rec = emptyFeature(f.name);
    if (f.state) rec.boolean = f.state === 'on';
    for (const g of f.gates ?? []) {
      if (g.key === 'boolean') rec.boolean = g.value === true;
      else if (g.key === 'percentage_of_time' && typeof g.value === 'number')
        rec.percentage_of_time = g.value;
      else if (g.key === 'percentage_of_actors' && typeof g.value === 'number')
        rec.percentage_of_actors = g.value;
      else if (g.key === 'actors' && Array.isArray(g.value)) rec.actors = g.value;
      else if (g.key === 'groups' && Array.isArray(g.value)) rec.groups = g.value;
    }
    st.features[f.name] = rec;
  }

  const userIds = new Map<string, number>();
  for (const u of s.users) {
    const { tokens, ...fields } = u;
    const id = createUser(
      st,
      {
        ...fields,
        name: u.name ?? u.username,
        email: u.email ?? `${u.username}@example.com`,
        identities: (u.identities ?? []).map((i) => ({ ...i, saml_provider_id: i.saml_provider_id ?? null })),
      },
      u.created_at ?? now,
    );
    userIds.set(u.username.toLowerCase(), id);
    for (const t of tokens)
      addToken(
        st,
        {
          user_id: id,
          token: t.token,
          name: t.name,
          scopes: t.scopes,
          expires_at: t.expires_at,
          revoked: t.revoked,
          kind: t.impersonation ? 'impersonation' : 'personal',
        },
        now,
      );
  }
  const uid = (name: string) => userIds.get(name.toLowerCase())!;

  for (const g of s.groups) {
    const { members, path, ...fields } = g;
    const slash = path.lastIndexOf('/');
    const parentId = slash < 0 ? null : iget(st.idx.namespaces, path.slice(0, slash).toLowerCase())!;
    const id = createGroup(st, { ...fields, path: path.slice(slash + 1), parent_id: parentId }, now);
    for (const m of members)
      setMember(st, 'group', id, uid(m.username), m.access_level, now, m.expires_at ?? null);
  }

  for (const p of s.projects) {
    const { members, starred_by: _starred, path, creator, ...fields } = p;
    const slash = path.lastIndexOf('/');
    const nsPath = path.slice(0, slash).toLowerCase();
    const nsId = iget(st.idx.namespaces, nsPath)!;
    const namespace =
      nsId < 0 ? ({ kind: 'user', userId: -nsId } as const) : ({ kind: 'group', id: nsId } as const);
    const creatorId = creator ? uid(creator) : nsId < 0 ? -nsId : firstOwner(st, nsId);
    const id = createProject(
      st,
      { ...fields, path: path.slice(slash + 1), namespace, creator_id: creatorId },
      now,
    );
    for (const m of members)
      setMember(st, 'project', id, uid(m.username), m.access_level, now, m.expires_at ?? null);
  }

  if (s.generate) generate(st, s.generate, opts.seed ?? s.seed, opts.now);

  return deepFreeze(st as PlatformState);
}

/**
 * immer's deep `freeze` without its per-key callbacks: about twice as fast on a generated world of 100k
 * records, with the same result (immer then sees a frozen root and skips it).
 */
function deepFreeze<T>(value: T): T {
  Object.freeze(value);
  const values = Object.values(value as object) as unknown[];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) deepFreeze(v);
  }
  return value;
}

/** The creator of a group project when the scenario names none: its first owner, else the first admin. */
function firstOwner(st: PlatformState, groupId: number): number {
  for (const m of tvalues(st.members))
    if (m.source === 'group' && m.source_id === groupId && m.access_level === 50) return m.user_id;
  for (const u of tvalues(st.users)) if (u.admin) return u.id;
  return tget(st.users, 1)?.id ?? 0;
}
