/**
 * The projects API: lists (see lists.ts), show, create, update, fork, star, archive, delete and restore,
 * sharing with groups, starrers, languages, users, members (members.ts) and uploads (uploads.ts).
 *
 * The order of checks is the platform's and visible to clients: the route must match, writes need a user
 * (401), params are validated (400), the project must be readable (404), then the endpoint's permission
 * (403), conflicts, the model (400).
 */
import { ACCESS, canReadGroup, projectAccess } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { setProjectTopics } from '../topics/model.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, conflict, forbidden, notFound, notModified, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { atLeastOneOf, p, parseParams, type RawParams } from '../../core/params.js';
import { jsonResponse } from '../../core/respond.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState, UserRecord, Visibility } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tget, tvalues, type Table } from '../../core/table.js';
import { userRenderer } from '../users/entities.js';
import { compileSearch, userKey } from '../users/finder.js';
import { featureAvailable } from './access.js';
import { isoTime, projectLanguages, projectRenderer } from './entities.js';
import { starredBy } from './finder.js';
import { adjournedPeriod, settleDeletions } from './lifecycle.js';
import { listRoutes } from './lists.js';
import { canAdminProject, isProjectOwner, loadProject, sendProject } from './helpers.js';
import { projectMembersRoutes, teamUserIds } from './members.js';
import {
  addShare,
  addStar,
  createProject,
  deleteProject,
  removeShare,
  removeStar,
  setMember,
  sortedTags,
  type ExpirationPolicy,
  type FeatureAccess,
  type Project,
} from './model.js';
import { projectUploadsRoutes } from './uploads.js';
import { setting } from '../settings/model.js';
import {
  attributeSteps,
  canCreateIn,
  defaultVisibility,
  namespacePath,
  parameterize,
  projectErrors,
  projectsLimitMessage,
  restrictedMessage,
  validate,
  validPath,
  visibilityAllowed,
  type Attributes,
  type NamespaceRef,
} from './validation.js';

// ---------------------------------------------------------------------------------------------------
// Helpers

const namespaceUsers = new WeakMap<Table<UserRecord>, Map<number, number>>();

/** A namespace by id (a group's id, or a user's personal namespace id). */
function namespaceById(st: PlatformState, id: number): NamespaceRef | undefined {
  const g = tget(st.groups, id);
  if (g) return { kind: 'group', group: g };
  let byNs = namespaceUsers.get(st.users);
  if (!byNs) {
    byNs = new Map(tvalues(st.users).map((u) => [u.namespace_id, u.id]));
    namespaceUsers.set(st.users, byNs);
  }
  const uid = byNs.get(id);
  const u = uid === undefined ? undefined : tget(st.users, uid);
  return u ? { kind: 'user', user: u } : undefined;
}

/** A namespace by full path (a group or a username). */
function namespaceByPath(st: PlatformState, path: string): NamespaceRef | undefined {
  const id = iget(st.idx.namespaces, path.toLowerCase());
  if (id === undefined) return undefined;
  if (id < 0) {
    const u = tget(st.users, -id);
    return u ? { kind: 'user', user: u } : undefined;
  }
  const g = tget(st.groups, id);
  return g ? { kind: 'group', group: g } : undefined;
}

/** `find_namespace!`: id or path; a namespace the user may not read is not found. */
function findNamespace(c: Ctx, idOrPath: string | number, byPathOnly = false): NamespaceRef {
  const st = state(c);
  const s = String(idOrPath);
  const ns = !byPathOnly && /^\d+$/.test(s) ? namespaceById(st, Number(s)) : namespaceByPath(st, s);
  const user = c.get('viewer').user;
  const readable =
    ns && (ns.kind === 'user' ? user?.admin || ns.user.id === user?.id : canReadGroup(st, user, ns.group));
  if (!ns || !readable) throw notFound('Namespace', 'no such namespace, or not readable');
  return ns;
}

const FEATURES = ['issues', 'merge_requests', 'wiki', 'builds', 'snippets'] as const;
const ENABLED_FLAGS: Record<(typeof FEATURES)[number], keyof Attributes> = {
  issues: 'issues_enabled',
  merge_requests: 'merge_requests_enabled',
  wiki: 'wiki_enabled',
  builds: 'jobs_enabled',
  snippets: 'snippets_enabled',
};
const ACCESS_LEVEL_FIELDS = [
  'issues_access_level',
  'repository_access_level',
  'merge_requests_access_level',
  'forking_access_level',
  'wiki_access_level',
  'builds_access_level',
  'snippets_access_level',
  'pages_access_level',
  'operations_access_level',
  'analytics_access_level',
] as const;
const PLAIN_FIELDS = [
  'description',
  'build_git_strategy',
  'build_timeout',
  'auto_cancel_pending_pipelines',
  'build_coverage_regex',
  'ci_config_path',
  'service_desk_enabled',
  'emails_disabled',
  'shared_runners_enabled',
  'resolve_outdated_diff_discussions',
  'remove_source_branch_after_merge',
  'container_registry_enabled',
  'lfs_enabled',
  'request_access_enabled',
  'only_allow_merge_if_pipeline_succeeds',
  'allow_merge_on_skipped_pipeline',
  'only_allow_merge_if_all_discussions_are_resolved',
  'printing_merge_request_link_enabled',
  'merge_method',
  'suggestion_commit_message',
  'ci_default_git_depth',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'autoclose_referenced_issues',
  'packages_enabled',
  'approvals_before_merge',
  'mirror',
  'mirror_user_id',
  'mirror_trigger_builds',
  'only_mirror_protected_branches',
  'mirror_overwrites_diverged_branches',
  'external_authorization_classification_label',
] as const;

/**
 * The record changes the given attributes make (a JSON null clears a nullable field). Visibility, name
 * and path are the caller's: they are validated against the namespace.
 */
function attributeChanges(
  raw: RawParams,
  a: Attributes,
  current: Project | undefined,
  admin: boolean,
  projectIdForAvatar: () => number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of PLAIN_FIELDS) {
    const v = a[k as keyof Attributes];
    if (v !== undefined) out[k] = v;
    else if (raw[k] === null && current && current[k] === null) out[k] = null;
  }
  if (a.public_builds !== undefined) out.public_jobs = a.public_builds;
  for (const f of FEATURES) {
    const flag = a[ENABLED_FLAGS[f]];
    if (typeof flag === 'boolean') out[`${f}_access_level`] = flag ? 'enabled' : 'disabled';
  }
  for (const k of ACCESS_LEVEL_FIELDS) if (a[k] !== undefined) out[k] = a[k] as FeatureAccess;
  if (a.tag_list !== undefined) out.tag_list = sortedTags(a.tag_list);
  if (a.repository_storage !== undefined && admin) out.repository_storage = a.repository_storage;
  const policy = a.container_expiration_policy_attributes;
  if (policy) {
    const base: ExpirationPolicy = { ...(current?.container_expiration_policy ?? DEFAULT_POLICY) };
    const str = (k: 'cadence' | 'older_than' | 'name_regex' | 'name_regex_keep') => {
      const v = policy[k];
      if (typeof v === 'string') base[k] = v;
    };
    str('cadence');
    str('older_than');
    str('name_regex');
    str('name_regex_keep');
    const keep = policy.keep_n;
    if (typeof keep === 'number' || (typeof keep === 'string' && /^\d+$/.test(keep)))
      base.keep_n = Number(keep);
    const enabled = policy.enabled;
    if (enabled === true || enabled === 'true') base.enabled = true;
    if (enabled === false || enabled === 'false') base.enabled = false;
    out.container_expiration_policy = base;
  }
  if (a.avatar) {
    const name = (a.avatar.name || 'avatar.png').replace(/[^A-Za-z0-9._-]/g, '_');
    out.avatar_url = `/uploads/-/system/project/avatar/${projectIdForAvatar()}/${name}`;
  }
  return out;
}

const DEFAULT_POLICY: ExpirationPolicy = {
  cadence: '1d',
  enabled: false,
  keep_n: 10,
  older_than: '90d',
  name_regex: '.*',
  name_regex_keep: null,
  next_run_at: null,
};

// ---------------------------------------------------------------------------------------------------
// POST /projects

const createHead = { name: p.str(), path: p.str() };
const createTail = {
  namespace_id: p.int(),
  import_url: p.str(),
  template_name: p.str(),
  template_project_id: p.int(),
};

function createProjectRoute(c: Ctx): Response {
  const user = requireUser(c);
  const raw = c.get('params');
  const paid = c.get('fx').tier() !== 'free';
  let h!: { name?: string; path?: string };
  let t!: { namespace_id?: number };
  const extra = { attrs: {} as Attributes };
  validate([
    () => void (h = parseParams(createHead, raw)),
    () => atLeastOneOf(raw, 'name', 'path'),
    ...attributeSteps(raw, paid, extra),
    () => void (t = parseParams(createTail, raw)),
  ]);
  settleDeletions(c);
  const a = extra.attrs;
  const st = state(c);
  const invalid = (errors: Record<string, string[]>) => validationError({ ...errors, limit_reached: [] });

  const visibility = (a.visibility as Visibility | undefined) ?? defaultVisibility(st);
  if (!visibilityAllowed(st, user, visibility))
    throw invalid({ visibility_level: [restrictedMessage(visibility)] });
  let name = h.name ?? '';
  let path = h.path ?? '';
  if (name.trim() !== '' && path.trim() === '') path = validPath(name) ? name : parameterize(name);
  else if (path.trim() !== '' && name.trim() === '') name = path;

  let ns: NamespaceRef;
  if (t.namespace_id !== undefined) {
    const found = namespaceById(st, t.namespace_id);
    if (!found || !canCreateIn(st, user, found)) throw invalid({ namespace: ['is not valid'] });
    ns = found;
  } else ns = { kind: 'user', user };

  const errors = projectErrors(st, ns, name, path, visibility);
  if (ns.kind === 'user') {
    const limit = projectsLimitMessage(st, ns.user);
    // The API answers a reached limit before any other error, with Grape's own error shape.
    if (limit) throw apiErrorShape(403, [limit]);
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);

  const now = c.get('fx').clock.iso();
  const readme = a.initialize_with_readme === true;
  const defaultBranch = setting(st, 'default_branch_name') || 'master';
  const id = write(c, (d) => {
    const changes = attributeChanges(raw, a, undefined, user.admin, () => (d.seq.projects ?? 0) + 1);
    const pid = createProject(
      d,
      {
        ...changes,
        path,
        name,
        namespace:
          ns.kind === 'group' ? { kind: 'group', id: ns.group.id } : { kind: 'user', userId: ns.user.id },
        creator_id: user.id,
        visibility,
        description: a.description ?? '',
        // A new repository is empty unless a README is committed.
        default_branch: readme ? defaultBranch : null,
      },
      now,
    );
    // The creator of a group project becomes its maintainer, unless they own the group already.
    if (ns.kind === 'group' && groupOwnerLevel(d, user, ns.group) < ACCESS.OWNER)
      setMember(d, 'project', pid, user.id, ACCESS.MAINTAINER, now);
    return pid;
  });
  return sendProject(c, id, 201, { canAdminProject: true });
}

/** Grape's `error!` with a non-string message: `{"error": <message>}`. */
function apiErrorShape(status: number, error: unknown) {
  const e = apiError(status, null);
  (e as { body: unknown }).body = { error };
  return e;
}

function groupOwnerLevel(st: PlatformState, user: UserRecord, g: GroupRecord): number {
  let lvl = 0;
  for (
    let x: GroupRecord | undefined = g;
    x;
    x = x.parent_id === null ? undefined : tget(st.groups, x.parent_id)
  ) {
    const mid = iget(st.idx.members, `group:${x.id}:${user.id}`);
    if (mid !== undefined) lvl = Math.max(lvl, tget(st.members, mid)?.access_level ?? 0);
  }
  return lvl;
}

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

const updateHead = { name: p.str(), default_branch: p.str(), path: p.str() };
const updateTail = { ci_forward_deployment_enabled: p.bool() };

function updateProjectRoute(c: Ctx): Response {
  requireUser(c);
  const raw = c.get('params');
  const paid = c.get('fx').tier() !== 'free';
  let h!: { name?: string; default_branch?: string; path?: string };
  const extra = { attrs: {} as Attributes };
  validate([
    () => void (h = parseParams(updateHead, raw)),
    ...attributeSteps(raw, paid, extra),
    () => void parseParams(updateTail, raw),
    () => atLeastOneOf(raw, ...UPDATE_AT_LEAST_ONE),
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
  const errors = projectErrors(st, ns, name, path, visibility, project);
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const changes = attributeChanges(raw, a, project, user.admin, () => project.id);
  if (h.default_branch !== undefined) changes.default_branch = h.default_branch;
  if (a.visibility !== undefined) changes.visibility = visibility;
  if (h.name !== undefined) changes.name = name;
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const rec = tget(d.projects, project.id)! as Project;
    if (changes.tag_list) setProjectTopics(d, rec.id, rec.tag_list, changes.tag_list as string[], now);
    Object.assign(rec, changes);
    if (path !== project.path) renameProjectPath(d, rec, path, namespacePath(ns));
    rec.updated_at = now;
  });
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

function forkProjectRoute(c: Ctx): Response {
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
    return pid;
  });
  return sendProject(c, id, 201, { canAdminProject: true });
}

// ---------------------------------------------------------------------------------------------------
// Routes

const showParams = {
  statistics: p.bool().default(false),
  with_custom_attributes: p.bool().default(false),
  license: p.bool().default(false),
};

const shareParams = {
  group_id: p.int().required(),
  group_access: p.int().required().values([10, 20, 30, 40]),
  expires_at: p.date(),
};

const starrerParams = { search: p.str(), ...paginationParams };
const usersParams = {
  search: p.str(),
  skip_users: p.intArray({ commaSeparated: true }),
  ...paginationParams,
};

export function projectsRoutes(r: ApiRouter): void {
  r.get('/projects', (c) => listRoutes.listProjects(c, 'all'));
  r.post('/projects', createProjectRoute);
  r.get('/users/:user_id/projects', (c) => listRoutes.listProjects(c, 'user'));
  r.get('/groups/:id/projects', (c) => listRoutes.listGroupProjects(c, false));
  r.get('/groups/:id/projects/shared', (c) => listRoutes.listGroupProjects(c, true));

  r.get('/projects/:id', { params: showParams }, (c, prm) => {
    const project = loadProject(c);
    const viewer = c.get('viewer').user;
    const body = projectRenderer(c).bytes(project, {
      shape: viewer ? 'withAccess' : 'basic',
      statistics: prm.statistics,
      license: prm.license,
      customAttributes: prm.with_custom_attributes && viewer?.admin === true,
      canAdminProject: canAdminProject(c, project),
    });
    return jsonResponse(body);
  });

  r.put('/projects/:id', updateProjectRoute);

  r.delete('/projects/:id', (c) => {
    requireUser(c);
    const project = loadProject(c);
    if (!isProjectOwner(c, project)) throw forbidden();
    checkUnmodifiedSince(c, project.updated_at);
    const st = state(c);
    const adjourned = c.get('fx').tier() !== 'free' && adjournedPeriod(st) > 0;
    const today = c.get('fx').clock.today();
    const now = c.get('fx').clock.iso();
    if (!adjourned) write(c, (d) => deleteProject(d, project.id));
    else if (!project.marked_for_deletion_on)
      write(c, (d) => {
        const rec = tget(d.projects, project.id)! as Project;
        rec.marked_for_deletion_on = today;
        rec.archived = true;
        rec.updated_at = now;
        madd(d.idx.projectsMarked, 'all', project.id);
      });
    return c.json({ message: '202 Accepted' }, 202);
  });

  r.post('/projects/:id/restore', (c) => {
    requireUser(c);
    const project = loadProject(c);
    if (!isProjectOwner(c, project)) throw forbidden();
    if (c.get('fx').tier() === 'free') throw notFound(undefined, 'restore is a paid-tier feature');
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      const rec = tget(d.projects, project.id)! as Project;
      rec.archived = false;
      rec.marked_for_deletion_on = null;
      rec.updated_at = now;
      mremoveMarked(d, project.id);
    });
    return sendProject(c, project.id, 201);
  });

  r.post('/projects/:id/fork', forkProjectRoute);

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const)
    r.post(`/projects/:id/${action}`, (c) => {
      requireUser(c);
      const project = loadProject(c);
      if (!isProjectOwner(c, project)) throw forbidden();
      if (project.archived !== archived) {
        const now = c.get('fx').clock.iso();
        write(c, (d) => {
          const rec = tget(d.projects, project.id)! as Project;
          rec.archived = archived;
          rec.updated_at = now;
        });
      }
      return sendProject(c, project.id, 201);
    });

  r.post('/projects/:id/star', (c) => {
    const user = requireUser(c);
    const project = loadProject(c);
    if (starredBy(state(c), project.id, user.id)) throw notModified();
    const now = c.get('fx').clock.iso();
    write(c, (d) => addStar(d, project.id, user.id, now));
    return sendProject(c, project.id, 201);
  });

  r.post('/projects/:id/unstar', (c) => {
    const user = requireUser(c);
    const project = loadProject(c);
    const starId = iget(state(c).idx.stars, `${project.id}:${user.id}`);
    if (starId === undefined) throw notModified();
    write(c, (d) => removeStar(d, starId));
    return sendProject(c, project.id, 201);
  });

  r.get('/projects/:id/starrers', { params: starrerParams }, (c, prm) => {
    const project = loadProject(c);
    const st = state(c);
    const viewer = c.get('viewer').user;
    let stars = mget(st.idx.starsBy, String(project.id)).map((id) => tget(st.stars, id)!);
    // Private profiles are hidden, except from admins and from themselves.
    stars = stars.filter((s) => {
      const u = tget(st.users, s.user_id);
      return !!u && (!u.private_profile || viewer?.admin === true || viewer?.id === u.id);
    });
    if (prm.search !== undefined && prm.search.trim() !== '') {
      const search = compileSearch(st, prm.search);
      stars = search ? stars.filter((s) => search.test(userKey(tget(st.users, s.user_id)!))) : [];
    }
    const ur = userRenderer(c);
    return paginate(c, stars, (s) => ({
      starred_since: isoTime(s.created_at),
      user: ur.basic(tget(st.users, s.user_id)!),
    }));
  });

  r.get('/projects/:id/languages', (c) => {
    const project = loadProject(c);
    return c.json(project.default_branch === null ? {} : projectLanguages(project.id));
  });

  r.post('/projects/:id/share', (c) => {
    requireUser(c);
    const prm = parse(c, shareParams);
    const project = loadProject(c);
    if (!canAdminProject(c, project)) throw forbidden();
    const st = state(c);
    if (
      project.namespace_kind === 'group' &&
      tget(st.groups, project.namespace_id)?.share_with_group_lock === true
    )
      throw apiError(400, 'The project sharing with group is disabled');
    const group = tget(st.groups, prm.group_id);
    if (!group || !canReadGroup(st, c.get('viewer').user, group)) throw apiError(404, 'Not Found');
    if (iget(st.idx.shares, `${project.id}:${group.id}`) !== undefined)
      throw conflict('Group already shared with this group');
    if (project.namespace_kind === 'group') {
      for (
        let g = tget(st.groups, project.namespace_id);
        g;
        g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
      )
        if (g.id === group.id)
          throw conflict('Project cannot be shared with the group it is in or one of its ancestors.');
    }
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) =>
      addShare(d, project.id, group.id, prm.group_access, now, prm.expires_at ?? null),
    );
    const sh = tget(state(c).shares, id)!;
    return c.json(
      {
        id: sh.id,
        project_id: sh.project_id,
        group_id: sh.group_id,
        group_access: sh.group_access,
        expires_at: sh.expires_at,
      },
      201,
    );
  });

  r.delete('/projects/:id/share/:group_id', (c) => {
    requireUser(c);
    const prm = parse(c, { group_id: p.int().required() });
    const project = loadProject(c);
    if (!canAdminProject(c, project)) throw forbidden();
    const st = state(c);
    const shareId = iget(st.idx.shares, `${project.id}:${prm.group_id}`);
    if (shareId === undefined) throw notFound('Group Link', 'the project is not shared with that group');
    checkUnmodifiedSince(c, tget(st.shares, shareId)!.created_at);
    write(c, (d) => removeShare(d, shareId));
    return c.body(null, 204);
  });

  r.get('/projects/:id/users', { params: usersParams }, (c, prm) => {
    const project = loadProject(c);
    const st = state(c);
    let ids = teamUserIds(st, project);
    if (prm.skip_users && prm.skip_users.length > 0) {
      const skip = new Set(prm.skip_users);
      ids = ids.filter((id) => !skip.has(id));
    }
    let users = ids.map((id) => tget(st.users, id)!).filter(Boolean);
    if (prm.search !== undefined && prm.search.trim() !== '') {
      const search = compileSearch(st, prm.search);
      users = search ? users.filter((u) => search.test(userKey(u))) : [];
    }
    const ur = userRenderer(c);
    return paginate(c, users, (u) => ur.basic(u));
  });

  projectMembersRoutes(r);
  projectUploadsRoutes(r);
}

const mremoveMarked = (d: PlatformState, id: number) => mremove(d.idx.projectsMarked, 'all', id);
