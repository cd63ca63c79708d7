/** Scenario files' `push_rule` of a project. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import { createPushRule, defaultFields, pushRuleErrors } from './model.js';
import type { PushRuleFields } from './store.js';

const regex = z.string().nullable().optional();
const pushRuleSchema = z.strictObject({
  deny_delete_tag: z.boolean().optional(),
  member_check: z.boolean().optional(),
  prevent_secrets: z.boolean().optional(),
  commit_message_regex: regex,
  commit_message_negative_regex: regex,
  branch_name_regex: regex,
  author_email_regex: regex,
  file_name_regex: regex,
  max_file_size: z.number().int().optional(),
  commit_committer_check: z.boolean().optional(),
  reject_unsigned_commits: z.boolean().optional(),
  created_at: isoTime.optional(),
});

export const pushRuleProjectFields = { push_rule: pushRuleSchema.optional() };

export interface PushRuleProject {
  push_rule?: z.output<typeof pushRuleSchema>;
}

function fieldsOf(e: z.output<typeof pushRuleSchema>): PushRuleFields {
  const f = defaultFields();
  const out = f as unknown as Record<string, unknown>;
  for (const k of Object.keys(f)) {
    const v = (e as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return f;
}

/** The model's validations, as the API would answer them. */
export function pushRuleProblems(p: PushRuleProject, at: string): string[] {
  if (!p.push_rule) return [];
  const problems: string[] = [];
  for (const [field, msgs] of Object.entries(pushRuleErrors(fieldsOf(p.push_rule))))
    for (const m of msgs) problems.push(`${at}.push_rule.${field}: ${m}`);
  return problems;
}

export function buildPushRule(
  st: Draft<PlatformState>,
  projectId: number,
  p: PushRuleProject,
  b: ScenarioBuild,
): void {
  if (!p.push_rule) return;
  createPushRule(st, projectId, fieldsOf(p.push_rule), isoOf(p.push_rule.created_at) ?? b.now);
}

export function exportPushRules(st: PlatformState, out: ScenarioOut): void {
  const defaults = defaultFields() as unknown as Record<string, unknown>;
  for (const rule of tvalues(st.push_rules.byProject)) {
    const e = out.project(rule.project_id);
    if (!e) continue;
    const entry: Record<string, unknown> = {};
    for (const k of Object.keys(defaults)) {
      const v = (rule as unknown as Record<string, unknown>)[k];
      if (v !== defaults[k]) entry[k] = v;
    }
    entry.created_at = rule.created_at;
    e.push_rule = entry;
  }
}
