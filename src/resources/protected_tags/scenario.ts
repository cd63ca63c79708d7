/** Scenario files' `protected_tags` of a project: the rules in creation order. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { ientries, mget, tget } from '../../core/table.js';
import { createProtectedTag } from './model.js';

const protectedTagSchema = z.strictObject({
  name: z.string().min(1).describe('a tag name or a wildcard (v*)'),
  create_access_level: z
    .union([z.literal(0), z.literal(30), z.literal(40)])
    .default(40)
    .describe('0: no one; 30: developers and maintainers; 40: maintainers'),
  created_at: isoTime.optional(),
});

export const protectedTagsProjectFields = {
  protected_tags: z
    .array(protectedTagSchema)
    .optional()
    .describe('protected tag rules (create access level)'),
};

export interface ProtectedTagsProject {
  protected_tags?: z.output<typeof protectedTagSchema>[];
}

/** `ProtectedTag`'s uniqueness of the name in a project. */
export function protectedTagsProblems(p: ProtectedTagsProject, at: string): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  (p.protected_tags ?? []).forEach((t, i) => {
    if (seen.has(t.name)) problems.push(`${at}.protected_tags[${i}].name: has already been taken`);
    seen.add(t.name);
  });
  return problems;
}

export function buildProtectedTags(
  st: Draft<PlatformState>,
  projectId: number,
  p: ProtectedTagsProject,
  b: ScenarioBuild,
): void {
  for (const t of p.protected_tags ?? [])
    createProtectedTag(st, projectId, t.name, t.create_access_level, isoOf(t.created_at) ?? b.now);
}

export function exportProtectedTags(st: PlatformState, out: ScenarioOut): void {
  for (const [key] of ientries(st.protected_tags.idx.byProject)) {
    const e = out.project(Number(key));
    if (!e) continue;
    const list = mget(st.protected_tags.idx.byProject, key).map((id) => {
      const r = tget(st.protected_tags.records, id)!;
      return { name: r.name, create_access_level: r.create_access_level, created_at: r.created_at };
    });
    if (list.length > 0) e.protected_tags = list;
  }
}
