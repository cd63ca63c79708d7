/**
 * Writing an archive into a project, as the platform's tree restorer does: the project's attributes,
 * its repository refs, members, labels, milestones, issues, merge requests (with their diff versions),
 * snippets, notes, award emoji and pipelines, through the areas' own writers where they exist.
 *
 * A row that cannot be imported is skipped and reported as a failed relation (as the relation restorer
 * does); the rest of the import goes on. Each row is checked before anything of it is written, so a
 * skipped row leaves nothing behind.
 */
import type { Draft } from 'immer';
import { ACCESS, VISIBILITY_LEVEL } from '../../core/access.js';
import { nextId, type PipelineRecord, type PlatformState, type Visibility } from '../../core/state.js';
import { iget, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { createPipeline } from '../ci/model.js';
import { addRef } from '../ci/refs.js';
import { objectsFor } from '../repository/store.js';
import {
  addAward,
  createIssue,
  createLabel,
  createMergeRequest,
  createMilestone,
  createNote,
  createSnippet,
  groupMeta,
  issueIdByIid,
  mergeRequestIdByIid,
  projectMeta,
} from '../issuables/model.js';
import type {
  AwardableType,
  DiffCommit,
  DiffFile,
  DiffVersionRecord,
  MergeStatus,
  NoteableType,
} from '../issuables/store.js';
import { groupChain } from '../projects/access.js';
import { setMember, type Project } from '../projects/model.js';
import { visibilityRestricted } from '../settings/model.js';
import { NOT_EXPORTED, type ArchiveContent } from './archive.js';
import type { FailedRelation } from './store.js';

type S = Draft<PlatformState>;
type Row = Record<string, unknown>;

/** The platform keeps at most this many failures per import (`relation_hard_failures(limit: 100)`). */
export const MAX_FAILED_RELATIONS = 100;

class RowError extends Error {}

const humanize = (k: string) => (k.charAt(0).toUpperCase() + k.slice(1)).replace(/_/g, ' ');
const invalid = (k: string) => new RowError(`Validation failed: ${humanize(k)} is invalid`);

const str = (row: Row, k: string, required = false): string | null => {
  const v = row[k];
  if (typeof v === 'string' && (!required || v !== '')) return v;
  if (v === undefined || v === null || v === '') {
    if (required) throw new RowError(`Validation failed: ${humanize(k)} can't be blank`);
    return null;
  }
  throw invalid(k);
};
const bool = (row: Row, k: string, dflt: boolean): boolean =>
  typeof row[k] === 'boolean' ? (row[k] as boolean) : dflt;
const nullableBool = (row: Row, k: string): boolean | null =>
  typeof row[k] === 'boolean' ? (row[k] as boolean) : null;
const int = (row: Row, k: string): number | null => {
  const v = row[k];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(k);
  return v;
};
const oneOf = <T extends string>(row: Row, k: string, values: readonly T[], dflt: T): T =>
  values.find((v) => v === row[k]) ?? dflt;
const rows = (v: unknown): Row[] =>
  Array.isArray(v) ? v.filter((r): r is Row => typeof r === 'object' && r !== null && !Array.isArray(r)) : [];

export type Failure = Omit<FailedRelation, 'id' | 'created_at'>;

/**
 * Restores `content` into project `pid` (the import's shell). `overrides` are the request's
 * `override_params` as project fields; they win over the archive's attributes.
 */
export function restoreProject(
  st: S,
  pid: number,
  importerId: number,
  content: ArchiveContent,
  overrides: Row,
  now: string,
): Failure[] {
  const failed: Failure[] = [];
  const fail = (relation: string, e: unknown) => {
    if (!(e instanceof RowError)) throw e;
    failed.push({
      exception_class: 'ActiveRecord::RecordInvalid',
      exception_message: e.message,
      source: 'process_relation_item!',
      relation_name: relation,
    });
  };
  const findUser = (ref: unknown): number | undefined => {
    if (typeof ref !== 'object' || ref === null) return undefined;
    const { username, email } = ref as { username?: unknown; email?: unknown };
    const byName = typeof username === 'string' ? iget(st.idx.usernames, username.toLowerCase()) : undefined;
    return byName ?? (typeof email === 'string' ? iget(st.idx.emails, email.toLowerCase()) : undefined);
  };
  const userOr = (ref: unknown) => findUser(ref) ?? importerId;
  const usersOf = (refs: unknown) =>
    Array.isArray(refs) ? [...new Set(refs.map(findUser).filter((id) => id !== undefined))] : [];
  const rel = content.relations;

  applyAttributes(st, pid, { ...content.project, ...overrides });
  const project = tget(st.projects, pid) as Draft<Project>;
  const groups = groupChain(st, project);

  const git = content.repository.git;
  if (git) {
    // The bundle's objects, under the ids they had: the refs then name the same commits and tags.
    const store = objectsFor(st);
    for (const o of git.objects) store.put(o.type, o.data);
    for (const r of git.refs) {
      if (r.name.startsWith('refs/heads/')) addRef(st, pid, 'branch', r.name.slice(11), r.id);
      else if (r.name.startsWith('refs/tags/')) addRef(st, pid, 'tag', r.name.slice(10), r.id);
    }
  }
  // repository.json: the refs a bundle does not carry (an archive without one, or refs a scenario gave
  // a sha that names no object), as bare shas.
  const inBundle = new Set(git?.refs.map((r) => r.name));
  for (const [kind, refs] of [
    ['branch', content.repository.branches],
    ['tag', content.repository.tags],
  ] as const)
    for (const [name, sha] of Object.entries(refs))
      if (!inBundle.has(`refs/${kind === 'branch' ? 'heads' : 'tags'}/${name}`))
        addRef(st, pid, kind, name, sha);

  // `MembersMapper`: the importer is a maintainer at least; the archive's members follow, mapped to the
  // users of this instance (members nobody here matches are left out, as the platform does).
  const importer = iget(st.idx.members, `project:${pid}:${importerId}`);
  if (importer === undefined || tget(st.members, importer)!.access_level < ACCESS.MAINTAINER)
    setMember(st, 'project', pid, importerId, ACCESS.MAINTAINER, now);
  for (const row of rel.project_members) {
    try {
      const user = findUser(row.user);
      if (user === undefined) continue;
      const level = int(row, 'access_level');
      if (level === null || ![10, 20, 30, 40, 50].includes(level)) throw invalid('access_level');
      const expires = str(row, 'expires_at');
      const existing = iget(st.idx.members, `project:${pid}:${user}`);
      if (existing !== undefined && tget(st.members, existing)!.access_level >= level) continue;
      // Project members are maintainers at most on import.
      const id = setMember(st, 'project', pid, user, Math.min(level, ACCESS.MAINTAINER), now, expires);
      tget(st.members, id)!.created_at = str(row, 'created_at') ?? now;
    } catch (e) {
      fail('project_members', e);
    }
  }

  // Labels and milestones by title; group ones are found in the project's groups (nearest first) or
  // made in its group, and become the project's own in a personal namespace (`ObjectBuilder`).
  const labels = new Map<string, number>();
  for (const row of rel.labels) {
    try {
      const title = str(row, 'title', true)!;
      if (labels.has(title)) throw new RowError('Validation failed: Title has already been taken');
      const input = {
        title,
        color: str(row, 'color') ?? undefined,
        description: str(row, 'description'),
        priority: int(row, 'priority'),
      };
      const created = str(row, 'created_at') ?? now;
      let id: number | undefined;
      if (row.group === true && groups.length > 0) {
        for (const g of groups) {
          id = mget(st.issuables.idx.owned, `lg${g.id}`).find(
            (l) => tget(st.issuables.labels, l)?.title === title,
          );
          if (id !== undefined) break;
        }
        id ??= createLabel(st, { group_id: groups[0]!.id }, { ...input, priority: null }, created);
      } else id = createLabel(st, { project_id: pid }, input, created);
      labels.set(title, id);
    } catch (e) {
      fail('labels', e);
    }
  }
  const labelIds = (v: unknown) =>
    Array.isArray(v)
      ? [...new Set(v.map((t) => (typeof t === 'string' ? labels.get(t) : undefined)))].filter(
          (id) => id !== undefined,
        )
      : [];

  const milestones = new Map<string, number>();
  const milestoneKey = (title: string, group: boolean) =>
    `${group && groups.length > 0 ? 'g' : 'p'}:${title}`;
  for (const row of rel.milestones) {
    try {
      const title = str(row, 'title', true)!;
      const key = milestoneKey(title, row.group === true);
      if (milestones.has(key)) throw new RowError('Validation failed: Title has already been taken');
      const created = str(row, 'created_at') ?? now;
      const input = {
        title,
        description: str(row, 'description'),
        state: oneOf(row, 'state', ['active', 'closed'], 'active'),
        due_date: str(row, 'due_date'),
        start_date: str(row, 'start_date'),
        created_at: created,
        updated_at: str(row, 'updated_at') ?? created,
      };
      const iid = int(row, 'iid');
      if (iid !== null && iid < 1) throw invalid('iid');
      let id: number | undefined;
      if (key.startsWith('g')) {
        for (const g of groups) {
          id = mget(st.issuables.idx.owned, `g${g.id}`).find(
            (m) => tget(st.issuables.milestones, m)?.title === title,
          );
          if (id !== undefined) break;
        }
        if (id === undefined) {
          const gid = groups[0]!.id;
          id = createMilestone(st, { group_id: gid }, input, now);
          const taken = mget(st.issuables.idx.owned, `g${gid}`).some(
            (m) => m !== id && tget(st.issuables.milestones, m)?.iid === iid,
          );
          if (iid !== null && !taken) keepIid(st, id, iid, groupMeta(st, gid));
        }
      } else {
        id = createMilestone(st, { project_id: pid }, input, now);
        const taken = mget(st.issuables.idx.owned, `p${pid}`).some(
          (m) => m !== id && tget(st.issuables.milestones, m)?.iid === iid,
        );
        if (iid !== null && !taken) keepIid(st, id, iid, projectMeta(st, pid));
      }
      milestones.set(key, id);
    } catch (e) {
      fail('milestones', e);
    }
  }
  const milestoneId = (v: unknown) => {
    if (typeof v !== 'object' || v === null) return null;
    const { title, group } = v as { title?: unknown; group?: unknown };
    return typeof title === 'string' ? (milestones.get(milestoneKey(title, group === true)) ?? null) : null;
  };

  /** Award emoji rows, checked; written by `addAwards` once their awardable exists. */
  const checkAwards = (v: unknown) =>
    rows(v).map((row) => {
      const user = findUser(row.user);
      if (user === undefined) throw new RowError("Validation failed: User can't be blank");
      const name = str(row, 'name', true)!;
      const created = str(row, 'created_at') ?? now;
      return { user, name, created, updated: str(row, 'updated_at') ?? created };
    });
  const addAwards = (type: AwardableType, id: number, v: unknown) => {
    const seen = new Set<string>();
    for (const row of rows(v)) {
      try {
        const [a] = checkAwards([row]);
        if (seen.has(`${a!.user}:${a!.name}`))
          throw new RowError('Validation failed: User has already been taken');
        seen.add(`${a!.user}:${a!.name}`);
        const award = tget(st.issuables.awards, addAward(st, type, id, a!.user, a!.name, a!.created))!;
        award.updated_at = a!.updated;
      } catch (e) {
        fail('award_emoji', e);
      }
    }
  };

  const notes = (type: NoteableType, noteableId: number, v: unknown, commitId?: string) => {
    for (const row of rows(v)) {
      try {
        const author = findUser(row.author);
        if (author === undefined) throw new RowError("Validation failed: Author can't be blank");
        const created = str(row, 'created_at') ?? now;
        const body = str(row, 'body', true)!;
        const id = createNote(
          st,
          {
            noteable_type: type,
            noteable_id: noteableId,
            commit_id: commitId,
            project_id: pid,
            author_id: author,
            body,
            system: bool(row, 'system', false),
            confidential: bool(row, 'confidential', false),
            created_at: created,
            updated_at: str(row, 'updated_at') ?? created,
          },
          created,
        );
        addAwards('Note', id, row.award_emoji);
      } catch (e) {
        fail('notes', e);
      }
    }
  };
  const iidOf = (row: Row, taken: (iid: number) => boolean) => {
    const iid = int(row, 'iid');
    if (iid === null) return undefined;
    if (iid < 1) throw invalid('iid');
    if (taken(iid)) throw new RowError('Validation failed: Iid has already been taken');
    return iid;
  };

  for (const row of rel.issues) {
    try {
      const created = str(row, 'created_at') ?? now;
      const updated = str(row, 'updated_at') ?? created;
      const iid = iidOf(row, (n) => issueIdByIid(st, pid, n) !== undefined);
      const input = {
        project_id: pid,
        iid,
        title: str(row, 'title', true)!,
        description: str(row, 'description'),
        state: oneOf(row, 'state', ['opened', 'closed'], 'opened'),
        author_id: userOr(row.author),
        assignee_ids: usersOf(row.assignees),
        label_ids: labelIds(row.labels),
        milestone_id: milestoneId(row.milestone),
        confidential: bool(row, 'confidential', false),
        discussion_locked: nullableBool(row, 'discussion_locked'),
        due_date: str(row, 'due_date'),
        weight: int(row, 'weight'),
        issue_type: oneOf(row, 'issue_type', ['issue', 'incident'], 'issue'),
        closed_at: str(row, 'closed_at'),
        closed_by_id: findUser(row.closed_by) ?? null,
        created_at: created,
        updated_at: updated,
      };
      const extra = {
        health_status: str(row, 'health_status'),
        relative_position: int(row, 'relative_position'),
        time_estimate: int(row, 'time_estimate') ?? 0,
        total_time_spent: int(row, 'total_time_spent') ?? 0,
      };
      const id = createIssue(st, input, now);
      Object.assign(tget(st.issuables.issues, id)!, extra);
      if (extra.relative_position !== null) {
        const meta = projectMeta(st, pid);
        meta.last_position = Math.max(meta.last_position, extra.relative_position);
      }
      addAwards('Issue', id, row.award_emoji);
      notes('Issue', id, row.notes);
      // Comments touch their noteable; the archive's time is the one it had after them.
      tget(st.issuables.issues, id)!.updated_at = updated;
    } catch (e) {
      fail('issues', e);
    }
  }

  for (const row of rel.merge_requests) {
    try {
      const created = str(row, 'created_at') ?? now;
      const updated = str(row, 'updated_at') ?? created;
      const iid = iidOf(row, (n) => mergeRequestIdByIid(st, pid, n) !== undefined);
      const diffs = rows(row.merge_request_diffs).map(checkDiff);
      const input = {
        project_id: pid,
        iid,
        title: str(row, 'title', true)!,
        description: str(row, 'description'),
        source_branch: str(row, 'source_branch', true)!,
        target_branch: str(row, 'target_branch', true)!,
        state: oneOf(row, 'state', ['opened', 'closed', 'merged', 'locked'], 'opened'),
        author_id: userOr(row.author),
        assignee_ids: usersOf(row.assignees),
        reviewer_ids: usersOf(row.reviewers),
        label_ids: labelIds(row.labels),
        milestone_id: milestoneId(row.milestone),
        merge_status: oneOf<MergeStatus>(
          row,
          'merge_status',
          ['unchecked', 'can_be_merged', 'cannot_be_merged'],
          'unchecked',
        ),
        conflicts: bool(row, 'conflicts', false),
        squash: bool(row, 'squash', false),
        force_remove_source_branch: nullableBool(row, 'force_remove_source_branch'),
        allow_collaboration: bool(row, 'allow_collaboration', false),
        merged_by_id: findUser(row.merged_by) ?? null,
        merged_at: str(row, 'merged_at'),
        closed_by_id: findUser(row.closed_by) ?? null,
        closed_at: str(row, 'closed_at'),
        created_at: created,
        updated_at: updated,
      };
      const extra = {
        merge_check_due_at: str(row, 'merge_check_due_at'),
        merge_when_pipeline_succeeds: bool(row, 'merge_when_pipeline_succeeds', false),
        merge_commit_sha: str(row, 'merge_commit_sha'),
        squash_commit_sha: str(row, 'squash_commit_sha'),
        should_remove_source_branch: nullableBool(row, 'should_remove_source_branch'),
        merge_error: str(row, 'merge_error'),
        discussion_locked: nullableBool(row, 'discussion_locked'),
        approvals_before_merge: int(row, 'approvals_before_merge'),
        time_estimate: int(row, 'time_estimate') ?? 0,
        total_time_spent: int(row, 'total_time_spent') ?? 0,
      };
      const id = createMergeRequest(st, input, now);
      const mr = tget(st.issuables.mergeRequests, id)!;
      Object.assign(mr, extra);
      if (diffs.length > 0) {
        // The archive's diff versions replace the one the writer generated (their commits and shas).
        for (const d of mget(st.issuables.idx.diffs, String(id))) {
          mremove(st.issuables.idx.diffs, String(id), d);
          tdelete(st.issuables.diffs, d);
        }
        for (const d of diffs) {
          const did = nextId(st, 'merge_request_diffs');
          tset(st.issuables.diffs, did, { ...d, id: did, merge_request_id: id });
          madd(st.issuables.idx.diffs, String(id), did);
          mr.diff_id = did;
        }
      }
      addAwards('MergeRequest', id, row.award_emoji);
      notes('MergeRequest', id, row.notes);
      mr.updated_at = updated;
    } catch (e) {
      fail('merge_requests', e);
    }
  }

  for (const row of rel.snippets) {
    try {
      const created = str(row, 'created_at') ?? now;
      const id = createSnippet(st, {
        project_id: pid,
        author_id: userOr(row.author),
        title: str(row, 'title', true)!,
        file_name: str(row, 'file_name') ?? '',
        description: str(row, 'description'),
        content: str(row, 'content') ?? '',
        visibility: oneOf(row, 'visibility', ['private', 'internal', 'public'], 'private'),
        created_at: created,
        updated_at: str(row, 'updated_at') ?? created,
      });
      addAwards('Snippet', id, row.award_emoji);
      notes('Snippet', id, row.notes);
    } catch (e) {
      fail('snippets', e);
    }
  }

  // Every pipeline of a commit carries the commit's notes: they are made once, with the first.
  const commitsWithNotes = new Set<string>();
  for (const row of rel.ci_pipelines) {
    try {
      const { user, notes: commitNotes, ...rest } = row;
      str(row, 'ref', true);
      const sha = str(row, 'sha', true)!;
      str(row, 'created_at', true);
      createPipeline(st, {
        ...(rest as unknown as Omit<PipelineRecord, 'id'>),
        project_id: pid,
        user_id: findUser(user) ?? importerId,
      });
      if (!commitsWithNotes.has(sha) && /^[0-9a-f]{40}$/.test(sha)) {
        commitsWithNotes.add(sha);
        notes('Commit', pid, commitNotes, sha);
      }
    } catch (e) {
      fail('ci_pipelines', e);
    }
  }
  return failed;
}

/** Gives a new milestone the archive's iid (when free), keeping the owner's sequence ahead of it. */
function keepIid(st: S, id: number, iid: number, meta: { milestone_iid: number }): void {
  tget(st.issuables.milestones, id)!.iid = iid;
  meta.milestone_iid = Math.max(meta.milestone_iid, iid);
}

const SHA = /^[0-9a-f]{40}$/;

/** A diff version row of the archive, checked (`merge_request_diff` with its commits and files). */
function checkDiff(row: Row): Omit<DiffVersionRecord, 'id' | 'merge_request_id'> {
  const sha = (k: string) => {
    const v = str(row, k, true)!;
    if (!SHA.test(v)) throw invalid(k);
    return v;
  };
  const commits: DiffCommit[] = rows(row.commits).map((c) => ({
    id: (() => {
      const v = str(c, 'id', true)!;
      if (!SHA.test(v)) throw invalid('sha');
      return v;
    })(),
    short_id: str(c, 'short_id') ?? String(c.id).slice(0, 8),
    title: str(c, 'title') ?? '',
    message: str(c, 'message') ?? '',
    author_name: str(c, 'author_name') ?? '',
    author_email: str(c, 'author_email') ?? '',
    created_at: str(c, 'created_at', true)!,
  }));
  const files: DiffFile[] = rows(row.files).map((f) => ({
    old_path: str(f, 'old_path', true)!,
    new_path: str(f, 'new_path', true)!,
    a_mode: str(f, 'a_mode') ?? '0',
    b_mode: str(f, 'b_mode') ?? '100644',
    new_file: bool(f, 'new_file', false),
    renamed_file: bool(f, 'renamed_file', false),
    deleted_file: bool(f, 'deleted_file', false),
    diff: str(f, 'diff') ?? '',
  }));
  return {
    head_commit_sha: sha('head_commit_sha'),
    base_commit_sha: sha('base_commit_sha'),
    start_commit_sha: sha('start_commit_sha'),
    created_at: str(row, 'created_at', true)!,
    state: 'collected',
    real_size: str(row, 'real_size') ?? String(files.length),
    commits,
    files,
  };
}

const FEATURE_LEVELS = ['disabled', 'private', 'enabled', 'public'] as const;

/**
 * `update_project_params!`: the archive's project attributes (then the overrides) on the project, each
 * only where fauxlab has the field and the value has its type; the visibility is lowered to what the
 * group and the instance allow (`drop_visibility_level!`).
 */
function applyAttributes(st: S, pid: number, attrs: Row): void {
  const p = tget(st.projects, pid) as Draft<Project>;
  const rec = p as unknown as Row;
  for (const [k, v] of Object.entries(attrs)) {
    if (NOT_EXPORTED.has(k) || !Object.hasOwn(rec, k) || k === 'visibility' || v === undefined) continue;
    const cur = rec[k];
    if (k.endsWith('_access_level')) {
      if (FEATURE_LEVELS.includes(v as (typeof FEATURE_LEVELS)[number])) rec[k] = v;
    } else if (k === 'container_expiration_policy' || k === 'custom_attributes') {
      if (typeof v === 'object' && v !== null && !Array.isArray(v))
        rec[k] = { ...(cur as Row), ...(v as Row) };
    } else if (v === null || cur === null || typeof v === typeof cur) rec[k] = v;
  }
  const wanted = attrs.visibility;
  let v: Visibility = wanted === 'public' || wanted === 'internal' ? wanted : 'private';
  const group = p.namespace_kind === 'group' ? tget(st.groups, p.namespace_id) : undefined;
  if (group && VISIBILITY_LEVEL[v] > VISIBILITY_LEVEL[group.visibility]) v = group.visibility;
  if (visibilityRestricted(st, v)) v = 'private';
  p.visibility = v;
}
