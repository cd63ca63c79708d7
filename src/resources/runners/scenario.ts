/**
 * Scenario files' `runners` (every runner of the instance, in id order: instance, group and project
 * runners, each `type` with its `group` or `projects`) and `runners_registration_token`.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import { lookupGroup, lookupProject } from '../../core/access.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { cleanTags, createRunner, runnerErrors } from './model.js';
import { ACCESS_LEVELS, DEFAULT_REGISTRATION_TOKEN, RUNNER_TYPES } from './store.js';

const TOKEN = /^[A-Za-z0-9_-]{8,255}$/;
const token = z.string().regex(TOKEN, 'must be 8 to 255 letters, digits, _ or -');

const runnerSchema = z.strictObject({
  type: z.enum(RUNNER_TYPES).default('instance_type'),
  group: z.string().optional().describe('a group_type runner’s group (its full path)'),
  projects: z
    .array(z.string())
    .max(1000)
    .optional()
    .describe('a project_type runner’s projects (full paths), the first the one it registered with'),
  token: token.optional().describe('the authentication token; made from the id and the time when not given'),
  description: z.string().max(1024).nullable().optional(),
  active: z.boolean().optional().describe('false: paused'),
  run_untagged: z.boolean().optional(),
  locked: z.boolean().optional(),
  access_level: z.enum(ACCESS_LEVELS).optional(),
  maximum_timeout: z.number().int().nullable().optional(),
  tag_list: z.array(z.string().max(255)).max(100).optional(),
  name: z.string().max(255).nullable().optional(),
  version: z.string().max(255).nullable().optional(),
  revision: z.string().max(255).nullable().optional(),
  platform: z.string().max(255).nullable().optional(),
  architecture: z.string().max(255).nullable().optional(),
  ip_address: z.string().max(255).nullable().optional(),
  contacted_at: isoTime.nullable().optional().describe('its last contact; online within two hours of it'),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

export const runnerFields = {
  runners_registration_token: token
    .optional()
    .describe(
      'the instance’s runner registration token (POST /runners with it registers an instance runner)',
    ),
  runners: z.array(runnerSchema).max(10_000).optional().describe('CI runners, in id order'),
};

type RunnerEntry = z.output<typeof runnerSchema>;
export interface RunnersScenario {
  runners_registration_token?: string;
  runners?: RunnerEntry[];
  projects?: { path: string }[];
}

/** Each runner's group or projects are listed, tokens are unique, and the model's validations hold. */
export function runnerProblems(s: RunnersScenario, refs: ScenarioRefs): string[] {
  const problems: string[] = [];
  const paths = new Set((s.projects ?? []).map((p) => p.path.toLowerCase()));
  const seen = new Set<string>();
  (s.runners ?? []).forEach((r, i) => {
    const at = `runners[${i}]`;
    if (r.type === 'group_type') {
      if (r.group === undefined) problems.push(`${at}.group: a group_type runner needs its group`);
      else if (!refs.groups.has(r.group.toLowerCase())) problems.push(`${at}.group: no group "${r.group}"`);
    } else if (r.group !== undefined) problems.push(`${at}.group: only a group_type runner has a group`);
    if (r.type === 'project_type') {
      if (!r.projects?.length) problems.push(`${at}.projects: a project_type runner needs a project`);
      (r.projects ?? []).forEach((p, j) => {
        if (!paths.has(p.toLowerCase())) problems.push(`${at}.projects[${j}]: no project "${p}"`);
      });
      if (new Set((r.projects ?? []).map((p) => p.toLowerCase())).size !== (r.projects ?? []).length)
        problems.push(`${at}.projects: a project is listed twice`);
    } else if (r.projects !== undefined)
      problems.push(`${at}.projects: only a project_type runner has projects`);
    if (r.token !== undefined) {
      if (seen.has(r.token)) problems.push(`${at}.token: is listed twice`);
      seen.add(r.token);
    }
    const errors = runnerErrors({
      tag_list: cleanTags(r.tag_list ?? []),
      run_untagged: r.run_untagged ?? true,
      maximum_timeout: r.maximum_timeout ?? null,
    });
    for (const [k, msgs] of Object.entries(errors ?? {}))
      for (const m of msgs) problems.push(`${at}.${k}: ${m}`);
  });
  return problems;
}

export function buildRunners(st: Draft<PlatformState>, s: RunnersScenario, b: ScenarioBuild): void {
  if (s.runners_registration_token !== undefined)
    st.runners.registration_token = s.runners_registration_token;
  for (const r of s.runners ?? []) {
    const created = isoOf(r.created_at) ?? b.now;
    createRunner(st, {
      runner_type: r.type,
      project_ids: (r.projects ?? []).map((p) => lookupProject(st, p)!.id),
      group_id: r.group === undefined ? null : lookupGroup(st, r.group)!.id,
      ...(r.token !== undefined && { token: r.token }),
      description: r.description ?? null,
      active: r.active ?? true,
      run_untagged: r.run_untagged ?? true,
      locked: r.locked ?? false,
      access_level: r.access_level ?? 'not_protected',
      maximum_timeout: r.maximum_timeout ?? null,
      tag_list: r.tag_list ?? [],
      name: r.name ?? null,
      version: r.version ?? null,
      revision: r.revision ?? null,
      platform: r.platform ?? null,
      architecture: r.architecture ?? null,
      ip_address: r.ip_address ?? null,
      contacted_at: r.contacted_at == null ? null : isoOf(r.contacted_at)!,
      created_at: created,
      updated_at: isoOf(r.updated_at) ?? created,
    });
  }
}

const OPTIONAL = [
  'name',
  'version',
  'revision',
  'platform',
  'architecture',
  'ip_address',
  'contacted_at',
] as const;

export function exportRunners(st: PlatformState, out: ScenarioOut): void {
  if (st.runners.registration_token !== DEFAULT_REGISTRATION_TOKEN)
    out.file.runners_registration_token = st.runners.registration_token;
  const list: Record<string, unknown>[] = [];
  for (const r of tvalues(st.runners.records).sort((a, b) => a.id - b.id)) {
    const e: Record<string, unknown> = { type: r.runner_type };
    if (r.runner_type === 'group_type') {
      const g = r.group_id === null ? undefined : tget(st.groups, r.group_id);
      // A runner whose group is gone cannot be described: it is left out.
      if (!g) continue;
      e.group = g.full_path;
    }
    if (r.runner_type === 'project_type') {
      const paths = r.project_ids.flatMap((id) => tget(st.projects, id)?.path_with_namespace ?? []);
      if (paths.length === 0) continue;
      e.projects = paths;
    }
    e.token = r.token;
    e.description = r.description;
    if (!r.active) e.active = false;
    if (!r.run_untagged) e.run_untagged = false;
    if (r.locked) e.locked = true;
    if (r.access_level !== 'not_protected') e.access_level = r.access_level;
    if (r.maximum_timeout !== null) e.maximum_timeout = r.maximum_timeout;
    if (r.tag_list.length > 0) e.tag_list = [...r.tag_list];
    for (const k of OPTIONAL) if (r[k] !== null) e[k] = r[k];
    e.created_at = r.created_at;
    if (r.updated_at !== r.created_at) e.updated_at = r.updated_at;
    list.push(e);
  }
  if (list.length > 0) out.file.runners = list;
}
