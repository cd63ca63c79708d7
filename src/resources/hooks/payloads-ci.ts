/**
 * The Pipeline, Job, Deployment and Release Hook payloads (`Gitlab::DataBuilder::Pipeline`, `::Build`,
 * `::Deployment`, `Releases` hook data).
 */
import {
  type Json,
  type Urls,
  namespaceName,
  projectAttrs,
  rubyTime,
  userAttrs,
  userName,
} from './payload-parts.js';
import type { PipelineRecord, PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';

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
