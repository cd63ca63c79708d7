/** Scenario files' `remote_mirrors` of a project. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import { createMirror, literalUrlProblem } from './model.js';

const mirrorSchema = z.strictObject({
  url: z.string().describe('the push URL, credentials included (the API shows them masked)'),
  enabled: z.boolean().default(false),
  only_protected_branches: z.boolean().default(false),
  keep_divergent_refs: z.boolean().nullable().default(null),
});

export const mirrorProjectFields = { remote_mirrors: z.array(mirrorSchema).max(100).optional() };

export interface MirrorProject {
  remote_mirrors?: z.output<typeof mirrorSchema>[];
}

/** The URL rules but the fork network's, which needs the instance's host. */
export function mirrorProblems(p: MirrorProject, at: string): string[] {
  return (p.remote_mirrors ?? []).flatMap((m, j) => {
    const problem = literalUrlProblem(m.url);
    return problem ? [`${at}.remote_mirrors[${j}].url: ${problem}`] : [];
  });
}

export function buildMirrors(
  st: Draft<PlatformState>,
  projectId: number,
  p: MirrorProject,
  b: ScenarioBuild,
): void {
  for (const m of p.remote_mirrors ?? []) createMirror(st, projectId, m, b.now);
}

export function exportMirrors(st: PlatformState, out: ScenarioOut): void {
  for (const m of tvalues(st.remoteMirrors.records).sort((a, b) => a.id - b.id)) {
    const e = out.project(m.project_id);
    if (!e) continue;
    const entry: Record<string, unknown> = { url: m.url };
    if (m.enabled) entry.enabled = true;
    if (m.only_protected_branches) entry.only_protected_branches = true;
    if (m.keep_divergent_refs !== null) entry.keep_divergent_refs = m.keep_divergent_refs;
    ((e.remote_mirrors ??= []) as unknown[]).push(entry);
  }
}
