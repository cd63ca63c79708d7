/**
 * Scenario files' feature flags of a project: `feature_flags` (new version flags with their strategies,
 * or legacy flags with their scopes), `feature_flags_user_lists` (by name; a gitlabUserList strategy
 * names its list) and `feature_flags_instance_id`, the Unleash client's instance id.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import { jsonParams } from '../../core/params.js';
import type { PlatformState } from '../../core/state.js';
import { iset, tget, tset } from '../../core/table.js';
import { ientries } from '../../core/table.js';
import {
  SCOPE_COLUMN_LIMIT,
  createFlag,
  createUserList,
  flagsOf,
  setUnleashToken,
  unleashToken,
  userListsOf,
} from './model.js';
import type { JsonValue } from './store.js';
import { flagErrors, userListErrors } from './validate.js';

const strategySchema = z.strictObject({
  name: z.string().describe('default, gradualRolloutUserId, userWithId, flexibleRollout or gitlabUserList'),
  parameters: z.record(z.string(), z.json()).default({}),
  scopes: z.array(z.string()).default([]).describe('environment scopes (`*` for all)'),
  user_list: z.string().optional().describe("a gitlabUserList strategy's list, by name"),
});

const legacyScopeSchema = z.strictObject({
  environment_scope: z.string(),
  active: z.boolean(),
  strategies: z.json(),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

const flagSchema = z.strictObject({
  name: z.string(),
  description: z.string().nullable().optional(),
  active: z.boolean().default(true),
  version: z.enum(['new_version_flag', 'legacy_flag']).default('new_version_flag'),
  strategies: z.array(strategySchema).optional(),
  scopes: z.array(legacyScopeSchema).optional().describe("a legacy flag's scopes"),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

const userListSchema = z.strictObject({
  name: z.string(),
  user_xids: z.string().describe('external user ids, comma-separated'),
  iid: z.number().int().positive().optional(),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

export const featureFlagsProjectFields = {
  feature_flags: z.array(flagSchema).optional().describe('feature flags (Operations::FeatureFlag)'),
  feature_flags_user_lists: z.array(userListSchema).optional().describe('feature flag user lists'),
  feature_flags_instance_id: z
    .string()
    .min(1)
    .optional()
    .describe("the Unleash client's instance id (the project's feature flags client token)"),
};

export interface FeatureFlagsProject {
  feature_flags?: z.output<typeof flagSchema>[];
  feature_flags_user_lists?: z.output<typeof userListSchema>[];
  feature_flags_instance_id?: string;
}

/** A scenario's JSON as prototype-free values, as the API would have stored them. */
const plain = (v: unknown): JsonValue => jsonParams(JSON.parse(JSON.stringify(v ?? null))) as JsonValue;

/** The models' validations, as the API would answer them. */
export function featureFlagsProblems(p: FeatureFlagsProject, at: string): string[] {
  const problems: string[] = [];
  const lists = p.feature_flags_user_lists ?? [];
  lists.forEach((l, i) => {
    const siblings = lists
      .slice(0, i)
      .map((o, j) => ({ ...o, id: j + 1, iid: j + 1, project_id: 0, created_at: '', updated_at: '' }));
    for (const m of userListErrors({ id: 0, name: l.name, user_xids: l.user_xids }, siblings).full())
      problems.push(`${at}.feature_flags_user_lists[${i}]: ${m}`);
  });
  const names = lists.map((l) => l.name);
  const seen: string[] = [];
  (p.feature_flags ?? []).forEach((f, i) => {
    const where = `${at}.feature_flags[${i}]`;
    (f.strategies ?? []).forEach((s, j) => {
      if (s.user_list !== undefined && !names.includes(s.user_list))
        problems.push(`${where}.strategies[${j}].user_list: no user list named ${s.user_list}`);
    });
    const scopes = [
      ...(f.strategies ?? []).flatMap((s) => s.scopes),
      ...(f.scopes ?? []).map((s) => s.environment_scope),
    ];
    if (scopes.some((x) => x.trim().length > SCOPE_COLUMN_LIMIT))
      problems.push(
        `${where}: an environment scope is longer than its column (${SCOPE_COLUMN_LIMIT} characters)`,
      );
    const e = flagErrors(
      {
        record: {
          id: 0,
          iid: 0,
          project_id: 0,
          name: f.name,
          description: f.description ?? null,
          active: f.active,
          version: f.version,
          created_at: '',
          updated_at: '',
        },
        strategies: (f.strategies ?? []).map((s, j) => ({
          id: j,
          name: s.name,
          parameters: plain(s.parameters) as { [k: string]: JsonValue },
          scopes: s.scopes.map((x, k) => ({ id: k, environment_scope: x.trim() })),
          user_list_id:
            s.user_list !== undefined && names.includes(s.user_list) ? names.indexOf(s.user_list) : null,
        })),
        scopes: (f.scopes ?? []).map((s, j) => ({
          id: j,
          active: s.active,
          environment_scope: s.environment_scope.trim(),
          strategies: plain(s.strategies),
          created_at: '',
          updated_at: '',
        })),
        creating: true,
      },
      seen.map((n, j) => ({ id: j + 1, name: n }) as never),
      (id) => (id < names.length ? ({ id, project_id: 0 } as never) : undefined),
    );
    for (const m of e.full()) problems.push(`${where}: ${m}`);
    seen.push(f.name);
  });
  return problems;
}

export function buildFeatureFlags(
  st: Draft<PlatformState>,
  projectId: number,
  p: FeatureFlagsProject,
  b: ScenarioBuild,
): void {
  if (p.feature_flags_instance_id !== undefined) setUnleashToken(st, projectId, p.feature_flags_instance_id);
  const listIds = new Map<string, number>();
  let lastIid = 0;
  for (const l of p.feature_flags_user_lists ?? []) {
    const created = isoOf(l.created_at) ?? b.now;
    const rec = createUserList(st, projectId, l.name, l.user_xids, created);
    const made = tget(st.feature_flags.lists, rec.id)!;
    if (l.iid !== undefined) made.iid = l.iid;
    lastIid = Math.max(lastIid, made.iid);
    made.updated_at = isoOf(l.updated_at) ?? created;
    listIds.set(l.name, rec.id);
  }
  if (lastIid > 0) iset(st.feature_flags.idx.iids, `u${projectId}`, lastIid);
  for (const f of p.feature_flags ?? []) {
    const created = isoOf(f.created_at) ?? b.now;
    const rec = createFlag(
      st,
      projectId,
      {
        name: f.name,
        description: f.description ?? undefined,
        active: f.active,
        version: f.version,
        strategies: (f.strategies ?? []).map((s) => ({
          name: s.name,
          parameters: plain(s.parameters),
          scopes: s.scopes.map((x) => ({ environment_scope: x })),
          ...(s.user_list !== undefined && { user_list_id: listIds.get(s.user_list) }),
        })),
        scopes: (f.scopes ?? []).map((s) => ({
          environment_scope: s.environment_scope,
          active: s.active,
          strategies: plain(s.strategies),
        })),
      },
      created,
    );
    const made = tget(st.feature_flags.flags, rec.id)!;
    made.updated_at = isoOf(f.updated_at) ?? created;
    (f.scopes ?? []).forEach((s, j) => {
      const scope = made.scopes[j]!;
      scope.created_at = isoOf(s.created_at) ?? created;
      scope.updated_at = isoOf(s.updated_at) ?? scope.created_at;
    });
    tset(st.feature_flags.flags, rec.id, made);
  }
}

export function exportFeatureFlags(st: PlatformState, out: ScenarioOut): void {
  const projects = new Set<number>();
  for (const [key] of ientries(st.feature_flags.idx.flagsByProject)) projects.add(Number(key));
  for (const [key] of ientries(st.feature_flags.idx.listsByProject)) projects.add(Number(key));
  for (const [key] of ientries(st.feature_flags.idx.clients)) projects.add(Number(key));
  for (const id of [...projects].sort((a, b) => a - b)) {
    const e = out.project(id);
    if (!e) continue;
    const token = unleashToken(st, id);
    if (token !== undefined) e.feature_flags_instance_id = token;
    const lists = userListsOf(st, id);
    const listName = (lid: number | null) => lists.find((l) => l.id === lid)?.name;
    if (lists.length > 0)
      e.feature_flags_user_lists = lists.map((l) => ({
        name: l.name,
        user_xids: l.user_xids,
        iid: l.iid,
        created_at: l.created_at,
        updated_at: l.updated_at,
      }));
    const flags = flagsOf(st, id);
    if (flags.length > 0)
      e.feature_flags = flags.map((f) => {
        const entry: Record<string, unknown> = { name: f.name };
        if (f.description !== null) entry.description = f.description;
        entry.active = f.active;
        entry.version = f.version;
        if (f.version === 'new_version_flag')
          entry.strategies = f.strategies.map((s) => {
            const se: Record<string, unknown> = {
              name: s.name,
              parameters: s.parameters,
              scopes: s.scopes.map((x) => x.environment_scope),
            };
            const ln = listName(s.user_list_id);
            if (ln !== undefined) se.user_list = ln;
            return se;
          });
        else
          entry.scopes = f.scopes.map((s) => ({
            environment_scope: s.environment_scope,
            active: s.active,
            strategies: s.strategies,
            created_at: s.created_at,
            updated_at: s.updated_at,
          }));
        entry.created_at = f.created_at;
        entry.updated_at = f.updated_at;
        return entry;
      });
  }
}
