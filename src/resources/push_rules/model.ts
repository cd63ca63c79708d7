/** Push rule fields, validations and writes (`PushRule`). */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { tdelete, tget, tset } from '../../core/table.js';
import { regexpProblem, UntrustedRegexp } from '../../core/untrusted-regexp.js';
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

/** The longest pattern kept. */
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
 * A stored pattern as a matcher (`PushRule#data_match?`: `UntrustedRegexp.new(regex, multiline:)`), on
 * RE2, so a maintainer's pattern runs in time linear in the pushed data; null when RE2 refuses it
 * (validation keeps such patterns out).
 */
export function compileRule(pattern: string, multiline = false): UntrustedRegexp | null {
  try {
    return new UntrustedRegexp(pattern, { multiline });
  } catch {
    return null;
  }
}

/** `UntrustedRegexpValidator`: `not valid RE2 syntax: ` and RE2's own message. */
function regexProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_REGEX) return `is too long (maximum is ${MAX_REGEX} characters)`;
  const problem = regexpProblem(pattern);
  return problem === undefined ? undefined : `not valid RE2 syntax: ${problem}`;
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
