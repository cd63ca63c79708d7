/**
 * The certificate-based clusters APIs: `lib/api/project_clusters.rb` and `lib/api/group_clusters.rb`
 * (`before { authenticate! }`, then maintainers' `read_cluster`, `add_cluster`, `update_cluster` and
 * `admin_cluster`) and `lib/api/admin/instance_clusters.rb` (`before { authenticated_as_admin! }`). One
 * set of handlers serves the three: `Clusters::CreateService`, `Clusters::UpdateService` and
 * `destroy_conditionally!` on a cluster found among the owner's (`ClustersFinder`, `404 Not found`).
 */
import { ACCESS, findGroup, findProject, groupAccess, projectAccess } from '../../core/access.js';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, internalError, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { featureAvailable } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import { UserRenderer } from '../users/entities.js';
import { clusterEntity, type ClusterView } from './entities.js';
import { clustersOf, createCluster, deleteCluster, updateCluster } from './model.js';
import { clusterIdShape, createParams, updateParams } from './params.js';
import type { ClusterRecord, ClusterType } from './store.js';
import {
  clusterErrors,
  COLUMN_LIMIT,
  managementProjectAllowed,
  NO_PERMISSION,
  normalizePlatform,
  type ClusterFields,
} from './validate.js';

type Ability = 'read' | 'add' | 'update' | 'admin';

/** Whose clusters a request is about, and what the caller may do with them. */
interface Owner {
  type: ClusterType;
  project_id: number | null;
  group_id: number | null;
  key: string;
  can: (a: Ability) => boolean;
}

/** The entity of each answer: the instance API's update answers `ClusterProject` (its `project` is null). */
interface Views {
  single: ClusterView;
  created: ClusterView;
  updated: ClusterView;
}

/**
 * `ProjectPolicy`: maintainers have the cluster abilities; a disabled operations, builds or repository
 * feature takes away `read_`, `update_` and `admin_cluster` (not `add_cluster`), and an archived project
 * the writes but `add_cluster` (`ReadonlyAbilities`).
 */
function projectOwner(c: Ctx, proj: ProjectRecord): Owner {
  const user = requireUser(c);
  const st = state(c);
  const level = user.admin ? ACCESS.OWNER : projectAccess(st, user, proj);
  const pr = proj as Project;
  const features = (
    [
      [pr.operations_access_level, 'operations'],
      [pr.builds_access_level, 'builds'],
      [pr.repository_access_level, 'repository'],
    ] as const
  ).every(([access, feature]) => featureAvailable(access, feature, level, user.admin));
  return {
    type: 'project_type',
    project_id: proj.id,
    group_id: null,
    key: `p${proj.id}`,
    can: (a) => level >= ACCESS.MAINTAINER && (a === 'add' || (features && (a === 'read' || !proj.archived))),
  };
}

function projectOf(c: Ctx): Owner {
  return projectOwner(c, findProject(c, c.req.param('id') ?? ''));
}

/** `GroupPolicy`: maintainers of the group (inherited membership counts) and admins. */
function groupOf(c: Ctx): Owner {
  const user = requireUser(c);
  const g = findGroup(c, c.req.param('id') ?? '');
  const ok = user.admin || groupAccess(state(c), user, g) >= ACCESS.MAINTAINER;
  return { type: 'group_type', project_id: null, group_id: g.id, key: `g${g.id}`, can: () => ok };
}

/** `Clusters::InstancePolicy`: admins, already checked by the `before` filter. */
function instanceOf(): Owner {
  return { type: 'instance_type', project_id: null, group_id: null, key: 'i', can: () => true };
}

/** `clusters_for_current_user.find(params[:cluster_id])`. */
function findCluster(c: Ctx, o: Owner, id: number): ClusterRecord {
  const k = tget(state(c).clusters.records, id);
  if (!k || k.cluster_type !== o.type || k.project_id !== o.project_id || k.group_id !== o.group_id)
    throw recordNotFound('no cluster with this id here');
  return k;
}

const authorize = (o: Owner, a: Ability) => {
  if (!o.can(a)) throw forbidden();
};

/** The model's errors, then what the database refuses (a `varchar(255)` past its length: a 500). */
function check(c: Ctx, f: ClusterFields, caChanged: boolean, self: number | null): void {
  const errors = clusterErrors(state(c), f, caChanged, self);
  if (Object.keys(errors).length) throw validationError(errors);
  if ([...f.name].length > COLUMN_LIMIT || [...f.environment_scope].length > COLUMN_LIMIT)
    throw internalError();
}

/** `ValidateManagementProjectPermissionsService`, before the model's validations (its error alone). */
function checkManagement(c: Ctx, o: Owner, id: number | undefined): void {
  if (id === undefined) return;
  const owner = { cluster_type: o.type, project_id: o.project_id, group_id: o.group_id };
  if (!managementProjectAllowed(state(c), requireUser(c), owner, id))
    throw validationError({ management_project_id: [NO_PERMISSION] });
}

/**
 * The five routes of one kind. `gate` is the class's `before` filter (`authenticate!`, or
 * `authenticated_as_admin!`), which Grape runs before it validates the params; the owner is found in
 * the endpoint, after them.
 */
function handlers(
  r: ApiRouter,
  base: string,
  gate: (c: Ctx) => unknown,
  ownerOf: (c: Ctx) => Owner,
  views: Views,
  add: string,
): void {
  const listShape = { ...paginationParams };
  r.get(base, { auth: 'required' }, (c) => {
    gate(c);
    parse(c, listShape);
    const o = ownerOf(c);
    authorize(o, 'read');
    const users = new UserRenderer(c);
    return paginate(c, clustersOf(state(c), o.key), (k) => clusterEntity(c, k, 'cluster', users));
  });

  r.get(`${base}/:cluster_id`, { auth: 'required' }, (c) => {
    gate(c);
    const prm = parse(c, clusterIdShape);
    const o = ownerOf(c);
    const k = findCluster(c, o, prm.cluster_id);
    authorize(o, 'read');
    return c.json(clusterEntity(c, k, views.single));
  });

  r.post(`${base}/${add}`, {}, (c) => {
    gate(c);
    const prm = createParams(c);
    const o = ownerOf(c);
    authorize(o, 'add');
    const user = requireUser(c);
    checkManagement(c, o, prm.management_project_id);
    const k = prm.platform;
    const fields: ClusterFields = {
      name: prm.name,
      cluster_type: o.type,
      project_id: o.project_id,
      group_id: o.group_id,
      user_id: user.id,
      enabled: prm.enabled,
      managed: prm.managed,
      domain: prm.domain ?? null,
      environment_scope: prm.environment_scope,
      namespace_per_environment: prm.namespace_per_environment,
      management_project_id: prm.management_project_id ?? null,
      provider_type: 'user',
      platform_type: 'kubernetes',
      platform: normalizePlatform({
        api_url: k.api_url,
        token: k.token,
        ca_cert: k.ca_cert ?? null,
        namespace: k.namespace ?? null,
        authorization_type: k.authorization_type,
      }),
    };
    check(c, fields, fields.platform.ca_cert !== null, null);
    const now = c.get('fx').clock.iso();
    const rec = write(c, (d) => createCluster(d, fields, now));
    return c.json(clusterEntity(c, tget(state(c).clusters.records, rec.id)!, views.created), 201);
  });

  r.put(`${base}/:cluster_id`, {}, (c) => {
    gate(c);
    const prm = updateParams(c);
    const o = ownerOf(c);
    const cur = findCluster(c, o, prm.cluster_id);
    authorize(o, 'update');
    checkManagement(c, o, prm.management_project_id);
    const k = prm.platform;
    const ca = k?.ca_cert !== undefined ? k.ca_cert : cur.platform.ca_cert;
    const fields: ClusterFields = {
      name: prm.name ?? cur.name,
      cluster_type: cur.cluster_type,
      project_id: cur.project_id,
      group_id: cur.group_id,
      user_id: cur.user_id,
      enabled: prm.enabled ?? cur.enabled,
      managed: prm.managed ?? cur.managed,
      domain: prm.domain ?? cur.domain,
      environment_scope: prm.environment_scope ?? cur.environment_scope,
      namespace_per_environment: prm.namespace_per_environment,
      management_project_id: prm.management_project_id ?? cur.management_project_id,
      provider_type: 'user',
      platform_type: 'kubernetes',
      platform: normalizePlatform({
        api_url: k?.api_url ?? cur.platform.api_url,
        token: k?.token ?? cur.platform.token,
        ca_cert: ca,
        namespace: k?.namespace !== undefined ? k.namespace : cur.platform.namespace,
        authorization_type: cur.platform.authorization_type,
      }),
    };
    check(c, fields, fields.platform.ca_cert !== cur.platform.ca_cert, cur.id);
    const now = c.get('fx').clock.iso();
    write(c, (d) => updateCluster(d, cur.id, fields, now));
    return c.json(clusterEntity(c, tget(state(c).clusters.records, cur.id)!, views.updated));
  });

  r.delete(`${base}/:cluster_id`, {}, (c) => {
    gate(c);
    const prm = parse(c, clusterIdShape);
    const o = ownerOf(c);
    const k = findCluster(c, o, prm.cluster_id);
    authorize(o, 'admin');
    checkUnmodifiedSince(c, k.updated_at);
    write(c, (d) => deleteCluster(d, k.id));
    return c.body(null, 204);
  });
}

const PROJECT_VIEWS: Views = { single: 'project', created: 'project', updated: 'project' };
const GROUP_VIEWS: Views = { single: 'group', created: 'group', updated: 'group' };
const INSTANCE_VIEWS: Views = { single: 'cluster', created: 'cluster', updated: 'project' };

export function clustersRoutes(r: ApiRouter): void {
  handlers(r, '/projects/:id/clusters', requireUser, projectOf, PROJECT_VIEWS, 'user');
  handlers(r, '/groups/:id/clusters', requireUser, groupOf, GROUP_VIEWS, 'user');
  handlers(r, '/admin/clusters', requireAdmin, instanceOf, INSTANCE_VIEWS, 'add');
}
