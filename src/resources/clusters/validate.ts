/**
 * `Clusters::Cluster`'s validations and its autosaved `Clusters::Platforms::Kubernetes`', in the order
 * the model runs them, and `Clusters::Management::ValidateManagementProjectPermissionsService`. The API
 * URL is checked as `PublicUrlValidator` checks it, on its text alone: no name is resolved and nothing
 * is ever sent to it (a cluster here is a record).
 */
import { X509Certificate } from 'node:crypto';
import { ACCESS, projectAccess } from '../../core/access.js';
import type { PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { hostnameErrors } from '../pages_domains/model.js';
import { publicUrlLiteralProblem } from '../settings/outbound.js';
import type { ClusterRecord, ClusterType, PlatformKubernetes } from './store.js';

export type Errors = Record<string, string[]>;

/** The varchar(255) columns: longer is the database's error (a 500), as on the platform. */
export const COLUMN_LIMIT = 255;

/** `Gitlab::Regex.environment_scope_regex` and its message (`HasEnvironmentScope`). */
const SCOPE_FORMAT = /^[a-zA-Z0-9_/${}. \-*]+$/;
const SCOPE_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces";
/** `Gitlab::Regex.kubernetes_namespace_regex` and its message. */
const NAMESPACE_FORMAT = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAMESPACE_MESSAGE =
  "can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'";
/** `Clusters::Platforms::Kubernetes::RESERVED_NAMESPACES`. */
const RESERVED_NAMESPACES = ['gitlab-managed-apps'];
export const NO_PERMISSION = "Project does not exist or you don't have permission to perform this action";

/** What a cluster is validated as: the record as it would be saved, without its id and times. */
export type ClusterFields = Omit<ClusterRecord, 'id' | 'created_at' | 'updated_at'>;

export const ownerKey = (f: Pick<ClusterRecord, 'cluster_type' | 'project_id' | 'group_id'>): string =>
  f.cluster_type === 'project_type'
    ? `p${f.project_id}`
    : f.cluster_type === 'group_type'
      ? `g${f.group_id}`
      : 'i';

/** `Clusters::Cluster#allow_user_defined_namespace?`. */
const allowsNamespace = (f: ClusterFields) => f.cluster_type === 'project_type' || !f.managed;

/**
 * The first certificate of a PEM text, as `OpenSSL::X509::Certificate.new` reads it
 * (`CertificateValidator`): found with two scans, so that a long text costs its length once.
 */
export function validCertificate(pem: string): boolean {
  const begin = pem.indexOf('-----BEGIN CERTIFICATE-----');
  if (begin < 0) return false;
  const endMark = '-----END CERTIFICATE-----';
  const end = pem.indexOf(endMark, begin);
  if (end < 0) return false;
  try {
    new X509Certificate(pem.slice(begin, end + endMark.length));
    return true;
  } catch {
    return false;
  }
}

/**
 * `public_url: true` on `api_url` (`AddressableUrlValidator` strips it first): a text with no scheme
 * is `Only allowed schemes are http, https` (Addressable reads it as a path), as the platform says.
 */
function apiUrlProblem(st: PlatformState, url: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return 'is blocked: Only allowed schemes are http, https';
  return publicUrlLiteralProblem(st, url);
}

/** `before_validation`: the namespace lower-cased and blank made nil, the CA and token stripped. */
export function normalizePlatform(k: PlatformKubernetes): PlatformKubernetes {
  const ns = k.namespace?.toLowerCase() ?? null;
  return {
    api_url: k.api_url.trim(),
    token: k.token.trim(),
    ca_cert: k.ca_cert === null ? null : k.ca_cert.trim(),
    namespace: ns === null || ns.trim() === '' ? null : ns,
    authorization_type: k.authorization_type,
  };
}

/**
 * The model's errors, keys in the order the validations add them: the environment scope (the prepended
 * concern's), the platform's (`platform_kubernetes.<attr>`, the autosave association's), then the
 * cluster's own. `caChanged` is `ca_cert_changed?`; `self` the id of the cluster updated.
 */
export function clusterErrors(
  st: PlatformState,
  f: ClusterFields,
  caChanged: boolean,
  self: number | null,
): Errors {
  const errors: Errors = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (f.environment_scope.trim() === '') add('environment_scope', "can't be blank");
  if (!SCOPE_FORMAT.test(f.environment_scope)) add('environment_scope', SCOPE_MESSAGE);
  const k = f.platform;
  const pk = (attr: string, m: string) => add(`platform_kubernetes.${attr}`, m);
  if (k.namespace !== null) {
    if ([...k.namespace].length > 63) pk('namespace', 'is too long (maximum is 63 characters)');
    if (!NAMESPACE_FORMAT.test(k.namespace)) pk('namespace', NAMESPACE_MESSAGE);
  }
  if (k.namespace !== null && RESERVED_NAMESPACES.includes(k.namespace)) pk('namespace', 'is reserved');
  if (k.namespace !== null && !allowsNamespace(f)) pk('namespace', 'only allowed for project cluster');
  const blocked = apiUrlProblem(st, k.api_url);
  if (blocked) pk('api_url', blocked);
  if (k.api_url === '') pk('api_url', "can't be blank");
  if (k.token === '') pk('token', "can't be blank");
  if (caChanged && k.ca_cert && !validCertificate(k.ca_cert))
    pk('ca_cert', 'must be a valid PEM certificate');
  // `ClusterNameValidator` for a cluster the user provided (its message has a leading space).
  if (f.name.trim() === '') add('name', ' has to be present');
  if (f.domain !== null && f.domain.trim() !== '') for (const m of hostnameErrors(f.domain)) add('domain', m);
  const taken = (ids: readonly number[]) =>
    ids.some((id) => id !== self && tget(st.clusters.records, id)?.environment_scope === f.environment_scope);
  // `unique_management_project_environment_scope`, then `unique_environment_scope`.
  if (f.management_project_id !== null) {
    const managed = managementClusters(st, f.management_project_id);
    if (taken(managed)) add('environment_scope', 'cannot add duplicated environment scope');
  }
  if (taken(mget(st.clusters.idx.byOwner, ownerKey(f))))
    add('environment_scope', 'cannot add duplicated environment scope');
  return errors;
}

/** `management_project.management_clusters`. */
const managementClusters = (st: PlatformState, projectId: number): number[] =>
  mget(st.clusters.idx.byManagement, String(projectId));

/**
 * `ValidateManagementProjectPermissionsService`: the project must be in the cluster's scope (any
 * project for an instance cluster; the group's own projects and its subgroups' for a group cluster; the
 * projects of the same namespace for a project cluster) and the user must have `admin_pipeline` on it
 * (maintainers). One message for both, so that ids cannot be probed.
 */
export function managementProjectAllowed(
  st: PlatformState,
  user: UserRecord,
  owner: { cluster_type: ClusterType; project_id: number | null; group_id: number | null },
  managementId: number,
): boolean {
  const proj = tget(st.projects, managementId);
  if (!proj) return false;
  if (!inScope(st, proj, owner)) return false;
  return user.admin || projectAccess(st, user, proj) >= ACCESS.MAINTAINER;
}

function inScope(
  st: PlatformState,
  proj: ProjectRecord,
  owner: { cluster_type: ClusterType; project_id: number | null; group_id: number | null },
): boolean {
  if (owner.cluster_type === 'instance_type') return true;
  if (owner.cluster_type === 'project_type') {
    const of = owner.project_id === null ? undefined : tget(st.projects, owner.project_id);
    return !!of && of.namespace_kind === proj.namespace_kind && of.namespace_id === proj.namespace_id;
  }
  if (proj.namespace_kind !== 'group') return false;
  for (
    let g = tget(st.groups, proj.namespace_id);
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  )
    if (g.id === owner.group_id) return true;
  return false;
}
