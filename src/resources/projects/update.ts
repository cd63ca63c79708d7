/** PUT /projects/:id (with a rename of the path) and POST /projects/:id/fork. */
import { has } from '../../core/versions.js';
import { PROJECT_TOPICS_PARAM } from './versions.js';
import { storeAvatar, withAvatarErrors } from '../avatars/model.js';
import { copyRefs } from '../repository/refs.js';
import { ACCESS, projectAccess } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { setProjectTopics } from '../topics/model.js';
import { state, write, type Ctx } from '../../core/context.js';
import { conflict, forbidden, notFound, validationError } from '../../core/errors.js';
import { atLeastOneOf, p, parseParams } from '../../core/params.js';
import { parse } from '../../core/router.js';
import { type PlatformState, type Visibility } from '../../core/state.js';
import { indexProjectName, unindexProjectName } from '../../core/project-names.js';
import { idelete, iset, tget } from '../../core/table.js';
import { featureAvailable } from './access.js';
import { canAdminProject, isProjectOwner, loadProject, sendProject } from './helpers.js';
import { createProject, setMember, type Project } from './model.js';
import {
  attributeSteps,
  canCreateIn,
  namespacePath,
  projectErrors,
  projectsLimitMessage,
  restrictedMessage,
  validate,
  visibilityAllowed,
  type Attributes,
  type NamespaceRef,
} from './validation.js';
import { attributeChanges, groupOwnerLevel } from './create.js';
import { findNamespace } from './namespaces.js';
import { projectEventData, systemEvent } from '../hooks/system.js';

// ---------------------------------------------------------------------------------------------------
// PUT /projects/:id

/** `update_params_at_least_one_of` of the 13.x API, in its order. */
const UPDATE_AT_LEAST_ONE = [
  'allow_merge_on_skipped_pipeline',
  'autoclose_referenced_issues',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'auto_cancel_pending_pipelines',
  'build_coverage_regex',
  'build_git_strategy',
  'build_timeout',
  'builds_access_level',
  'ci_config_path',
  'ci_default_git_depth',
  'ci_forward_deployment_enabled',
  'container_registry_enabled',
  'container_expiration_policy_attributes',
  'default_branch',
  'description',
  'emails_disabled',
  'forking_access_level',
  'issues_access_level',
  'lfs_enabled',
  'merge_pipelines_enabled',
  'merge_requests_access_level',
  'merge_requests_template',
  'merge_trains_enabled',
  'merge_method',
  'name',
  'only_allow_merge_if_all_discussions_are_resolved',
  'only_allow_merge_if_pipeline_succeeds',
  'pages_access_level',
  'path',
  'printing_merge_request_link_enabled',
  'public_builds',
  'remove_source_branch_after_merge',
  'repository_access_level',
  'request_access_enabled',
  'resolve_outdated_diff_discussions',
  'shared_runners_enabled',
  'snippets_access_level',
  'tag_list',
  'visibility',
  'wiki_access_level',
  'avatar',
  'suggestion_commit_message',
  'repository_storage',
  'compliance_framework_setting',
  'packages_enabled',
  'service_desk_enabled',
  'issues_enabled',
  'jobs_enabled',
  'merge_requests_enabled',
  'wiki_enabled',
  'snippets_enabled',
];

/**
 * What EE's `update_params_at_least_one_of` adds on the paid tiers, of the EE params fauxlab declares
 * (`paidProjectAttributes`): a request with only these is an update.
 */
const PAID_UPDATE_AT_LEAST_ONE = ['approvals_before_merge', 'external_authorization_classification_label'];

const updateHead = { name: p.str(), default_branch: p.str(), path: p.str() };
const updateTail = { ci_forward_deployment_enabled: p.bool() };

export function updateProjectRoute(c: Ctx): Response {
  requireUser(c);
  const raw = c.get('params');
  const paid = c.get('fx').tier() !== 'free';
  const topics = has(c, PROJECT_TOPICS_PARAM);
  let h!: { name?: string; default_branch?: string; path?: string };
  const extra = { attrs: {} as Attributes };
  validate([
    () => void (h = parseParams(updateHead, raw)),
    ...attributeSteps(raw, paid, extra, topics),
    () => void parseParams(updateTail, raw),
    () =>
      atLeastOneOf(
        raw,
        ...UPDATE_AT_LEAST_ONE,
        ...(topics ? ['topics'] : []),
        ...(paid ? PAID_UPDATE_AT_LEAST_ONE : []),
      ),
  ]);
  const a = extra.attrs;
  const project = loadProject(c);
  if (!canAdminProject(c, project)) throw forbidden();
  if (h.name !== undefined && h.name !== '' && !isProjectOwner(c, project)) throw forbidden();
  if (a.visibility !== undefined && !isProjectOwner(c, project)) throw forbidden();
  const st = state(c);
  const user = c.get('viewer').user!;
  const visibility = (a.visibility as Visibility | undefined) ?? project.visibility;
  if (
    a.visibility !== undefined &&
    a.visibility !== project.visibility &&
    !visibilityAllowed(st, user, visibility)
  )
    throw validationError({ visibility_level: [restrictedMessage(visibility)] });
  const name = h.name ?? project.name;
  const path = h.path ?? project.path;
  const ns = projectNamespace(st, project);
  const errors = withAvatarErrors(projectErrors(st, ns, name, path, visibility, project), a.avatar);
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const changes = attributeChanges(raw, a, project, user.admin, () => project.id);
  if (h.default_branch !== undefined) changes.default_branch = h.default_branch;
  if (a.visibility !== undefined) changes.visibility = visibility;
  if (h.name !== undefined) changes.name = name;
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const rec = tget(d.projects, project.id)! as Project;
    if (changes.tag_list) setProjectTopics(d, rec.id, rec.tag_list, changes.tag_list as string[], now);
    if (a.avatar) storeAvatar(d, changes.avatar_url as string, a.avatar, rec.avatar_url);
    const renamed = name !== rec.name;
    if (renamed) unindexProjectName(d.idx.projectNames, rec);
    Object.assign(rec, changes);
    if (renamed) indexProjectName(d.idx.projectNames, rec);
    if (path !== project.path) renameProjectPath(d, rec, path, namespacePath(ns));
    rec.updated_at = now;
  });
  if (path !== project.path)
    systemEvent(
      c,
      'project_rename',
      projectEventData(state(c), tget(state(c).projects, project.id)!, project.path_with_namespace),
    );
  return sendProject(c, project.id, 200, { canAdminProject: true });
}

/** Moves a project to a new path in its namespace, keeping the path index in step. */
function renameProjectPath(st: PlatformState, rec: Project, path: string, nsPath: string): void {
  idelete(st.idx.projects, rec.path_with_namespace.toLowerCase());
  rec.path = path;
  rec.path_with_namespace = `${nsPath}/${path}`;
  iset(st.idx.projects, rec.path_with_namespace.toLowerCase(), rec.id);
}

function projectNamespace(st: PlatformState, p: Project): NamespaceRef {
  if (p.namespace_kind === 'group') return { kind: 'group', group: tget(st.groups, p.namespace_id)! };
  return { kind: 'user', user: tget(st.users, p.owner_id!)! };
}

// ---------------------------------------------------------------------------------------------------
// POST /projects/:id/fork

const forkParams = {
  namespace: p.str(),
  namespace_id: p.int(),
  namespace_path: p.str(),
  path: p.str(),
  name: p.str(),
};

export function forkProjectRoute(c: Ctx): Response {
  const user = requireUser(c);
  const prm = parse(c, forkParams);
  const source = loadProject(c);
  const st = state(c);
  const access = projectAccess(st, user, source);
  if (!featureAvailable(source.forking_access_level, 'forking', access, user.admin)) throw notFound();
  // `fork_project`: reporter access, or the public access a public (or, to non-external users,
  // internal) project gives; a guest of a private project may read it but not fork it.
  const publicAccess = source.visibility === 'public' || (source.visibility === 'internal' && !user.external);
  if (!user.admin && access < ACCESS.REPORTER && !publicAccess) throw forbidden();
  let target: NamespaceRef = { kind: 'user', user };
  if (prm.namespace_id !== undefined) target = findNamespace(c, prm.namespace_id);
  else if (prm.namespace_path) target = findNamespace(c, prm.namespace_path, true);
  else if (prm.namespace) target = findNamespace(c, prm.namespace);
  if (!canCreateIn(st, user, target))
    throw notFound('Target Namespace', 'the user may not create projects there');
  const name = prm.name ?? source.name;
  const path = prm.path ?? source.path;
  const groupCap = target.kind === 'group' ? target.group.visibility : 'public';
  const order: Visibility[] = ['private', 'internal', 'public'];
  const visibility = order[Math.min(order.indexOf(source.visibility), order.indexOf(groupCap))]!;
  const errors = projectErrors(st, target, name, path, visibility);
  delete errors.visibility_level;
  // `check_personal_projects_limit`: a fork into the user's own namespace counts against the limit.
  const limit = target.kind === 'user' ? projectsLimitMessage(st, user) : null;
  if (limit) errors.limit_reached = [limit];
  if (Object.keys(errors).length > 0) throw conflict(errors);
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => {
    const pid = createProject(
      d,
      {
        path,
        name,
        namespace:
          target.kind === 'group'
            ? { kind: 'group', id: target.group.id }
            : { kind: 'user', userId: target.user.id },
        creator_id: user.id,
        visibility,
        description: source.description,
        default_branch: source.default_branch,
        forked_from_project_id: source.id,
        shared_runners_enabled: source.shared_runners_enabled,
        ci_config_path: source.ci_config_path,
        tag_list: source.tag_list,
      },
      now,
    );
    if (target.kind === 'group' && groupOwnerLevel(d, user, target.group) < ACCESS.OWNER)
      setMember(d, 'project', pid, user.id, ACCESS.MAINTAINER, now);
    copyRefs(d, source, tget(d.projects, pid)!);
    return pid;
  });
  return sendProject(c, id, 201, { canAdminProject: true });
}
