/** Scenario files' `triggers` of a project. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { createTrigger } from './model.js';

const triggerSchema = z.strictObject({
  description: z.string(),
  owner: z.string().optional().describe('username; the pipelines a trigger starts are its owner’s'),
  token: z
    .string()
    .regex(/^[A-Za-z0-9_-]{4,255}$/, 'must be 4 to 255 letters, digits, _ or -')
    .optional()
    .describe('the token clients send; made from the id and the time when not given'),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
  last_used: isoTime.nullable().optional(),
});

export const triggerProjectFields = { triggers: z.array(triggerSchema).optional() };

export interface TriggerProject {
  triggers?: z.output<typeof triggerSchema>[];
}

/** Owners must be listed users, and a token starts one project's pipelines only (it is unique). */
export function triggerProblems(s: { projects?: TriggerProject[] }, refs: ScenarioRefs): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  (s.projects ?? []).forEach((p, i) =>
    (p.triggers ?? []).forEach((t, j) => {
      const at = `projects[${i}].triggers[${j}]`;
      if (t.owner !== undefined && !refs.users.has(t.owner.toLowerCase()))
        problems.push(`${at}.owner: no user "${t.owner}"`);
      if (t.token !== undefined) {
        if (seen.has(t.token)) problems.push(`${at}.token: is listed twice`);
        seen.add(t.token);
      }
    }),
  );
  return problems;
}

export function buildTriggers(
  st: Draft<PlatformState>,
  projectId: number,
  p: TriggerProject,
  b: ScenarioBuild,
): void {
  for (const t of p.triggers ?? []) {
    const created = isoOf(t.created_at) ?? b.now;
    createTrigger(st, {
      project_id: projectId,
      owner_id: t.owner === undefined ? null : b.uid(t.owner),
      description: t.description,
      ...(t.token !== undefined && { token: t.token }),
      created_at: created,
      updated_at: isoOf(t.updated_at) ?? created,
      last_used: t.last_used == null ? null : isoOf(t.last_used)!,
    });
  }
}

export function exportTriggers(st: PlatformState, out: ScenarioOut): void {
  for (const t of tvalues(st.triggers.records)) {
    const e = out.project(t.project_id);
    if (!e) continue;
    const entry: Record<string, unknown> = { description: t.description };
    const owner = out.username(t.owner_id);
    if (owner !== undefined && tget(st.users, t.owner_id!)) entry.owner = owner;
    entry.token = t.token;
    entry.created_at = t.created_at;
    if (t.updated_at !== t.created_at) entry.updated_at = t.updated_at;
    if (t.last_used !== null) entry.last_used = t.last_used;
    ((e.triggers ??= []) as unknown[]).push(entry);
  }
}
