/** What clients see of variables and pipelines: the spec's shapes, in its field order. */
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { RecordRenderings } from '../../core/render-cache.js';
import type {
  PipelineRecord,
  PipelineStatus,
  ProjectRecord,
  TestCaseRecord,
  TestSuiteRecord,
  VariableRecord,
} from '../../core/state.js';
import { tget } from '../../core/table.js';
import { has } from '../../core/versions.js';
import { userRenderer } from '../users/entities.js';
import { livePipeline, type LivePipeline } from './model.js';
import { PROJECT_VARIABLE_ENTITY, VARIABLE_RAW } from './versions.js';

type Json = Record<string, unknown>;

/**
 * `Entities::Ci::Variable` of a project variable (from 14.0, PROJECT_VARIABLE_ENTITY): every route
 * shows the whole entity in its order; `raw` after `masked` from 15.7 (VARIABLE_RAW).
 */
const variableEntity = (c: Ctx, v: VariableRecord): Json => ({
  variable_type: v.variable_type,
  key: v.key,
  value: v.value,
  protected: v.protected,
  masked: v.masked,
  ...(has(c, VARIABLE_RAW) ? { raw: v.raw ?? false } : {}),
  environment_scope: v.environment_scope,
});

/** `GET /projects/:id/variables` items. */
export const variableListItem = (c: Ctx, v: VariableRecord): Json =>
  has(c, PROJECT_VARIABLE_ENTITY)
    ? variableEntity(c, v)
    : { key: v.key, variable_type: v.variable_type, value: v.value };

/** `GET /projects/:id/variables/:key`. */
export const variableShow = (c: Ctx, v: VariableRecord): Json =>
  has(c, PROJECT_VARIABLE_ENTITY)
    ? variableEntity(c, v)
    : {
        key: v.key,
        variable_type: v.variable_type,
        value: v.value,
        protected: v.protected,
        masked: v.masked,
      };

/** `POST /projects/:id/variables`. */
export const variableCreated = (c: Ctx, v: VariableRecord): Json =>
  has(c, PROJECT_VARIABLE_ENTITY)
    ? variableEntity(c, v)
    : {
        key: v.key,
        value: v.value,
        protected: v.protected,
        variable_type: v.variable_type,
        masked: v.masked,
        environment_scope: v.environment_scope,
      };

/** `PUT /projects/:id/variables/:key`. */
export const variableUpdated = (c: Ctx, v: VariableRecord): Json =>
  has(c, PROJECT_VARIABLE_ENTITY)
    ? variableEntity(c, v)
    : {
        key: v.key,
        value: v.value,
        variable_type: v.variable_type,
        protected: v.protected,
        masked: v.masked,
        environment_scope: v.environment_scope,
      };

interface StatusLook {
  icon: string;
  text: string;
  label: string;
  group: string;
  favicon: string;
}

const look = (
  name: string,
  text = name,
  label = text,
  icon = `status_${name}`,
  favicon = `favicon_status_${name}`,
) => ({
  icon,
  text,
  label,
  group: name,
  favicon,
});

/** `Gitlab::Ci::Status::Pipeline::Factory`: the core status, or its blocked/delayed pipeline variants. */
const STATUS_LOOKS: Record<PipelineStatus, StatusLook> = {
  created: look('created'),
  waiting_for_resource: look(
    'waiting-for-resource',
    'waiting',
    'waiting for resource',
    'status_pending',
    'favicon_pending',
  ),
  preparing: look('preparing'),
  pending: look('pending'),
  running: look('running'),
  success: look('success', 'passed'),
  failed: look('failed'),
  canceled: look('canceled'),
  skipped: look('skipped'),
  manual: look('manual', 'blocked', 'waiting for manual action'),
  scheduled: look('scheduled', 'delayed', 'waiting for delayed job'),
};

const NO_DEPS: readonly unknown[] = [];

/** Renders pipelines for one request: the clock is read once, so every pipeline of a page agrees. */
export class PipelineRenderer {
  readonly now: number;
  readonly #base: string;
  readonly #users: ReturnType<typeof userRenderer>;
  readonly #kept: RecordRenderings<PipelineRecord>;

  constructor(
    readonly c: Ctx,
    now?: number,
  ) {
    const fx = c.get('fx');
    this.now = now ?? fx.clock.ms();
    this.#base = requestBase(c);
    this.#users = userRenderer(c);
    this.#kept = fx.renderings.kind<PipelineRecord>('pipeline');
  }

  live(p: PipelineRecord): LivePipeline {
    return livePipeline(p, this.now);
  }

  #path(p: PipelineRecord, project: ProjectRecord) {
    return `/${project.path_with_namespace}/-/pipelines/${p.id}`;
  }

  /** `PipelineBasic`: list items. */
  basic(p: PipelineRecord, project: ProjectRecord, live = this.live(p)): Json {
    return {
      id: p.id,
      status: live.status,
      ref: p.ref,
      sha: p.sha,
      web_url: this.#base + this.#path(p, project),
      created_at: p.created_at,
      updated_at: live.updated_at,
    };
  }

  /**
   * `PipelineBasic` as UTF-8 bytes, kept per record (core renderings). Besides the record it reads the
   * status and update time the clock gives it now, the base URL and its project's path: all of them go
   * into the key as values, so that the clock, a rename or a transfer makes a new rendering.
   */
  basicBytes(p: PipelineRecord, project: ProjectRecord, live = this.live(p)): Buffer<ArrayBuffer> {
    const key = `${live.status}|${live.updated_at}|${this.#base}${this.#path(p, project)}`;
    return this.#kept.bytes(p, key, NO_DEPS, () => JSON.stringify(this.basic(p, project, live)));
  }

  /** `Pipeline`: single, create, retry and cancel responses. */
  full(p: PipelineRecord, project: ProjectRecord): Json {
    const live = this.live(p);
    const user = p.user_id === null ? undefined : tget(state(this.c).users, p.user_id);
    const s = STATUS_LOOKS[live.status];
    const finished = live.status === 'success' || live.status === 'failed';
    return {
      id: p.id,
      status: live.status,
      ref: p.ref,
      sha: p.sha,
      before_sha: p.before_sha,
      tag: p.tag,
      yaml_errors: p.yaml_errors,
      user: user ? this.#users.basic(user) : null,
      created_at: p.created_at,
      updated_at: live.updated_at,
      started_at: live.started_at,
      finished_at: live.finished_at,
      committed_at: null,
      duration: live.duration,
      coverage: finished ? p.coverage : null,
      web_url: this.#base + this.#path(p, project),
      detailed_status: {
        icon: s.icon,
        text: s.text,
        label: s.label,
        group: s.group,
        tooltip: s.label,
        has_details: true,
        details_path: this.#path(p, project),
        illustration: null,
        favicon: `/assets/ci_favicons/${s.favicon}.png`,
      },
    };
  }
}

/** Test cases of a suite as the report lists them: grouped by status (errors first), in file order. */
const CASE_ORDER: TestCaseRecord['status'][] = ['error', 'failed', 'success', 'skipped'];

interface Counts {
  total_time: number;
  total_count: number;
  success_count: number;
  failed_count: number;
  skipped_count: number;
  error_count: number;
}

function counts(cases: readonly TestCaseRecord[]): Counts {
  const n = (s: TestCaseRecord['status']) => cases.filter((t) => t.status === s).length;
  return {
    total_time: cases.reduce((t, c) => t + c.execution_time, 0),
    total_count: cases.length,
    success_count: n('success'),
    failed_count: n('failed'),
    skipped_count: n('skipped'),
    error_count: n('error'),
  };
}

/** `TestReportEntity` with details. */
export function testReport(suites: readonly TestSuiteRecord[]): Json {
  const rendered = suites.map((s) => ({
    name: s.name,
    ...counts(s.test_cases),
    test_cases: CASE_ORDER.flatMap((status) =>
      s.test_cases
        .filter((t) => t.status === status)
        .map((t) => ({
          status: t.status,
          name: t.name,
          classname: t.classname,
          execution_time: t.execution_time,
          system_output: t.system_output,
          stack_trace: t.stack_trace,
        })),
    ),
  }));
  const all = counts(suites.flatMap((s) => s.test_cases));
  // The report's time adds up its suites' times, as the platform sums them (float noise included).
  return { ...all, total_time: rendered.reduce((t, s) => t + s.total_time, 0), test_suites: rendered };
}
