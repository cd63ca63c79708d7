/**
 * Building a world from a validated scenario: the core's users, groups and projects, then every area's
 * builders in the area list's order. Apart from the loader, so that what needs a built world (the
 * strict schema's record fields, the exporter's check) does not import the loader.
 */
import type { Draft } from 'immer';
import { emptyFeature } from '../core/features.js';
import { dict } from '../core/own.js';
import type { PlatformState, Tier } from '../core/state.js';
import { freezeNew, iget, tget, tvalues } from '../core/table.js';
import type { AreaScenario, ScenarioBuild } from '../core/area.js';
import { AREAS, emptyWorld } from '../resources/index.js';
import { inSpan, type Minor } from '../core/versions.js';
import { BANNED_STATE } from '../resources/users/versions.js';
import {
  addGroupLink,
  addShare,
  addStar,
  createGroup,
  createProject,
  setMember,
} from '../resources/projects/model.js';
import { addToken, createUser } from '../resources/users/model.js';
import { generate } from './generate.js';
import { settingIn } from '../resources/settings/catalog.js';
import type { Scenario } from './schema.js';

/** The areas' parts of the scenario format, in the area list's order. */
export const SCENARIO_PARTS: readonly AreaScenario[] = AREAS.flatMap((a) => (a.scenario ? [a.scenario] : []));

type Part = 'userFields' | 'groupFields' | 'projectFields';

/** The field names the areas add to each kind of entry: the areas build from them, not the record. */
const AREA_KEYS: Record<Part, ReadonlySet<string>> = {
  userFields: new Set(SCENARIO_PARTS.flatMap((a) => Object.keys(a.userFields ?? {}))),
  groupFields: new Set(SCENARIO_PARTS.flatMap((a) => Object.keys(a.groupFields ?? {}))),
  projectFields: new Set(SCENARIO_PARTS.flatMap((a) => Object.keys(a.projectFields ?? {}))),
};

/** An entry's own fields (what becomes the record), without those the areas read. */
function withoutAreaFields<T extends object>(entry: T, part: Part): T {
  const keys = AREA_KEYS[part];
  return Object.fromEntries(Object.entries(entry).filter(([k]) => !keys.has(k))) as T;
}

export interface BuildOptions {
  /** Seed of the generated records; overrides the scenario's. */
  seed?: number;
  tier?: Tier;
  /** The GitLab minor release; overrides the scenario's. */
  version?: Minor;
  now: Date;
}

/** Builds a frozen initial state from a validated scenario. */
export function buildWorld(s: Scenario, opts: BuildOptions): PlatformState {
  // Built by plain mutation, then frozen once: much cheaper than drafting a large world.
  const st = emptyWorld(opts.tier ?? s.tier, opts.version ?? s.version) as Draft<PlatformState>;
  const now = opts.now.toISOString();
  // A setting the release lacks (settings/versions.ts) is ignored on load: the same file loads at any.
  st.settings = dict();
  for (const [k, v] of Object.entries(s.settings)) if (settingIn(k, st.version)) st.settings[k] = v as never;

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
  const uid = (name: string) => userIds.get(name.toLowerCase())!;
  const build: ScenarioBuild = { now, uid };
  for (const a of SCENARIO_PARTS) a.buildFirst?.(st, s, build);

  for (const u of s.users) {
    const { tokens, password_digest: passwordDigest, ...rest } = u;
    const fields = withoutAreaFields(rest, 'userFields');
    // A release without the banned state has the user blocked, the state of the same group it has.
    if (fields.state === 'banned' && !inSpan(st.version, BANNED_STATE)) fields.state = 'blocked';
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
    // An exported scenario carries the digest the state keeps instead of the password.
    if (passwordDigest) tget(st.users, id)!.password_digest = passwordDigest;
    for (const a of SCENARIO_PARTS) a.buildUser?.(st, id, u, build);
    for (const t of tokens)
      addToken(
        st,
        {
          user_id: id,
          token: t.token,
          digest: t.token_digest,
          name: t.name,
          scopes: t.scopes,
          expires_at: t.expires_at,
          revoked: t.revoked,
          kind: t.impersonation ? 'impersonation' : 'personal',
        },
        now,
      );
  }

  for (const g of s.groups) {
    const { members, path, shared_with: _links, ...rest } = g;
    const fields = withoutAreaFields(rest, 'groupFields');
    const slash = path.lastIndexOf('/');
    const parentId = slash < 0 ? null : iget(st.idx.namespaces, path.slice(0, slash).toLowerCase())!;
    const id = createGroup(st, { ...fields, path: path.slice(slash + 1), parent_id: parentId }, now);
    // An exported group keeps its times (the record's fields, as the export writes them).
    const times = fields as { created_at?: unknown; updated_at?: unknown };
    const rec = tget(st.groups, id)!;
    if (typeof times.created_at === 'string') rec.created_at = rec.updated_at = times.created_at;
    if (typeof times.updated_at === 'string') rec.updated_at = times.updated_at;
    for (const m of members)
      setMember(st, 'group', id, uid(m.username), m.access_level, now, m.expires_at ?? null);
    for (const a of SCENARIO_PARTS) a.buildGroup?.(st, id, g, build);
  }
  const gid = (path: string) => iget(st.idx.namespaces, path.toLowerCase())!;
  for (const g of s.groups)
    for (const sh of g.shared_with)
      addGroupLink(st, gid(g.path), gid(sh.group), sh.group_access, now, sh.expires_at);

  for (const p of s.projects) {
    const { members, starred_by, shared_with, forked_from, path, creator, created_at, ...rest } = p;
    const fields = withoutAreaFields(rest, 'projectFields');
    const slash = path.lastIndexOf('/');
    const nsPath = path.slice(0, slash).toLowerCase();
    const nsId = iget(st.idx.namespaces, nsPath)!;
    const namespace =
      nsId < 0 ? ({ kind: 'user', userId: -nsId } as const) : ({ kind: 'group', id: nsId } as const);
    const creatorId = creator ? uid(creator) : nsId < 0 ? -nsId : firstOwner(st, nsId);
    const forkedFrom = forked_from ? iget(st.idx.projects, forked_from.toLowerCase()) : undefined;
    const at = created_at ? new Date(created_at).toISOString() : now;
    const id = createProject(
      st,
      {
        last_activity_at: at,
        updated_at: at,
        ...fields,
        path: path.slice(slash + 1),
        namespace,
        creator_id: creatorId,
        forked_from_project_id: forkedFrom ?? null,
      },
      at,
    );
    for (const m of members)
      setMember(st, 'project', id, uid(m.username), m.access_level, now, m.expires_at ?? null);
    for (const u of starred_by) addStar(st, id, uid(u), now);
    for (const sh of shared_with)
      addShare(st, id, iget(st.idx.namespaces, sh.group.toLowerCase())!, sh.group_access, now, sh.expires_at);
    for (const a of SCENARIO_PARTS) a.buildProject?.(st, id, p, build);
  }

  for (const a of SCENARIO_PARTS) a.build?.(st, s, build);

  if (s.generate) generate(st, s.generate, opts.seed ?? s.seed, opts.now);

  // A copy: the root was given its areas' keys one by one, which leaves V8 keeping it as a hash table
  // (every read of one of its tables a lookup by name); a copy is laid out as a fixed shape, as the root
  // of every write is.
  return freezeNew({ ...st } as PlatformState);
}

/** The creator of a group project when the scenario names none: its first owner, else the first admin. */
function firstOwner(st: PlatformState, groupId: number): number {
  for (const m of tvalues(st.members))
    if (m.source === 'group' && m.source_id === groupId && m.access_level === 50) return m.user_id;
  for (const u of tvalues(st.users)) if (u.admin) return u.id;
  return tget(st.users, 1)?.id ?? 0;
}
