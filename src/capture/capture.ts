/**
 * `fauxlab scenario capture`: reads a running GitLab (or any server speaking its REST API) and writes a
 * scenario that loads into an equal world. It reads what the token may see: the users it meets, groups
 * and subgroups with their members and labels, projects with their settings, members, labels,
 * milestones, issues and merge requests with their notes, threads and award emoji, hooks, releases, the
 * repository through `git`, and CI variables when asked (`withSecrets`). Records keep their ids and
 * times where the scenario format carries them, so that views answer as the source's did. Nothing is
 * written until everything is read: a failure leaves no half-made file.
 */
import { MINORS } from '../core/versions.js';
import { Client, CaptureError, type ClientOptions } from './client.js';
import { captureRepository } from './git.js';

export { CaptureError } from './client.js';

type Rec = Record<string, unknown>;

export interface CaptureOptions extends ClientOptions {
  /** Full paths of groups to capture, with their subgroups and projects. */
  groups?: string[];
  /** Full paths of projects to capture. */
  projects?: string[];
  /** Write CI variables' values (never written otherwise). */
  withSecrets?: boolean;
  /** The `git` binary; the repositories are left out when it is missing. */
  git?: string;
  /** Progress lines, for a terminal. */
  progress?: (line: string) => void;
}

export interface Captured {
  scenario: Rec;
  /** What could not be read or carried, one line each. */
  warnings: string[];
  requests: number;
}

/** Project fields the API shows that the scenario takes as they are (settings, not counters or ids). */
const PROJECT_SETTINGS = [
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
  'packages_enabled',
  'resolve_outdated_diff_discussions',
  'container_registry_enabled',
  'service_desk_enabled',
  'emails_disabled',
  'shared_runners_enabled',
  'lfs_enabled',
  'ci_default_git_depth',
  'public_jobs',
  'build_git_strategy',
  'build_timeout',
  'auto_cancel_pending_pipelines',
  'build_coverage_regex',
  'ci_config_path',
  'only_allow_merge_if_pipeline_succeeds',
  'allow_merge_on_skipped_pipeline',
  'request_access_enabled',
  'only_allow_merge_if_all_discussions_are_resolved',
  'remove_source_branch_after_merge',
  'printing_merge_request_link_enabled',
  'merge_method',
  'suggestion_commit_message',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'autoclose_referenced_issues',
  'approvals_before_merge',
  'external_authorization_classification_label',
] as const;

const GROUP_SETTINGS = [
  'share_with_group_lock',
  'require_two_factor_authentication',
  'two_factor_grace_period',
  'project_creation_level',
  'auto_devops_enabled',
  'subgroup_creation_level',
  'emails_disabled',
  'mentions_disabled',
  'lfs_enabled',
  'default_branch_protection',
  'request_access_enabled',
  'membership_lock',
] as const;

const USER_FIELDS = [
  'bio',
  'location',
  'public_email',
  'skype',
  'linkedin',
  'twitter',
  'website_url',
  'organization',
  'job_title',
  'external',
  'private_profile',
  'projects_limit',
  'can_create_group',
  'note',
  'two_factor_enabled',
  'theme_id',
  'color_scheme_id',
  'confirmed_at',
  'last_sign_in_at',
  'current_sign_in_at',
  'last_activity_on',
] as const;

const HOOK_FIELDS = [
  'url',
  'enable_ssl_verification',
  'created_at',
  'push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'note_events',
  'confidential_note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
  'push_events_branch_filter',
  'releases_events',
] as const;

const POSITION_FIELDS = [
  'base_sha',
  'start_sha',
  'head_sha',
  'old_path',
  'new_path',
  'position_type',
  'old_line',
  'new_line',
  'line_range',
] as const;

const enc = encodeURIComponent;
const pick = (from: Rec, keys: readonly string[]): Rec => {
  const out: Rec = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
};
const byId = (a: Rec, b: Rec) => Number(a.id) - Number(b.id);
const nameOf = (u: unknown) =>
  (u && typeof u === 'object' ? (u as Rec).username : undefined) as string | undefined;

/** A paid plan's name as fauxlab's tiers say it. */
function tierOf(plan: unknown): 'free' | 'premium' | 'ultimate' {
  if (plan === 'ultimate' || plan === 'gold') return 'ultimate';
  if (plan === 'premium' || plan === 'silver' || plan === 'starter' || plan === 'bronze') return 'premium';
  return 'free';
}

export async function capture(o: CaptureOptions): Promise<Captured> {
  const api = new Client(o);
  const warnings: string[] = [];
  const say = o.progress ?? (() => undefined);
  const now = new Date().toISOString();
  const me = await api.must('/user');
  const admin = me.is_admin === true;
  const scenario: Rec = { now };

  const version = await api.get('/version');
  const release =
    typeof (version.body as Rec)?.version === 'string' ? ((version.body as Rec).version as string) : '';
  const minor = /^(\d+)\.(\d+)/.exec(release);
  const m = minor ? `${Number(minor[1])}.${Number(minor[2])}` : undefined;
  if (m !== undefined && (MINORS as readonly string[]).includes(m)) scenario.version = m;
  else
    warnings.push(
      `version: ${release || 'unknown'} is not a release fauxlab answers as; the file keeps the default`,
    );
  if (release.endsWith('-ee')) {
    const license = admin ? await api.get('/license') : undefined;
    const plan = license?.status === 200 ? (license.body as Rec).plan : undefined;
    scenario.tier = plan === undefined ? 'ultimate' : tierOf(plan);
    if (plan === undefined)
      warnings.push('tier: the license is not readable with this token; wrote ultimate');
  }

  // Which groups and projects: the ones named (with subgroups and their projects), else all the token sees.
  const groups = new Map<number, Rec>();
  const projects = new Map<number, Rec>();
  const addGroup = (g: Rec) => groups.set(Number(g.id), g);
  const named = (o.groups?.length ?? 0) + (o.projects?.length ?? 0) > 0;
  for (const path of o.groups ?? []) {
    const g = await api.get(`/groups/${enc(path)}`, { with_projects: false });
    if (g.status !== 200) throw new CaptureError(`group ${path}: GET /groups answered ${g.status}`);
    addGroup(g.body as Rec);
    for (const d of (await api.list(`/groups/${(g.body as Rec).id as number}/descendant_groups`, {
      all_available: true,
    })) ?? [])
      addGroup(d);
  }
  for (const g of [...groups.values()])
    for (const p of (await api.list(`/groups/${g.id as number}/projects`, { with_shared: false })) ?? [])
      projects.set(Number(p.id), p);
  for (const path of o.projects ?? []) {
    const p = await api.get(`/projects/${enc(path)}`);
    if (p.status !== 200) throw new CaptureError(`project ${path}: GET /projects answered ${p.status}`);
    projects.set(Number((p.body as Rec).id), p.body as Rec);
  }
  if (!named) {
    for (const g of (await api.list('/groups', admin ? { all_available: true } : { min_access_level: 10 })) ??
      [])
      addGroup(g);
    for (const p of (await api.list(
      '/projects',
      admin ? { order_by: 'id', sort: 'asc' } : { membership: true },
    )) ?? [])
      projects.set(Number(p.id), p);
  }
  // Every namespace a captured project or group sits in comes along (a scenario names its parents).
  const byPath = new Map([...groups.values()].map((g) => [g.full_path as string, g]));
  const parents = async (full: string) => {
    const parts = full.split('/');
    for (let i = 1; i < parts.length; i++) {
      const path = parts.slice(0, i).join('/');
      if (byPath.has(path)) continue;
      const g = await api.get(`/groups/${enc(path)}`, { with_projects: false });
      if (g.status === 200) {
        addGroup(g.body as Rec);
        byPath.set(path, g.body as Rec);
      }
    }
  };
  for (const g of [...groups.values()]) await parents(g.full_path as string);
  for (const p of [...projects.values()]) await parents(p.path_with_namespace as string);

  const users = new Map<number, Rec>();
  const meet = (u: unknown) => {
    if (
      u &&
      typeof u === 'object' &&
      typeof (u as Rec).id === 'number' &&
      !users.has((u as Rec).id as number)
    )
      users.set((u as Rec).id as number, u as Rec);
    return nameOf(u);
  };
  const members = async (kind: 'groups' | 'projects', id: number, where: string) => {
    const list = await api.list(`/${kind}/${id}/members`);
    if (!list) {
      warnings.push(`${where}: members not readable`);
      return [];
    }
    return list.sort(byId).map((mb) => {
      meet(mb);
      return {
        username: mb.username,
        access_level: mb.access_level,
        ...(mb.expires_at ? { expires_at: mb.expires_at } : {}),
      };
    });
  };
  const variables = async (path: string, where: string) => {
    const list = await api.list(path);
    if (list === undefined) {
      warnings.push(`${where}: CI variables not readable`);
      return undefined;
    }
    if (!o.withSecrets) {
      if (list.length > 0)
        warnings.push(`${where}: ${list.length} CI variables not written (--with-secrets writes them)`);
      return undefined;
    }
    return list.map((v) =>
      pick(v, ['key', 'value', 'variable_type', 'protected', 'masked', 'environment_scope']),
    );
  };
  const labels = (list: Rec[] | undefined, withPriority: boolean) =>
    (list ?? []).sort(byId).map((l) => ({
      id: l.id,
      name: l.name,
      color: l.color,
      ...(l.description ? { description: l.description } : {}),
      ...(withPriority && l.priority !== null && l.priority !== undefined ? { priority: l.priority } : {}),
    }));

  const groupList = [...groups.values()].sort(byId);
  const outGroups: Rec[] = [];
  for (const [i, g] of groupList.entries()) {
    say(`groups ${i + 1}/${groupList.length}: ${g.full_path as string}`);
    const full = (await api.must(`/groups/${g.id as number}`, { with_projects: false })) as Rec;
    const where = `group ${full.full_path as string}`;
    const entry: Rec = {
      path: full.full_path,
      name: full.name,
      visibility: full.visibility,
      description: full.description ?? '',
      members: await members('groups', full.id as number, where),
      created_at: full.created_at,
      ...pick(full, GROUP_SETTINGS),
    };
    const shared = ((full.shared_with_groups as Rec[] | undefined) ?? [])
      .filter((s) => byPath.has(s.group_full_path as string))
      .map((s) => ({
        group: s.group_full_path,
        group_access: s.group_access_level,
        expires_at: s.expires_at ?? null,
      }));
    if (shared.length > 0) entry.shared_with = shared;
    const gl = labels(
      await api.list(`/groups/${full.id as number}/labels`, {
        only_group_labels: true,
        include_ancestor_groups: false,
      }),
      false,
    );
    if (gl.length > 0) entry.labels = gl;
    const vars = await variables(`/groups/${full.id as number}/variables`, where);
    if (vars && vars.length > 0) entry.variables = vars;
    outGroups.push(entry);
  }

  const projectList = [...projects.values()].sort(byId);
  const outProjects: Rec[] = [];
  const paths = new Set(projectList.map((p) => p.path_with_namespace as string));
  for (const [i, summary] of projectList.entries()) {
    say(`projects ${i + 1}/${projectList.length}: ${summary.path_with_namespace as string}`);
    outProjects.push(
      await captureProject(api, summary.id as number, {
        o,
        warnings,
        meet,
        members,
        variables,
        labels,
        paths,
      }),
    );
  }

  // The users met, each as the token sees them (an administrator sees e-mails and states).
  if (admin)
    for (const u of (await api.list('/users', { order_by: 'id', sort: 'asc' })) ?? [])
      users.set(u.id as number, u);
  meet(me);
  const outUsers: Rec[] = [];
  for (const id of [...users.keys()].sort((a, b) => a - b)) {
    const full = admin ? users.get(id)! : ((await api.get(`/users/${id}`)).body as Rec);
    if (!full || typeof full.username !== 'string') continue;
    const u: Rec = { username: full.username, name: full.name };
    if (typeof full.email === 'string') u.email = full.email;
    if (full.is_admin === true) u.admin = true;
    if (full.state === 'blocked' || full.state === 'deactivated' || full.state === 'banned')
      u.state = full.state;
    else if (typeof full.state === 'string' && full.state !== 'active') u.state = 'blocked';
    if (full.created_at) u.created_at = full.created_at;
    Object.assign(u, pick(full, USER_FIELDS));
    for (const k of Object.keys(u)) if (u[k] === null || u[k] === '') delete u[k];
    outUsers.push(u);
  }
  if (!admin) warnings.push('users: not an administrator, so e-mails and states are as a user sees them');
  warnings.push(
    'tokens and passwords are never readable through the API: add the tokens the tests use to `users[].tokens`',
  );

  scenario.users = outUsers;
  scenario.groups = outGroups;
  scenario.projects = outProjects;
  return { scenario, warnings, requests: api.requests };
}

interface ProjectContext {
  o: CaptureOptions;
  warnings: string[];
  meet: (u: unknown) => string | undefined;
  members: (kind: 'groups' | 'projects', id: number, where: string) => Promise<Rec[]>;
  variables: (path: string, where: string) => Promise<Rec[] | undefined>;
  labels: (list: Rec[] | undefined, withPriority: boolean) => Rec[];
  paths: Set<string>;
}

async function captureProject(api: Client, id: number, x: ProjectContext): Promise<Rec> {
  const p = await api.must(`/projects/${id}`, { statistics: false, license: false });
  const path = p.path_with_namespace as string;
  const where = `project ${path}`;
  const P = `/projects/${id}`;
  const entry: Rec = {
    path,
    name: p.name,
    visibility: p.visibility,
    description: p.description ?? '',
    archived: p.archived === true,
    default_branch: p.default_branch ?? null,
    created_at: p.created_at,
    last_activity_at: p.last_activity_at,
    ...pick(p, PROJECT_SETTINGS),
  };
  if ((p.namespace as Rec | undefined)?.kind === 'user') x.meet(p.owner);
  if (p.creator_id !== undefined) {
    const creator = await api.get(`/users/${p.creator_id as number}`);
    const name = creator.status === 200 ? x.meet(creator.body) : undefined;
    if (name) entry.creator = name;
  }
  const topics = (p.topics ?? p.tag_list) as string[] | undefined;
  if (topics && topics.length > 0) entry.tag_list = topics;
  const fork = (p.forked_from_project as Rec | undefined)?.path_with_namespace as string | undefined;
  if (fork !== undefined) {
    if (x.paths.has(fork)) entry.forked_from = fork;
    else
      x.warnings.push(`${where}: a fork of ${fork}, which is not captured: written as a project of its own`);
  }
  entry.members = await x.members('projects', id, where);
  const shared = ((p.shared_with_groups as Rec[] | undefined) ?? []).map((s) => ({
    group: s.group_full_path,
    group_access: s.group_access_level,
    expires_at: s.expires_at ?? null,
  }));
  if (shared.length > 0) entry.shared_with = shared;
  const starrers = await api.list(`${P}/starrers`);
  if (starrers && starrers.length > 0) entry.starred_by = starrers.map((s) => x.meet(s.user));

  const labels = x.labels(await api.list(`${P}/labels`, { include_ancestor_groups: false }), true);
  if (labels.length > 0) entry.labels = labels;
  const milestones = ((await api.list(`${P}/milestones`)) ?? []).sort(byId).map((m) => ({
    id: m.id,
    title: m.title,
    ...(m.description ? { description: m.description } : {}),
    ...(m.state === 'closed' ? { state: 'closed' } : {}),
    ...(m.due_date ? { due_date: m.due_date } : {}),
    ...(m.start_date ? { start_date: m.start_date } : {}),
    created_at: m.created_at,
  }));
  if (milestones.length > 0) entry.milestones = milestones;

  const issues: Rec[] = [];
  for (const i of (
    (await api.list(`${P}/issues`, { scope: 'all', state: 'all', order_by: 'created_at', sort: 'asc' })) ?? []
  ).sort(byId))
    issues.push({
      ...(await issuable(api, `${P}/issues/${i.iid as number}`, i, x)),
      ...(i.confidential === true ? { confidential: true } : {}),
      ...(i.discussion_locked === true ? { discussion_locked: true } : {}),
      ...(i.due_date ? { due_date: i.due_date } : {}),
      ...(typeof i.weight === 'number' ? { weight: i.weight } : {}),
      ...(i.closed_at ? { closed_at: i.closed_at } : {}),
      ...(i.closed_by ? { closed_by: x.meet(i.closed_by) } : {}),
    });
  if (issues.length > 0) entry.issues = issues;
  const mrs: Rec[] = [];
  for (const mr of (
    (await api.list(`${P}/merge_requests`, {
      scope: 'all',
      state: 'all',
      order_by: 'created_at',
      sort: 'asc',
    })) ?? []
  ).sort(byId))
    mrs.push({
      ...(await issuable(api, `${P}/merge_requests/${mr.iid as number}`, mr, x)),
      source_branch: mr.source_branch,
      target_branch: mr.target_branch,
      reviewers: ((mr.reviewers as Rec[] | undefined) ?? []).map((r) => x.meet(r)),
      // The scenario takes the settled states; `checking` and the `*_recheck` ones are rechecked on load.
      ...(mr.merge_status === 'can_be_merged' || mr.merge_status === 'cannot_be_merged'
        ? { merge_status: mr.merge_status }
        : {}),
      ...(mr.squash === true ? { squash: true } : {}),
      ...(mr.merged_by ? { merged_by: x.meet(mr.merged_by) } : {}),
      ...(mr.merged_at ? { merged_at: mr.merged_at } : {}),
    });
  if (mrs.length > 0) entry.merge_requests = mrs;

  // A list the token may not read (hooks and variables need Maintainer) is said, not written as empty.
  const hooks = await api.list(`${P}/hooks`);
  if (!hooks) x.warnings.push(`${where}: hooks not readable`);
  if (hooks && hooks.length > 0) entry.hooks = hooks.sort(byId).map((h) => pick(h, HOOK_FIELDS));
  const releases = await api.list(`${P}/releases`, { order_by: 'released_at', sort: 'asc' });
  if (!releases) x.warnings.push(`${where}: releases not readable`);
  if (releases && releases.length > 0)
    entry.releases = releases.map((r) => ({
      tag_name: r.tag_name,
      ...(r.name ? { name: r.name } : {}),
      ...(r.description ? { description: r.description } : {}),
      ...(r.author ? { author: x.meet(r.author) } : {}),
      released_at: r.released_at,
      created_at: r.created_at,
      ...(Array.isArray(r.milestones) && r.milestones.length > 0
        ? { milestones: (r.milestones as Rec[]).map((m) => m.title) }
        : {}),
      ...(((r.assets as Rec | undefined)?.links as Rec[] | undefined)?.length
        ? {
            links: ((r.assets as Rec).links as Rec[]).map((l) =>
              pick(l, ['name', 'url', 'filepath', 'link_type']),
            ),
          }
        : {}),
    }));
  const vars = await x.variables(`${P}/variables`, where);
  if (vars && vars.length > 0) entry.variables = vars;

  if (p.empty_repo !== true && p.repository_access_level !== 'disabled') {
    const httpUrl = p.http_url_to_repo;
    if (x.o.git === undefined) x.warnings.push(`${where}: repository not captured (no git)`);
    // The token goes with the clone: only to the instance being captured.
    else if (typeof httpUrl !== 'string' || !sameOrigin(httpUrl, api.base))
      x.warnings.push(`${where}: repository not captured (its URL ${String(httpUrl)} is not on ${api.base})`);
    else {
      try {
        const bundle = await captureRepository({ git: x.o.git, httpUrl, token: x.o.token });
        if (bundle !== undefined) entry.repository = { bundle };
      } catch (e) {
        throw new CaptureError(`${where}: git clone of ${httpUrl} failed: ${(e as Error).message}`);
      }
    }
  }
  return entry;
}

function sameOrigin(url: string, base: string): boolean {
  try {
    return new URL(url).origin === new URL(base).origin;
  } catch {
    return false;
  }
}

/** What issues and merge requests share: fields, award emoji, notes with their threads and emoji. */
async function issuable(api: Client, path: string, r: Rec, x: ProjectContext): Promise<Rec> {
  const times = r.time_stats as Rec | undefined;
  const out: Rec = {
    id: r.id,
    iid: r.iid,
    title: r.title,
    ...(r.description ? { description: r.description } : {}),
    author: x.meet(r.author),
    assignees: ((r.assignees as Rec[] | undefined) ?? []).map((a) => x.meet(a)),
    labels: r.labels ?? [],
    ...(r.milestone ? { milestone: (r.milestone as Rec).title } : {}),
    ...(r.state !== 'opened' ? { state: r.state } : {}),
    created_at: r.created_at,
    updated_at: r.updated_at,
    ...(times?.time_estimate ? { time_estimate: times.time_estimate } : {}),
    ...(times?.total_time_spent ? { total_time_spent: times.total_time_spent } : {}),
  };
  out.award_emoji = await emoji(api, `${path}/award_emoji`, x);
  const notes: Rec[] = [];
  for (const d of (await api.list(`${path}/discussions`)) ?? [])
    for (const n of (d.notes as Rec[] | undefined) ?? []) {
      const note: Rec = {
        id: n.id,
        body: n.body,
        author: x.meet(n.author),
        ...(n.system === true ? { system: true } : {}),
        ...(n.confidential === true ? { confidential: true } : {}),
        created_at: n.created_at,
        updated_at: n.updated_at,
      };
      if (d.individual_note !== true) {
        note.type = n.type === 'DiffNote' ? 'DiffNote' : 'DiscussionNote';
        note.discussion_id = d.id;
      }
      if (n.position) note.position = pick(n.position as Rec, POSITION_FIELDS);
      if (n.resolved_by) note.resolved_by = x.meet(n.resolved_by);
      if (n.resolved_at) note.resolved_at = n.resolved_at;
      if (n.system !== true) {
        const e = await emoji(api, `${path}/notes/${n.id as number}/award_emoji`, x);
        if (e.length > 0) note.award_emoji = e;
      }
      notes.push(note);
    }
  out.notes = notes.sort(byId);
  return out;
}

async function emoji(api: Client, path: string, x: ProjectContext): Promise<Rec[]> {
  return ((await api.list(path)) ?? []).sort(byId).map((e) => ({
    id: e.id,
    name: e.name,
    user: x.meet(e.user),
    created_at: e.created_at,
    ...(e.updated_at && e.updated_at !== e.created_at ? { updated_at: e.updated_at } : {}),
  }));
}
