/** Scenario files' webhooks: `projects[].hooks`, `groups[].hooks` (paid tiers) and top-level `system_hooks`. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import { createHook, defaultFlags, GROUP_FLAGS, PROJECT_FLAGS, SYSTEM_FLAGS } from './model.js';
import type { HookFlag, HookKind } from './store.js';

function flagFields<const F extends HookFlag>(flags: readonly F[]) {
  return Object.fromEntries(flags.map((f) => [f, z.boolean().optional()])) as {
    [K in F]: z.ZodOptional<z.ZodBoolean>;
  };
}

const common = {
  url: z.string().describe('where the hook posts (not checked against the local-network settings here)'),
  token: z.string().optional().describe('sent as X-Gitlab-Token'),
  enable_ssl_verification: z.boolean().optional(),
  created_at: isoTime.optional(),
};

const projectHook = z.strictObject({
  ...common,
  ...flagFields(PROJECT_FLAGS),
  push_events_branch_filter: z.string().optional(),
  releases_events: z.boolean().optional().describe('Release Hooks (13.12 sets it in the UI only)'),
});
const groupHook = z.strictObject({ ...common, ...flagFields([...GROUP_FLAGS, 'member_events'] as const) });
const systemHook = z.strictObject({ ...common, ...flagFields(SYSTEM_FLAGS) });

type HookEntry = z.output<typeof projectHook>;

export const hookProjectFields = { hooks: z.array(projectHook).optional().describe('project webhooks') };
export const hookGroupFields = {
  hooks: z.array(groupHook).optional().describe('group webhooks (paid tiers)'),
};
export const hookFields = { system_hooks: z.array(systemHook).optional().describe('system hooks') };

export interface HooksEntry {
  hooks?: HookEntry[];
}

const FLAGS_OF: Record<HookKind, readonly HookFlag[]> = {
  project: [...PROJECT_FLAGS, 'releases_events'],
  group: [...GROUP_FLAGS, 'member_events'],
  system: SYSTEM_FLAGS,
};

export function buildHooks(
  st: Draft<PlatformState>,
  kind: HookKind,
  owner: { project_id?: number; group_id?: number },
  list: readonly HookEntry[] | undefined,
  b: ScenarioBuild,
): void {
  for (const h of list ?? []) {
    const { created_at, ...input } = h;
    const at = isoOf(created_at) ?? b.now;
    createHook(st, kind, owner, input, at);
  }
}

/** Each hook as its entry: the url, the token and the settings that differ from a new hook's. */
export function exportHooks(st: PlatformState, out: ScenarioOut): void {
  for (const h of tvalues(st.hooks.records)) {
    const e =
      h.kind === 'system'
        ? out.file
        : h.kind === 'project'
          ? out.project(h.project_id!)
          : out.group(h.group_id!);
    if (!e) continue;
    const entry: Record<string, unknown> = { url: h.url };
    if (h.token !== null) entry.token = h.token;
    const defaults = defaultFlags(h.kind);
    for (const f of FLAGS_OF[h.kind]) if (h[f] !== defaults[f]) entry[f] = h[f] === true;
    if (!h.enable_ssl_verification) entry.enable_ssl_verification = false;
    if (h.kind === 'project' && h.push_events_branch_filter !== null)
      entry.push_events_branch_filter = h.push_events_branch_filter;
    entry.created_at = h.created_at;
    ((e[h.kind === 'system' ? 'system_hooks' : 'hooks'] ??= []) as unknown[]).push(entry);
  }
}
