/**
 * The webhook payloads of the 13.x docs (doc/user/project/integrations/webhooks.md), built from the
 * records as the platform's data builders build them. Record times are written as Sidekiq's JSON
 * writes Ruby times (`2021-03-01 12:00:00 UTC`): the platform hands hook data to a background job,
 * which is what its receivers see; push commit timestamps are `xmlschema`, as the push builder writes them.
 */
import { VISIBILITY_LEVEL } from '../../core/access.js';
import type { PipelineRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { inSpan } from '../../core/versions.js';
import type { PushedCommits } from '../integrations/kinds.js';
import type { IssueRecord, MergeRequestRecord, NoteRecord } from '../issuables/store.js';
import { isWip } from '../issuables/text.js';
import { WIP_TITLE_PREFIX } from '../issuables/versions.js';
import { gitTime } from '../repository/entities.js';
import { peel } from '../repository/refs.js';
import { objectsOf } from '../repository/store.js';
import { diffTrees } from '../repository/tree.js';

export type Json = Record<string, unknown>;

/** `Time#to_s` of a UTC time. */
export const rubyTime = (iso: string | null | undefined): string | null =>
  iso ? `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC` : null;

export interface Urls {
  base: string;
  host: string;
}

export const urlsOf = (base: string): Urls => ({ base, host: new URL(base).hostname });

const absolute = (u: Urls, path: string | null | undefined) =>
  path ? (path.startsWith('/') ? u.base + path : path) : null;

function namespaceName(st: PlatformState, p: ProjectRecord): string {
  if (p.namespace_kind === 'group') return tget(st.groups, p.namespace_id)?.name ?? '';
  return p.owner_id === null ? '' : (tget(st.users, p.owner_id)?.name ?? '');
}

/** `Project#hook_attrs`, with the backward-compatible URL keys. */
export function projectAttrs(st: PlatformState, u: Urls, p: ProjectRecord): Json {
  const web = `${u.base}/${p.path_with_namespace}`;
  const ssh = `git@${u.host}:${p.path_with_namespace}.git`;
  const http = `${web}.git`;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    web_url: web,
    avatar_url: absolute(u, p.avatar_url as string | null | undefined),
    git_ssh_url: ssh,
    git_http_url: http,
    namespace: namespaceName(st, p),
    visibility_level: VISIBILITY_LEVEL[p.visibility],
    path_with_namespace: p.path_with_namespace,
    default_branch: p.default_branch,
    ci_config_path: (p.ci_config_path as string | null | undefined) ?? null,
    homepage: web,
    url: ssh,
    ssh_url: ssh,
    http_url: http,
  };
}

/** The `repository` part: a slice of the project's hook attributes. */
export function repositoryAttrs(st: PlatformState, u: Urls, p: ProjectRecord, full: boolean): Json {
  const a = projectAttrs(st, u, p);
  const out: Json = { name: a.name, url: a.url, description: a.description, homepage: a.homepage };
  if (full)
    Object.assign(out, {
      git_http_url: a.git_http_url,
      git_ssh_url: a.git_ssh_url,
      visibility_level: a.visibility_level,
    });
  return out;
}

/** `User#hook_attrs`. */
export function userAttrs(u: Urls, user: UserRecord | undefined): Json {
  return {
    name: user?.name ?? 'Ghost User',
    username: user?.username ?? 'ghost',
    avatar_url: absolute(u, user?.avatar_url),
    email: user?.email ?? '',
  };
}

const shortUser = (u: Urls, user: UserRecord | undefined) => {
  const { name, username, avatar_url } = userAttrs(u, user);
  return { name, username, avatar_url };
};

/** `Label#hook_attrs`. */
export function labelsAttrs(st: PlatformState, ids: readonly number[]): Json[] {
  return ids.flatMap((id) => {
    const l = tget(st.issuables.labels, id);
    if (!l) return [];
    return [
      {
        id: l.id,
        title: l.title,
        color: l.color,
        project_id: l.project_id,
        created_at: rubyTime(l.created_at),
        updated_at: rubyTime((l as { updated_at?: string }).updated_at ?? l.created_at),
        template: false,
        description: l.description,
        type: l.project_id === null ? 'GroupLabel' : 'ProjectLabel',
        group_id: l.group_id,
      },
    ];
  });
}

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

function userName(st: PlatformState, id: number | null) {
  const user = id === null ? undefined : tget(st.users, id);
  return { name: user?.name ?? 'Ghost User', email: user?.email ?? '' };
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
export function pipelinePayload(
  st: PlatformState,
  u: Urls,
  p: ProjectRecord,
  pl: PipelineRecord,
  live: { status: string; finished_at: string | null; duration: number | null },
): Json {
  const user = pl.user_id === null ? undefined : tget(st.users, pl.user_id);
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: pl.id,
      ref: pl.ref,
      tag: pl.tag,
      sha: pl.sha,
      before_sha: pl.before_sha,
      source: 'push',
      status: live.status,
      detailed_status: live.status,
      stages: [],
      created_at: rubyTime(pl.created_at),
      finished_at: rubyTime(live.finished_at),
      duration: live.duration,
      variables: pl.variables.map((v) => ({ key: v.key, value: v.value })),
    },
    merge_request: null,
    user: userAttrs(u, user),
    project: projectAttrs(st, u, p),
    commit: {
      id: pl.sha,
      message: '',
      title: '',
      timestamp: new Date(pl.created_at).toISOString().replace('.000Z', '+00:00'),
      url: `${u.base}/${p.path_with_namespace}/-/commit/${pl.sha}`,
      author: userName(st, pl.user_id),
    },
    builds: [],
  };
}

/** A job's state as one of its hooks reports it. */
export interface JobState {
  status: string;
  started_at: string | null;
  finished_at: string | null;
}

/** A pipeline's state as a job hook's `commit` reports it. */
export interface PipelineState {
  status: string;
  started_at: string | null;
  finished_at: string | null;
  duration: number | null;
}

/** `Gitlab::DataBuilder::Build` of 13.12 (the Job Hook), with the job and its pipeline in the given states. */
export function jobPayload(
  st: PlatformState,
  u: Urls,
  p: ProjectRecord,
  pl: PipelineRecord,
  b: {
    id: number;
    name: string;
    stage: string;
    allow_failure: boolean;
    created_at: string;
    user_id: number | null;
    environment?: string;
  },
  job: JobState,
  pipeline: PipelineState,
): Json {
  const user = b.user_id === null ? undefined : tget(st.users, b.user_id);
  const author = userName(st, pl.user_id);
  const duration =
    job.started_at === null || job.finished_at === null
      ? null
      : (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000;
  const repo = projectAttrs(st, u, p);
  return {
    object_kind: 'build',
    ref: pl.ref,
    tag: pl.tag,
    before_sha: pl.before_sha,
    sha: pl.sha,
    build_id: b.id,
    build_name: b.name,
    build_stage: b.stage,
    build_status: job.status,
    build_created_at: rubyTime(b.created_at),
    build_started_at: rubyTime(job.started_at),
    build_finished_at: rubyTime(job.finished_at),
    build_duration: duration,
    build_allow_failure: b.allow_failure,
    build_failure_reason: job.status === 'failed' ? 'script_failure' : null,
    pipeline_id: pl.id,
    runner: null,
    project_id: p.id,
    project_name: projectFullName(st, p),
    user: user ? { id: user.id, ...userAttrs(u, user) } : null,
    commit: {
      id: pl.id,
      sha: pl.sha,
      message: '',
      author_name: author.name,
      author_email: author.email,
      author_url: `mailto:${author.email}`,
      status: pipeline.status,
      duration: pipeline.duration,
      started_at: rubyTime(pipeline.started_at),
      finished_at: rubyTime(pipeline.finished_at),
    },
    repository: {
      name: repo.name,
      url: repo.url,
      description: repo.description,
      homepage: repo.homepage,
      git_http_url: repo.git_http_url,
      git_ssh_url: repo.git_ssh_url,
      visibility_level: repo.visibility_level,
    },
    environment: b.environment === undefined ? null : { name: b.environment, action: 'start' },
  };
}

/** `Project#full_name`: the namespace's full name, then the project's name. */
function projectFullName(st: PlatformState, p: ProjectRecord): string {
  const ns = namespaceName(st, p);
  return ns ? `${ns} / ${p.name}` : p.name;
}

/**
 * `Gitlab::DataBuilder::Deployment` of 13.12 (the Deployment Hook): `status_changed_at` is when the
 * deployment took the status; the user is the one who deployed (the job's, else the deployment's).
 */
export function deploymentPayload(
  st: PlatformState,
  u: Urls,
  p: ProjectRecord,
  d: { deployable_id: number | null; sha: string; user_id: number | null; environment: string },
  status: string,
  changedAt: string,
): Json {
  const user = d.user_id === null ? undefined : tget(st.users, d.user_id);
  const web = `${u.base}/${p.path_with_namespace}`;
  return {
    object_kind: 'deployment',
    status,
    status_changed_at: rubyTime(changedAt),
    deployable_id: d.deployable_id,
    deployable_url: d.deployable_id === null ? null : `${web}/-/jobs/${d.deployable_id}`,
    environment: d.environment,
    project: projectAttrs(st, u, p),
    short_sha: d.sha.slice(0, 8),
    user: userAttrs(u, user),
    user_url: user ? `${u.base}/${user.username}` : null,
    commit_url: `${web}/-/commit/${d.sha}`,
    commit_title: '',
  };
}

/** `Gitlab::DataBuilder::Release` of 13.12 (the Release Hook), for `create` and `update`. */
export function releasePayload(
  st: PlatformState,
  u: Urls,
  p: ProjectRecord,
  r: {
    id: number;
    created_at: string;
    description: string;
    name: string | null;
    released_at: string;
    tag: string;
    sha: string;
    author_id: number | null;
    links: readonly { id: number; name: string; url: string; link_type: string }[];
  },
  action: 'create' | 'update',
): Json {
  const web = `${u.base}/${p.path_with_namespace}`;
  const tag = encodeURIComponent(r.tag);
  const sources = ['zip', 'tar.gz', 'tar.bz2', 'tar'].map((format) => ({
    format,
    url: `${web}/-/archive/${tag}/${p.path}-${r.tag}.${format}`,
  }));
  const author = userName(st, r.author_id);
  return {
    id: r.id,
    created_at: rubyTime(r.created_at),
    description: r.description,
    name: r.name ?? r.tag,
    released_at: rubyTime(r.released_at),
    tag: r.tag,
    object_kind: 'release',
    project: projectAttrs(st, u, p),
    url: `${web}/-/releases/${tag}`,
    action,
    assets: {
      count: r.links.length + sources.length,
      links: r.links.map((l) => ({
        id: l.id,
        external: !l.url.startsWith(web),
        link_type: l.link_type,
        name: l.name,
        url: l.url,
      })),
      sources,
    },
    commit: {
      id: r.sha,
      message: '',
      title: '',
      timestamp: new Date(r.created_at).toISOString().replace('.000Z', '+00:00'),
      url: `${web}/-/commit/${r.sha}`,
      author,
    },
  };
}
