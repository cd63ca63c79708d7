/** Scenario files' `environments` of a project. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { iget, tget, tvalues } from '../../core/table.js';
import { createEnvironment, fieldErrors } from './model.js';

const environmentSchema = z.strictObject({
  name: z.string(),
  external_url: z.string().nullable().optional(),
  state: z.enum(['available', 'stopped']).default('available'),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

export const environmentProjectFields = { environments: z.array(environmentSchema).optional() };

export interface EnvironmentProject {
  environments?: z.output<typeof environmentSchema>[];
}

/** The model's validations, as the API would answer them, for each listed environment. */
export function environmentProblems(p: EnvironmentProject, at: string): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  (p.environments ?? []).forEach((e, j) => {
    const errors = fieldErrors({ name: e.name, external_url: e.external_url ?? null }, names.has(e.name));
    for (const [field, msgs] of Object.entries(errors))
      for (const m of msgs) problems.push(`${at}.environments[${j}].${field}: ${m}`);
    names.add(e.name);
  });
  return problems;
}

export function buildEnvironments(
  st: Draft<PlatformState>,
  projectId: number,
  p: EnvironmentProject,
  b: ScenarioBuild,
): void {
  for (const e of p.environments ?? []) {
    const fields = { name: e.name, external_url: e.external_url ?? null };
    const created = isoOf(e.created_at) ?? b.now;
    // A pipeline's deploy job may have made it already (the ci area builds first): the entry describes it.
    const made = iget(st.environments.idx.names, `${projectId}:${e.name}`);
    const id = made ?? createEnvironment(st, projectId, fields, created);
    const rec = tget(st.environments.records, id)!;
    rec.external_url = fields.external_url;
    rec.created_at = created;
    rec.state = e.state;
    rec.updated_at = isoOf(e.updated_at) ?? created;
  }
}

export function exportEnvironments(st: PlatformState, out: ScenarioOut): void {
  for (const env of tvalues(st.environments.records)) {
    const e = out.project(env.project_id);
    if (!e) continue;
    const entry: Record<string, unknown> = { name: env.name };
    if (env.external_url !== null) entry.external_url = env.external_url;
    if (env.state !== 'available') entry.state = env.state;
    entry.created_at = env.created_at;
    if (env.updated_at !== env.created_at) entry.updated_at = env.updated_at;
    ((e.environments ??= []) as unknown[]).push(entry);
  }
}
