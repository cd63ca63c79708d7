/** POST /projects: the writable attributes, their validation and the new project. */
import { has } from '../../core/versions.js';
import { DEFAULT_BRANCH_MAIN, PROJECT_TOPICS_PARAM } from './versions.js';
import { storeAvatar, withAvatarErrors } from '../avatars/model.js';
import { ACCESS } from '../../core/access.js';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import { apiError, notFound, validationError } from '../../core/errors.js';
import { atLeastOneOf, p, parseParams, type RawParams } from '../../core/params.js';
import { type GroupRecord, type PlatformState, type UserRecord, type Visibility } from '../../core/state.js';
import { iget, tget } from '../../core/table.js';
import { settleDeletions } from './lifecycle.js';
import { announceReceived, postReceive, type Received } from '../repository/post-receive.js';
import { BLANK_SHA, setRef } from '../repository/refs.js';
import { objectsFor } from '../repository/store.js';
import { signatureOf } from '../repository/write.js';
import { sendProject } from './helpers.js';
import {
  createProject,
  setMember,
  sortedTags,
  type ExpirationPolicy,
  type FeatureAccess,
  type Project,
} from './model.js';
import { setting } from '../settings/model.js';
import {
  attributeSteps,
  canCreateIn,
  defaultVisibility,
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
import { namespaceById } from './namespaces.js';
import { projectEventData, systemEvent } from '../hooks/system.js';
import { publicUrlProblem } from '../settings/outbound.js';

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
export function attributeChanges(
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
  // `topics` (14.0) and the deprecated `tag_list` set the same names; given both, `topics` is taken.
  const tags = a.topics ?? a.tag_list;
  if (tags !== undefined) out.tag_list = sortedTags(tags);
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
const createForUserHead = { name: p.str().required(), user_id: p.int().required(), path: p.str() };
const createTail = {
  namespace_id: p.int(),
  import_url: p.str(),
  template_name: p.str(),
  template_project_id: p.int(),
};

/**
 * `validates :import_url, public_url: { schemes: VALID_IMPORT_PROTOCOLS, ports: VALID_IMPORT_PORTS,
 * enforce_user: true }` on a new project (`allow_local_requests_from_web_hooks_and_services`).
 */
const IMPORT_URL = { schemes: ['http', 'https', 'git'], ports: [80, 443], enforceUser: true } as const;

export function createProjectRoute(c: Ctx): Promise<Response> {
  return createProjectFor(c, () => requireUser(c), false);
}

/**
 * `POST /projects/user/:user_id`: an admin creates a project for a user (`Projects::CreateService` run as
 * that user: their namespace, limit and visibility rules, and they are its creator). `name` is required
 * here; Grape's params are checked before `authenticated_as_admin!` and the user's `404 User Not Found`.
 */
export function createProjectForUserRoute(c: Ctx): Promise<Response> {
  return createProjectFor(
    c,
    () => {
      requireAdmin(c);
      const u = tget(state(c).users, Number(c.get('params').user_id));
      if (!u) throw notFound('User');
      return u;
    },
    true,
  );
}

async function createProjectFor(c: Ctx, owner: () => UserRecord, forUser: boolean): Promise<Response> {
  const raw = c.get('params');
  const paid = c.get('fx').tier() !== 'free';
  let h!: { name?: string; path?: string };
  let t!: { namespace_id?: number; import_url?: string };
  const extra = { attrs: {} as Attributes };
  validate([
    () => void (h = parseParams(forUser ? createForUserHead : createHead, raw)),
    ...(forUser ? [] : [() => atLeastOneOf(raw, 'name', 'path')]),
    ...attributeSteps(raw, paid, extra, has(c, PROJECT_TOPICS_PARAM)),
    () => void (t = parseParams(createTail, raw)),
  ]);
  const user = owner();
  const importUrl =
    t.import_url === undefined || t.import_url === ''
      ? null
      : await publicUrlProblem(c.get('fx'), t.import_url, IMPORT_URL);
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

  const errors = withAvatarErrors(projectErrors(st, ns, name, path, visibility), a.avatar);
  if (importUrl) errors.import_url = [importUrl];
  if (ns.kind === 'user') {
    const limit = projectsLimitMessage(st, ns.user);
    // The API answers a reached limit before any other error, with Grape's own error shape.
    if (limit) throw apiErrorShape(403, [limit]);
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);

  const now = c.get('fx').clock.iso();
  const readme = a.initialize_with_readme === true;
  const defaultBranch =
    setting(st, 'default_branch_name') || (has(c, DEFAULT_BRANCH_MAIN) ? 'main' : 'master');
  let readmePush: Received | undefined;
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
    if (a.avatar) storeAvatar(d, changes.avatar_url as string, a.avatar);
    if (readme) {
      // `Projects::CreateService#create_readme`: the first commit, by the creator, on the default branch.
      const store = objectsFor(d);
      const blob = store.putBlob(Buffer.from(`# ${name}\n\n${a.description ?? ''}`));
      const tree = store.putTree([{ mode: '100644', name: 'README.md', id: blob }]);
      const who = signatureOf(user, Math.floor(Date.parse(now) / 1000));
      const commit = store.putCommit({
        tree,
        parents: [],
        author: who,
        committer: who,
        message: 'Initial commit',
      });
      setRef(d, tget(d.projects, pid)!, 'branch', defaultBranch, commit);
      // The README arrives as a first push does (`Files::CreateService` through Gitaly's hooks): its push
      // event, and the default branch protected (`Projects::ProtectDefaultBranchService`).
      readmePush = postReceive(
        d,
        pid,
        [{ kind: 'branch', name: defaultBranch, old: BLANK_SHA, next: commit }],
        {
          userId: user.id,
          now,
          wasEmpty: true,
          base: requestBase(c),
        },
      );
    }
    // The creator of a group project becomes its maintainer, unless they own the group already.
    if (ns.kind === 'group' && groupOwnerLevel(d, user, ns.group) < ACCESS.OWNER)
      setMember(d, 'project', pid, user.id, ACCESS.MAINTAINER, now);
    return pid;
  });
  systemEvent(c, 'project_create', projectEventData(state(c), tget(state(c).projects, id)!));
  if (readmePush) announceReceived(c.get('fx'), requestBase(c), readmePush);
  return sendProject(c, id, 201, { canAdminProject: true });
}

/** Grape's `error!` with a non-string message: `{"error": <message>}`. */
function apiErrorShape(status: number, error: unknown) {
  const e = apiError(status, null);
  (e as { body: unknown }).body = { error };
  return e;
}

export function groupOwnerLevel(st: PlatformState, user: UserRecord, g: GroupRecord): number {
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
