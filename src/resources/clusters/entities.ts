/**
 * `Entities::Cluster` and its `ClusterProject` / `ClusterGroup` variants, `Entities::Platform::Kubernetes`
 * (which leaves the token out) and `Entities::Metrics::Dashboard::Annotation`, fields in the platform's order.
 */
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import { tget } from '../../core/table.js';
import { projectIdentity } from '../jobs/entities.js';
import { projectEntity } from '../projects/entities.js';
import { UserRenderer } from '../users/entities.js';
import type { AnnotationRecord, ClusterRecord } from './store.js';

/** Which variant: `Cluster` (lists, instance clusters), `ClusterProject` or `ClusterGroup`. */
export type ClusterView = 'cluster' | 'project' | 'group';

export function clusterEntity(c: Ctx, k: ClusterRecord, view: ClusterView, users = new UserRenderer(c)) {
  const st = state(c);
  const user = k.user_id === null ? undefined : tget(st.users, k.user_id);
  const mgmt = k.management_project_id === null ? undefined : tget(st.projects, k.management_project_id);
  const out: Record<string, unknown> = {
    id: k.id,
    name: k.name,
    created_at: k.created_at,
    domain: k.domain,
    enabled: k.enabled,
    managed: k.managed,
    provider_type: k.provider_type,
    platform_type: k.platform_type,
    environment_scope: k.environment_scope,
    cluster_type: k.cluster_type,
    namespace_per_environment: k.namespace_per_environment,
    user: user ? users.basic(user) : null,
    platform_kubernetes: {
      api_url: k.platform.api_url,
      namespace: k.platform.namespace,
      authorization_type: k.platform.authorization_type,
      ca_cert: k.platform.ca_cert,
    },
    // Only clusters created on GKE have a provider record; these were added by the user.
    provider_gcp: null,
    management_project: mgmt ? projectIdentity(st, mgmt) : null,
  };
  if (view === 'project') {
    const p = k.project_id === null ? undefined : tget(st.projects, k.project_id);
    out.project = p ? projectEntity(c, p, { shape: 'basic' }) : null;
  } else if (view === 'group') {
    const g = k.group_id === null ? undefined : tget(st.groups, k.group_id);
    // `Entities::BasicGroupDetails`.
    out.group = g ? { id: g.id, web_url: `${requestBase(c)}/groups/${g.full_path}`, name: g.name } : null;
  }
  return out;
}

export const annotationEntity = (a: AnnotationRecord) => ({
  id: a.id,
  starting_at: a.starting_at,
  ending_at: a.ending_at,
  dashboard_path: a.dashboard_path,
  description: a.description,
  environment_id: a.environment_id,
  cluster_id: a.cluster_id,
});
