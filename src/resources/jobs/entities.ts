/** `Entities::Ci::JobBasic` and `Entities::Ci::Job`, rendered at one clock reading per request. */
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { PipelineRecord, PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { gzipSync } from 'node:zlib';
import { PipelineRenderer } from '../ci/entities.js';
import { isoTime } from '../projects/entities.js';
import { UserRenderer } from '../users/entities.js';
import { hasArtifacts, hasTrace, LiveJobs, traceText, type JobRef } from './model.js';
import { runnerEntity } from '../runners/entities.js';
import { runnerOfJob } from '../runners/pick.js';
import type { RunnerRecord } from '../runners/store.js';
import { zipStored } from './zip.js';

type Json = Record<string, unknown>;

const enc = new TextEncoder();

/** The artifacts archive of a job, dated when the job finished. */
export function artifactsZip(ref: JobRef): Uint8Array<ArrayBuffer> {
  const at = ref.build.finished_at ?? ref.build.created_at;
  return zipStored(
    ref.build.artifacts.map((f) => ({ path: f.path, data: enc.encode(f.content) })),
    Date.parse(at),
  );
}

/** `Entities::ProjectIdentity`. */
export function projectIdentity(st: PlatformState, p: ProjectRecord): Json {
  const names: string[] = [];
  if (p.namespace_kind === 'group')
    for (
      let g = tget(st.groups, p.namespace_id);
      g;
      g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
    )
      names.unshift(g.name);
  else {
    const owner = p.owner_id === null ? undefined : tget(st.users, p.owner_id);
    if (owner) names.push(owner.name);
  }
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: [...names, p.name].join(' / '),
    path: p.path,
    path_with_namespace: p.path_with_namespace,
    created_at: isoTime(p.created_at),
  };
}

const seconds = (from: string | null, to: number) => (from === null ? null : (to - Date.parse(from)) / 1000);

export class JobRenderer {
  readonly live: LiveJobs;
  readonly #base: string;
  readonly #pipelines: PipelineRenderer;
  readonly #users: UserRenderer;

  constructor(
    readonly c: Ctx,
    now?: number,
  ) {
    this.#pipelines = new PipelineRenderer(c, now);
    this.live = new LiveJobs(this.#pipelines.now);
    this.#base = requestBase(c);
    this.#users = new UserRenderer(c);
  }

  get now(): number {
    return this.live.now;
  }

  /** `Entities::Commit` of the pipeline's sha, as far as fauxlab knows the commit. */
  #commit(p: PipelineRecord, project: ProjectRecord): Json {
    const user = p.user_id === null ? undefined : tget(state(this.c).users, p.user_id);
    const name = user?.name ?? 'Administrator';
    const email = user?.email ?? 'admin@example.com';
    const title = `Update ${p.ref}`;
    return {
      id: p.sha,
      short_id: p.sha.slice(0, 8),
      created_at: p.created_at,
      parent_ids: [],
      title,
      message: `${title}\n`,
      author_name: name,
      author_email: email,
      authored_date: p.created_at,
      committer_name: name,
      committer_email: email,
      committed_date: p.created_at,
      web_url: `${this.#base}/${project.path_with_namespace}/-/commit/${p.sha}`,
    };
  }

  /** The runner that took the job (`Ci::Build#runner`): none before it started. */
  runnerOf(ref: JobRef, project: ProjectRecord): RunnerRecord | undefined {
    const started = this.live.of(ref).started_at;
    return started === null
      ? undefined
      : runnerOfJob(state(this.c), project, ref.pipeline, Date.parse(started));
  }

  /** `JobBasicWithProject`: the basic fields and the job's `ProjectIdentity`. */
  withProject(ref: JobRef, project: ProjectRecord): Json {
    const out = this.basic(ref, project);
    out.project = projectIdentity(state(this.c), project);
    return out;
  }

  /** `JobBasic`. */
  basic(ref: JobRef, project: ProjectRecord): Json {
    const { build: b, pipeline: p } = ref;
    const l = this.live.of(ref);
    const end = l.finished_at === null ? this.now : Date.parse(l.finished_at);
    const user = b.user_id === null ? undefined : tget(state(this.c).users, b.user_id);
    return {
      id: b.id,
      status: l.status,
      stage: b.stage,
      name: b.name,
      ref: p.ref,
      tag: p.tag,
      coverage: null,
      allow_failure: b.allow_failure,
      created_at: b.created_at,
      started_at: l.started_at,
      finished_at: l.finished_at,
      duration: seconds(l.started_at, end),
      queued_duration: seconds(l.queued_at, l.started_at === null ? this.now : Date.parse(l.started_at)),
      user: user ? this.#users.user(user) : null,
      commit: this.#commit(p, project),
      pipeline: this.#pipelines.basic(p, project),
      web_url: `${this.#base}/${project.path_with_namespace}/-/jobs/${b.id}`,
    };
  }

  /** `Job`: the basic fields, then the artifacts (`artifacts_file` only when there is an archive). */
  full(ref: JobRef, project: ProjectRecord): Json {
    const out = this.basic(ref, project);
    const b = ref.build;
    const l = this.live.of(ref);
    const files: Json[] = [];
    if (hasArtifacts(b, l, this.now)) {
      const size = artifactsZip(ref).length;
      out.artifacts_file = { filename: 'artifacts.zip', size };
      const listing = b.artifacts.map((f) => f.path).join('\n');
      files.push(
        { file_type: 'archive', size, filename: 'artifacts.zip', file_format: 'zip' },
        {
          file_type: 'metadata',
          size: gzipSync(listing).length,
          filename: 'metadata.gz',
          file_format: 'gzip',
        },
      );
    }
    if (hasTrace(b, l) && l.finished_at !== null)
      files.push({
        file_type: 'trace',
        size: enc.encode(traceText(b, l, this.now, this.runnerOf(ref, project))).length,
        filename: 'job.log',
        file_format: null,
      });
    out.artifacts = files;
    const runner = this.runnerOf(ref, project);
    out.runner = runner ? runnerEntity(runner, this.now) : null;
    out.artifacts_expire_at = hasArtifacts(b, l, this.now) ? b.artifacts_expire_at : null;
    out.tag_list = [];
    return out;
  }
}
