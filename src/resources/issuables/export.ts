/**
 * The issuables in an exported scenario: each project's labels, milestones, issues, merge requests and
 * snippets with their notes and award emoji, and the top-level epics, as the fields the builder
 * (scenario.ts) reads back; labels/scenario.ts adds group labels and label subscriptions. Not kept, for
 * want of a scenario field: group milestones, todos, subscriptions to
 * issues and merge requests, resource events, timelogs (only the totals), the extra diff
 * versions of a pushed-to merge request, and merge requests from a fork (their source project).
 */
import type { ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { mget, tget, tvalues } from '../../core/table.js';
import { exportThread } from './discussions/scenario.js';
import { exportedParents } from './epic-tree-scenario.js';
import { POSITION_GAP, START_POSITION } from './model.js';
import type { AwardableType, IssueRecord, MergeRequestRecord, NoteableType } from './store.js';

type Entry = Record<string, unknown>;

const push = (e: Entry, key: string, v: Entry) => ((e[key] ??= []) as Entry[]).push(v);

/** The award emoji on one awardable, oldest first, with their ids and times. */
export function awardEntries(st: PlatformState, out: ScenarioOut, type: AwardableType, id: number): Entry[] {
  return [...mget(st.issuables.idx.awards, `${type}:${id}`)]
    .sort((a, b) => a - b)
    .flatMap((awardId) => {
      const a = tget(st.issuables.awards, awardId);
      const user = a && out.username(a.user_id);
      if (!a || user === undefined) return [];
      const e: Entry = { id: a.id, name: a.name, user, created_at: a.created_at };
      if (a.updated_at !== a.created_at) e.updated_at = a.updated_at;
      return [e];
    });
}

export function exportIssuables(st: PlatformState, out: ScenarioOut): void {
  const iss = st.issuables;
  const notesOf = group(tvalues(iss.notes), (n) => `${n.noteable_type}:${n.noteable_id}`);
  // Every record keeps its id (`id`), so that a load answers with the same ids and links.
  const awards = (type: AwardableType, id: number) => awardEntries(st, out, type, id);
  const notes = (type: NoteableType, id: number): Entry[] =>
    (notesOf.get(`${type}:${id}`) ?? []).flatMap((n) => {
      const author = out.username(n.author_id);
      if (author === undefined) return [];
      const e: Entry = { id: n.id, body: n.body, author };
      if (n.system) e.system = true;
      if (n.confidential) e.confidential = true;
      e.created_at = n.created_at;
      if (n.updated_at !== n.created_at) e.updated_at = n.updated_at;
      Object.assign(e, exportThread(n, out.username));
      const a = awards('Note', n.id);
      if (a.length) e.award_emoji = a;
      return [e];
    });
  const usernames = (ids: readonly number[]) => ids.flatMap((id) => out.username(id) ?? []);
  const labelTitles = (ids: readonly number[]) => ids.flatMap((id) => tget(iss.labels, id)?.title ?? []);
  const milestone = (id: number | null, projectId: number) => {
    const m = id === null ? undefined : tget(iss.milestones, id);
    return m && m.project_id === projectId ? m.title : undefined;
  };

  for (const l of tvalues(iss.labels)) {
    const p = l.project_id === null ? undefined : out.project(l.project_id);
    if (!p) continue;
    const e: Entry = { id: l.id, name: l.title, color: l.color };
    if (l.description !== null) e.description = l.description;
    if (l.priority !== null) e.priority = l.priority;
    push(p, 'labels', e);
  }
  for (const m of tvalues(iss.milestones)) {
    const p = m.project_id === null ? undefined : out.project(m.project_id);
    if (!p) continue;
    const e: Entry = { id: m.id, title: m.title };
    if (m.description !== null) e.description = m.description;
    if (m.state !== 'active') e.state = m.state;
    if (m.due_date !== null) e.due_date = m.due_date;
    if (m.start_date !== null) e.start_date = m.start_date;
    e.created_at = m.created_at;
    push(p, 'milestones', e);
  }
  /** The fields issues and merge requests share; undefined for one whose author is gone. */
  const issuable = (type: 'Issue' | 'MergeRequest', r: IssueRecord | MergeRequestRecord) => {
    const author = out.username(r.author_id);
    if (author === undefined) return undefined;
    const e: Entry = { id: r.id, iid: r.iid, title: r.title };
    if (r.description !== null) e.description = r.description;
    e.author = author;
    e.assignees = usernames(r.assignee_ids);
    e.labels = labelTitles(r.label_ids);
    const ms = milestone(r.milestone_id, r.project_id);
    if (ms !== undefined) e.milestone = ms;
    e.created_at = r.created_at;
    e.updated_at = r.updated_at;
    e.award_emoji = awards(type, r.id);
    e.notes = notes(type, r.id);
    if (r.time_estimate) e.time_estimate = r.time_estimate;
    if (r.total_time_spent) e.total_time_spent = r.total_time_spent;
    return e;
  };
  // Positions a load gives anyway (each issue after the previous one of its project) are left out.
  const lastPosition = new Map<number, number>();
  for (const i of tvalues(iss.issues)) {
    const p = out.project(i.project_id);
    const e = issuable('Issue', i);
    if (!p || !e) continue;
    const last = lastPosition.get(i.project_id) ?? 0;
    let next = last === 0 ? START_POSITION : last + POSITION_GAP;
    if (i.relative_position !== null && i.relative_position !== next) {
      next = Math.max(next, i.relative_position);
      e.relative_position = i.relative_position;
    }
    lastPosition.set(i.project_id, next);
    const moved = i.moved_to_id === null ? undefined : tget(iss.issues, i.moved_to_id);
    const movedTo = moved && out.project(moved.project_id) && tget(st.projects, moved.project_id);
    if (moved && movedTo) e.moved_to = `${movedTo.path_with_namespace}#${moved.iid}`;
    if (i.state !== 'opened') e.state = i.state;
    if (i.confidential) e.confidential = true;
    if (i.discussion_locked !== null) e.discussion_locked = i.discussion_locked;
    if (i.due_date !== null) e.due_date = i.due_date;
    if (i.weight !== null) e.weight = i.weight;
    if (i.closed_at !== null) e.closed_at = i.closed_at;
    const closedBy = out.username(i.closed_by_id);
    if (closedBy !== undefined) e.closed_by = closedBy;
    push(p, 'issues', e);
  }
  for (const m of tvalues(iss.mergeRequests)) {
    const p = out.project(m.project_id);
    const e = issuable('MergeRequest', m);
    if (!p || !e || m.source_project_id !== m.project_id) continue;
    e.source_branch = m.source_branch;
    e.target_branch = m.target_branch;
    e.reviewers = usernames(m.reviewer_ids);
    if (m.state !== 'opened') e.state = m.state;
    e.merge_status = m.merge_status;
    if (m.conflicts) e.conflicts = true;
    if (m.squash) e.squash = true;
    const changes = tget(iss.diffs, m.diff_id)?.files.length;
    if (changes !== undefined && changes > 0) e.changes = changes;
    const mergedBy = out.username(m.merged_by_id);
    if (mergedBy !== undefined) e.merged_by = mergedBy;
    if (m.merged_at !== null) e.merged_at = m.merged_at;
    if (m.approvals_before_merge !== null) e.approvals_before_merge = m.approvals_before_merge;
    const context = iss.contextCommits && tget(iss.contextCommits, m.id)?.commits;
    if (context?.length) e.context_commits = context.map((cm) => ({ ...cm }));
    push(p, 'merge_requests', e);
  }
  for (const s of tvalues(iss.snippets)) {
    const p = s.project_id === null ? undefined : out.project(s.project_id);
    const author = out.username(s.author_id);
    if (!p || author === undefined) continue;
    const e: Entry = { id: s.id, title: s.title };
    if (s.file_name !== 'snippet.txt') e.file_name = s.file_name;
    e.content = s.content;
    if (s.files) e.files = s.files.map((f) => ({ path: f.path, content: f.content }));
    if (s.description !== null) e.description = s.description;
    e.author = author;
    if (s.visibility !== 'private') e.visibility = s.visibility;
    e.created_at = s.created_at;
    if (s.updated_at !== s.created_at) e.updated_at = s.updated_at;
    const a = awards('Snippet', s.id);
    if (a.length) e.award_emoji = a;
    e.notes = notes('Snippet', s.id);
    push(p, 'snippets', e);
  }
  const epics: Entry[] = [];
  const exported: number[] = [];
  for (const ep of tvalues(iss.epics)) {
    const g = tget(st.groups, ep.group_id);
    const author = out.username(ep.author_id);
    if (!g || !out.group(ep.group_id) || author === undefined) continue;
    const e: Entry = { id: ep.id, group: g.full_path, title: ep.title };
    if (ep.description !== null) e.description = ep.description;
    e.author = author;
    if (ep.confidential) e.confidential = true;
    e.created_at = ep.created_at;
    if (ep.updated_at !== ep.created_at) e.updated_at = ep.updated_at;
    if (ep.state === 'closed') {
      e.state = 'closed';
      if (ep.closed_at) e.closed_at = ep.closed_at;
    }
    if (ep.labels?.length) e.labels = [...ep.labels];
    if (ep.start_date_is_fixed) e.start_date_is_fixed = true;
    if (ep.start_date_fixed) e.start_date_fixed = ep.start_date_fixed;
    if (ep.due_date_is_fixed) e.due_date_is_fixed = true;
    if (ep.due_date_fixed) e.due_date_fixed = ep.due_date_fixed;
    const links = mget(iss.idx.owned, `ee${ep.id}`)
      .map((l) => tget(iss.epicIssues, l)!)
      .sort((a, b) => a.relative_position - b.relative_position || a.id - b.id)
      .flatMap((l) => {
        const issue = tget(iss.issues, l.issue_id);
        const project = issue && tget(st.projects, issue.project_id);
        return issue && project ? [`${project.path_with_namespace}#${issue.iid}`] : [];
      });
    if (links.length) e.issues = links;
    const a = awards('Epic', ep.id);
    if (a.length) e.award_emoji = a;
    e.notes = notes('Epic', ep.id);
    if (ep.relative_position != null) e.relative_position = ep.relative_position;
    epics.push(e);
    exported.push(ep.id);
  }
  const parents = exportedParents(st, exported);
  exported.forEach((id, i) => {
    const ref = parents.get(id);
    if (ref !== undefined) epics[i]!.parent = ref;
  });
  if (epics.length) out.file.epics = epics;
}

function group<T>(list: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of list) {
    const k = key(x);
    const l = out.get(k);
    if (l) l.push(x);
    else out.set(k, [x]);
  }
  return out;
}
