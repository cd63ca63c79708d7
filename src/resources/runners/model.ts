/**
 * Runner records: registration (`Ci::RegisterRunnerService`), updates (`Ci::UpdateRunnerService`),
 * assignment to projects (`Ci::Runner#assign_to`), deletion, and the platform's scopes over them
 * (`ci_owned_runners`, `owned_or_instance_wide`, `belonging_to_group`, the status scopes).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Draft } from 'immer';
import { ACCESS, memberAccess, projectAccess } from '../../core/access.js';
import {
  nextId,
  type GroupRecord,
  type PlatformState,
  type ProjectRecord,
  type UserRecord,
} from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset, tvalues } from '../../core/table.js';
import type { RunnerAccessLevel, RunnerRecord, RunnerType } from './store.js';

type S = Draft<PlatformState>;

/** `Ci::Runner::ONLINE_CONTACT_TIMEOUT`: a runner that made contact in the last two hours is online. */
export const ONLINE_CONTACT_TIMEOUT_MS = 2 * 3_600_000;

/** `Ci::Runner::AVAILABLE_STATUSES` (13.12). */
export const AVAILABLE_STATUSES = ['active', 'paused', 'online', 'offline', 'not_connected'] as const;
/** `Ci::Runner::AVAILABLE_TYPES_LEGACY`, the deprecated `scope` values of `GET /runners/all`. */
export const AVAILABLE_TYPES_LEGACY = ['specific', 'shared'] as const;

const FRIENDLY = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';

/**
 * `Devise.friendly_token` in shape (20 URL-safe characters, what `TokenAuthenticatable` gives a runner),
 * derived from the record id and the instant so that a scenario replays byte for byte.
 */
export function runnerToken(id: number, now: string): string {
  const h = createHash('sha256').update(`fauxlab:runner:${id}:${now}`).digest();
  let out = '';
  for (let i = 0; i < 20; i++) out += FRIENDLY[h[i]! & 63];
  return out;
}

export interface NewRunner {
  runner_type: RunnerType;
  project_ids?: number[];
  group_id?: number | null;
  token?: string;
  description?: string | null;
  active?: boolean;
  run_untagged?: boolean;
  locked?: boolean;
  access_level?: RunnerAccessLevel;
  maximum_timeout?: number | null;
  tag_list?: string[];
  name?: string | null;
  version?: string | null;
  revision?: string | null;
  platform?: string | null;
  architecture?: string | null;
  ip_address?: string | null;
  contacted_at?: string | null;
  created_at: string;
  updated_at?: string;
}

/**
 * `ActsAsTaggableOn::TagList`: each tag stripped, blanks dropped, the first of equal tags kept (the
 * platform's tags compare without case).
 */
export function cleanTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of tags) {
    const t = raw.trim();
    if (t === '' || seen.has(t.toLowerCase())) continue;
    seen.add(t.toLowerCase());
    out.push(t);
  }
  return out;
}

/**
 * `Ci::Runner`'s validations on the attributes a client sets, in the order the model declares them:
 * `tag_constraints` (under `tags_list`, as the platform spells it), then `maximum_timeout`.
 */
export function runnerErrors(r: {
  tag_list: readonly string[];
  run_untagged: boolean;
  maximum_timeout: number | null;
}): Record<string, string[]> | undefined {
  const errors: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  if (r.tag_list.length === 0 && !r.run_untagged)
    errors.tags_list = ['can not be empty when runner is not allowed to pick untagged jobs'];
  if (r.maximum_timeout !== null && r.maximum_timeout < 600)
    errors.maximum_timeout = ['needs to be at least 10 minutes'];
  return Object.keys(errors).length > 0 ? errors : undefined;
}

export function createRunner(st: S, n: NewRunner): number {
  const id = nextId(st, 'runners');
  const token = n.token ?? runnerToken(id, n.created_at);
  const rec: RunnerRecord = {
    id,
    runner_type: n.runner_type,
    token,
    description: n.description ?? null,
    active: n.active ?? true,
    run_untagged: n.run_untagged ?? true,
    locked: n.locked ?? false,
    access_level: n.access_level ?? 'not_protected',
    maximum_timeout: n.maximum_timeout ?? null,
    tag_list: cleanTags(n.tag_list ?? []),
    name: n.name ?? null,
    version: n.version ?? null,
    revision: n.revision ?? null,
    platform: n.platform ?? null,
    architecture: n.architecture ?? null,
    ip_address: n.ip_address ?? null,
    contacted_at: n.contacted_at ?? null,
    created_at: n.created_at,
    updated_at: n.updated_at ?? n.created_at,
    project_ids: n.runner_type === 'project_type' ? [...(n.project_ids ?? [])] : [],
    group_id: n.runner_type === 'group_type' ? (n.group_id ?? null) : null,
  };
  tset(st.runners.records, id, rec);
  iset(st.runners.idx.tokens, token, id);
  for (const pid of rec.project_ids) madd(st.runners.idx.byProject, String(pid), id);
  if (rec.group_id !== null) madd(st.runners.idx.byGroup, String(rec.group_id), id);
  return id;
}

export function deleteRunner(st: S, id: number): void {
  const r = tget(st.runners.records, id);
  if (!r) return;
  idelete(st.runners.idx.tokens, r.token);
  for (const pid of r.project_ids) mremove(st.runners.idx.byProject, String(pid), id);
  if (r.group_id !== null) mremove(st.runners.idx.byGroup, String(r.group_id), id);
  tdelete(st.runners.records, id);
}

/**
 * `Ci::Runner#assign_to`: an instance runner becomes the project's (`runner_type = :project_type`); a
 * project runner gets one more project.
 */
export function assignRunner(st: S, id: number, projectId: number, now: string): void {
  const r = tget(st.runners.records, id)!;
  if (r.runner_type === 'instance_type') r.runner_type = 'project_type';
  r.project_ids.push(projectId);
  r.updated_at = now;
  madd(st.runners.idx.byProject, String(projectId), id);
}

/** `runner_project.destroy`: the project no longer uses the runner. */
export function unassignRunner(st: S, id: number, projectId: number): void {
  const r = tget(st.runners.records, id)!;
  r.project_ids = r.project_ids.filter((p) => p !== projectId);
  mremove(st.runners.idx.byProject, String(projectId), id);
}

/** The runner with this authentication token (`Ci::Runner.find_by_token`). */
export function runnerByToken(st: PlatformState, token: string): RunnerRecord | undefined {
  const id = iget(st.runners.idx.tokens, token);
  return id === undefined ? undefined : tget(st.runners.records, id);
}

/** `ActiveSupport::SecurityUtils.secure_compare`: the same answer in the same time for any wrong token. */
export function secureCompare(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a === b;
}

/**
 * `runners_token` -> project or group id, per table: built on the first registration after the table
 * changed, so that a flood of registrations with wrong tokens costs one lookup each.
 */
const projectTokens = new WeakMap<object, Map<string, number>>();
const groupTokens = new WeakMap<object, Map<string, number>>();

/** `Project.find_by_runners_token`. */
export function projectByRunnersToken(st: PlatformState, token: string): ProjectRecord | undefined {
  let m = projectTokens.get(st.projects);
  if (!m) {
    m = new Map();
    for (const p of tvalues(st.projects))
      m.set((p as ProjectRecord & { runners_token: string }).runners_token, p.id);
    projectTokens.set(st.projects, m);
  }
  const id = m.get(token);
  return id === undefined ? undefined : tget(st.projects, id);
}

/** `Group.find_by_runners_token`. */
export function groupByRunnersToken(st: PlatformState, token: string): GroupRecord | undefined {
  let m = groupTokens.get(st.groups);
  if (!m) {
    m = new Map();
    for (const g of tvalues(st.groups))
      m.set((g as GroupRecord & { runners_token: string }).runners_token, g.id);
    groupTokens.set(st.groups, m);
  }
  const id = m.get(token);
  return id === undefined ? undefined : tget(st.groups, id);
}

/** `Ci::Runner#online?`: contact within `ONLINE_CONTACT_TIMEOUT`; null (Ruby's nil) before any contact. */
export function runnerOnline(r: RunnerRecord, now: number): boolean | null {
  if (r.contacted_at === null) return null;
  return Date.parse(r.contacted_at) > now - ONLINE_CONTACT_TIMEOUT_MS;
}

/** `Ci::Runner#status`. */
export function runnerStatus(
  r: RunnerRecord,
  now: number,
): 'not_connected' | 'online' | 'offline' | 'paused' {
  if (r.contacted_at === null) return 'not_connected';
  if (!r.active) return 'paused';
  return runnerOnline(r, now) ? 'online' : 'offline';
}

/**
 * The platform's runner scopes by name (`filter_runners`: `public_send(scope)`, the `deprecated_`
 * forms for `specific` and `shared`).
 */
export function inScope(r: RunnerRecord, scope: string, now: number): boolean {
  switch (scope) {
    case 'active':
      return r.active;
    case 'paused':
      return !r.active;
    case 'online':
      return runnerOnline(r, now) === true;
    case 'offline':
      return runnerOnline(r, now) !== true;
    case 'not_connected':
      return r.contacted_at === null;
    case 'shared':
      return r.runner_type === 'instance_type';
    case 'specific':
      return r.runner_type !== 'instance_type';
    default:
      return r.runner_type === scope;
  }
}

/** `tagged_with(tag_list)`: runners with every one of the tags (compared without case). */
export function hasTags(r: RunnerRecord, tags: readonly string[]): boolean {
  const mine = new Set(r.tag_list.map((t) => t.toLowerCase()));
  return cleanTags(tags).every((t) => mine.has(t.toLowerCase()));
}

const byId = (st: PlatformState, ids: Iterable<number>): RunnerRecord[] =>
  [...new Set(ids)].sort((a, b) => a - b).flatMap((id) => tget(st.runners.records, id) ?? []);

/** The group and its ancestors, nearest first. */
function ancestry(st: PlatformState, groupId: number): GroupRecord[] {
  const out: GroupRecord[] = [];
  for (
    let g = tget(st.groups, groupId);
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  )
    out.push(g);
  return out;
}

/**
 * `Ci::Runner.owned_or_instance_wide(project)`: the project's runners, its groups' runners (the group and
 * its ancestors), and the instance's. Listed by id (the API's default order).
 */
export function projectRunners(st: PlatformState, project: ProjectRecord): RunnerRecord[] {
  const ids: number[] = [...mget(st.runners.idx.byProject, String(project.id))];
  if (project.namespace_kind === 'group')
    for (const g of ancestry(st, project.namespace_id))
      ids.push(...mget(st.runners.idx.byGroup, String(g.id)));
  for (const r of tvalues(st.runners.records)) if (r.runner_type === 'instance_type') ids.push(r.id);
  return byId(st, ids);
}

/** `Ci::Runner.belonging_to_group(group, include_ancestors: true)`. */
export function groupRunners(st: PlatformState, group: GroupRecord): RunnerRecord[] {
  return byId(
    st,
    ancestry(st, group.id).flatMap((g) => mget(st.runners.idx.byGroup, String(g.id))),
  );
}

/**
 * `User#ci_owned_runners`: the runners of the projects the user maintains (`authorized_projects(MAINTAINER)`)
 * and of the groups the user owns, with their subgroups (`owned_groups.self_and_descendant_ids`: an owner
 * membership of the group or an ancestor, shares aside).
 */
export function ownedRunners(st: PlatformState, user: UserRecord): RunnerRecord[] {
  return tvalues(st.runners.records).filter((r) => ownsRunner(st, user, r));
}

export function ownsRunner(st: PlatformState, user: UserRecord, r: RunnerRecord): boolean {
  if (r.runner_type === 'project_type')
    return r.project_ids.some((pid) => {
      const p = tget(st.projects, pid);
      return p !== undefined && projectAccess(st, user, p) >= ACCESS.MAINTAINER;
    });
  if (r.runner_type === 'group_type' && r.group_id !== null) {
    const g = tget(st.groups, r.group_id);
    return g !== undefined && memberAccess(st, user, g) >= ACCESS.OWNER;
  }
  return false;
}

/** Removes a deleted project from its runners (`runner_projects` go with the project). */
export function forgetProject(st: S, projectId: number): void {
  for (const id of mget(st.runners.idx.byProject, String(projectId))) unassignRunner(st, id, projectId);
}

/** A deleted group's runners stay, belonging to no group (`runner_namespaces` go with the namespace). */
export function forgetGroup(st: S, groupId: number): void {
  for (const id of mget(st.runners.idx.byGroup, String(groupId))) {
    tget(st.runners.records, id)!.group_id = null;
    mremove(st.runners.idx.byGroup, String(groupId), id);
  }
}
