/** Webhook records: defaults by kind, the model's validations, and the writes. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { RegexpError, wildcard } from '../../core/untrusted-regexp.js';
import type { Fx } from '../../core/context.js';
import { publicUrlProblem, SYSTEM_HOOKS, WEB_HOOKS, type LocalSetting } from '../settings/outbound.js';
import type { HookFlag, HookKind, HookRecord } from './store.js';

type S = Draft<PlatformState>;

/** Column defaults of `web_hooks`; `confidential_note_events` has none (null until set). */
const COLUMN_DEFAULTS: Readonly<Record<HookFlag, boolean | null>> = {
  push_events: true,
  tag_push_events: false,
  merge_requests_events: false,
  repository_update_events: false,
  issues_events: false,
  confidential_issues_events: false,
  note_events: false,
  confidential_note_events: null,
  pipeline_events: false,
  wiki_page_events: false,
  deployment_events: false,
  job_events: false,
  releases_events: false,
  member_events: false,
  subgroup_events: false,
};

/** `SystemHook`'s `default_value_for`s. */
const SYSTEM_DEFAULTS: Partial<Record<HookFlag, boolean>> = {
  push_events: false,
  repository_update_events: true,
  merge_requests_events: false,
  issues_events: false,
};

export const defaultFlags = (kind: HookKind): Record<HookFlag, boolean | null> => ({
  ...COLUMN_DEFAULTS,
  ...(kind === 'system' ? SYSTEM_DEFAULTS : {}),
});

/** The flags each kind's API takes (the declared params of its POST and PUT). */
export const PROJECT_FLAGS = [
  'push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'note_events',
  'confidential_note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
] as const satisfies readonly HookFlag[];
/** 13.12's group hook API takes `subgroup_events` too; `member_events` is set in the UI (scenario). */
export const GROUP_FLAGS = [...PROJECT_FLAGS, 'subgroup_events'] as const satisfies readonly HookFlag[];
export const SYSTEM_FLAGS = [
  'push_events',
  'tag_push_events',
  'merge_requests_events',
  'repository_update_events',
] as const satisfies readonly HookFlag[];

export const ownerKey = (h: Pick<HookRecord, 'kind' | 'project_id' | 'group_id'>) =>
  h.kind === 'system' ? 'system' : h.kind === 'project' ? `p${h.project_id}` : `g${h.group_id}`;

export const hooksOf = (st: PlatformState, key: string): HookRecord[] =>
  mget(st.hooks.idx.byOwner, key).map((id) => tget(st.hooks.records, id)!);

export type HookInput = Partial<Omit<HookRecord, 'id' | 'kind' | 'created_at' | 'updated_at'>>;

/**
 * `validates :url, presence: true` and `public_url: true` (project and group hooks,
 * `allow_local_requests_from_web_hooks_and_services`) or `system_hook_url: true` (system hooks,
 * `allow_local_requests_from_system_hooks`), through the URL blocker.
 */
export async function urlProblems(fx: Fx, kind: HookKind, url: string): Promise<string[]> {
  if (url.trim() === '') return ["can't be blank"];
  const problem = await publicUrlProblem(fx, url.trim(), { local: hookSetting(kind) });
  return problem ? [problem] : [];
}

export const hookSetting = (kind: HookKind): LocalSetting => (kind === 'system' ? SYSTEM_HOOKS : WEB_HOOKS);

/** `Gitlab::GitRefValidator` on the filter with its wildcards made plain characters (`BranchFilterValidator`). */
function branchFilterValid(filter: string): boolean {
  if (filter === '') return true;
  if (filter.length > 4000) return false;
  const ref = filter.replace(/\*/g, 'x');
  return !(
    ref.startsWith('-') ||
    ref.startsWith('/') ||
    ref.endsWith('/') ||
    ref.endsWith('.') ||
    ref.endsWith('.lock') ||
    ref.includes('..') ||
    ref.includes('//') ||
    ref.includes('@{') ||
    ref === '@' ||
    // Control characters, space and the characters git forbids in ref names.
    [...ref].some((ch) => ch.charCodeAt(0) <= 32 || ch.charCodeAt(0) === 127) ||
    /[~^:?[\\]/.test(ref)
  );
}

/** The model's errors for a hook as it would be saved. */
export async function hookErrors(
  fx: Fx,
  kind: HookKind,
  h: HookInput & { url: string },
): Promise<Record<string, string[]>> {
  const errors: Record<string, string[]> = {};
  const url = await urlProblems(fx, kind, h.url);
  if (url.length) errors.url = url;
  if (h.token?.includes('\n')) errors.token = ['is invalid'];
  if (h.push_events_branch_filter !== undefined && h.push_events_branch_filter !== null)
    if (!branchFilterValid(h.push_events_branch_filter))
      errors.push_events_branch_filter = ['is not a valid branch name'];
  return errors;
}

/** `RefMatcher`: a filter with `*` is a wildcard pattern, otherwise the branch name itself; blank matches all. */
export function branchMatches(filter: string | null, branch: string): boolean {
  if (filter === null || filter === '') return true;
  if (!filter.includes('*')) return filter === branch;
  // On RE2: a filter of many `*`s cannot make the match backtrack.
  try {
    return wildcard(filter).testExact(branch);
  } catch (e) {
    if (e instanceof RegexpError) return false;
    throw e;
  }
}

export function createHook(
  st: S,
  kind: HookKind,
  owner: { project_id?: number; group_id?: number },
  input: HookInput & { url: string },
  now: string,
): number {
  const id = nextId(st, 'hooks');
  const rec: HookRecord = {
    id,
    kind,
    project_id: owner.project_id ?? null,
    group_id: owner.group_id ?? null,
    url: input.url,
    token: null,
    push_events_branch_filter: null,
    enable_ssl_verification: true,
    ...defaultFlags(kind),
    created_at: now,
    updated_at: now,
  };
  Object.assign(rec, definedOnly(input));
  tset(st.hooks.records, id, rec);
  madd(st.hooks.idx.byOwner, ownerKey(rec), id);
  st.hooks.count++;
  return id;
}

const definedOnly = (o: HookInput) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as HookInput;

export function updateHook(st: S, id: number, input: HookInput, now: string): void {
  const rec = tget(st.hooks.records, id)!;
  Object.assign(rec, definedOnly(input));
  rec.updated_at = now;
}

export function deleteHook(st: S, id: number): void {
  const rec = tget(st.hooks.records, id);
  if (!rec) return;
  mremove(st.hooks.idx.byOwner, ownerKey(rec), id);
  tdelete(st.hooks.records, id);
  st.hooks.count--;
}

function deleteOwnerHooks(st: S, key: string): void {
  for (const id of mget(st.hooks.idx.byOwner, key)) {
    tdelete(st.hooks.records, id);
    st.hooks.count--;
  }
  idelete(st.hooks.idx.byOwner, key);
}

export const deleteProjectHooks = (st: S, projectId: number) => deleteOwnerHooks(st, `p${projectId}`);
export const deleteGroupHooks = (st: S, groupId: number) => deleteOwnerHooks(st, `g${groupId}`);
