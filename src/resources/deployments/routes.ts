/**
 * The deployments API (`lib/api/deployments.rb` of 13.12): every route needs a user (401 before the
 * params are looked at); reporters read, developers create and update. A deployment a pipeline made
 * moves with its job; only the API's own deployments take status updates.
 */
import { findProject } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, internalError, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { iget, tget, tvalues } from '../../core/table.js';
import { authorize, can } from '../environments/access.js';
import { environmentErrors } from '../environments/model.js';
import { emitEvent } from '../integrations/events.js';
import { issuableRenderer } from '../issuables/entities.js';
import { abilities } from '../issuables/access.js';
import type { Project } from '../projects/model.js';
import { DeploymentRenderer } from './entities.js';
import {
  createDeployment,
  environmentNamed,
  projectDeployments,
  setDeploymentStatus,
  transitionAllowed,
  transitionError,
  type LiveDeployments,
} from './model.js';
import { DEPLOYMENT_STATUSES, type DeploymentRecord } from './store.js';

const project = (c: Ctx) => findProject(c, c.req.param('id') ?? '');

const deploymentShape = { deployment_id: p.int().required() };

/** `DeploymentsFinder`'s sorts and filters. */
const listShape = {
  ...paginationParams,
  order_by: p.str().values(['id', 'iid', 'created_at', 'updated_at', 'ref']).default('id'),
  sort: p.str().values(['asc', 'desc']).default('asc'),
  updated_after: p.datetime(),
  updated_before: p.datetime(),
  environment: p.str(),
  status: p.str().values(DEPLOYMENT_STATUSES),
};

/** The API's statuses: what a client may set (`created` and `skipped` are the pipelines'). */
const SETTABLE = ['running', 'success', 'failed', 'canceled'] as const;

/** `user_project.deployments.find`. */
function findDeployment(c: Ctx, proj: ProjectRecord, id: number): DeploymentRecord {
  const d = tget(state(c).deployments.records, id);
  if (!d || d.project_id !== proj.id) throw recordNotFound('no deployment with this id in the project');
  return d;
}

type Key = (d: DeploymentRecord) => string | number;

/**
 * `DeploymentsFinder#sort` with its optimisations: filtering by `updated_at` orders by it; `created_at`
 * and `iid` order as `id` does; `updated_at` and `ref` break ties by id, in the same direction.
 */
function sorted(
  list: DeploymentRecord[],
  live: LiveDeployments,
  orderBy: string,
  dir: string,
  byUpdate: boolean,
): DeploymentRecord[] {
  const updated: Key = (d) => Date.parse(live.of(d).updated_at);
  const key: Key | null =
    byUpdate || orderBy === 'updated_at' ? updated : orderBy === 'ref' ? (d) => d.ref : null;
  const sign = dir === 'desc' ? -1 : 1;
  return [...list].sort((a, b) => {
    if (key) {
      const x = key(a);
      const y = key(b);
      if (x !== y) return (x < y ? -1 : 1) * sign;
    }
    return (a.id - b.id) * sign;
  });
}

/**
 * `MergeRequestsFinder` with `deployment_id`: what `Deployments::LinkMergeRequestsService` linked when the
 * deployment succeeded. None for an environment in a folder (`review/...`, a review app). With a previous
 * success in the environment (the newest other one, as it stood then), the merge requests merged into
 * the ref between the two; without one, every merge request merged into the ref by then.
 */
function shippedMergeRequests(c: Ctx, proj: ProjectRecord, d: DeploymentRecord, live: LiveDeployments) {
  const st = state(c);
  const l = live.of(d);
  const env = tget(st.environments.records, d.environment_id);
  if (l.status !== 'success' || l.finished_at === null || !env || env.name.includes('/')) return [];
  if (!abilities(st, c.get('viewer').user, proj as Project).mergeRequests) return [];
  const until = Date.parse(l.finished_at);
  let since = -Infinity;
  let prevId = -1;
  for (const o of projectDeployments(st, proj.id)) {
    if (o.id === d.id || o.environment_id !== d.environment_id) continue;
    const ol = live.of(o);
    if (ol.status !== 'success' || ol.finished_at === null) continue;
    const at = Date.parse(ol.finished_at);
    if (at <= until && o.id > prevId) [prevId, since] = [o.id, at];
  }
  return tvalues(st.issuables.mergeRequests)
    .filter((mr) => {
      if (mr.project_id !== proj.id || mr.state !== 'merged' || mr.target_branch !== d.ref) return false;
      const at = mr.merged_at === null ? NaN : Date.parse(mr.merged_at);
      return at <= until && at > since;
    })
    .sort((a, b) => b.id - a.id);
}

export function deploymentsRoutes(r: ApiRouter): void {
  r.get('/projects/:id/deployments', (c) => {
    requireUser(c);
    const prm = parse(c, listShape);
    const proj = project(c);
    authorize(c, proj, 'read');
    const render = new DeploymentRenderer(c);
    const live = render.live;
    let list = projectDeployments(state(c), proj.id);
    if (prm.updated_before !== undefined) {
      const t = Date.parse(prm.updated_before);
      list = list.filter((d) => Date.parse(live.of(d).updated_at) <= t);
    }
    if (prm.updated_after !== undefined) {
      const t = Date.parse(prm.updated_after);
      list = list.filter((d) => Date.parse(live.of(d).updated_at) >= t);
    }
    if (prm.environment !== undefined && prm.environment !== '') {
      const envId = iget(state(c).environments.idx.names, `${proj.id}:${prm.environment}`);
      list = list.filter((d) => d.environment_id === envId);
    }
    if (prm.status !== undefined) list = list.filter((d) => live.of(d).status === prm.status);
    const byUpdate = prm.updated_after !== undefined || prm.updated_before !== undefined;
    list = sorted(list, live, prm.order_by, prm.sort, byUpdate);
    return paginate(c, list, (d) => render.deployment(d));
  });

  r.get('/projects/:id/deployments/:deployment_id', (c) => {
    requireUser(c);
    const prm = parse(c, deploymentShape);
    const proj = project(c);
    authorize(c, proj, 'read');
    return c.json(new DeploymentRenderer(c).deployment(findDeployment(c, proj, prm.deployment_id)));
  });

  r.post('/projects/:id/deployments', (c) => {
    requireUser(c);
    const prm = parse(c, {
      environment: p.str().required(),
      sha: p.str().required(),
      ref: p.str().required(),
      tag: p.bool().required(),
      status: p.str().required().values(SETTABLE),
    });
    const proj = project(c);
    // `create_deployment`, then `create_environment`: both the developers'.
    authorize(c, proj, 'write');
    const st = state(c);
    const named = iget(st.environments.idx.names, `${proj.id}:${prm.environment}`);
    // An environment name the model refuses leaves the endpoint without a deployment to report on: the
    // platform answers with its 500 there.
    if (
      named === undefined &&
      Object.keys(environmentErrors(st, proj.id, { name: prm.environment, external_url: null })).length
    )
      throw internalError();
    // `validates :sha, presence: true` and `validates :ref, presence: true`.
    const errors: Record<string, string[]> = {};
    if (prm.sha.trim() === '') errors.sha = ["can't be blank"];
    if (prm.ref.trim() === '') errors.ref = ["can't be blank"];
    if (Object.keys(errors).length) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    const userId = c.get('viewer').user!.id;
    const id = write(c, (d) => {
      const envId = environmentNamed(d, proj.id, prm.environment, now)!;
      const made = createDeployment(d, {
        project_id: proj.id,
        environment_id: envId,
        ref: prm.ref,
        tag: prm.tag,
        sha: prm.sha,
        user_id: userId,
        deployable_id: null,
        status: 'created',
        created_at: now,
      });
      setDeploymentStatus(d, made, prm.status, now);
      return made;
    });
    emitEvent(c, { kind: 'deployment', id });
    return c.json(new DeploymentRenderer(c).deployment(tget(state(c).deployments.records, id)!), 201);
  });

  r.put('/projects/:id/deployments/:deployment_id', (c) => {
    requireUser(c);
    const prm = parse(c, { ...deploymentShape, status: p.str().required().values(SETTABLE) });
    const proj = project(c);
    authorize(c, proj, 'read');
    const dep = findDeployment(c, proj, prm.deployment_id);
    if (!can(c, proj, 'write')) throw forbidden();
    if (dep.deployable_id !== null)
      throw forbidden('Deployments created using GitLab CI can not be updated using the API');
    if (!transitionAllowed(dep.status, prm.status)) throw validationError(transitionError(prm.status));
    const now = c.get('fx').clock.iso();
    write(c, (d) => setDeploymentStatus(d, dep.id, prm.status, now));
    emitEvent(c, { kind: 'deployment', id: dep.id });
    return c.json(new DeploymentRenderer(c).deployment(tget(state(c).deployments.records, dep.id)!));
  });

  r.get('/projects/:id/deployments/:deployment_id/merge_requests', (c) => {
    requireUser(c);
    const prm = parse(c, { ...paginationParams, ...deploymentShape });
    const proj = project(c);
    authorize(c, proj, 'read');
    const dep = tget(state(c).deployments.records, prm.deployment_id);
    const live = new DeploymentRenderer(c).live;
    const list = dep && dep.project_id === proj.id ? shippedMergeRequests(c, proj, dep, live) : [];
    const render = issuableRenderer(c, { project: proj as Project });
    return paginate(c, list, (mr) => render.mergeRequest(mr));
  });
}
