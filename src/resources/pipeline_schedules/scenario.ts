/** Scenario files' `pipeline_schedules` of a project. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { createSchedule, scheduleErrors, variableErrors } from './model.js';
import type { ScheduleRecord } from './store.js';

const scheduleSchema = z.strictObject({
  description: z.string().max(255),
  ref: z.string().max(255).optional().describe('default the default branch'),
  cron: z.string().max(255).describe('five fields, e.g. `0 4 * * 1-5`'),
  cron_timezone: z.string().max(255).default('UTC').describe('an IANA name such as `Europe/Berlin`'),
  active: z.boolean().default(true),
  owner: z.string().optional().describe("default the project's creator"),
  variables: z
    .array(
      z.strictObject({
        key: z.string(),
        value: z.string(),
        variable_type: z.enum(['env_var', 'file']).default('env_var'),
      }),
    )
    .max(200)
    .default([]),
  created_at: isoTime.optional(),
});

export const scheduleProjectFields = {
  pipeline_schedules: z
    .array(scheduleSchema)
    .max(1000)
    .optional()
    .describe('pipeline schedules; each runs from the file’s `now` on'),
};

export interface ScheduleProject {
  pipeline_schedules?: z.output<typeof scheduleSchema>[];
}

/** The model's validations, as the API would answer them, for each listed schedule. */
export function scheduleProblems(p: ScheduleProject, at: string, users: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  (p.pipeline_schedules ?? []).forEach((s, j) => {
    const where = `${at}.pipeline_schedules[${j}]`;
    const errors = scheduleErrors({ ...s, ref: s.ref ?? 'default' });
    for (const [field, msgs] of Object.entries(errors))
      for (const m of msgs) problems.push(`${where}.${field}: ${m.trim()}`);
    if (s.owner !== undefined && !users.has(s.owner.toLowerCase()))
      problems.push(`${where}.owner: no user "${s.owner}"`);
    const rec = { variables: [] as ScheduleRecord['variables'] } as ScheduleRecord;
    s.variables.forEach((v, k) => {
      for (const [field, msgs] of Object.entries(variableErrors(rec, v)))
        for (const m of msgs) problems.push(`${where}.variables[${k}].${field}: ${m}`);
      rec.variables.push(v);
    });
  });
  return problems;
}

export function buildSchedules(
  st: Draft<PlatformState>,
  projectId: number,
  p: ScheduleProject,
  b: ScenarioBuild,
): void {
  const project = tget(st.projects, projectId)!;
  const now = Date.parse(b.now);
  for (const s of p.pipeline_schedules ?? []) {
    const fields = {
      description: s.description,
      ref: s.ref ?? project.default_branch ?? 'master',
      cron: s.cron,
      cron_timezone: s.cron_timezone,
      active: s.active,
    };
    const owner = s.owner === undefined ? project.creator_id || null : b.uid(s.owner);
    const id = createSchedule(
      st,
      projectId,
      fields,
      owner,
      now,
      s.variables.map((v) => ({ ...v })),
    );
    const created = isoOf(s.created_at);
    if (created) {
      const rec = tget(st.pipelineSchedules.records, id)!;
      rec.created_at = created;
      rec.updated_at = created;
    }
  }
}

/** Each schedule as its entry; its next run is worked out again from the loading file's `now`. */
export function exportSchedules(st: PlatformState, out: ScenarioOut): void {
  for (const s of tvalues(st.pipelineSchedules.records).sort((a, b) => a.id - b.id)) {
    const e = out.project(s.project_id);
    const project = tget(st.projects, s.project_id);
    if (!e || !project) continue;
    const entry: Record<string, unknown> = { description: s.description };
    if (s.ref !== project.default_branch) entry.ref = s.ref;
    entry.cron = s.cron;
    if (s.cron_timezone !== 'UTC') entry.cron_timezone = s.cron_timezone;
    if (!s.active) entry.active = false;
    const owner = s.owner_id === project.creator_id ? undefined : out.username(s.owner_id);
    if (owner !== undefined) entry.owner = owner;
    if (s.variables.length)
      entry.variables = s.variables.map((v) => ({
        key: v.key,
        value: v.value,
        ...(v.variable_type !== 'env_var' && { variable_type: v.variable_type }),
      }));
    entry.created_at = s.created_at;
    ((e.pipeline_schedules ??= []) as unknown[]).push(entry);
  }
}
