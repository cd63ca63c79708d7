/**
 * The Issue, Merge Request and Note Hook payloads (`Gitlab::DataBuilder::Issuable`, `::Note`,
 * `Gitlab::HookData::IssueBuilder`, `::MergeRequestBuilder`).
 */
import {
  type Json,
  type Urls,
  labelsAttrs,
  projectAttrs,
  repositoryAttrs,
  rubyTime,
  shortUser,
  userAttrs,
  userName,
} from './payload-parts.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { inSpan } from '../../core/versions.js';
import type { IssueRecord, MergeRequestRecord, NoteRecord } from '../issuables/store.js';
import { isWip } from '../issuables/text.js';
import { WIP_TITLE_PREFIX } from '../issuables/versions.js';

const STATE_ID: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 };

function humanTime(seconds: number): string | null {
  if (!seconds) return null;
  const parts: string[] = [];
  let s = seconds;
  for (const [unit, size] of [
    ['w', 5 * 8 * 3600],
    ['d', 8 * 3600],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(s / size);
    if (n) parts.push(`${n}${unit}`);
    s -= n * size;
  }
  return parts.join(' ');
}

/** `Gitlab::HookData::IssueBuilder`. */
export function issueAttrs(st: PlatformState, u: Urls, p: ProjectRecord, i: IssueRecord): Json {
  return {
    id: i.id,
    title: i.title,
    assignee_ids: [...i.assignee_ids],
    assignee_id: i.assignee_ids[0] ?? null,
    author_id: i.author_id,
    project_id: i.project_id,
    created_at: rubyTime(i.created_at),
    updated_at: rubyTime(i.updated_at),
    updated_by_id: (i as { updated_by_id?: number | null }).updated_by_id ?? null,
    last_edited_at: null,
    last_edited_by_id: null,
    relative_position: i.relative_position,
    description: i.description ?? '',
    milestone_id: i.milestone_id,
    state_id: STATE_ID[i.state] ?? 1,
    confidential: i.confidential,
    discussion_locked: i.discussion_locked,
    due_date: i.due_date,
    moved_to_id: i.moved_to_id,
    duplicated_to_id: null,
    time_estimate: i.time_estimate,
    total_time_spent: i.total_time_spent,
    human_total_time_spent: humanTime(i.total_time_spent),
    human_time_estimate: humanTime(i.time_estimate),
    weight: i.weight,
    iid: i.iid,
    url: `${u.base}/${p.path_with_namespace}/-/issues/${i.iid}`,
    state: i.state,
    labels: labelsAttrs(st, i.label_ids),
  };
}

/** `Gitlab::HookData::MergeRequestBuilder`. */
export function mergeRequestAttrs(
  st: PlatformState,
  u: Urls,
  p: ProjectRecord,
  mr: MergeRequestRecord,
): Json {
  const source = tget(st.projects, mr.source_project_id) ?? p;
  const head = tget(st.issuables.diffs, mr.diff_id) as { head_commit_sha?: string } | undefined;
  const sha = head?.head_commit_sha ?? null;
  return {
    assignee_id: mr.assignee_ids[0] ?? null,
    author_id: mr.author_id,
    created_at: rubyTime(mr.created_at),
    description: mr.description ?? '',
    head_pipeline_id: null,
    id: mr.id,
    iid: mr.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    merge_commit_sha: mr.merge_commit_sha,
    merge_error: mr.merge_error,
    merge_params: { force_remove_source_branch: mr.force_remove_source_branch ? '1' : '0' },
    merge_status: mr.merge_status,
    merge_user_id: null,
    merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds,
    milestone_id: mr.milestone_id,
    source_branch: mr.source_branch,
    source_project_id: mr.source_project_id,
    state_id: STATE_ID[mr.state] ?? 1,
    target_branch: mr.target_branch,
    target_project_id: mr.project_id,
    time_estimate: mr.time_estimate,
    title: mr.title,
    updated_at: rubyTime(mr.updated_at),
    updated_by_id: (mr as { updated_by_id?: number | null }).updated_by_id ?? null,
    url: `${u.base}/${p.path_with_namespace}/-/merge_requests/${mr.iid}`,
    source: projectAttrs(st, u, source),
    target: projectAttrs(st, u, p),
    last_commit: sha
      ? {
          id: sha,
          message: mr.title,
          title: mr.title,
          timestamp: new Date(mr.updated_at).toISOString().replace('.000Z', '+00:00'),
          url: `${u.base}/${source.path_with_namespace}/-/commit/${sha}`,
          author: userName(st, mr.author_id),
        }
      : null,
    // From 14.8 the title's draft prefixes are `MergeRequest#draft?`'s (WIP_TITLE_PREFIX).
    work_in_progress: inSpan(st.version, WIP_TITLE_PREFIX)
      ? /^\s*(\[draft\]|\(draft\)|draft:|draft\s|\[wip\]|wip:|wip\s)/i.test(mr.title)
      : isWip(mr.title, st.version),
    total_time_spent: mr.total_time_spent,
    human_total_time_spent: humanTime(mr.total_time_spent),
    human_time_estimate: humanTime(mr.time_estimate),
    assignee_ids: [...mr.assignee_ids],
    state: mr.state,
    labels: labelsAttrs(st, mr.label_ids),
  };
}

/** The `issue`/`merge_request` object of an issuable payload, with its labels, changes and assignees. */
export function issuablePayload(
  st: PlatformState,
  u: Urls,
  p: ProjectRecord,
  kind: 'issue' | 'merge_request',
  attrs: Json,
  actorId: number | null,
  assigneeIds: readonly number[],
  changes: Json,
): Json {
  const actor = actorId === null ? undefined : tget(st.users, actorId);
  const assignees = assigneeIds.map((id) => shortUser(u, tget(st.users, id)));
  const out: Json = {
    object_kind: kind,
    event_type: kind,
    user: userAttrs(u, actor),
    project: projectAttrs(st, u, p),
    object_attributes: attrs,
    labels: attrs.labels,
    changes,
    repository: repositoryAttrs(st, u, p, false),
  };
  if (assignees.length) {
    out.assignees = assignees;
    if (kind === 'issue') out.assignee = assignees[0];
  }
  return out;
}

/** `Gitlab::DataBuilder::Note`. */
export function notePayload(
  st: PlatformState,
  u: Urls,
  p: ProjectRecord,
  n: NoteRecord,
  target: Json,
  targetKey: string,
  url: string,
): Json {
  return {
    object_kind: 'note',
    event_type: n.confidential ? 'confidential_note' : 'note',
    user: userAttrs(u, tget(st.users, n.author_id)),
    project_id: p.id,
    project: projectAttrs(st, u, p),
    object_attributes: {
      id: n.id,
      note: n.body,
      noteable_type: n.noteable_type,
      author_id: n.author_id,
      created_at: rubyTime(n.created_at),
      updated_at: rubyTime(n.updated_at),
      project_id: p.id,
      attachment: null,
      line_code: null,
      commit_id: n.commit_id ?? '',
      noteable_id: n.noteable_type === 'Commit' ? null : n.noteable_id,
      system: n.system,
      st_diff: null,
      updated_by_id: null,
      // The note's own columns (`hook_attrs` is its attributes): its class, thread and resolution.
      type: n.type,
      position: n.position ?? null,
      original_position: n.position ?? null,
      resolved_at: n.resolved_at ? rubyTime(n.resolved_at) : null,
      resolved_by_id: n.resolved_by_id ?? null,
      discussion_id: n.discussion_id,
      confidential: n.confidential,
      url,
    },
    repository: repositoryAttrs(st, u, p, false),
    [targetKey]: target,
  };
}
