/**
 * `lib/api/metrics/dashboard/annotations.rb`: `POST /environments/:id/metrics_dashboard/annotations` and
 * `POST /clusters/:id/metrics_dashboard/annotations`. The environment or cluster is found by id alone
 * (`find`, `404 Not found`), then `forbidden!` unless the caller has `create_metrics_dashboard_annotation`
 * on it (developers of its project or group; an instance cluster's policy has none), then
 * `Metrics::Dashboard::Annotations::CreateService`: the dashboard must exist, then the model's
 * validations; its errors are `error!(result, 400)` (`{"message": ..., "status": "error"}`).
 */
import { ACCESS, groupAccess, projectAccess } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { ApiError, forbidden, internalError, recordNotFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { TREE_MODE } from '../repository/objects.js';
import { peel, refTarget } from '../repository/refs.js';
import { objectsOf } from '../repository/store.js';
import { entryAt, splitPath } from '../repository/tree.js';
import { annotationEntity } from './entities.js';
import { createAnnotation, type AnnotationFields } from './model.js';

/** `coerce_with: -> (val) { CGI.unescape(val) }`: `+` is a space, each valid `%XX` a byte. */
export function cgiUnescape(s: string): string {
  const plus = s.replace(/\+/g, ' ');
  if (!plus.includes('%')) return plus;
  const bytes: number[] = [];
  for (let i = 0; i < plus.length; i++) {
    const hex = plus.slice(i + 1, i + 3);
    if (plus[i] === '%' && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(plus[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

const shape = {
  starting_at: p.datetime().required(),
  ending_at: p.datetime(),
  dashboard_path: p.str().required(),
  description: p.str().required(),
};

/**
 * The dashboards every project has (`Gitlab::Metrics::Dashboard::ServiceSelector`'s predefined
 * services: system, pod, self-monitoring and cluster dashboards), read from the application's files.
 */
const PREDEFINED = new Set([
  'config/prometheus/common_metrics.yml',
  'config/prometheus/pod_metrics.yml',
  'config/prometheus/self_monitoring_default.yml',
  'config/prometheus/cluster_metrics.yml',
]);

/** `ActiveRecord::FinderMethods#find` of an integer key: the text's leading integer (`"3abc"` is 3). */
const recordId = (s: string): number => {
  const m = /^\s*[+-]?\d+/.exec(s);
  return m ? Number(m[0]) : 0;
};

/**
 * `Gitlab::Metrics::Dashboard::Finder.find_raw`: a blank path is the system dashboard (the selector's
 * default); a predefined one is the application's; any other is a file on the project's default branch
 * (`RepoTemplateFinder#read`). Without a project (a group cluster's annotation) that finder fails: a 500.
 */
function dashboardExists(c: Ctx, proj: ProjectRecord | undefined, path: string): boolean {
  if (path.trim() === '' || PREDEFINED.has(path)) return true;
  if (!proj) throw internalError();
  const st = state(c);
  const head = refTarget(st, proj as Project, 'branch', (proj as Project).default_branch ?? '');
  if (head === undefined) return false;
  const store = objectsOf(st);
  const commit = store.commit(peel(store, head));
  if (!commit || splitPath(path).length === 0) return false;
  const e = entryAt(store, commit.tree, path);
  return !!e && e.mode !== TREE_MODE;
}

/** `Metrics::Dashboard::Annotation`'s validations, in order. */
function annotationErrors(f: AnnotationFields): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (f.description.trim() === '') add('description', "can't be blank");
  if ([...f.description].length > 255) add('description', 'is too long (maximum is 255 characters)');
  if (f.dashboard_path.trim() === '') add('dashboard_path', "can't be blank");
  if ([...f.dashboard_path].length > 255) add('dashboard_path', 'is too long (maximum is 255 characters)');
  if (f.ending_at !== null && Date.parse(f.starting_at) > Date.parse(f.ending_at))
    add('ending_at', "can't be before starting_at time");
  return errors;
}

/** The service's `error(...)`: `{ message, status: :error }`, which `error!` sends as it is. */
const serviceError = (message: unknown) => new ApiError(400, { message, status: 'error' });

function create(c: Ctx, f: AnnotationFields, proj: ProjectRecord | undefined): Response {
  if (!dashboardExists(c, proj, f.dashboard_path))
    throw serviceError('Dashboard with requested path can not be found');
  const errors = annotationErrors(f);
  if (Object.keys(errors).length) throw serviceError(errors);
  const now = c.get('fx').clock.iso();
  const rec = write(c, (d) => createAnnotation(d, f, now));
  return c.json(annotationEntity(rec), 201);
}

const projectDeveloper = (c: Ctx, proj: ProjectRecord) => {
  const user = c.get('viewer').user;
  return !!user && (user.admin || projectAccess(state(c), user, proj) >= ACCESS.DEVELOPER);
};

export function annotationsRoutes(r: ApiRouter): void {
  r.post('/environments/:id/metrics_dashboard/annotations', {}, (c) => {
    const prm = parse(c, shape);
    const st = state(c);
    const env = tget(st.environments.records, recordId(c.req.param('id') ?? ''));
    if (!env) throw recordNotFound('no environment with this id');
    const proj = tget(st.projects, env.project_id)!;
    if (!projectDeveloper(c, proj)) throw forbidden();
    return create(
      c,
      {
        project_id: proj.id,
        environment_id: env.id,
        cluster_id: null,
        dashboard_path: cgiUnescape(prm.dashboard_path),
        starting_at: prm.starting_at,
        ending_at: prm.ending_at ?? null,
        description: prm.description,
      },
      proj,
    );
  });

  r.post('/clusters/:id/metrics_dashboard/annotations', {}, (c) => {
    const prm = parse(c, shape);
    const st = state(c);
    const k = tget(st.clusters.records, recordId(c.req.param('id') ?? ''));
    if (!k) throw recordNotFound('no cluster with this id');
    const user = c.get('viewer').user!;
    const proj = k.project_id === null ? undefined : tget(st.projects, k.project_id);
    const group = k.group_id === null ? undefined : tget(st.groups, k.group_id);
    // `ClusterPolicy` delegates to the cluster's project, group or instance policy.
    const allowed =
      k.cluster_type === 'project_type'
        ? !!proj && projectDeveloper(c, proj)
        : k.cluster_type === 'group_type'
          ? !!group && (user.admin || groupAccess(st, user, group) >= ACCESS.DEVELOPER)
          : false;
    if (!allowed) throw forbidden();
    return create(
      c,
      {
        project_id: k.project_id,
        environment_id: null,
        cluster_id: k.id,
        dashboard_path: cgiUnescape(prm.dashboard_path),
        starting_at: prm.starting_at,
        ending_at: prm.ending_at ?? null,
        description: prm.description,
      },
      proj,
    );
  });
}
