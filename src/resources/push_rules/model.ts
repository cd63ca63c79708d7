/** Push rule fields, validations and writes (`PushRule`). */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { tdelete, tget, tset } from '../../core/table.js';
import { safeRegex } from '../ci/config-expr.js';
import type { PushRuleFields, PushRuleRecord } from './store.js';

type S = Draft<PlatformState>;

export const REGEX_FIELDS = [
  'commit_message_regex',
  'commit_message_negative_regex',
  'branch_name_regex',
  'author_email_regex',
  'file_name_regex',
] as const;

export const BOOL_FIELDS = [
  'deny_delete_tag',
  'member_check',
  'prevent_secrets',
  'commit_committer_check',
  'reject_unsigned_commits',
] as const;

/** The longest pattern kept: the matcher's own bound (src/resources/ci/config-expr.ts). */
export const MAX_REGEX = 511;

export const defaultFields = (): PushRuleFields => ({
  deny_delete_tag: false,
  member_check: false,
  prevent_secrets: false,
  commit_message_regex: null,
  commit_message_negative_regex: null,
  branch_name_regex: null,
  author_email_regex: null,
  file_name_regex: null,
  max_file_size: 0,
  commit_committer_check: false,
  reject_unsigned_commits: false,
});

/**
 * A stored pattern as a matcher. The platform uses RE2, which never backtracks; a pattern only runs
 * here when the guarded matcher takes it (no back-references or look-arounds, which RE2 lacks
 * too, and no nested quantifiers), so a client's pattern cannot stall the instance.
 */
export function compileRule(pattern: string, multiline = false): RegExp | null {
  if (pattern.length > MAX_REGEX) return null;
  return safeRegex(`/${pattern}/${multiline ? 'm' : ''}`);
}

function regexProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_REGEX) return `is too long (maximum is ${MAX_REGEX} characters)`;
  try {
    new RegExp(pattern);
  } catch (e) {
    return `not valid RE2 syntax: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`;
  }
  if (/\\[1-9]|\\k<|\(\?[=!<]/.test(pattern)) return 'not valid RE2 syntax: invalid perl operator';
  if (!compileRule(pattern)) return 'not valid RE2 syntax: pattern too complex';
  return undefined;
}

/** The model's validations of the fields as they would be saved, keyed by field. */
export function pushRuleErrors(f: PushRuleFields): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const k of REGEX_FIELDS) {
    const v = f[k];
    const problem = v === null || v === '' ? undefined : regexProblem(v);
    if (problem) errors[k] = [problem];
  }
  if (!Number.isInteger(f.max_file_size) || f.max_file_size < 0)
    errors.max_file_size = ['must be greater than or equal to 0'];
  return errors;
}

export function createPushRule(st: S, projectId: number, f: PushRuleFields, now: string): number {
  const id = nextId(st as PlatformState, 'push_rules');
  const rec: PushRuleRecord = { id, project_id: projectId, created_at: now, ...f };
  tset(st.push_rules.byProject, projectId, rec);
  return id;
}

export function updatePushRule(st: S, projectId: number, ch: Partial<PushRuleFields>): void {
  const rec = tget(st.push_rules.byProject, projectId);
  if (rec) Object.assign(rec, ch);
}

export function deletePushRule(st: S, projectId: number): void {
  tdelete(st.push_rules.byProject, projectId);
}

export const pushRuleOf = (st: PlatformState, projectId: number): PushRuleRecord | undefined =>
  tget(st.push_rules.byProject, projectId);
