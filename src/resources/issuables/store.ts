/**
 * The records of issues, merge requests, notes, milestones and what hangs off them (labels, award emoji,
 * subscriptions, todos, resource events, diff versions, project snippets, epics), kept under one
 * `issuables` node of the platform state. Records are normalised: users, projects and groups by id.
 *
 * Per-project sequences (iids) and a per-project version live in small meta records, so that a write in
 * one project touches a few buckets only, and read caches can key on the meta record's identity (immer
 * replaces it whenever anything of the project's issuables changes).
 */
import {
  emptyIndex,
  emptyTable,
  madd,
  mget,
  mremove,
  type Index,
  type MultiIndex,
  type Table,
} from '../../core/table.js';

export type IssueState = 'opened' | 'closed';
export type MergeRequestState = 'opened' | 'closed' | 'merged' | 'locked';
export type MergeStatus = 'unchecked' | 'can_be_merged' | 'cannot_be_merged';
export type NoteableType = 'Issue' | 'MergeRequest' | 'Snippet' | 'Epic' | 'Commit';
export type AwardableType = 'Issue' | 'MergeRequest' | 'Note' | 'Snippet' | 'Epic';

/** Fields issues and merge requests share. */
interface IssuableBase {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  author_id: number;
  assignee_ids: readonly number[];
  label_ids: readonly number[];
  milestone_id: number | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  closed_by_id: number | null;
  /** null until locked or unlocked once, as the platform's column. */
  discussion_locked: boolean | null;
  time_estimate: number;
  total_time_spent: number;
  /** Counters the platform computes per list (`IssuableMetadata`), kept on the record. */
  upvotes: number;
  downvotes: number;
  user_notes_count: number;
}

export interface IssueRecord extends IssuableBase {
  state: IssueState;
  confidential: boolean;
  due_date: string | null;
  weight: number | null;
  relative_position: number | null;
  moved_to_id: number | null;
  issue_type: 'issue' | 'incident';
  health_status: string | null;
  /** Merge requests that close this issue on merge (`MergeRequestsClosingIssues`). */
  merge_requests_count: number;
  /** The request that created the issue (`UserAgentDetail`). */
  user_agent: string | null;
  ip_address: string | null;
}

export interface MergeRequestRecord extends IssuableBase {
  state: MergeRequestState;
  source_project_id: number;
  source_branch: string;
  target_branch: string;
  reviewer_ids: readonly number[];
  merged_by_id: number | null;
  /** Who set it to merge when the pipeline succeeds (`merge_user`), cleared when that is canceled. */
  merge_user_id?: number | null;
  merged_at: string | null;
  /** The stored status; `unchecked` resolves once `merge_check_due_at` has passed on the instance clock. */
  merge_status: MergeStatus;
  merge_check_due_at: string | null;
  /** Declared conflicts (scenario files): every check then resolves to `cannot_be_merged`. */
  conflicts: boolean;
  /** What the last mergeability check found in the repository (both sides changed a path). */
  checked_conflicts?: boolean;
  merge_when_pipeline_succeeds: boolean;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  squash: boolean;
  force_remove_source_branch: boolean | null;
  should_remove_source_branch: boolean | null;
  allow_collaboration: boolean;
  merge_error: string | null;
  /** Until when (instance-clock ms) an asked-for rebase is in progress (`rebase_in_progress`). */
  rebase_until_ms?: number | null;
  /** The latest diff version. */
  diff_id: number;
  approvals_before_merge: number | null;
}

export interface NoteRecord {
  id: number;
  noteable_type: NoteableType;
  /**
   * The noteable's id; a commit note (whose column is null on the platform) keeps its project's id here,
   * so that `Commit:<project id>` indexes a project's commit notes, and names its commit in `commit_id`.
   */
  noteable_id: number;
  /** A commit note's commit (40 hex digits). */
  commit_id?: string;
  project_id: number | null;
  group_id: number | null;
  author_id: number;
  body: string;
  system: boolean;
  confidential: boolean;
  created_at: string;
  updated_at: string;
  /** 40 hex digits; an individual note is a discussion of its own. */
  discussion_id: string;
  /**
   * `DiscussionNote` (a thread) or `DiffNote` (a thread on a diff line); null for an individual note.
   * `LegacyDiffNote`: a comment on a commit's line through the commit comments API (`line_code`).
   */
  type: 'DiscussionNote' | 'DiffNote' | 'LegacyDiffNote' | null;
  /** A `LegacyDiffNote`'s line: the file, its line number and the diff line's side. */
  legacy_line?: { path: string; line: number; line_type: 'new' | 'old' };
  /** A diff note's position, as given (`Gitlab::Diff::Position#to_h`). */
  position?: DiffPosition;
  /** Resolution of a resolvable note (a thread's non-system note on a merge request). */
  resolved_at?: string | null;
  resolved_by_id?: number | null;
}

export interface DiffPosition {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  old_path: string | null;
  new_path: string | null;
  position_type: 'text' | 'image';
  old_line?: number | null;
  new_line?: number | null;
  line_range?: Record<string, unknown> | null;
  width?: number | null;
  height?: number | null;
  x?: number | null;
  y?: number | null;
}

export interface MilestoneRecord {
  id: number;
  iid: number;
  project_id: number | null;
  group_id: number | null;
  title: string;
  description: string | null;
  state: 'active' | 'closed';
  due_date: string | null;
  start_date: string | null;
  created_at: string;
  updated_at: string;
}

export interface LabelRecord {
  id: number;
  project_id: number | null;
  group_id: number | null;
  title: string;
  color: string;
  description: string | null;
  /** The label's priority in its own project (lower is higher); null when unprioritised or a group label. */
  priority: number | null;
  created_at: string;
  /** Set by the first update; absent until then (the creation time stands for it). */
  updated_at?: string;
}

export interface AwardEmojiRecord {
  id: number;
  name: string;
  user_id: number;
  awardable_type: AwardableType;
  awardable_id: number;
  created_at: string;
  updated_at: string;
}

/** An explicit (un)subscription; without one, participants count as subscribed. */
export interface SubscriptionRecord {
  id: number;
  target_type: 'Issue' | 'MergeRequest';
  target_id: number;
  user_id: number;
  project_id: number;
  subscribed: boolean;
}

export interface TodoRecord {
  id: number;
  user_id: number;
  author_id: number;
  /** Null for an epic's todo, which has the epic's group instead (`Todo#group_id`). */
  project_id: number | null;
  group_id: number | null;
  target_type: 'Issue' | 'MergeRequest' | 'Epic';
  target_id: number;
  action: 'marked';
  state: 'pending' | 'done';
  body: string;
  created_at: string;
  updated_at: string;
}

/**
 * State, milestone, weight and label changes: recorded as resource events (label changes also as system
 * notes).
 */
export interface ResourceEventRecord {
  id: number;
  kind: 'state' | 'milestone' | 'weight' | 'label';
  /** Epics have label events only (EE). */
  target_type: 'Issue' | 'MergeRequest' | 'Epic';
  target_id: number;
  user_id: number;
  created_at: string;
  state: string | null;
  milestone_id: number | null;
  action: 'add' | 'remove' | null;
  weight: number | null;
  /** The label of a label event; absent on other kinds. */
  label_id?: number;
  /** A milestone event's issuable state when it happened (the API's `state` of the event). */
  issuable_state?: string;
}

export interface DiffCommit {
  id: string;
  short_id: string;
  title: string;
  message: string;
  author_name: string;
  author_email: string;
  created_at: string;
}

export interface DiffFile {
  old_path: string;
  new_path: string;
  a_mode: string;
  b_mode: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  diff: string;
}

/**
 * A diff version (`MergeRequestDiff`): the heads when it was made and a snapshot of its commits and
 * file diffs. The shas are null when a branch was missing then (an imported or broken merge request).
 */
export interface DiffVersionRecord {
  id: number;
  merge_request_id: number;
  head_commit_sha: string | null;
  base_commit_sha: string | null;
  start_commit_sha: string | null;
  created_at: string;
  state: 'collected';
  real_size: string;
  commits: readonly DiffCommit[];
  files: readonly DiffFile[];
}

export interface SnippetRecord {
  id: number;
  project_id: number | null;
  author_id: number;
  title: string;
  file_name: string;
  description: string | null;
  content: string;
  visibility: 'private' | 'internal' | 'public';
  created_at: string;
  updated_at: string;
  /** The request that created it through the API (`UserAgentDetail`); absent for scenario snippets. */
  user_agent?: string | null;
  ip_address?: string | null;
  /**
   * The files of the snippet's repository in path order, once a request or the scenario gave them;
   * absent: the one file `file_name` with `content`.
   */
  files?: SnippetFile[];
}

export interface SnippetFile {
  path: string;
  content: string;
}

export interface EpicRecord {
  id: number;
  iid: number;
  group_id: number;
  author_id: number;
  title: string;
  description: string | null;
  confidential: boolean;
  created_at: string;
  updated_at: string;
  /** Absent on records a scenario made before the epics API: `opened`, no labels, no dates, no parent. */
  state?: 'opened' | 'closed';
  closed_at?: string | null;
  /** Label names, as given. */
  labels?: string[];
  parent_id?: number | null;
  /** Place among the parent's children (`EpicTreeSorting`); null until placed, listed last. */
  relative_position?: number | null;
  start_date_is_fixed?: boolean;
  start_date_fixed?: string | null;
  due_date_is_fixed?: boolean;
  due_date_fixed?: string | null;
}

/** An issue in an epic (`EpicIssue`): an issue is in one epic at most. */
export interface EpicIssueRecord {
  id: number;
  epic_id: number;
  issue_id: number;
  relative_position: number;
  created_at: string;
  updated_at: string;
}

/** A relation between two issues (`IssueLink`): `blocks` (paid tiers) reads `is_blocked_by` from the target. */
export interface IssueLinkRecord {
  id: number;
  source_id: number;
  target_id: number;
  link_type: 'relates_to' | 'blocks';
  created_at: string;
  updated_at: string;
}

/** Per project: the iid sequences and a version bumped by every issuable write in the project. */
export interface ProjectMeta {
  id: number;
  issue_iid: number;
  mr_iid: number;
  milestone_iid: number;
  /** The relative position of the project's last-created issue (0 before the first). */
  last_position: number;
  version: number;
}

/** Per group: the iid sequences of group milestones and epics. */
export interface GroupMeta {
  id: number;
  milestone_iid: number;
  epic_iid: number;
  version: number;
}

/**
 * A merge request's context commit (`MergeRequestContextCommit`): the commit's fields as they were copied
 * when it was added (`MergeRequests::AddContextService`), so that it shows after the commit is gone.
 * Dates in UTC, as the database keeps them.
 */
export interface ContextCommit {
  sha: string;
  message: string;
  author_name: string;
  author_email: string;
  authored_date: string;
  committer_name: string;
  committer_email: string;
  committed_date: string;
}

/** A merge request's context commits, in the order added (the association's id order). */
export interface ContextCommitsRecord {
  merge_request_id: number;
  commits: readonly ContextCommit[];
}

export interface IssuablesState {
  issues: Table<IssueRecord>;
  mergeRequests: Table<MergeRequestRecord>;
  notes: Table<NoteRecord>;
  milestones: Table<MilestoneRecord>;
  labels: Table<LabelRecord>;
  awards: Table<AwardEmojiRecord>;
  subscriptions: Table<SubscriptionRecord>;
  todos: Table<TodoRecord>;
  events: Table<ResourceEventRecord>;
  diffs: Table<DiffVersionRecord>;
  snippets: Table<SnippetRecord>;
  epics: Table<EpicRecord>;
  epicIssues: Table<EpicIssueRecord>;
  links: Table<IssueLinkRecord>;
  projectMeta: Table<ProjectMeta>;
  groupMeta: Table<GroupMeta>;
  /** Merge request id -> its context commits; absent from a state saved before it existed. */
  contextCommits?: Table<ContextCommitsRecord>;
  idx: {
    /** `<project>:<iid>` -> issue id; `m<project>:<iid>` -> merge request id; `e<group>:<iid>` -> epic id */
    iids: Index;
    /** `i<project>:<iid >> 6>` / `m<project>:<iid >> 6>` -> issue / merge request ids (chunks of 64 iids) */
    byProject: MultiIndex;
    /** `<NoteableType>:<id>` -> note ids (`Commit:<project id>`: the project's commit notes) */
    notes: MultiIndex;
    /** `p<project>` / `g<group>` -> milestone ids; also labels (`lp<project>`), snippets (`sp<project>`; by author `su<user>`; public personal ones `spublic`) and epics (`eg<group>`); an epic's issue links (`ee<epic>`) and an issue's one (`ie<issue>`) */
    owned: MultiIndex;
    /** `<AwardableType>:<id>` -> award ids */
    awards: MultiIndex;
    /** `<type>:<id>:<user>` -> subscription id; `<type>:<id>:<user>:marked` -> pending todo id */
    userTarget: Index;
    /** `<type>:<id>` -> subscription, todo and resource event ids, each under its own prefix (`s`, `t`, `e`); `tu<user>` -> todo ids */
    byTarget: MultiIndex;
    /** `i<issue>` -> ids of merge requests closing it; `m<mr>` -> ids of issues it closes */
    closing: MultiIndex;
    /** `<mr>` -> diff version ids */
    diffs: MultiIndex;
    /** `<project>:<label>` -> the priority of a group label in a project (project labels keep theirs on the record) */
    labelPriority: Index;
    /** `<label>:<user>:<project or 0>` -> whether the user subscribed to the label (in that project) */
    labelSubscriptions: Index<boolean>;
    /** `<issue>` -> ids of the links it is the source or target of */
    links: MultiIndex;
    /**
     * `<owner key of \`owned\`>\u0000<title>` -> ids of the owner's labels with that title, so that a
     * title is checked for uniqueness without reading every label of its owner. Absent from a state saved
     * before it existed: there the checks read the owner's labels.
     */
    labelTitles?: MultiIndex;
  };
}

export function emptyIssuables(): IssuablesState {
  return {
    issues: emptyTable(),
    mergeRequests: emptyTable(),
    notes: emptyTable(),
    milestones: emptyTable(),
    labels: emptyTable(),
    awards: emptyTable(),
    subscriptions: emptyTable(),
    todos: emptyTable(),
    events: emptyTable(),
    diffs: emptyTable(),
    snippets: emptyTable(),
    epics: emptyTable(),
    epicIssues: emptyTable(),
    links: emptyTable(),
    projectMeta: emptyTable(),
    groupMeta: emptyTable(),
    contextCommits: emptyTable(),
    idx: {
      iids: emptyIndex(),
      byProject: emptyIndex(),
      notes: emptyIndex(),
      owned: emptyIndex(),
      awards: emptyIndex(),
      userTarget: emptyIndex(),
      byTarget: emptyIndex(),
      closing: emptyIndex(),
      diffs: emptyIndex(),
      labelPriority: emptyIndex(),
      labelSubscriptions: emptyIndex<boolean>(),
      labelTitles: emptyIndex(),
      links: emptyIndex(),
    },
  };
}

/** iids per chunk of the per-project index: 2^6, so that adding one copies a small set. */
const CHUNK_BITS = 6;

export type Kind = 'i' | 'm';

/** Adds an issue (`i`) or merge request (`m`) to its project's chunked index. */
export function chunkAdd(ix: MultiIndex, kind: Kind, projectId: number, iid: number, id: number): void {
  madd(ix, `${kind}${projectId}:${iid >> CHUNK_BITS}`, id);
}

export function chunkRemove(ix: MultiIndex, kind: Kind, projectId: number, iid: number, id: number): void {
  mremove(ix, `${kind}${projectId}:${iid >> CHUNK_BITS}`, id);
}

/** Every id of a project's issues or merge requests, given the highest iid handed out. */
export function chunkIds(ix: MultiIndex, kind: Kind, projectId: number, maxIid: number): number[] {
  const out: number[] = [];
  for (let c = 0; c <= maxIid >> CHUNK_BITS; c++)
    for (const id of mget(ix, `${kind}${projectId}:${c}`)) out.push(id);
  return out;
}

export const iidKey = (kind: Kind, projectId: number, iid: number) =>
  kind === 'i' ? `${projectId}:${iid}` : `m${projectId}:${iid}`;

declare module '../../core/state.js' {
  interface AreaStates {
    issuables: IssuablesState;
  }
}
