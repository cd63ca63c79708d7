/**
 * The current state of an instance as a scenario file (`fauxlab scenario export`,
 * `GET /__fauxlab/scenario`): what a scenario can express, with fields left out where they hold what a
 * fresh import would give anyway, so that the file stays readable. Secrets are exported as the digests
 * the state keeps (`token_digest`, `password_digest`): the same tokens and passwords keep working.
 *
 * Records keep their ids where their area writes them (issuables, notes, awards, snippets,
 * integrations); the rest are numbered again in file order. Not kept: the creation times of tokens
 * and memberships (they take the file's `now`), records a scenario cannot describe (uploads,
 * OAuth and job tokens): docs/scenarios.md, "What a scenario does not carry".
 */
import {
  type FeatureRecord,
  type GroupRecord,
  type PlatformState,
  type ProjectRecord,
  type UserRecord,
} from '../core/state.js';
import type { ScenarioOut } from '../core/area.js';
import { DEFAULT_MINOR } from '../core/versions.js';
import { mget, tget, tvalues, type Table } from '../core/table.js';
import { AREAS } from '../resources/index.js';
import { buildWorld } from './build.js';
import { scenarioSchema, type ScenarioFile } from './schema.js';

const ACCESS_NAMES: Record<number, string> = {
  10: 'guest',
  20: 'reporter',
  30: 'developer',
  40: 'maintainer',
  50: 'owner',
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

type Out = Record<string, unknown>;

/** Fields that are ids, derived, or written by the first pass; never copied as extra fields. */
const USER_SKIP = new Set([
  'id',
  'namespace_id',
  'password_digest',
  'username',
  'name',
  'email',
  'state',
  'created_at',
]);
const GROUP_SKIP = new Set(['id', 'parent_id', 'name', 'path', 'full_path', 'description', 'visibility']);
const PROJECT_SKIP = new Set([
  'id',
  'name',
  'path',
  'namespace_kind',
  'namespace_id',
  'owner_id',
  'path_with_namespace',
  'description',
  'visibility',
  'archived',
  'default_branch',
  'creator_id',
  'created_at',
  'updated_at',
  'last_activity_at',
]);

/** Copies the fields of `record` that a fresh import (`rebuilt`) does not reproduce. */
function extras(record: object, rebuilt: object | undefined, skip: Set<string>, out: Out): void {
  const b = (rebuilt ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) {
    if (skip.has(k) || v === undefined) continue;
    if (!(k in b) || !same(v, b[k])) out[k] = v;
  }
}

function members(st: PlatformState, key: string): Out[] {
  return mget(st.idx.membersBySource, key)
    .map((id) => tget(st.members, id)!)
    .sort((a, b) => a.id - b.id)
    .flatMap((m) => {
      const u = tget(st.users, m.user_id);
      if (!u) return [];
      const out: Out = { username: u.username, access_level: ACCESS_NAMES[m.access_level] ?? m.access_level };
      if (m.expires_at !== null) out.expires_at = m.expires_at;
      return [out];
    });
}

function featureEntry(f: FeatureRecord): Out {
  const gates: Out[] = [];
  if (f.boolean !== null) gates.push({ key: 'boolean', value: f.boolean });
  if (f.percentage_of_time !== null) gates.push({ key: 'percentage_of_time', value: f.percentage_of_time });
  if (f.percentage_of_actors !== null)
    gates.push({ key: 'percentage_of_actors', value: f.percentage_of_actors });
  if (f.actors.length) gates.push({ key: 'actors', value: f.actors });
  if (f.groups.length) gates.push({ key: 'groups', value: f.groups });
  if (gates.length === 1 && gates[0]!.key === 'boolean')
    return { name: f.name, state: f.boolean ? 'on' : 'off' };
  return gates.length ? { name: f.name, gates } : { name: f.name };
}

export interface ExportOptions {
  /** The file's `now`: the instance clock when exporting. */
  now: string;
}

/**
 * The state as a scenario file object (serialise it as JSON or YAML). Two passes: the fields every
 * scenario names, then a fresh import of that, whose records are compared with the state's to add each
 * field the import would not reproduce.
 */
export function exportScenario(st: PlatformState, opts: ExportOptions): ScenarioFile {
  const now = opts.now;
  const out: Out = { now, tier: st.tier };
  // The seed's version is the default: a 13.12 world's file stays as it was.
  if (st.version !== DEFAULT_MINOR) out.version = st.version;
  if (Object.keys(st.settings).length) out.settings = st.settings;
  const features = Object.values(st.features).map(featureEntry);
  if (features.length) out.features = features;

  const users = tvalues(st.users);
  out.users = users.map((u: UserRecord) => {
    const e: Out = { username: u.username };
    if (u.name !== u.username) e.name = u.name;
    if (u.email !== `${u.username}@example.com`.toLowerCase()) e.email = u.email;
    if (u.state !== 'active') e.state = u.state === 'ldap_blocked' ? 'blocked' : u.state;
    if (u.created_at !== now) e.created_at = u.created_at;
    if (u.password_digest) e.password_digest = u.password_digest;
    const tokens = mget(st.idx.tokensByUser, String(u.id))
      .sort((a, b) => a - b)
      .map((id) => tget(st.tokens, id)!)
      .filter((t) => t.kind === 'personal' || t.kind === 'impersonation')
      .map((t) => {
        const te: Out = { token_digest: t.digest };
        if (t.name !== 'token') te.name = t.name;
        if (!same(t.scopes, ['api'])) te.scopes = t.scopes;
        if (t.expires_at !== null) te.expires_at = t.expires_at.slice(0, 10);
        if (t.revoked) te.revoked = true;
        if (t.kind === 'impersonation') te.impersonation = true;
        return te;
      });
    if (tokens.length) e.tokens = tokens;
    return e;
  });

  // Creation order, so that a load numbers them the same way; but parents before children, whatever
  // order transfers left the ids in.
  const groups: GroupRecord[] = [];
  const placed = new Set<number>();
  const place = (g: GroupRecord) => {
    if (placed.has(g.id)) return;
    placed.add(g.id);
    const parent = g.parent_id === null ? undefined : tget(st.groups, g.parent_id);
    if (parent) place(parent);
    groups.push(g);
  };
  for (const g of tvalues(st.groups)) place(g);
  out.groups = groups.map((g) => {
    const e: Out = { path: g.full_path };
    if (g.name !== g.path) e.name = g.name;
    if (g.visibility !== 'private') e.visibility = g.visibility;
    if (g.description !== '') e.description = g.description;
    const m = members(st, `group:${g.id}`);
    if (m.length) e.members = m;
    const links = mget(st.idx.groupLinksBy, `s${g.id}`)
      .sort((a, b) => a - b)
      .flatMap((id) => {
        const l = tget(st.groupLinks, id)!;
        const w = tget(st.groups, l.shared_with_group_id);
        return w ? [{ group: w.full_path, group_access: l.group_access, expires_at: l.expires_at }] : [];
      });
    if (links.length) e.shared_with = links;
    return e;
  });

  const projects = tvalues(st.projects);
  const sharesOf = new Map<number, Out[]>();
  for (const sh of tvalues(st.shares)) {
    const g = tget(st.groups, sh.group_id);
    if (!g) continue;
    const list = sharesOf.get(sh.project_id) ?? [];
    list.push({ group: g.full_path, group_access: sh.group_access, expires_at: sh.expires_at });
    sharesOf.set(sh.project_id, list);
  }
  out.projects = projects.map((p: ProjectRecord) => {
    const e: Out = { path: p.path_with_namespace };
    if (p.name !== p.path) e.name = p.name;
    if (p.visibility !== 'private') e.visibility = p.visibility;
    if (p.description !== '') e.description = p.description;
    if (p.archived) e.archived = true;
    if (p.default_branch !== 'master') e.default_branch = p.default_branch;
    // The initial commit of a never written repository is made from it.
    if (p.created_at !== now) e.created_at = p.created_at;
    const creator = tget(st.users, p.creator_id);
    if (creator && !(p.namespace_kind === 'user' && p.owner_id === creator.id)) e.creator = creator.username;
    const m = members(st, `project:${p.id}`);
    if (m.length) e.members = m;
    const starred = mget(st.idx.starsBy, String(p.id))
      .sort((a, b) => a - b)
      .flatMap((id) => {
        const u = tget(st.users, tget(st.stars, id)!.user_id);
        return u ? [u.username] : [];
      });
    if (starred.length) e.starred_by = starred;
    const shares = sharesOf.get(p.id);
    if (shares) e.shared_with = shares;
    return e;
  });

  const entries = <T extends { id: number }>(records: readonly T[], list: unknown) =>
    new Map(records.map((r, i) => [r.id, (list as Out[])[i]!]));
  const userEntries = entries(users, out.users);
  const groupEntries = entries(groups, out.groups);
  const projectEntries = entries(projects, out.projects);
  const target: ScenarioOut = {
    now,
    file: out,
    user: (id) => userEntries.get(id),
    group: (id) => groupEntries.get(id),
    project: (id) => projectEntries.get(id),
    username: (id) => (id === null ? undefined : tget(st.users, id)?.username),
  };
  for (const area of AREAS) area.scenario?.export?.(st, target);

  // Second pass: what a fresh import of the first pass gives, record by record.
  const rebuilt = buildWorld(scenarioSchema.parse(out), { now: new Date(now) });
  const byKey = <T>(table: Table<T>, key: (r: T) => string) =>
    new Map(tvalues(table).map((r) => [key(r), r]));
  const rUsers = byKey(rebuilt.users, (u) => u.username.toLowerCase());
  const rGroups = byKey(rebuilt.groups, (g) => g.full_path.toLowerCase());
  const rProjects = byKey(rebuilt.projects, (p) => p.path_with_namespace.toLowerCase());
  users.forEach((u, i) =>
    extras(u, rUsers.get(u.username.toLowerCase()), USER_SKIP, (out.users as Out[])[i]!),
  );
  groups.forEach((g, i) =>
    extras(g, rGroups.get(g.full_path.toLowerCase()), GROUP_SKIP, (out.groups as Out[])[i]!),
  );
  projects.forEach((p, i) =>
    extras(p, rProjects.get(p.path_with_namespace.toLowerCase()), PROJECT_SKIP, (out.projects as Out[])[i]!),
  );

  for (const k of ['users', 'groups', 'projects'] as const)
    if ((out[k] as unknown[]).length === 0) delete out[k];
  return out as ScenarioFile;
}
