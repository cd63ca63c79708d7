/**
 * The shapes of issues, merge requests, notes, milestones, labels, todos, award emoji and diff versions,
 * in the platform's field order (Grape exposes fields in declaration order, subclasses after their
 * parents, EE additions after the CE ones):
 *
 * - issue (issue-entity.ts): `Issue` (lists use it too, without `subscribed`); `basic` is `IssueBasic`
 *   (milestone lists);
 * - merge request (merge-request-entity.ts): `MergeRequestBasic` for lists, `MergeRequest` for one,
 *   `MergeRequestSimple` for view=simple;
 * - here: notes, award emoji, todos and diff versions; the shared helpers are in render-base.ts.
 */
import type { Ctx } from '../../core/context.js';
import type { RecordRenderings } from '../../core/render-cache.js';
import { tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { MergeRequestRenderer } from './merge-request-entity.js';
import { isResolvable } from './model.js';
import { nameWithNamespace, type From, type Json } from './render-base.js';
import type {
  AwardEmojiRecord,
  DiffVersionRecord,
  EpicRecord,
  NoteRecord,
  SnippetRecord,
  TodoRecord,
} from './store.js';
import { gitTime } from '../repository/entities.js';
import { objectsOf } from '../repository/store.js';

export { humanTime, nameWithNamespace, type From } from './render-base.js';
export { canMerge, type MergeRequestFullOptions } from './merge-request-entity.js';

export class IssuableRenderer extends MergeRequestRenderer {
  readonly #notes: RecordRenderings<NoteRecord>;

  constructor(c: Ctx, from: From = null) {
    super(c, from);
    this.#notes = c.get('fx').renderings.kind<NoteRecord>('note');
  }

  /** `Note`. */
  note(n: NoteRecord): Json {
    let iid: number | null = null;
    if (n.noteable_type === 'Issue') iid = tget(this.st.issuables.issues, n.noteable_id)?.iid ?? null;
    if (n.noteable_type === 'MergeRequest')
      iid = tget(this.st.issuables.mergeRequests, n.noteable_id)?.iid ?? null;
    const out: Json = {
      id: n.id,
      type: n.type ?? null,
      body: n.body,
      attachment: null,
      author: this.user(n.author_id),
      created_at: n.created_at,
      updated_at: n.updated_at,
      system: n.system,
      // A commit note's column is null: its commit is its `commit_id`, which the entity does not show.
      noteable_id: n.noteable_type === 'Commit' ? null : n.noteable_id,
      noteable_type: n.noteable_type,
    };
    if (n.type === 'DiffNote') out.position = n.position ?? null;
    out.resolvable = isResolvable(n);
    if (out.resolvable) {
      out.resolved = !!n.resolved_at;
      out.resolved_by = this.user(n.resolved_by_id ?? null);
      out.resolved_at = n.resolved_at ?? null;
    }
    out.confidential = n.confidential;
    out.noteable_iid = iid;
    return out;
  }

  /**
   * `note` as bytes, kept per record: the noteable's iid is a value of the key (its record changes with
   * every note counted on it); the users it shows and the settings are its deps.
   */
  noteBytes(n: NoteRecord): Buffer<ArrayBuffer> {
    const st = this.st;
    let iid: number | null = null;
    if (n.noteable_type === 'Issue') iid = tget(st.issuables.issues, n.noteable_id)?.iid ?? null;
    if (n.noteable_type === 'MergeRequest')
      iid = tget(st.issuables.mergeRequests, n.noteable_id)?.iid ?? null;
    const resolver = n.resolved_by_id ?? null;
    const deps = [
      st.settings,
      tget(st.users, n.author_id),
      resolver === null ? null : tget(st.users, resolver),
    ];
    return this.#notes.bytes(n, `${iid}|${this.base}`, deps, () => JSON.stringify(this.note(n)));
  }

  /** The spec's GET shape of snippet and epic notes. */
  noteOfSnippetOrEpic(n: NoteRecord, parent: SnippetRecord | EpicRecord): Json {
    const out: Json = {
      id: n.id,
      title: parent.title,
      file_name: 'file_name' in parent ? parent.file_name : null,
      author: this.user(n.author_id),
      expires_at: null,
      updated_at: n.updated_at,
      created_at: n.created_at,
    };
    if (n.noteable_type === 'Epic') out.confidential = n.confidential;
    return out;
  }

  /** `AwardEmoji`. */
  award(a: AwardEmojiRecord): Json {
    return {
      id: a.id,
      name: a.name,
      user: this.user(a.user_id),
      created_at: a.created_at,
      updated_at: a.updated_at,
      awardable_id: a.awardable_id,
      awardable_type: a.awardable_type,
    };
  }

  /** `Todo` with its `ProjectIdentity` and the full target. */
  todo(t: TodoRecord, target: Json, targetUrl: string): Json {
    const out: Json = { id: t.id };
    // `expose :project, if: project_id` and `expose :group (NamespaceBasic), if: group_id`.
    if (t.project_id !== null) {
      const p = this.project(t.project_id);
      out.project = {
        id: p.id,
        description: p.description,
        name: p.name,
        name_with_namespace: nameWithNamespace(this.st, p),
        path: p.path,
        path_with_namespace: p.path_with_namespace,
        created_at: p.created_at,
      };
    }
    const g = t.group_id == null ? undefined : tget(this.st.groups, t.group_id);
    if (g) {
      const a = (g as { avatar_url?: unknown }).avatar_url;
      out.group = {
        id: g.id,
        name: g.name,
        path: g.path,
        kind: 'group',
        full_path: g.full_path,
        parent_id: g.parent_id,
        avatar_url: typeof a === 'string' && a !== '' ? (a.startsWith('/') ? this.base + a : a) : null,
        web_url: `${this.base}/groups/${g.full_path}`,
      };
    }
    return Object.assign(out, {
      author: this.user(t.author_id),
      action_name: t.action,
      target_type: t.target_type,
      target,
      target_url: targetUrl,
      body: t.body,
      state: t.state,
      created_at: t.created_at,
      updated_at: t.updated_at,
    });
  }

  /**
   * `Entities::Commit` of a version's commits, from the object store (a snapshot imported without its
   * objects shows what it recorded).
   */
  versionCommits(d: DiffVersionRecord, p: Project | undefined): Json[] {
    const store = objectsOf(this.st);
    const url = (id: string) => (p ? `${this.base}/${p.path_with_namespace}/-/commit/${id}` : null);
    return d.commits.map((cm, i) => {
      const o = store.commit(cm.id);
      if (o)
        return {
          id: cm.id,
          short_id: cm.id.slice(0, 8),
          created_at: gitTime(o.committer.time, o.committer.offset),
          parent_ids: [...o.parents],
          title: o.message.split('\n', 1)[0]!,
          message: o.message,
          author_name: o.author.name,
          author_email: o.author.email,
          authored_date: gitTime(o.author.time, o.author.offset),
          committer_name: o.committer.name,
          committer_email: o.committer.email,
          committed_date: gitTime(o.committer.time, o.committer.offset),
          trailers: {},
          web_url: url(cm.id),
        };
      return {
        id: cm.id,
        short_id: cm.short_id,
        created_at: cm.created_at,
        parent_ids: [d.commits[i + 1]?.id ?? d.base_commit_sha],
        title: cm.title,
        message: cm.message,
        author_name: cm.author_name,
        author_email: cm.author_email,
        authored_date: cm.created_at,
        committer_name: cm.author_name,
        committer_email: cm.author_email,
        committed_date: cm.created_at,
        web_url: url(cm.id),
      };
    });
  }

  /** `MergeRequestDiff`; `full` adds commits and diffs (`MergeRequestDiffFull`). */
  diffVersion(d: DiffVersionRecord, full: boolean): Json {
    const out: Json = {
      id: d.id,
      head_commit_sha: d.head_commit_sha,
      base_commit_sha: d.base_commit_sha,
      start_commit_sha: d.start_commit_sha,
      created_at: d.created_at,
      merge_request_id: d.merge_request_id,
      state: d.state,
      real_size: d.real_size,
    };
    if (!full) return out;
    const mr = tget(this.st.issuables.mergeRequests, d.merge_request_id);
    const p = mr ? this.project(mr.project_id) : undefined;
    out.commits = this.versionCommits(d, p);
    out.diffs = d.files.map((f) => ({ ...f }));
    return out;
  }
}

export const issuableRenderer = (c: Ctx, from: From = null) => new IssuableRenderer(c, from);
