/** The events writers emit once after their write (`emitEvent`), for integrations and webhooks alike. */
import type { IssueRecord, MergeRequestRecord } from '../issuables/store.js';

export interface PushedCommits {
  ids: readonly string[];
  total: number;
}

export type ProjectEvent =
  /** An issue was created (`before` null) or written; `prev` is the record before the write. */
  | { kind: 'issue'; id: number; before: string | null; prev?: IssueRecord }
  | { kind: 'merge_request'; id: number; before: string | null; prev?: MergeRequestRecord }
  | { kind: 'note'; id: number }
  /** A pipeline was created or retried: it notifies when it finishes on the instance clock. */
  | { kind: 'pipeline'; id: number }
  /** A deployment the API created or moved: its hooks hear the status it has now. */
  | { kind: 'deployment'; id: number }
  /** A release was made or edited through the API. */
  | { kind: 'release'; id: number; action: 'create' | 'update' }
  | {
      kind: 'push';
      projectId: number;
      ref: string;
      tag: boolean;
      before: string;
      after: string;
      userId: number | null;
      /** What a git push brought (`Git::BranchHooksService#commits`): the latest 20, oldest first, and the count. */
      commits?: PushedCommits;
    }
  /** A project wiki page was created, updated or deleted: the page as the write left it (or found it). */
  | {
      kind: 'wiki_page';
      projectId: number;
      action: 'create' | 'update' | 'delete';
      page: { slug: string; format: string; content: string };
    }
  /** A group event for the group hooks of the group and its ancestors (`member_hooks`, `subgroup_hooks`). */
  | {
      kind: 'group_hook';
      groupId: number;
      scope: 'member_hooks' | 'subgroup_hooks';
      name: string;
      data: Record<string, unknown>;
    }
  /** An instance event for the system hooks (`project_create`, `user_destroy`, ...), its data built by the writer; `only` sends it to one hook (a hook test). */
  | { kind: 'system'; name: string; data: Record<string, unknown>; only?: number };
