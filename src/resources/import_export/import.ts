/**
 * Writing an archive's relations into a new project, through the areas' own writers (issuables, CI).
 * A row that cannot be imported is skipped and reported as a failed relation, as the platform's
 * relation restorer does; the rest of the import goes on.
 */
import type { Draft } from 'immer';
import type { PipelineRecord, PlatformState } from '../../core/state.js';
import { iget } from '../../core/table.js';
import { createPipeline, createVariable } from '../ci/model.js';
import {
  createIssue,
  createLabel,
  createMergeRequest,
  createMilestone,
  createNote,
  createSnippet,
  issueIdByIid,
  mergeRequestIdByIid,
} from '../issuables/model.js';
import type { NoteableType } from '../issuables/store.js';
import type { ArchiveContent } from './archive.js';
import type { FailedRelation } from './store.js';

type S = Draft<PlatformState>;
type Row = Record<string, unknown>;

/** The platform keeps at most this many failures per import. */
export const MAX_FAILED_RELATIONS = 100;

class RowError extends Error {}

const str = (row: Row, k: string, required = false): string | null => {
  const v = row[k];
  if (typeof v === 'string' && (!required || v !== '')) return v;
  if (v === undefined || v === null) {
    if (required) throw new RowError(`Validation failed: ${humanize(k)} can't be blank`);
    return null;
  }
  throw new RowError(`Validation failed: ${humanize(k)} is invalid`);
};
const bool = (row: Row, k: string, dflt: boolean): boolean =>
  typeof row[k] === 'boolean' ? (row[k] as boolean) : dflt;
const humanize = (k: string) => (k.charAt(0).toUpperCase() + k.slice(1)).replace(/_/g, ' ');
const time = (row: Row, k: string, now: string) => str(row, k) ?? now;

export interface ImportResult {
  failed: Omit<FailedRelation, 'id' | 'created_at'>[];
}

/** Imports every relation of `content` into project `pid`; unknown users become the importer. */
export function importRelations(
  st: S,
  pid: number,
  importerId: number,
  content: ArchiveContent,
  now: string,
): ImportResult {
  const failed: ImportResult['failed'] = [];
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

  const labels = new Map<string, number>();
  for (const row of rel.labels ?? []) {
    try {
      const title = str(row, 'title', true)!;
      if (labels.has(title)) throw new RowError('Validation failed: Title has already been taken');
      const color = str(row, 'color') ?? undefined;
      const priority = typeof row.priority === 'number' ? row.priority : null;
      const id = createLabel(
        st,
        { project_id: pid },
        { title, color, description: str(row, 'description'), priority },
        time(row, 'created_at', now),
      );
      labels.set(title, id);
    } catch (e) {
      fail('labels', e);
    }
  }
  const labelIds = (v: unknown) =>
    Array.isArray(v)
      ? v.map((t) => (typeof t === 'string' ? labels.get(t) : undefined)).filter((id) => id !== undefined)
      : [];

  const milestones = new Map<string, number>();
  for (const row of rel.milestones ?? []) {
    try {
      const title = str(row, 'title', true)!;
      if (milestones.has(title)) throw new RowError('Validation failed: Title has already been taken');
      const state = row.state === 'closed' ? 'closed' : 'active';
      const created = time(row, 'created_at', now);
      const id = createMilestone(
        st,
        { project_id: pid },
        {
          title,
          description: str(row, 'description'),
          state,
          due_date: str(row, 'due_date'),
          start_date: str(row, 'start_date'),
          created_at: created,
          updated_at: str(row, 'updated_at') ?? created,
        },
        now,
      );
      milestones.set(title, id);
    } catch (e) {
      fail('milestones', e);
    }
  }
  const milestoneId = (v: unknown) => (typeof v === 'string' ? (milestones.get(v) ?? null) : null);

  const notes = (type: NoteableType, noteableId: number, v: unknown) => {
    if (!Array.isArray(v)) return;
    for (const n of v as unknown[]) {
      try {
        if (typeof n !== 'object' || n === null) throw new RowError('Validation failed: Note is invalid');
        const row = n as Row;
        const author = findUser(row.author);
        if (author === undefined) throw new RowError("Validation failed: Author can't be blank");
        const created = time(row, 'created_at', now);
        createNote(
          st,
          {
            noteable_type: type,
            noteable_id: noteableId,
            project_id: pid,
            author_id: author,
            body: str(row, 'body', true)!,
            system: bool(row, 'system', false),
            confidential: bool(row, 'confidential', false),
            created_at: created,
            updated_at: str(row, 'updated_at') ?? created,
          },
          created,
        );
      } catch (e) {
        fail('notes', e);
      }
    }
  };
  const iidOf = (row: Row, taken: (iid: number) => boolean) => {
    const iid = row.iid;
    if (iid === undefined) return undefined;
    if (typeof iid !== 'number' || !Number.isInteger(iid) || iid < 1)
      throw new RowError('Validation failed: Iid is invalid');
    if (taken(iid)) throw new RowError('Validation failed: Iid has already been taken');
    return iid;
  };

  for (const row of rel.issues ?? []) {
    try {
      const created = time(row, 'created_at', now);
      const iid = iidOf(row, (n) => issueIdByIid(st, pid, n) !== undefined);
      const id = createIssue(
        st,
        {
          project_id: pid,
          iid,
          title: str(row, 'title', true)!,
          description: str(row, 'description'),
          state: row.state === 'closed' ? 'closed' : 'opened',
          author_id: userOr(row.author),
          assignee_ids: usersOf(row.assignees),
          label_ids: labelIds(row.labels),
          milestone_id: milestoneId(row.milestone),
          confidential: bool(row, 'confidential', false),
          discussion_locked: typeof row.discussion_locked === 'boolean' ? row.discussion_locked : null,
          due_date: str(row, 'due_date'),
          weight: typeof row.weight === 'number' ? row.weight : null,
          issue_type: row.issue_type === 'incident' ? 'incident' : 'issue',
          closed_at: str(row, 'closed_at'),
          closed_by_id: findUser(row.closed_by) ?? null,
          created_at: created,
          updated_at: str(row, 'updated_at') ?? created,
        },
        now,
      );
      notes('Issue', id, row.notes);
    } catch (e) {
      fail('issues', e);
    }
  }

  for (const row of rel.merge_requests ?? []) {
    try {
      const created = time(row, 'created_at', now);
      const iid = iidOf(row, (n) => mergeRequestIdByIid(st, pid, n) !== undefined);
      const state =
        (['opened', 'closed', 'merged', 'locked'] as const).find((s) => s === row.state) ?? 'opened';
      const status = (['unchecked', 'can_be_merged', 'cannot_be_merged'] as const).find(
        (s) => s === row.merge_status,
      );
      const id = createMergeRequest(
        st,
        {
          project_id: pid,
          iid,
          title: str(row, 'title', true)!,
          description: str(row, 'description'),
          source_branch: str(row, 'source_branch', true)!,
          target_branch: str(row, 'target_branch', true)!,
          state,
          author_id: userOr(row.author),
          assignee_ids: usersOf(row.assignees),
          reviewer_ids: usersOf(row.reviewers),
          label_ids: labelIds(row.labels),
          milestone_id: milestoneId(row.milestone),
          merge_status: status,
          conflicts: bool(row, 'conflicts', false),
          changes: typeof row.changes === 'number' && row.changes > 0 ? row.changes : undefined,
          squash: bool(row, 'squash', false),
          force_remove_source_branch:
            typeof row.force_remove_source_branch === 'boolean' ? row.force_remove_source_branch : null,
          allow_collaboration: bool(row, 'allow_collaboration', false),
          merged_by_id: findUser(row.merged_by) ?? null,
          merged_at: str(row, 'merged_at'),
          closed_by_id: findUser(row.closed_by) ?? null,
          closed_at: str(row, 'closed_at'),
          created_at: created,
          updated_at: str(row, 'updated_at') ?? created,
        },
        now,
      );
      notes('MergeRequest', id, row.notes);
    } catch (e) {
      fail('merge_requests', e);
    }
  }

  for (const row of rel.snippets ?? []) {
    try {
      const created = time(row, 'created_at', now);
      const vis = (['private', 'internal', 'public'] as const).find((v) => v === row.visibility) ?? 'private';
      const id = createSnippet(st, {
        project_id: pid,
        author_id: userOr(row.author),
        title: str(row, 'title', true)!,
        file_name: str(row, 'file_name') ?? '',
        description: str(row, 'description'),
        content: str(row, 'content') ?? '',
        visibility: vis,
        created_at: created,
        updated_at: str(row, 'updated_at') ?? created,
      });
      notes('Snippet', id, row.notes);
    } catch (e) {
      fail('snippets', e);
    }
  }

  const varKeys = new Set<string>();
  for (const row of rel.ci_variables ?? []) {
    try {
      const key = str(row, 'key', true)!;
      const scope = str(row, 'environment_scope') ?? '*';
      if (varKeys.has(`${key}\0${scope}`))
        throw new RowError(`Validation failed: Key (${key}) has already been taken`);
      varKeys.add(`${key}\0${scope}`);
      createVariable(st, pid, {
        key,
        value: str(row, 'value') ?? '',
        variable_type: row.variable_type === 'file' ? 'file' : 'env_var',
        protected: bool(row, 'protected', false),
        masked: bool(row, 'masked', false),
        environment_scope: scope,
      });
    } catch (e) {
      fail('ci_variables', e);
    }
  }

  for (const row of rel.ci_pipelines ?? []) {
    try {
      const { user, ...rest } = row;
      str(row, 'ref', true);
      str(row, 'sha', true);
      str(row, 'created_at', true);
      createPipeline(st, {
        ...(rest as unknown as Omit<PipelineRecord, 'id'>),
        project_id: pid,
        user_id: findUser(user) ?? importerId,
      });
    } catch (e) {
      fail('ci_pipelines', e);
    }
  }
  return { failed };
}
