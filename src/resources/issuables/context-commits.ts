/**
 * A merge request's context commits (`lib/api/merge_requests.rb`, `MergeRequestContextCommit`,
 * `MergeRequests::AddContextService`): commits named by the client that show beside the merge request's
 * own, for the context of a merge request built on an earlier one. They are their own list (the
 * merge request's `commits` stay the diff's), and each is copied when added, as the platform copies the
 * commit's fields into its table.
 *
 * A sha is looked up in the merge request's target project only (`target_project.repository.commits_by`):
 * the object store is the instance's, so a commit of another project is "not valid" here, never shown.
 */
import { hash } from 'node:crypto';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, grapeError, apiError } from '../../core/errors.js';
import { escapeHtml } from '../../core/html.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { emptyTable, iget, tget, tset, tdelete } from '../../core/table.js';
import type { PlatformState } from '../../core/state.js';
import type { Project } from '../projects/model.js';
import { commitEntity, commitTitle } from '../repository/entities.js';
import { resolveCommit } from '../repository/refs.js';
import { objectsOf } from '../repository/store.js';
import { setting } from '../settings/model.js';
import { userRenderer } from '../users/entities.js';
import { abilities, canUpdateMergeRequest } from './access.js';
import { findMergeRequest, loadProject } from './common.js';
import type { ContextCommit } from './store.js';

/** `API::MergeRequests::CONTEXT_COMMITS_POST_LIMIT`. */
export const CONTEXT_COMMITS_POST_LIMIT = 20;

const PATH = '/projects/:id/merge_requests/:merge_request_iid/context_commits';

const iidShape = { merge_request_iid: p.int().required() };
const commitsShape = { ...iidShape, commits: p.strArray({ commaSeparated: true }).required().notBlank() };

/** A merge request's context commits, in the order they were added. */
export function contextCommitsOf(st: PlatformState, mrId: number): readonly ContextCommit[] {
  const t = st.issuables.contextCommits;
  return (t && tget(t, mrId)?.commits) ?? [];
}

/**
 * `CommaSeparatedToArray`: each value split at commas and stripped. `allow_blank: false` refuses an
 * empty list as Grape's presence check does (`commits is empty`).
 */
function commitIds(raw: readonly string[]): string[] {
  const ids = raw.flatMap((v) => v.split(',').map((s) => s.trim()));
  if (ids.length === 0) throw grapeError(400, 'commits is empty');
  return ids;
}

/** `find_merge_request_with_access`: the finder's 404 for a merge request the viewer cannot read. */
const withAccess = (c: Ctx, project: Project, iid: number) => findMergeRequest(c, project, iid);

/**
 * `Repository#commits_by(oids:)` (Gitaly's `ListCommitsByOid`): each id resolved as git resolves a
 * revision, the ones that name no commit of this project skipped. A list with a miss is shorter.
 */
function commitsBy(st: PlatformState, project: Project, ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of ids) {
    const sha = resolveCommit(st, project, id);
    if (sha !== undefined) out.push(sha);
  }
  return out;
}

/** A commit's fields as `build_context_commit_rows` copies them (dates as the database keeps them, UTC). */
function copyOf(st: PlatformState, sha: string): ContextCommit {
  const o = objectsOf(st).commit(sha)!;
  return {
    sha,
    message: o.message,
    author_name: o.author.name,
    author_email: o.author.email,
    authored_date: new Date(o.author.time * 1000).toISOString(),
    committer_name: o.committer.name,
    committer_email: o.committer.email,
    committed_date: new Date(o.committer.time * 1000).toISOString(),
  };
}

/** `GravatarService#execute` for an email at the default size (40, scale 2); null when Gravatar is off. */
function gravatarUrl(c: Ctx, email: string): string | null {
  if (!setting(state(c), 'gravatar_enabled')) return null;
  const host = requestBase(c).startsWith('https:')
    ? 'https://secure.gravatar.com'
    : 'https://www.gravatar.com';
  const digest = hash('md5', email.trim().toLowerCase(), 'hex');
  return `${host}/avatar/${digest}?s=80&d=identicon`;
}

/** `Commit#description`: the message after its title line (as rendered, without surrounding blank lines). */
function description(message: string): string {
  const at = message.indexOf('\n');
  return at < 0 ? '' : message.slice(at + 1).trim();
}

/**
 * `Entities::CommitWithLink` with `type: :full` and the merge request as `request`, over
 * `MergeRequestContextCommit#to_commit` (a `CachedCommit`: no parents, no trailers kept). The author is
 * the user with the commit's email (`UserPath`); `signature_html`, `prev_commit_id`, `next_commit_id` and
 * `pipeline_status_path` have nothing to read from the API's request and options, so they are null.
 */
function contextCommitEntity(c: Ctx, project: Project, cm: ContextCommit) {
  const st = state(c);
  const base = requestBase(c);
  const root = new URL(base).pathname.replace(/\/$/, '');
  const webUrl = `${base}/${project.path_with_namespace}/-/commit/${cm.sha}`;
  const userId = iget(st.idx.emails, cm.author_email.toLowerCase());
  const user = userId === undefined ? undefined : tget(st.users, userId);
  const author = user
    ? Object.assign(userRenderer(c).basic(user), {
        status_tooltip_html: null,
        path: `${root}/${user.username}`,
      })
    : null;
  const title = commitTitle(cm.message);
  return {
    id: cm.sha,
    short_id: cm.sha.slice(0, 8),
    created_at: cm.committed_date,
    parent_ids: [],
    title,
    message: cm.message,
    author_name: cm.author_name,
    author_email: cm.author_email,
    authored_date: cm.authored_date,
    committer_name: cm.committer_name,
    committer_email: cm.committer_email,
    committed_date: cm.committed_date,
    trailers: {},
    web_url: webUrl,
    author,
    author_gravatar_url: gravatarUrl(c, cm.author_email),
    commit_url: webUrl,
    commit_path: `${root}/${project.path_with_namespace}/-/commit/${cm.sha}`,
    // Banzai's single-line pipelines (`:commit_description`, `:single_line`): the text, escaped.
    description_html: escapeHtml(description(cm.message)),
    title_html: escapeHtml(title),
    signature_html: null,
    prev_commit_id: null,
    next_commit_id: null,
    pipeline_status_path: null,
  };
}

function list(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, ...paginationParams });
  const project = loadProject(c);
  const mr = withAccess(c, project, prm.merge_request_iid);
  return paginate(c, contextCommitsOf(state(c), mr.id), (cm) => contextCommitEntity(c, project, cm));
}

/** `POST`: at most 20 shas; `AddContextService` refuses a sha already added, then any it cannot find. */
function add(c: Ctx): Response {
  const prm = parse(c, commitsShape);
  const ids = commitIds(prm.commits);
  if (ids.length > CONTEXT_COMMITS_POST_LIMIT)
    throw apiError(400, `Context commits array size should not be more than ${CONTEXT_COMMITS_POST_LIMIT}`);
  const project = loadProject(c);
  const mr = withAccess(c, project, prm.merge_request_iid);
  const st = state(c);
  if (!canUpdateMergeRequest(abilities(st, c.get('viewer').user, project), mr)) throw forbidden();
  const existing = contextCommitsOf(st, mr.id);
  // `duplicates`: each added sha that a given id is a prefix of, shown as Ruby shows an array.
  const duplicates = existing.map((cm) => cm.sha).filter((sha) => ids.some((id) => sha.startsWith(id)));
  if (duplicates.length)
    throw apiError(
      400,
      `Context commits: [${duplicates.map((s) => JSON.stringify(s)).join(', ')}] are already created`,
    );
  const shas = commitsBy(st, project, ids);
  if (shas.length !== ids.length) throw apiError(400, "One or more context commits' sha is not valid.");
  // The table is unique by (merge request, sha): a sha named twice in one request is kept once.
  const fresh = [...new Set(shas)];
  write(c, (d) => {
    const t = (d.issuables.contextCommits ??= emptyTable());
    const rec = tget(t, mr.id);
    const added = fresh.map((sha) => copyOf(d as PlatformState, sha));
    if (rec) rec.commits = [...rec.commits, ...added];
    else tset(t, mr.id, { merge_request_id: mr.id, commits: added });
  });
  return c.json(
    shas.map((sha) => commitEntity(c, project, sha)),
    201,
  );
}

/** `DELETE`: every sha must name a commit of the project; those that are context commits are removed. */
function remove(c: Ctx): Response {
  const prm = parse(c, commitsShape);
  const ids = commitIds(prm.commits);
  const project = loadProject(c);
  const mr = withAccess(c, project, prm.merge_request_iid);
  const st = state(c);
  // `destroy_merge_request`: owners and admins.
  if (!abilities(st, c.get('viewer').user, project).owner) throw forbidden();
  const found = commitsBy(st, project, ids);
  if (found.length !== ids.length) throw apiError(400, "One or more context commits' sha is not valid.");
  const shas = new Set(found);
  const kept = contextCommitsOf(st, mr.id).filter((cm) => !shas.has(cm.sha));
  if (kept.length !== contextCommitsOf(st, mr.id).length)
    write(c, (d) => {
      const t = d.issuables.contextCommits!;
      if (kept.length) tget(t, mr.id)!.commits = kept;
      else tdelete(t, mr.id);
    });
  return c.body(null, 204);
}

export function contextCommitsRoutes(r: ApiRouter): void {
  r.get(PATH, list);
  r.post(PATH, add);
  r.delete(PATH, remove);
}
