/**
 * The webhook payloads of the 13.x docs (doc/user/project/integrations/webhooks.md), built from the
 * records as the platform's data builders build them. Record times are written as Sidekiq's JSON
 * writes Ruby times (`2021-03-01 12:00:00 UTC`): the platform hands hook data to a background job,
 * which is what its receivers see; push commit timestamps are `xmlschema`, as the push builder writes them.
 */
import type { PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { PushedCommits } from '../integrations/kinds.js';
import { gitTime } from '../repository/entities.js';
import { peel } from '../repository/refs.js';
import { objectsOf } from '../repository/store.js';
import { diffTrees } from '../repository/tree.js';
import { type Json, type Urls, projectAttrs, repositoryAttrs, userAttrs } from './payload-parts.js';

export interface PushData {
  kind: 'push' | 'tag_push';
  before: string;
  after: string;
  ref: string;
  userId: number | null;
  commits?: PushedCommits;
}

/**
 * `Commit#hook_attrs(with_changed_files: true)`: the commit and the paths it added, modified, removed
 * (without them: what a note hook shows of the commit it is on).
 */
export function commitHookAttrs(
  st: PlatformState,
  u: Urls,
  p: ProjectRecord,
  id: string,
  withChangedFiles = true,
): Json {
  const store = objectsOf(st);
  const c = store.commit(id);
  if (!c) return { id };
  const line = c.message.split('\n')[0]!.trim();
  const title = line.length > 100 ? `${line.slice(0, 80)}…` : line;
  const attrs: Json = {
    id,
    message: c.message,
    title,
    // `Commit#timestamp`: the committed date's `xmlschema`, in the committer's offset, no fraction.
    timestamp: gitTime(c.committer.time, c.committer.offset).replace('.000', ''),
    url: `${u.base}/${p.path_with_namespace}/-/commit/${id}`,
    author: { name: c.author.name, email: c.author.email },
  };
  if (!withChangedFiles) return attrs;
  const parent = c.parents[0] === undefined ? undefined : store.commit(c.parents[0])?.tree;
  const added: string[] = [];
  const modified: string[] = [];
  const removed: string[] = [];
  for (const d of diffTrees(store, parent, c.tree)) {
    if (!d.new) removed.push(d.path);
    else if (d.from !== undefined) {
      removed.push(d.from);
      added.push(d.path);
    } else if (!d.old) added.push(d.path);
    else modified.push(d.path);
  }
  return { ...attrs, added, modified, removed };
}

const BLANK_SHA = '0000000000000000000000000000000000000000';

/** The past tense of a wiki action, as the wiki's default commit message words it. */
const WIKI_DONE = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/**
 * `Gitlab::DataBuilder::WikiPage`: the user, the project, the wiki (`Wiki#hook_attrs`) and the page's
 * attributes with its URL and the action; a page saved through the API has the wiki's default commit
 * message (`<username> created page: <title>`).
 */
export function wikiPagePayload(
  st: PlatformState,
  u: Urls,
  p: ProjectRecord,
  user: UserRecord | undefined,
  page: { slug: string; format: string; content: string },
  action: 'create' | 'update' | 'delete',
): Json {
  const web = `${u.base}/${p.path_with_namespace}`;
  const title = page.slug.slice(page.slug.lastIndexOf('/') + 1).replace(/-+/g, ' ');
  return {
    object_kind: 'wiki_page',
    user: userAttrs(u, user),
    project: projectAttrs(st, u, p),
    wiki: {
      web_url: `${web}/-/wikis/home`,
      git_ssh_url: `git@${u.host}:${p.path_with_namespace}.wiki.git`,
      git_http_url: `${web}.wiki.git`,
      path_with_namespace: `${p.path_with_namespace}.wiki`,
      default_branch: 'master',
    },
    object_attributes: {
      title,
      content: page.content,
      format: page.format,
      message: `${user?.username ?? 'ghost'} ${WIKI_DONE[action]} page: ${title}`,
      slug: page.slug,
      url: `${web}/-/wikis/${page.slug}`,
      action,
    },
  };
}

/** `Gitlab::DataBuilder::Push`: the commits a git push brought (none for `POST /__fauxlab/push`). */
export function pushPayload(st: PlatformState, u: Urls, p: ProjectRecord, d: PushData): Json {
  const user = d.userId === null ? undefined : tget(st.users, d.userId);
  const a = userAttrs(u, user);
  return {
    object_kind: d.kind,
    event_name: d.kind,
    before: d.before,
    after: d.after,
    ref: `${d.kind === 'tag_push' ? 'refs/tags/' : 'refs/heads/'}${d.ref}`,
    // `Push.checkout_sha`: a tag's commit (an annotated tag dereferenced), a branch's new head.
    checkout_sha:
      d.after === BLANK_SHA ? null : d.kind === 'tag_push' ? peel(objectsOf(st), d.after) : d.after,
    message: null,
    user_id: user?.id ?? null,
    user_name: a.name,
    user_username: a.username,
    user_email: a.email,
    user_avatar: a.avatar_url,
    project_id: p.id,
    project: projectAttrs(st, u, p),
    commits: (d.commits?.ids ?? []).map((id) => commitHookAttrs(st, u, p, id)),
    total_commits_count: d.commits?.total ?? 0,
    push_options: {},
    repository: repositoryAttrs(st, u, p, true),
  };
}

/** `Gitlab::DataBuilder::Pipeline`, with the status the pipeline has now. */
