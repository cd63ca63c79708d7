/**
 * Every route of the API as the permission matrix and the fuzzer use it: a request that reaches the
 * route with real ids of the matrix world, and what the platform answers each role and visibility (the
 * spec and the behaviour reference: `authenticate!`, `authorize!` and the policies they name).
 */
import { createHash } from 'node:crypto';
import type { Fauxlab } from '../../src/index.js';
import { gem } from '../resources/packages/gem-world.js';
import {
  gpgKey,
  importForm,
  ROLES,
  send,
  snippetVisibleTo,
  sshKey,
  uploadForm,
  visibleTo,
  type Ids,
  type Role,
} from './matrix.js';
import type { Visibility } from './world.js';
import { SECURITY_ENDPOINTS } from './endpoints-security.js';

export const UNAUTHORIZED = { message: '401 Unauthorized' };
export const FORBIDDEN = { message: '403 Forbidden' };
export const BLOCKED = { message: '403 Forbidden - Your account has been blocked.' };
export const PROJECT_404 = { message: '404 Project Not Found' };
const GROUP_404 = { message: '404 Group Not Found' };
const RECORD_404 = { message: '404 Not found' };

export type Expect = [status: number, body?: unknown];
const U: Expect = [401, UNAUTHORIZED];
const F: Expect = [403, FORBIDDEN];
const PNF: Expect = [404, PROJECT_404];
const GNF: Expect = [404, GROUP_404];
const RNF: Expect = [404, RECORD_404];
const nf = (what: string): Expect => [404, { message: `404 ${what} Not Found` }];

export interface Cell {
  role: Role;
  vis: Visibility;
  /** Access level in the group and project (-1 non-member, -2 anonymous, 100 admin). */
  level: number;
  anonymous: boolean;
  external: boolean;
  /** Sees the group or project (or, for personal snippets, the snippet). */
  visible: boolean;
}

export type Scope = 'project' | 'group' | 'snippet' | 'instance';

export interface Endpoint {
  /** `METHOD /pattern` as in `fx.routes`. */
  route: string;
  scope: Scope;
  path: (v: Visibility, ids: Ids, role: Role) => string;
  body?: (v: Visibility, ids: Ids) => unknown;
  expect: (c: Cell) => Expect;
  /** A 2xx that writes nothing (a render, a no-op). */
  readOnly?: boolean;
  /** Runs after the snapshot is restored, before the request (with the cell's token). */
  setup?: (fx: Fauxlab, v: Visibility, ids: Ids, token: string | undefined) => Promise<unknown>;
}

const P = (v: Visibility) => `/api/v4/projects/g-${v}%2Fp`;
const G = (v: Visibility) => `/api/v4/groups/g-${v}`;
const API = '/api/v4';

// ---- expectations ---------------------------------------------------------------------------------

/** Reads of a project's resources: hidden projects are 404, visible ones readable by whoever sees them. */
const pRead =
  (ok = 200) =>
  (c: Cell) =>
    c.visible ? ([ok] as Expect) : PNF;
/** Reads behind `before { authenticate! }` (notes, milestones, members): anonymous is 401 first. */
const pAuthRead =
  (ok = 200) =>
  (c: Cell) =>
    c.anonymous ? U : pRead(ok)(c);
/** Writes any user who sees the project may do (issues, notes, stars, awards, uploads). */
const pUser = (ok: number) => (c: Cell) => (c.anonymous ? U : c.visible ? ([ok] as Expect) : PNF);
/** Writes (or `authenticate!` reads) that need a minimum level: `authorize!` after the project is found. */
const pLevel = (min: number, ok: number) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? PNF : c.level >= min ? ([ok] as Expect) : F;
/** `before { authenticate! }` (401 first), then the project, then a minimum level for `authorize!`. */
const pAuthLevel = (min: number) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? PNF : c.level >= min ? ([200] as Expect) : F;
/** A webhook whose deliveries fail at once (`.invalid` never resolves), for the hook rows. */
const HOOK = { url: 'https://hooks.invalid/x', push_events: false };
/** The token of the trigger a cell's set-up made (the trigger pipeline rows send it). */
let triggerToken = '';
/** The instance's runner registration token on a fresh instance (`runners_registration_token`). */
const REGISTRATION_TOKEN = 'fauxlab-runners-registration';
/** The id of the project access token a cell's set-up made (the revoke row names it). */
let accessTokenId = 0;
/** The authentication token of the runner a cell's set-up registered (the unregister row sends it). */
let runnerToken = '';
/** An admin's, or `403 No access granted` (`authenticate_*_runner!` on a runner the caller does not own). */
const runnerAdmin = (ok: number) => (c: Cell) =>
  c.anonymous
    ? U
    : c.level >= 100
      ? ([ok] as Expect)
      : ([403, { message: '403 Forbidden - No access granted' }] as Expect);
/** Registers a runner with a registration token; returns its authentication token. */
async function registerRunner(fx: Fauxlab, token: string): Promise<string> {
  const made = await send(fx, 'POST', `${API}/runners`, undefined, { token, run_untagged: true });
  return (made.body as { token: string }).token;
}
/** The `runners_token` of the project of a visibility, as its admin reads it. */
async function runnersTokenOf(fx: Fauxlab, v: Visibility): Promise<string> {
  return ((await send(fx, 'GET', P(v), 'root-api')).body as { runners_token: string }).runners_token;
}
/** A project route that only `authorize!`s (no `authenticate!`): anonymous callers get the 403 too. */
const pAuthorize = (min: number, ok: number) => (c: Cell) =>
  !c.visible ? PNF : c.level >= min ? ([ok] as Expect) : F;
/** A group route that only `authorize!`s (no `authenticate!`): anonymous callers get the 403 too. */
const gAuthorize = (min: number, ok: number) => (c: Cell) =>
  !c.visible ? GNF : c.level >= min ? ([ok] as Expect) : F;
const gRead =
  (ok = 200) =>
  (c: Cell) =>
    c.visible ? ([ok] as Expect) : GNF;
const gAuthRead =
  (ok = 200) =>
  (c: Cell) =>
    c.anonymous ? U : gRead(ok)(c);
const gUser = (ok: number) => (c: Cell) => (c.anonymous ? U : c.visible ? ([ok] as Expect) : GNF);
const gLevel = (min: number, ok: number) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? GNF : c.level >= min ? ([ok] as Expect) : F;
/** `authenticated_as_admin!`: the same answer whatever the visibility. */
const adminOnly = (ok: number) => (c: Cell) => (c.anonymous ? U : c.level >= 100 ? ([ok] as Expect) : F);
const anyone = (ok: number) => (): Expect => [ok];
/** `authorize_subepics_feature!` on the premium matrix: 403 once the group is found. */
const subepics = (c: Cell): Expect => (c.anonymous ? U : !c.visible ? GNF : F);
/** `unauthorized! unless can?(current_user, :admin_remote_mirror, user_project)`: a 401 for the rest. */
const mirrorAdmin = (ok: number, write: boolean) => (c: Cell) =>
  write && c.anonymous ? U : !c.visible ? PNF : c.level >= 40 ? ([ok] as Expect) : U;
const authed = (ok: number) => (c: Cell) => (c.anonymous ? U : ([ok] as Expect));
/** A second access request fails the member model's uniqueness. */
const EXISTS: Expect = [400, { message: { user_id: ['already exists in source'] } }];
/**
 * `request_access`: members and admins are refused; an outsider who sees the source may ask; `ext`, who
 * asked already, meets `then` (the uniqueness on a group; on a project, the group's requester counts as
 * its member, `project_group_member?`, so a 403).
 */
const requestAccess = (hidden: Expect, then: Expect) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? hidden : c.level >= 10 ? F : c.external ? then : ([201] as Expect);

/**
 * `read_merge_request` (and `download_code`): reporters and up, or anyone through the public and
 * internal access a public or internal project gives; a guest of a private project is refused.
 */
export const readsMr = (c: Cell) => c.level >= 20 || c.vis !== 'private';
/** MR routes that `authorize! :read_merge_request` once the project is found. */
const mrRead =
  (ok = 200) =>
  (c: Cell) =>
    !c.visible ? PNF : readsMr(c) ? ([ok] as Expect) : F;
const mrUser = (ok: number) => (c: Cell) => (c.anonymous ? U : mrRead(ok)(c));
/** MR routes that find the MR through `MergeRequestsFinder` (hidden: the record's 404). */
const mrFound = (then: (c: Cell) => Expect) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? PNF : !readsMr(c) ? RNF : then(c);
/**
 * `find_merge_request_with_access(iid, :approve_merge_request | :update_merge_request)` after
 * `authenticate_non_get!`: 403 for who may not update the merge request (developers and up; the
 * author, `owner` in the matrix world).
 */
const mrMay = (then: (c: Cell) => Expect) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? PNF : readsMr(c) && (c.level >= 30 || c.role === 'owner') ? then(c) : F;
/** Single MR reads that first hide the MRs of a project the caller may not read them in. */
const mrHidden = (c: Cell): Expect => (!c.visible ? PNF : readsMr(c) ? [200] : nf('Merge Request'));
/**
 * Notes on an MR the caller may not read: `NotesFinder#target` finds it through `MergeRequestsFinder` with
 * `find_by!`, so the record's `404 Not found`.
 */
const mrNote = (then: (c: Cell) => Expect) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? PNF : !readsMr(c) ? RNF : then(c);
/** Awards on an MR: `authenticate!`, then `404 Award Emoji Not Found` when the MR is unreadable. */
const mrAward = (ok: number) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? PNF : readsMr(c) ? ([ok] as Expect) : nf('Award Emoji');
/** Deleting the owner's award: theirs or an admin's to remove, anyone else is `unauthorized!`. */
const ownAward = (c: Cell): Expect =>
  c.anonymous ? U : !c.visible ? PNF : c.role === 'owner' || c.role === 'admin' ? [204] : U;
/** A personal project past `projects_limit` (0 for external users): Grape's `error!` of an array. */
const LIMIT: Expect = [
  403,
  { error: ['Personal project creation is not allowed. Please contact your administrator with questions'] },
];
/** Note routes on issues and snippets once the noteable is found: 401 first, then the project. */
const seenNote = (then: (c: Cell) => Expect) => (c: Cell) => (c.anonymous ? U : !c.visible ? PNF : then(c));
/** Edits of a note by its author (`owner`) or with `admin_note` (maintainers). */
const noteAdmin = (ok: number) => (c: Cell) => (c.level >= 40 ? ([ok] as Expect) : F);

/** The storage move rows of a kind: its six routes, a container's path given by `container`. */
function storageMoveRows(
  kind: 'project' | 'snippet' | 'group',
  container: (v: Visibility, ids: Ids) => string,
): Endpoint[] {
  const plural = `${kind}s`;
  const top = `/${kind}_repository_storage_moves`;
  const own = `/${plural}/:id/repository_storage_moves`;
  const at = (v: Visibility, ids: Ids) => `${container(v, ids)}/repository_storage_moves`;
  const scope: Scope = kind === 'snippet' ? 'instance' : kind;
  const made = {
    setup: (fx: Fauxlab, v: Visibility, ids: Ids) => send(fx, 'POST', at(v, ids), 'root-api', {}),
  };
  return [
    instance(`GET ${top}`, () => top, adminOnly(200)),
    instance(`GET ${top}/:repository_storage_move_id`, () => `${top}/1`, adminOnly(200), made),
    instance(`POST ${top}`, () => top, adminOnly(202), { body: json({ source_storage_name: 'default' }) }),
    ep(`GET ${own}`, scope, at, adminOnly(200)),
    ep(`GET ${own}/:repository_storage_move_id`, scope, (v, ids) => `${at(v, ids)}/1`, adminOnly(200), made),
    ep(`POST ${own}`, scope, at, adminOnly(201)),
  ];
}
/** The container repository of each visibility's project (the world makes one per project, in order). */
const REPO: Record<Visibility, number> = { private: 1, internal: 2, public: 3 };
/** ProjectPolicy's `read_container_image`: reporters, anyone on a public project, signed-in non-external users on an internal one. */
const imageReads = (c: Cell) =>
  c.level >= 20 || c.vis === 'public' || (c.vis === 'internal' && !c.anonymous && !c.external);
const imageRead = (ok: number) => (c: Cell) => (!c.visible ? PNF : imageReads(c) ? ([ok] as Expect) : F);
/** A write: `authenticate_non_get!`, the project, `read_container_image`, then the write's level. */
const imageWrite = (min: number, ok: number) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? PNF : imageReads(c) && c.level >= min ? ([ok] as Expect) : F;

// ---- the endpoints ----------------------------------------------------------------------------------

function ep(
  route: string,
  scope: Scope,
  path: Endpoint['path'],
  expect: Endpoint['expect'],
  more: Partial<Endpoint> = {},
): Endpoint {
  return { route, scope, path, expect, ...more };
}

const project = (
  route: string,
  suffix: (v: Visibility, ids: Ids) => string,
  expect: Endpoint['expect'],
  more: Partial<Endpoint> = {},
) => ep(route, 'project', (v, ids) => `${P(v)}${suffix(v, ids)}`, expect, more);
const group = (
  route: string,
  suffix: (v: Visibility, ids: Ids) => string,
  expect: Endpoint['expect'],
  more: Partial<Endpoint> = {},
) => ep(route, 'group', (v, ids) => `${G(v)}${suffix(v, ids)}`, expect, more);
const instance = (
  route: string,
  path: (ids: Ids, role: Role) => string,
  expect: Endpoint['expect'],
  more: Partial<Endpoint> = {},
) => ep(route, 'instance', (_v, ids, role) => `${API}${path(ids, role)}`, expect, more);
const json = (b: unknown) => () => b;
/** A deployment made through the API (the deployment rows). */
const DEPLOYMENT = {
  environment: 'production',
  sha: 'a'.repeat(40),
  ref: 'master',
  tag: false,
  status: 'success',
};
/** A pipeline schedule (the schedule rows); the admin's set-up makes it, with a variable when asked. */
const SCHEDULE = { description: 'nightly', ref: 'master', cron: '0 4 * * *' };
async function newSchedule(fx: Fauxlab, v: Visibility, withVariable = false) {
  await send(fx, 'POST', `${P(v)}/pipeline_schedules`, 'root-api', SCHEDULE);
  if (withVariable)
    await send(fx, 'POST', `${P(v)}/pipeline_schedules/1/variables`, 'root-api', {
      key: 'TARGET',
      value: 'eu',
    });
}
/** The deploy key a cell's set-up made (its id follows the users' SSH keys). */
let deployKeyId = 0;
async function newDeployKey(fx: Fauxlab, v: Visibility) {
  const made = await send(fx, 'POST', `${P(v)}/deploy_keys`, 'root-api', { title: 'ci', key: sshKey(40) });
  deployKeyId = (made.body as { id: number }).id;
}
/** The project approval rule a cell's set-up made. */
let ruleId = 0;
async function newApprovalRule(fx: Fauxlab, v: Visibility) {
  const made = await send(fx, 'POST', `${P(v)}/approval_rules`, 'root-api', {
    name: 'QA',
    approvals_required: 1,
  });
  ruleId = (made.body as { id: number }).id;
}
/** A set-up that makes release `v9` (a new tag on master) with one link. */
const newRelease = (fx: Fauxlab, v: Visibility) =>
  send(fx, 'POST', `${P(v)}/releases`, 'root-api', {
    tag_name: 'v9',
    ref: 'master',
    description: 'Notes',
    assets: { links: [{ name: 'a', url: 'https://a.example.com' }] },
  });
/** `authorize_download_code!` on one release: reporters, or anyone public and internal access lets in. */
const releaseCode = (c: Cell): Expect => (!c.visible ? PNF : readsMr(c) ? [200] : F);
/** A set-up that posts the Terraform state `prod` (serial 1) as root. */
const postState = (fx: Fauxlab, v: Visibility) =>
  send(fx, 'POST', `${P(v)}/terraform/state/prod`, 'root-api', { version: 4, serial: 1, lineage: 'l' });
/** The lock info Terraform's http backend sends with a lock and an unlock. */
const LOCK_INFO = {
  ID: 'a1b2',
  Operation: 'OperationTypeApply',
  Info: '',
  Who: 'me@host',
  Version: '1.0.11',
  Created: '2021-03-01T12:00:00Z',
  Path: '',
};
/** A set-up that gives the project's or group's wiki a `Home` page. */
const wikiPage = (kind: 'project' | 'group') => (fx: Fauxlab, v: Visibility) =>
  send(fx, 'POST', `${kind === 'project' ? P(v) : G(v)}/wikis`, 'root-api', { title: 'Home', content: 'x' });
/** A set-up that publishes generic package 1 (`pkg 1.0.0`, file `a.txt`) to the project as root. */
const publishPackage = async (fx: Fauxlab, v: Visibility) =>
  await fx.app.request(`${P(v)}/packages/generic/pkg/1.0.0/a.txt`, {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/octet-stream' },
    body: 'a',
  });
/** What `npm publish` sends for `@g-<vis>/lib` (the project's root namespace is its scope). */
const npmDoc = (v: Visibility, version = '1.0.0') => {
  const name = `@g-${v}/lib`;
  const tgz = Buffer.from(`lib ${version}`);
  return {
    name,
    versions: {
      [version]: { name, version, dist: { shasum: createHash('sha1').update(tgz).digest('hex') } },
    },
    'dist-tags': { latest: version },
    _attachments: { [`${name}-${version}.tgz`]: { data: tgz.toString('base64'), length: tgz.length } },
  };
};
/** A set-up that publishes npm package `@g-<vis>/lib 1.0.0` (tagged latest) to the project as root. */
const publishNpm = (fx: Fauxlab, v: Visibility) =>
  send(fx, 'PUT', `${P(v)}/packages/npm/@g-${v}%2flib`, 'root-api', npmDoc(v));
/** A wheel as twine uploads it (multipart), for the PyPI rows. */
const pypiForm = () => {
  const bytes = Buffer.from('wheel');
  const f = new FormData();
  f.set('name', 'demo');
  f.set('version', '1.0.0');
  f.set('requires_python', '>=3.8');
  f.set('sha256_digest', createHash('sha256').update(bytes).digest('hex'));
  f.set('content', new Blob([new Uint8Array(bytes)]), 'demo-1.0.0-py3-none-any.whl');
  return f;
};
/** A set-up that uploads PyPI package `demo 1.0.0` to the project as root. */
const publishPypi = (fx: Fauxlab, v: Visibility) =>
  send(fx, 'POST', `${P(v)}/packages/pypi`, 'root-api', pypiForm());
/** A set-up that deploys Maven artifact `g-<vis>:p:1.0` (its jar) to the project as root. */
const publishMaven = async (fx: Fauxlab, v: Visibility) =>
  await fx.app.request(`${P(v)}/packages/maven/g-${v}/p/1.0/p-1.0.jar`, {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': 'root-api' },
    body: 'jar',
  });
/**
 * A set-up for the Go proxy rows: the `go_proxy` flag on, and the project's go.mod (module
 * `localhost/g-<vis>/p`) tagged v1.0.0, all as root.
 */
const goModule = async (fx: Fauxlab, v: Visibility) => {
  await send(fx, 'POST', `${API}/features/go_proxy`, 'root-api', { value: 'true' });
  await send(fx, 'POST', `${P(v)}/repository/commits`, 'root-api', {
    branch: 'master',
    commit_message: 'go.mod',
    actions: [{ action: 'create', file_path: 'go.mod', content: `module localhost/g-${v}/p\n` }],
  });
  return send(fx, 'POST', `${P(v)}/repository/tags`, 'root-api', { tag_name: 'v1.0.0', ref: 'master' });
};
/** A set-up for the RubyGems rows: the `rubygem_packages` flag on and gem `g 1.0.0` pushed as root. */
const pushGem = async (fx: Fauxlab, v: Visibility) => {
  await send(fx, 'POST', `${API}/features/rubygem_packages`, 'root-api', { value: 'true' });
  return fx.app.request(`${P(v)}/packages/rubygems/api/v1/gems`, {
    method: 'POST',
    headers: { Authorization: 'root-api', 'Content-Type': 'application/octet-stream' },
    body: new Uint8Array(gem('g', '1.0.0')),
  });
};
/** RubyGems' filters: `authenticate!` (401), the project (404), then the route's ability. */
const gemRead =
  (ok: Expect) =>
  (c: Cell): Expect =>
    c.anonymous ? U : !c.visible ? PNF : readsMr(c) ? ok : F;
/** The Go proxy's `find_project!`: unreadable is 401 to anonymous, `404 Project Not Found` to others. */
const goRead = (c: Cell): Expect => (!c.visible ? (c.anonymous ? U : PNF) : readsMr(c) ? [200] : F);
/** `BasicAuthHelpers#authorized_user_project`: a hidden project is 401 to anonymous, `404 Not Found` to others. */
const pypiHidden = (c: Cell): Expect => (c.anonymous ? U : [404, { message: '404 Not Found' }]);
/** `authorize_push_to_branch!` after `download_code`: its own 403 body. */
const pushTo =
  (ok: number) =>
  (c: Cell): Expect =>
    c.anonymous
      ? U
      : !c.visible
        ? PNF
        : !readsMr(c)
          ? F
          : c.level >= 30
            ? [ok]
            : [403, { message: '403 Forbidden - You are not allowed to push into this branch' }];
/** A file the blob rows' set-up commits, and its blob id (git's: `blob <len>\0<content>`). */
const X_FILE = { branch: 'master', content: 'x\n', commit_message: 'Add x' };
const BLOB_X = createHash('sha1').update('blob 2\0x\n').digest('hex');

const BADGE = { link_url: 'https://example.com/%{project_path}', image_url: 'https://example.com/b.svg' };
const BADGE_QUERY = 'link_url=https://example.com/%25%7Bproject_id%7D&image_url=https://example.com/i.svg';
/** Makes badge 1 on the cell's project or group. */
const badgeSetup = (at: (v: Visibility) => string) => (fx: Fauxlab, v: Visibility) =>
  send(fx, 'POST', `${at(v)}/badges`, 'root-api', BADGE);

const messageSetup = (fx: Fauxlab) =>
  send(fx, 'POST', `${API}/broadcast_messages`, 'root-api', { message: 'Hi' });

export const ENDPOINTS: Endpoint[] = [
  // ---- projects
  project('GET /projects/:id', () => '', pRead()),
  project('PUT /projects/:id', () => '', pLevel(40, 200), { body: json({ description: 'changed' }) }),
  project('DELETE /projects/:id', () => '', pLevel(50, 202)),
  project('POST /projects/:id/archive', () => '/archive', pLevel(50, 201)),
  project('POST /projects/:id/unarchive', () => '/unarchive', pLevel(50, 201), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/archive`, 'root-api'),
  }),
  // Paid tiers delete with a delay: the project is marked, and the owner may restore it.
  project('POST /projects/:id/restore', () => '/restore', pLevel(50, 201), {
    setup: (fx, v) => send(fx, 'DELETE', P(v), 'root-api'),
  }),
  // `fork_project`: reporters, or anyone with public or internal access. An external user may fork but
  // has no room for projects (projects_limit 0): the fork fails with 409.
  project(
    'POST /projects/:id/fork',
    () => '/fork',
    (c) => (c.anonymous ? U : !c.visible ? PNF : !readsMr(c) ? F : c.external ? [409] : [201]),
  ),
  project('POST /projects/:id/star', () => '/star', pUser(201)),
  project('POST /projects/:id/unstar', () => '/unstar', pUser(201), {
    setup: (fx, v, _ids, token) => send(fx, 'POST', `${P(v)}/star`, token),
  }),
  project('GET /projects/:id/starrers', () => '/starrers', pRead()),
  project('GET /projects/:id/languages', () => '/languages', pRead()),
  project('GET /projects/:id/groups', () => '/groups?with_shared=true', pRead()),
  project('GET /projects/:id/users', () => '/users', pRead()),
  project('POST /projects/:id/share', () => '/share', pLevel(40, 201), {
    body: (_v, ids) => ({ group_id: ids.shareGroup, group_access: 30 }),
  }),
  project('DELETE /projects/:id/share/:group_id', (_v, ids) => `/share/${ids.sharedGroup}`, pLevel(40, 204)),
  project('POST /projects/:id/uploads', () => '/uploads', pUser(201), { body: () => uploadForm() }),
  project('GET /projects/:id/templates/:type', () => '/templates/licenses', pRead()),
  project('GET /projects/:id/templates/:type/:name', () => '/templates/licenses/mit', pRead()),
  project('GET /projects/:id/export', () => '/export', pLevel(40, 200)),
  project('POST /projects/:id/export', () => '/export', pLevel(40, 202)),
  project('GET /projects/:id/export/download', () => '/export/download', pLevel(40, 200)),
  project('GET /projects/:id/import', () => '/import', pRead()),
  // ---- issues
  project('GET /projects/:id/issues', () => '/issues', pRead()),
  project('GET /projects/:id/issues_statistics', () => '/issues_statistics', pRead()),
  project('POST /projects/:id/issues', () => '/issues', pUser(201), { body: json({ title: 'New' }) }),
  project('GET /projects/:id/issues/:issue_iid', () => '/issues/1', pRead()),
  // Confidential: reporters and up (and the author, here the owner) see it; others get the record's 404.
  project(
    'GET /projects/:id/issues/:issue_iid',
    () => '/issues/2',
    (c) => (!c.visible ? PNF : c.level >= 20 ? [200] : RNF),
  ),
  // update_issue: reporters and up, or the author (the owner here).
  project('PUT /projects/:id/issues/:issue_iid', () => '/issues/1', pLevel(20, 200), {
    body: json({ title: 'Renamed' }),
  }),
  project('DELETE /projects/:id/issues/:issue_iid', () => '/issues/1', pLevel(50, 204)),
  project('GET /projects/:id/issues/:issue_iid/closed_by', () => '/issues/1/closed_by', pRead()),
  project(
    'GET /projects/:id/issues/:issue_iid/related_merge_requests',
    () => '/issues/1/related_merge_requests',
    pRead(),
  ),
  project('GET /projects/:id/issues/:issue_iid/participants', () => '/issues/1/participants', pRead()),
  // `authenticated_as_admin!` comes first, before the project is looked up.
  project(
    'GET /projects/:id/issues/:issue_iid/user_agent_detail',
    () => '/issues/3/user_agent_detail',
    adminOnly(200),
  ),
  // The author (owner) is a participant, so already subscribed: 304; others subscribe.
  project(
    'POST /projects/:id/issues/:issue_iid/subscribe',
    () => '/issues/1/subscribe',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.role === 'owner' ? [304] : [201]),
  ),
  project(
    'POST /projects/:id/issues/:issue_iid/unsubscribe',
    () => '/issues/1/unsubscribe',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.role === 'owner' ? [201] : [304]),
  ),
  project('POST /projects/:id/issues/:issue_iid/todo', () => '/issues/1/todo', pUser(201)),
  // Award emoji: `before { authenticate! }`; the awardable is found unfiltered, then read is checked
  // (`404 Award Emoji Not Found`), except on delete, which only asks whose award it is.
  project('GET /projects/:id/issues/:issue_iid/award_emoji', () => '/issues/1/award_emoji', pAuthRead()),
  project(
    'GET /projects/:id/issues/:issue_iid/award_emoji/:award_id',
    (v, ids) => `/issues/1/award_emoji/${ids.issueAward[v]}`,
    pAuthRead(),
  ),
  project('POST /projects/:id/issues/:issue_iid/award_emoji', () => '/issues/1/award_emoji', pUser(201), {
    body: json({ name: 'tada' }),
  }),
  project(
    'DELETE /projects/:id/issues/:issue_iid/award_emoji/:award_id',
    (v, ids) => `/issues/1/award_emoji/${ids.issueAward[v]}`,
    ownAward,
  ),
  project('GET /projects/:id/issues/:noteable_id/notes', () => '/issues/1/notes', pAuthRead()),
  project(
    'GET /projects/:id/issues/:noteable_id/notes/:note_id',
    (v, ids) => `/issues/1/notes/${ids.issueNote[v]}`,
    pAuthRead(),
  ),
  project(
    'GET /projects/:id/issues/:noteable_id/notes/:note_id',
    (v, ids) => `/issues/1/notes/${ids.confidentialNote[v]}`,
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 20 ? [200] : nf('Note')),
  ),
  project('POST /projects/:id/issues/:noteable_id/notes', () => '/issues/1/notes', pUser(201), {
    body: json({ body: 'hello' }),
  }),
  project(
    'PUT /projects/:id/issues/:noteable_id/notes/:note_id',
    (v, ids) => `/issues/1/notes/${ids.issueNote[v]}`,
    (c) => (c.anonymous ? U : !c.visible ? PNF : noteAdmin(200)(c)),
    { body: json({ body: 'edited' }) },
  ),
  project(
    'DELETE /projects/:id/issues/:noteable_id/notes/:note_id',
    (v, ids) => `/issues/1/notes/${ids.issueNote[v]}`,
    (c) => (c.anonymous ? U : !c.visible ? PNF : noteAdmin(204)(c)),
  ),
  // ---- merge requests
  project('GET /projects/:id/merge_requests', () => '/merge_requests', mrRead()),
  // create_merge_request_from: developers (it pushes to the source branch's project).
  project('POST /projects/:id/merge_requests', () => '/merge_requests', pLevel(30, 201), {
    body: json({ title: 'New MR', source_branch: 'feature2', target_branch: 'master' }),
  }),
  // `not_found!("Merge Request") unless can?(current_user, :read_merge_request, user_project)` first.
  project('GET /projects/:id/merge_requests/:merge_request_iid', () => '/merge_requests/1', mrHidden),
  // `find_project_merge_request`: the finder's `404 Not found` for a reader of the project who may not
  // read merge requests; the merge into refs/merge-requests/1/merge for one who may.
  project(
    'GET /projects/:id/merge_requests/:merge_request_iid/merge_ref',
    () => '/merge_requests/1/merge_ref',
    (c) => (!c.visible ? PNF : readsMr(c) ? [200] : RNF),
  ),
  ...(['participants', 'commits', 'changes'] as const).map((x) =>
    project(
      `GET /projects/:id/merge_requests/:merge_request_iid/${x}`,
      () => `/merge_requests/1/${x}`,
      mrHidden,
    ),
  ),
  // `find_merge_request_with_access`: found unfiltered, then `authorize!` (read, or update_merge_request:
  // developers and the author, the owner here).
  ...(['closes_issues', 'versions'] as const).map((x) =>
    project(
      `GET /projects/:id/merge_requests/:merge_request_iid/${x}`,
      () => `/merge_requests/1/${x}`,
      mrRead(),
    ),
  ),
  project(
    'GET /projects/:id/merge_requests/:merge_request_iid/versions/:version_id',
    (v, ids) => `/merge_requests/1/versions/${ids.mrVersion[v]}`,
    mrRead(),
  ),
  project('PUT /projects/:id/merge_requests/:merge_request_iid', () => '/merge_requests/1', pLevel(30, 200), {
    body: json({ title: 'Renamed' }),
  }),
  project(
    'POST /projects/:id/merge_requests/:merge_request_iid/todo',
    () => '/merge_requests/1/todo',
    mrUser(201),
  ),
  // Subscriptions find the MR `with_access(id, :update_merge_request)`; the author is subscribed already.
  project(
    'POST /projects/:id/merge_requests/:merge_request_iid/subscribe',
    () => '/merge_requests/1/subscribe',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.role === 'owner' ? [304] : c.level >= 30 ? [201] : F),
  ),
  project(
    'POST /projects/:id/merge_requests/:merge_request_iid/unsubscribe',
    () => '/merge_requests/1/unsubscribe',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.role === 'owner' ? [201] : c.level >= 30 ? [304] : F),
  ),
  // `find_project_merge_request` (the finder: the record's 404), then destroy_merge_request: owners.
  project(
    'DELETE /projects/:id/merge_requests/:merge_request_iid',
    () => '/merge_requests/1',
    mrFound((c) => (c.level >= 50 ? [204] : F)),
  ),
  // `unauthorized!` unless the user may merge into the target branch: `master` is protected (default
  // branch protection 2), so maintainers and up.
  project(
    'PUT /projects/:id/merge_requests/:merge_request_iid/merge',
    () => '/merge_requests/1/merge',
    mrFound((c) => (c.level >= 40 ? [200] : U)),
  ),
  // `find_merge_request_with_access` (`authenticate_non_get!`: anonymous reads of a public project);
  // the finder lists nothing for who may not read pipelines.
  project(
    'GET /projects/:id/merge_requests/:merge_request_iid/pipelines',
    () => '/merge_requests/1/pipelines',
    (c) => (c.anonymous ? (c.visible ? [200] : PNF) : mrFound(() => [200])(c)),
  ),
  // `MergeRequests::CreatePipelineService`: nil (405) without create_pipeline; the project has no CI
  // file, so a developer's pipeline is refused with its error (400).
  project(
    'POST /projects/:id/merge_requests/:merge_request_iid/pipelines',
    () => '/merge_requests/1/pipelines',
    mrFound((c) => (c.level >= 30 ? [400] : [405])),
    { readOnly: true },
  ),
  project(
    'PUT /projects/:id/merge_requests/:merge_request_iid/rebase',
    () => '/merge_requests/1/rebase',
    mrFound((c) =>
      c.level >= 30 ? [202] : [403, { message: '403 Forbidden - Cannot push to source branch' }],
    ),
    // The rebase itself runs later, a job on the instance clock (src/resources/issuables/rebase.ts).
    { readOnly: true },
  ),
  // Context commits: `find_merge_request_with_access` (the finder's 404 for who may not read merge
  // requests), then update_merge_request (developers and the author, `owner` here) to add and
  // destroy_merge_request (owners) to remove. A branch name resolves as Gitaly's ListCommitsByOid does.
  project(
    'GET /projects/:id/merge_requests/:merge_request_iid/context_commits',
    () => '/merge_requests/1/context_commits',
    (c) => (!c.visible ? PNF : readsMr(c) ? [200] : RNF),
  ),
  project(
    'POST /projects/:id/merge_requests/:merge_request_iid/context_commits',
    () => '/merge_requests/1/context_commits',
    mrFound((c) => (c.level >= 30 || c.role === 'owner' ? [201] : F)),
    { body: json({ commits: ['master'] }) },
  ),
  project(
    'DELETE /projects/:id/merge_requests/:merge_request_iid/context_commits',
    () => '/merge_requests/1/context_commits',
    mrFound((c) => (c.level >= 50 ? [204] : F)),
    { body: json({ commits: ['master'] }), readOnly: true },
  ),
  project(
    'GET /projects/:id/merge_requests/:merge_request_iid/award_emoji',
    () => '/merge_requests/1/award_emoji',
    mrAward(200),
  ),
  project(
    'GET /projects/:id/merge_requests/:merge_request_iid/award_emoji/:award_id',
    (v, ids) => `/merge_requests/1/award_emoji/${ids.mrAward[v]}`,
    mrAward(200),
  ),
  project(
    'POST /projects/:id/merge_requests/:merge_request_iid/award_emoji',
    () => '/merge_requests/1/award_emoji',
    mrAward(201),
    { body: json({ name: 'tada' }) },
  ),
  project(
    'DELETE /projects/:id/merge_requests/:merge_request_iid/award_emoji/:award_id',
    (v, ids) => `/merge_requests/1/award_emoji/${ids.mrAward[v]}`,
    ownAward,
  ),
  // Notes find their noteable through `NotesFinder` (the MR finder): an MR a guest of a private project
  // may not read is a 404, whose body is not asserted (see mrNote).
  project(
    'GET /projects/:id/merge_requests/:noteable_id/notes',
    () => '/merge_requests/1/notes',
    mrNote(() => [200]),
  ),
  project(
    'GET /projects/:id/merge_requests/:noteable_id/notes/:note_id',
    (v, ids) => `/merge_requests/1/notes/${ids.mrNote[v]}`,
    mrNote(() => [200]),
  ),
  project(
    'POST /projects/:id/merge_requests/:noteable_id/notes',
    () => '/merge_requests/1/notes',
    mrNote(() => [201]),
    {
      body: json({ body: 'hello' }),
    },
  ),
  project(
    'PUT /projects/:id/merge_requests/:noteable_id/notes/:note_id',
    (v, ids) => `/merge_requests/1/notes/${ids.mrNote[v]}`,
    mrNote(noteAdmin(200)),
    { body: json({ body: 'edited' }) },
  ),
  project(
    'DELETE /projects/:id/merge_requests/:noteable_id/notes/:note_id',
    (v, ids) => `/merge_requests/1/notes/${ids.mrNote[v]}`,
    mrNote(noteAdmin(204)),
  ),
  // ---- project snippets' notes (the snippet has the project's visibility)
  project(
    'GET /projects/:id/snippets/:noteable_id/notes',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}/notes`,
    pAuthRead(),
  ),
  project(
    'GET /projects/:id/snippets/:noteable_id/notes/:note_id',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}/notes/${ids.snippetNote[v]}`,
    pAuthRead(),
  ),
  project(
    'POST /projects/:id/snippets/:noteable_id/notes',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}/notes`,
    pUser(201),
    {
      body: json({ body: 'hello' }),
    },
  ),
  project(
    'PUT /projects/:id/snippets/:noteable_id/notes/:note_id',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}/notes/${ids.snippetNote[v]}`,
    (c) => (c.anonymous ? U : !c.visible ? PNF : noteAdmin(200)(c)),
    { body: json({ body: 'edited' }) },
  ),
  project(
    'DELETE /projects/:id/snippets/:noteable_id/notes/:note_id',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}/notes/${ids.snippetNote[v]}`,
    (c) => (c.anonymous ? U : !c.visible ? PNF : noteAdmin(204)(c)),
  ),
  // ---- milestones: `before { authenticate! }`; admin_milestone is developers' (the spec: "Developer
  // access required" to delete)
  project('GET /projects/:id/milestones', () => '/milestones', pAuthRead()),
  project('POST /projects/:id/milestones', () => '/milestones', pLevel(30, 201), {
    body: json({ title: 'm2' }),
  }),
  project(
    'GET /projects/:id/milestones/:milestone_id',
    (v, ids) => `/milestones/${ids.milestone[v]}`,
    pAuthRead(),
  ),
  project(
    'PUT /projects/:id/milestones/:milestone_id',
    (v, ids) => `/milestones/${ids.milestone[v]}`,
    pLevel(30, 200),
    {
      body: json({ title: 'm1b' }),
    },
  ),
  project(
    'DELETE /projects/:id/milestones/:milestone_id',
    (v, ids) => `/milestones/${ids.milestone[v]}`,
    pLevel(30, 204),
  ),
  ...(['issues', 'merge_requests', 'burndown_events'] as const).map((x) =>
    project(
      `GET /projects/:id/milestones/:milestone_id/${x}`,
      (v, ids) => `/milestones/${ids.milestone[v]}/${x}`,
      pAuthRead(),
    ),
  ),
  // Developer access to the project and to its group.
  project(
    'POST /projects/:id/milestones/:milestone_id/promote',
    (v, ids) => `/milestones/${ids.milestone[v]}/promote`,
    pLevel(30, 200),
  ),
  // ---- CI: variables (admin_build), pipelines (read_pipeline with public builds, create and update
  // for developers, variables for maintainers, delete for owners)
  project('GET /projects/:id/variables', () => '/variables', pLevel(40, 200)),
  project('GET /projects/:id/variables/:key', () => '/variables/SECRET_KEY', pLevel(40, 200)),
  project('POST /projects/:id/variables', () => '/variables', pLevel(40, 201), {
    body: json({ key: 'NEW_KEY', value: 'v' }),
  }),
  project('PUT /projects/:id/variables/:key', () => '/variables/SECRET_KEY', pLevel(40, 200), {
    body: json({ value: 'other' }),
  }),
  project('DELETE /projects/:id/variables/:key', () => '/variables/SECRET_KEY', pLevel(40, 204)),
  project('GET /projects/:id/pipelines', () => '/pipelines', pRead()),
  project('GET /projects/:id/pipelines/latest', () => '/pipelines/latest', pRead()),
  project('GET /projects/:id/pipelines/:pipeline_id', (v, ids) => `/pipelines/${ids.pipeline[v]}`, pRead()),
  project(
    'GET /projects/:id/pipelines/:pipeline_id/test_report',
    (v, ids) => `/pipelines/${ids.pipeline[v]}/test_report`,
    pRead(),
  ),
  project(
    'GET /projects/:id/pipelines/:pipeline_id/variables',
    (v, ids) => `/pipelines/${ids.pipeline[v]}/variables`,
    (c) => (!c.visible ? PNF : c.level >= 40 ? [200] : F),
  ),
  project('POST /projects/:id/pipeline', () => '/pipeline', pLevel(30, 201), {
    body: json({ ref: 'master' }),
  }),
  project(
    'POST /projects/:id/pipelines/:pipeline_id/retry',
    (v, ids) => `/pipelines/${ids.pipeline[v]}/retry`,
    pLevel(30, 201),
  ),
  project(
    'POST /projects/:id/pipelines/:pipeline_id/cancel',
    (v, ids) => `/pipelines/${ids.pipeline[v]}/cancel`,
    pLevel(30, 200),
    {
      readOnly: true, // a finished pipeline: `cancel_running` changes nothing
    },
  ),
  project(
    'DELETE /projects/:id/pipelines/:pipeline_id',
    (v, ids) => `/pipelines/${ids.pipeline[v]}`,
    pLevel(50, 204),
  ),
  // ---- jobs: the jobs API `authenticate!`s, the pipeline lists and artifact downloads only for writes;
  // reads need read_build (public jobs), writes update_build (developers), erase and artifact deletion
  // maintainers (the job is not the developer's own)
  project(
    'GET /projects/:id/pipelines/:pipeline_id/jobs',
    (v, ids) => `/pipelines/${ids.pipeline[v]}/jobs`,
    pRead(),
  ),
  project(
    'GET /projects/:id/pipelines/:pipeline_id/bridges',
    (v, ids) => `/pipelines/${ids.pipeline[v]}/bridges`,
    pRead(),
  ),
  project('GET /projects/:id/jobs', () => '/jobs', pAuthRead()),
  project('GET /projects/:id/jobs/:job_id', (v, ids) => `/jobs/${ids.job[v]}`, pAuthRead()),
  project('GET /projects/:id/jobs/:job_id/trace', (v, ids) => `/jobs/${ids.job[v]}/trace`, pAuthRead()),
  project(
    'POST /projects/:id/jobs/:job_id/cancel',
    (v, ids) => `/jobs/${ids.job[v]}/cancel`,
    pLevel(30, 201),
    {
      readOnly: true, // a finished job stays as it is
    },
  ),
  project('POST /projects/:id/jobs/:job_id/retry', (v, ids) => `/jobs/${ids.job[v]}/retry`, pLevel(30, 201)),
  project('POST /projects/:id/jobs/:job_id/erase', (v, ids) => `/jobs/${ids.job[v]}/erase`, pLevel(40, 201)),
  project(
    'POST /projects/:id/jobs/:job_id/play',
    (v, ids) => `/jobs/${ids.job[v] + 1}/play`,
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 30 ? [200] : F),
  ),
  project('GET /projects/:id/jobs/:job_id/artifacts', (v, ids) => `/jobs/${ids.job[v]}/artifacts`, pRead()),
  project(
    'GET /projects/:id/jobs/:job_id/artifacts/:artifact_path{.+}',
    (v, ids) => `/jobs/${ids.job[v]}/artifacts/out/app.txt`,
    pRead(),
  ),
  project(
    'GET /projects/:id/jobs/artifacts/:ref_name{.+}/download',
    () => '/jobs/artifacts/master/download?job=compile',
    pRead(),
  ),
  project(
    'GET /projects/:id/jobs/artifacts/:ref_name{.+}/raw/:artifact_path{.+}',
    () => '/jobs/artifacts/master/raw/out/app.txt?job=compile',
    pRead(),
  ),
  project(
    'POST /projects/:id/jobs/:job_id/artifacts/keep',
    (v, ids) => `/jobs/${ids.job[v]}/artifacts/keep`,
    pLevel(30, 200),
  ),
  // Personal tokens find no job: only a running job's token does.
  instance(
    'GET /job',
    () => '/job',
    (c) => (c.anonymous ? U : nf('Job')),
  ),
  project(
    'DELETE /projects/:id/jobs/:job_id/artifacts',
    (v, ids) => `/jobs/${ids.job[v]}/artifacts`,
    pLevel(40, 204),
  ),
  // ---- pipeline triggers (admin_build; the token alone starts a pipeline) and environments
  // (reporters read, developers write; deleting needs a stopped environment)
  // ---- freeze periods (`authenticate!`, then the maintainers' *_freeze_period)
  ...(() => {
    const period = { freeze_start: '0 23 * * 5', freeze_end: '0 7 * * 1', cron_timezone: 'UTC' };
    const setup = (fx: Fauxlab, v: Visibility) =>
      send(fx, 'POST', `${P(v)}/freeze_periods`, 'root-api', period);
    return [
      project('GET /projects/:id/freeze_periods', () => '/freeze_periods', pAuthLevel(40)),
      project(
        'GET /projects/:id/freeze_periods/:freeze_period_id',
        () => '/freeze_periods/1',
        pAuthLevel(40),
        {
          setup,
        },
      ),
      project('POST /projects/:id/freeze_periods', () => '/freeze_periods', pLevel(40, 201), {
        body: json(period),
      }),
      project(
        'PUT /projects/:id/freeze_periods/:freeze_period_id',
        () => '/freeze_periods/1',
        pLevel(40, 200),
        {
          setup,
          body: json({ freeze_end: '0 8 * * 1' }),
        },
      ),
      project(
        'DELETE /projects/:id/freeze_periods/:freeze_period_id',
        () => '/freeze_periods/1',
        pLevel(40, 204),
        {
          setup,
        },
      ),
    ];
  })(),
  // ---- certificate-based clusters (`authenticate!` first, then the maintainers' `*_cluster`; the
  // instance's behind `authenticated_as_admin!`) and metrics dashboard annotations (found by id alone,
  // then `forbidden!` below developers)
  ...(() => {
    const cluster = {
      name: 'matrix',
      platform_kubernetes_attributes: { api_url: 'https://k8s.example.com', token: 'matrix-k8s-token' },
    };
    const note = {
      dashboard_path: 'config/prometheus/common_metrics.yml',
      starting_at: '2021-03-01T10:00:00Z',
      description: 'matrix',
    };
    const inProject = (fx: Fauxlab, v: Visibility) =>
      send(fx, 'POST', `${P(v)}/clusters/user`, 'root-api', cluster);
    const inGroup = (fx: Fauxlab, v: Visibility) =>
      send(fx, 'POST', `${G(v)}/clusters/user`, 'root-api', cluster);
    const inInstance = (fx: Fauxlab) => send(fx, 'POST', `${API}/admin/clusters/add`, 'root-api', cluster);
    const developer = (c: Cell): Expect => (c.anonymous ? U : c.level >= 30 ? [201] : F);
    return [
      project('GET /projects/:id/clusters', () => '/clusters', pAuthLevel(40)),
      project('GET /projects/:id/clusters/:cluster_id', () => '/clusters/1', pAuthLevel(40), {
        setup: inProject,
      }),
      project('POST /projects/:id/clusters/user', () => '/clusters/user', pLevel(40, 201), {
        body: json(cluster),
      }),
      project('PUT /projects/:id/clusters/:cluster_id', () => '/clusters/1', pLevel(40, 200), {
        setup: inProject,
        body: json({ name: 'renamed' }),
      }),
      project('DELETE /projects/:id/clusters/:cluster_id', () => '/clusters/1', pLevel(40, 204), {
        setup: inProject,
      }),
      group('GET /groups/:id/clusters', () => '/clusters', gLevel(40, 200)),
      group('GET /groups/:id/clusters/:cluster_id', () => '/clusters/1', gLevel(40, 200), { setup: inGroup }),
      group('POST /groups/:id/clusters/user', () => '/clusters/user', gLevel(40, 201), {
        body: json(cluster),
      }),
      group('PUT /groups/:id/clusters/:cluster_id', () => '/clusters/1', gLevel(40, 200), {
        setup: inGroup,
        body: json({ name: 'renamed' }),
      }),
      group('DELETE /groups/:id/clusters/:cluster_id', () => '/clusters/1', gLevel(40, 204), {
        setup: inGroup,
      }),
      instance('GET /admin/clusters', () => '/admin/clusters', adminOnly(200)),
      instance('GET /admin/clusters/:cluster_id', () => '/admin/clusters/1', adminOnly(200), {
        setup: inInstance,
      }),
      instance('POST /admin/clusters/add', () => '/admin/clusters/add', adminOnly(201), {
        body: json(cluster),
      }),
      instance('PUT /admin/clusters/:cluster_id', () => '/admin/clusters/1', adminOnly(200), {
        setup: inInstance,
        body: json({ name: 'renamed' }),
      }),
      instance('DELETE /admin/clusters/:cluster_id', () => '/admin/clusters/1', adminOnly(204), {
        setup: inInstance,
      }),
      ep(
        'POST /environments/:id/metrics_dashboard/annotations',
        'project',
        () => `${API}/environments/1/metrics_dashboard/annotations`,
        developer,
        {
          setup: (fx, v) => send(fx, 'POST', `${P(v)}/environments`, 'root-api', { name: 'staging' }),
          body: json(note),
        },
      ),
      ep(
        'POST /clusters/:id/metrics_dashboard/annotations',
        'project',
        () => `${API}/clusters/1/metrics_dashboard/annotations`,
        developer,
        { setup: inProject, body: json(note) },
      ),
    ];
  })(),
  // ---- feature flags (`authorize! :read_feature_flag` etc.: developers, no `authenticate!` on reads),
  // their user lists (`admin_feature_flags_user_lists`) and the Unleash API (the client's instance id,
  // never a user: 401 for every caller without it)
  ...(() => {
    const flag = {
      name: 'matrix_flag',
      version: 'new_version_flag',
      strategies: [{ name: 'default', parameters: {} }],
    };
    const setup = (fx: Fauxlab, v: Visibility) => send(fx, 'POST', `${P(v)}/feature_flags`, 'root-api', flag);
    const list = { name: 'matrix list', user_xids: 'a,b' };
    const listSetup = (fx: Fauxlab, v: Visibility) =>
      send(fx, 'POST', `${P(v)}/feature_flags_user_lists`, 'root-api', list);
    return [
      project('GET /projects/:id/feature_flags', () => '/feature_flags', pAuthorize(30, 200)),
      project('POST /projects/:id/feature_flags', () => '/feature_flags', pLevel(30, 201), {
        body: json(flag),
      }),
      project(
        'GET /projects/:id/feature_flags/:feature_flag_name',
        () => '/feature_flags/matrix_flag',
        pAuthorize(30, 200),
        { setup },
      ),
      project(
        'PUT /projects/:id/feature_flags/:feature_flag_name',
        () => '/feature_flags/matrix_flag',
        pLevel(30, 200),
        {
          setup,
          body: json({ active: false }),
        },
      ),
      project(
        'DELETE /projects/:id/feature_flags/:feature_flag_name',
        () => '/feature_flags/matrix_flag',
        pLevel(30, 200),
        { setup },
      ),
      project(
        'GET /projects/:id/feature_flags_user_lists',
        () => '/feature_flags_user_lists',
        pAuthorize(30, 200),
      ),
      project(
        'POST /projects/:id/feature_flags_user_lists',
        () => '/feature_flags_user_lists',
        pLevel(30, 201),
        {
          body: json(list),
        },
      ),
      project(
        'GET /projects/:id/feature_flags_user_lists/:iid',
        () => '/feature_flags_user_lists/1',
        pAuthorize(30, 200),
        {
          setup: listSetup,
        },
      ),
      project(
        'PUT /projects/:id/feature_flags_user_lists/:iid',
        () => '/feature_flags_user_lists/1',
        pLevel(30, 200),
        {
          setup: listSetup,
          body: json({ user_xids: 'c' }),
        },
      ),
      project(
        'DELETE /projects/:id/feature_flags_user_lists/:iid',
        () => '/feature_flags_user_lists/1',
        pLevel(30, 204),
        {
          setup: listSetup,
        },
      ),
      ...(
        [
          ['GET', ''],
          ['GET', '/features'],
          ['GET', '/client/features'],
          ['POST', '/client/register'],
          ['POST', '/client/metrics'],
        ] as const
      ).map(([method, suffix]) =>
        instance(
          `${method} /feature_flags/unleash/:project_id${suffix}`,
          () => `/feature_flags/unleash/g-public%2Fp${suffix}`,
          () => U,
        ),
      ),
    ];
  })(),
  project('GET /projects/:id/triggers', () => '/triggers', pLevel(40, 200)),
  project('GET /projects/:id/triggers/:trigger_id', () => '/triggers/1', pLevel(40, 200), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/triggers`, 'root-api', { description: 'ci' }),
  }),
  project('POST /projects/:id/triggers', () => '/triggers', pLevel(40, 201), {
    body: json({ description: 'x' }),
  }),
  // Only the trigger's owner may change it: the cell's own trigger.
  project('PUT /projects/:id/triggers/:trigger_id', () => '/triggers/1', pLevel(40, 200), {
    setup: (fx, v, _ids, token) => send(fx, 'POST', `${P(v)}/triggers`, token, { description: 'ci' }),
    body: json({ description: 'changed' }),
  }),
  project('DELETE /projects/:id/triggers/:trigger_id', () => '/triggers/1', pLevel(40, 204), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/triggers`, 'root-api', { description: 'ci' }),
  }),
  ...(['/trigger/pipeline', '/ref/master/trigger/pipeline'] as const).map((suffix) =>
    project(
      suffix === '/trigger/pipeline'
        ? 'POST /projects/:id/trigger/pipeline'
        : 'POST /projects/:id/ref/:ref{.+}/trigger/pipeline',
      () => suffix,
      anyone(201),
      {
        setup: async (fx, v) => {
          const made = await send(fx, 'POST', `${P(v)}/triggers`, 'root-api', { description: 'ci' });
          triggerToken = (made.body as { token: string }).token;
        },
        body: () => ({ token: triggerToken, ref: 'master' }),
      },
    ),
  ),
  // ---- runners (lib/api/ci/runners.rb; registration by token in lib/api/ci/runner.rb). The set-ups register
  // runner 1: an instance runner with the instance's token, or a project runner with a project's token.
  instance('POST /runners', () => '/runners', anyone(201), { body: json({ token: REGISTRATION_TOKEN }) }),
  instance('DELETE /runners', () => '/runners', anyone(204), {
    setup: async (fx) => {
      runnerToken = await registerRunner(fx, REGISTRATION_TOKEN);
    },
    body: () => ({ token: runnerToken }),
  }),
  instance('GET /runners', () => '/runners', authed(200)),
  instance('GET /runners/all', () => '/runners/all', adminOnly(200)),
  // An instance runner: every signed-in user reads it (`authenticate_show_runner!`); only admins change it.
  instance('GET /runners/:id', () => '/runners/1', authed(200), {
    setup: (fx) => registerRunner(fx, REGISTRATION_TOKEN),
  }),
  instance('PUT /runners/:id', () => '/runners/1', runnerAdmin(200), {
    setup: (fx) => registerRunner(fx, REGISTRATION_TOKEN),
    body: json({ description: 'renamed' }),
  }),
  instance('DELETE /runners/:id', () => '/runners/1', runnerAdmin(204), {
    setup: (fx) => registerRunner(fx, REGISTRATION_TOKEN),
  }),
  instance('GET /runners/:id/jobs', () => '/runners/1/jobs', runnerAdmin(200), {
    setup: (fx) => registerRunner(fx, REGISTRATION_TOKEN),
  }),
  project('GET /projects/:id/runners', () => '/runners', pLevel(40, 200)),
  // Runner 1 is another project's, which the cell's members maintain alike: its maintainers may enable it.
  project('POST /projects/:id/runners', () => '/runners', pLevel(40, 201), {
    setup: async (fx, v) =>
      registerRunner(fx, await runnersTokenOf(fx, v === 'public' ? 'internal' : 'public')),
    body: json({ runner_id: 1 }),
  }),
  // Runner 1 is the project's and another's, so that it may be disabled here.
  project('DELETE /projects/:id/runners/:runner_id', () => '/runners/1', pLevel(40, 204), {
    setup: async (fx, v) => {
      await registerRunner(fx, await runnersTokenOf(fx, v));
      const other = v === 'public' ? 'internal' : 'public';
      await send(fx, 'POST', `${P(other)}/runners`, 'root-api', { runner_id: 1 });
    },
  }),
  group('GET /groups/:id/runners', () => '/runners', gLevel(50, 200)),
  // ---- project access tokens (lib/api/resource_access_tokens.rb): the platform's 401 and 400s below maintainer
  project(
    'GET /projects/:id/access_tokens',
    () => '/access_tokens',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 40 ? [200] : U),
  ),
  project(
    'POST /projects/:id/access_tokens',
    () => '/access_tokens',
    (c) =>
      c.anonymous
        ? U
        : !c.visible
          ? PNF
          : c.level >= 40
            ? [201]
            : [
                400,
                { message: '400 Bad request - User does not have permission to create Project Access Token' },
              ],
    { body: json({ name: 'bot', scopes: ['api'] }) },
  ),
  project(
    'DELETE /projects/:id/access_tokens/:token_id',
    () => `/access_tokens/${accessTokenId}`,
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 40 ? [204] : [400]),
    {
      setup: async (fx, v) => {
        const made = await send(fx, 'POST', `${P(v)}/access_tokens`, 'root-api', {
          name: 'bot',
          scopes: ['api'],
        });
        accessTokenId = (made.body as { id: number }).id;
      },
    },
  ),
  project('GET /projects/:id/environments', () => '/environments', pAuthLevel(20)),
  project('GET /projects/:id/environments/:environment_id', () => '/environments/1', pAuthLevel(20), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/environments`, 'root-api', { name: 'staging' }),
  }),
  project('POST /projects/:id/environments', () => '/environments', pLevel(30, 201), {
    body: json({ name: 'review/x' }),
  }),
  project('PUT /projects/:id/environments/:environment_id', () => '/environments/1', pLevel(30, 200), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/environments`, 'root-api', { name: 'staging' }),
    body: json({ external_url: 'https://staging.example.com' }),
  }),
  project(
    'POST /projects/:id/environments/:environment_id/stop',
    () => '/environments/1/stop',
    pLevel(30, 200),
    {
      setup: (fx, v) => send(fx, 'POST', `${P(v)}/environments`, 'root-api', { name: 'staging' }),
    },
  ),
  project('DELETE /projects/:id/environments/:environment_id', () => '/environments/1', pLevel(30, 204), {
    setup: async (fx, v) => {
      await send(fx, 'POST', `${P(v)}/environments`, 'root-api', { name: 'staging' });
      await send(fx, 'POST', `${P(v)}/environments/1/stop`, 'root-api');
    },
  }),
  // ---- deployments (`authenticate!` first; reporters read, developers create and update)
  project('GET /projects/:id/deployments', () => '/deployments', pAuthLevel(20)),
  project('GET /projects/:id/deployments/:deployment_id', () => '/deployments/1', pAuthLevel(20), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/deployments`, 'root-api', DEPLOYMENT),
  }),
  project('POST /projects/:id/deployments', () => '/deployments', pLevel(30, 201), {
    body: json(DEPLOYMENT),
  }),
  project('PUT /projects/:id/deployments/:deployment_id', () => '/deployments/1', pLevel(30, 200), {
    setup: (fx, v) =>
      send(fx, 'POST', `${P(v)}/deployments`, 'root-api', { ...DEPLOYMENT, status: 'running' }),
    body: json({ status: 'success' }),
  }),
  project(
    'GET /projects/:id/deployments/:deployment_id/merge_requests',
    () => '/deployments/1/merge_requests',
    pAuthLevel(20),
    { setup: (fx, v) => send(fx, 'POST', `${P(v)}/deployments`, 'root-api', DEPLOYMENT) },
  ),
  // ---- pipeline schedules (`authenticate!` first; read as pipelines; developers create and play; the
  // owner or maintainers change them: the set-up's schedule is the admin's)
  project('GET /projects/:id/pipeline_schedules', () => '/pipeline_schedules', pAuthRead()),
  project(
    'GET /projects/:id/pipeline_schedules/:pipeline_schedule_id',
    () => '/pipeline_schedules/1',
    pAuthRead(),
    {
      setup: (fx, v) => newSchedule(fx, v),
    },
  ),
  project('POST /projects/:id/pipeline_schedules', () => '/pipeline_schedules', pLevel(30, 201), {
    body: json(SCHEDULE),
  }),
  project(
    'PUT /projects/:id/pipeline_schedules/:pipeline_schedule_id',
    () => '/pipeline_schedules/1',
    pLevel(40, 200),
    {
      setup: (fx, v) => newSchedule(fx, v),
      body: json({ description: 'changed' }),
    },
  ),
  project(
    'POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership',
    () => '/pipeline_schedules/1/take_ownership',
    pLevel(40, 201),
    { setup: (fx, v) => newSchedule(fx, v) },
  ),
  project(
    'DELETE /projects/:id/pipeline_schedules/:pipeline_schedule_id',
    () => '/pipeline_schedules/1',
    pLevel(40, 204),
    {
      setup: (fx, v) => newSchedule(fx, v),
    },
  ),
  project(
    'POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/play',
    () => '/pipeline_schedules/1/play',
    pLevel(30, 201),
    { setup: (fx, v) => newSchedule(fx, v) },
  ),
  project(
    'POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables',
    () => '/pipeline_schedules/1/variables',
    pLevel(40, 201),
    { setup: (fx, v) => newSchedule(fx, v), body: json({ key: 'MODE', value: 'fast' }) },
  ),
  project(
    'PUT /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key',
    () => '/pipeline_schedules/1/variables/TARGET',
    pLevel(40, 200),
    { setup: (fx, v) => newSchedule(fx, v, true), body: json({ value: 'us' }) },
  ),
  project(
    'DELETE /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key',
    () => '/pipeline_schedules/1/variables/TARGET',
    pLevel(40, 202),
    { setup: (fx, v) => newSchedule(fx, v, true) },
  ),
  // ---- deploy keys (the instance's for admins; a project's for its maintainers)
  instance('GET /deploy_keys', () => '/deploy_keys', adminOnly(200)),
  project('GET /projects/:id/deploy_keys', () => '/deploy_keys', pLevel(40, 200)),
  project('GET /projects/:id/deploy_keys/:key_id', () => `/deploy_keys/${deployKeyId}`, pLevel(40, 200), {
    setup: (fx, v) => newDeployKey(fx, v),
  }),
  project('POST /projects/:id/deploy_keys', () => '/deploy_keys', pLevel(40, 201), {
    body: json({ title: 'ci', key: sshKey(41) }),
  }),
  project('PUT /projects/:id/deploy_keys/:key_id', () => `/deploy_keys/${deployKeyId}`, pLevel(40, 200), {
    setup: (fx, v) => newDeployKey(fx, v),
    body: json({ can_push: true }),
  }),
  project(
    'POST /projects/:id/deploy_keys/:key_id/enable',
    () => `/deploy_keys/${deployKeyId}/enable`,
    pLevel(40, 201),
    // Enabled in the project already (by the set-up): the key again, nothing written.
    { setup: (fx, v) => newDeployKey(fx, v), readOnly: true },
  ),
  project('DELETE /projects/:id/deploy_keys/:key_id', () => `/deploy_keys/${deployKeyId}`, pLevel(40, 204), {
    setup: (fx, v) => newDeployKey(fx, v),
  }),
  // ---- push rules (paid tiers): `authenticate!`, then maintainers (`authorize_admin_project`)
  project('GET /projects/:id/push_rule', () => '/push_rule', pLevel(40, 200)),
  project('POST /projects/:id/push_rule', () => '/push_rule', pLevel(40, 201), {
    body: json({ deny_delete_tag: true }),
  }),
  project('PUT /projects/:id/push_rule', () => '/push_rule', pLevel(40, 200), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/push_rule`, 'root-api', { member_check: true }),
    body: json({ deny_delete_tag: true }),
  }),
  project('DELETE /projects/:id/push_rule', () => '/push_rule', pLevel(40, 204), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/push_rule`, 'root-api', { member_check: true }),
  }),
  // ---- releases: whoever sees the project reads them (one release: `download_code`, else 403);
  // developers write; links as their release
  project('GET /projects/:id/releases', () => '/releases', pRead()),
  project('GET /projects/:id/releases/:tag_name', () => '/releases/v9', releaseCode, { setup: newRelease }),
  project('POST /projects/:id/releases', () => '/releases', pLevel(30, 201), {
    body: json({ tag_name: 'v9', ref: 'master', description: 'Notes' }),
  }),
  project('PUT /projects/:id/releases/:tag_name', () => '/releases/v9', pLevel(30, 200), {
    setup: newRelease,
    body: json({ name: 'Renamed' }),
  }),
  project('DELETE /projects/:id/releases/:tag_name', () => '/releases/v9', pLevel(30, 200), {
    setup: newRelease,
  }),
  project('GET /projects/:id/releases/:tag_name/assets/links', () => '/releases/v9/assets/links', pRead(), {
    setup: newRelease,
  }),
  project(
    'POST /projects/:id/releases/:tag_name/assets/links',
    () => '/releases/v9/assets/links',
    pLevel(30, 201),
    {
      setup: newRelease,
      body: json({ name: 'b', url: 'https://b.example.com' }),
    },
  ),
  project(
    'GET /projects/:id/releases/:tag_name/assets/links/:link_id',
    () => '/releases/v9/assets/links/1',
    pRead(),
    {
      setup: newRelease,
    },
  ),
  project(
    'PUT /projects/:id/releases/:tag_name/assets/links/:link_id',
    () => '/releases/v9/assets/links/1',
    pLevel(30, 200),
    { setup: newRelease, body: json({ name: 'c' }) },
  ),
  project(
    'DELETE /projects/:id/releases/:tag_name/assets/links/:link_id',
    () => '/releases/v9/assets/links/1',
    pLevel(30, 200),
    { setup: newRelease },
  ),
  // ---- members (admin_project_member: maintainers); `target` is a direct member
  project('GET /projects/:id/members', () => '/members', pAuthRead()),
  project('GET /projects/:id/members/all', () => '/members/all', pAuthRead()),
  project('GET /projects/:id/members/:user_id', () => '/members/10', pAuthRead()),
  project('GET /projects/:id/members/all/:user_id', () => '/members/all/10', pAuthRead()),
  project('POST /projects/:id/members', () => '/members', pLevel(40, 201), {
    body: json({ user_id: 7, access_level: 30 }),
  }),
  project('PUT /projects/:id/members/:user_id', () => '/members/10', pLevel(40, 200), {
    body: json({ access_level: 30 }),
  }),
  project('DELETE /projects/:id/members/:user_id', () => '/members/10', pLevel(40, 204)),
  // ---- access requests (`ext`, user 8, has one pending everywhere: it may withdraw it where it sees
  // it) and invitations (admin_project to invite; any reader lists them)
  project('GET /projects/:id/access_requests', () => '/access_requests', pLevel(40, 200)),
  project('POST /projects/:id/access_requests', () => '/access_requests', requestAccess(PNF, F)),
  project(
    'PUT /projects/:id/access_requests/:user_id/approve',
    () => '/access_requests/8/approve',
    pLevel(40, 201),
  ),
  project(
    'DELETE /projects/:id/access_requests/:user_id',
    () => '/access_requests/8',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 40 || c.external ? [204] : F),
  ),
  project('GET /projects/:id/invitations', () => '/invitations', pAuthRead()),
  project('POST /projects/:id/invitations', () => '/invitations', pLevel(40, 201), {
    body: json({ email: 'new@example.org', access_level: 30 }),
  }),
  // ---- deploy tokens (no `authenticate!` in deploy_tokens.rb, for reads or writes: `authorize!` refuses
  // an anonymous caller with 403) and integrations (maintainers, after `authenticate!`)
  project('GET /projects/:id/deploy_tokens', () => '/deploy_tokens', pAuthorize(40, 200)),
  project('POST /projects/:id/deploy_tokens', () => '/deploy_tokens', pAuthorize(40, 201), {
    body: json({ name: 'new', scopes: ['read_repository'] }),
  }),
  project(
    'DELETE /projects/:id/deploy_tokens/:token_id',
    (v, ids) => `/deploy_tokens/${ids.projectDeployToken[v]}`,
    pAuthorize(40, 204),
  ),
  ...(['services', 'integrations'] as const).flatMap((base) => [
    project(`GET /projects/:id/${base}`, () => `/${base}`, pLevel(40, 200)),
    project(`GET /projects/:id/${base}/:slug`, () => `/${base}/emails-on-push`, pLevel(40, 200)),
    project(`PUT /projects/:id/${base}/:slug`, () => `/${base}/emails-on-push`, pLevel(40, 200), {
      body: json({ recipients: 'other@example.com' }),
    }),
    project(`DELETE /projects/:id/${base}/:slug`, () => `/${base}/emails-on-push`, pLevel(40, 204)),
  ]),
  // ---- groups
  group('GET /groups/:id', () => '', gRead()),
  group('PUT /groups/:id', () => '', gLevel(50, 200), { body: json({ description: 'changed' }) }),
  group('DELETE /groups/:id', () => '', gLevel(50, 202)),
  group('GET /groups/:id/subgroups', () => '/subgroups', gRead()),
  group('GET /groups/:id/projects', () => '/projects', gRead()),
  group('GET /groups/:id/projects/shared', () => '/projects/shared', gRead()),
  group('GET /groups/:id/issues', () => '/issues', gRead()),
  group('GET /groups/:id/issues_statistics', () => '/issues_statistics', gRead()),
  group('GET /groups/:id/merge_requests', () => '/merge_requests', gRead()),
  // admin_group_member: owners.
  group('GET /groups/:id/members', () => '/members', gAuthRead()),
  group('GET /groups/:id/members/all', () => '/members/all', gAuthRead()),
  group('GET /groups/:id/members/:user_id', () => '/members/10', gAuthRead()),
  group('GET /groups/:id/members/all/:user_id', () => '/members/all/10', gAuthRead()),
  group('POST /groups/:id/members', () => '/members', gLevel(50, 201), {
    body: json({ user_id: 7, access_level: 30 }),
  }),
  group(
    'POST /groups/:id/share',
    () => '/share',
    (c) => (c.anonymous ? U : !c.visible ? GNF : c.level >= 50 ? [201] : [404, { message: 'Not Found' }]),
    { body: (_v, ids) => ({ group_id: ids.shareGroup, group_access: 30 }) },
  ),
  // `DestroyService` removes nothing for a non-owner, and the endpoint answers 204 all the same.
  group('DELETE /groups/:id/share/:group_id', (_v, ids) => `/share/${ids.shareGroup}`, gUser(204), {
    readOnly: true,
    setup: (fx, v, ids) =>
      send(fx, 'POST', `${G(v)}/share`, 'root-api', { group_id: ids.shareGroup, group_access: 30 }),
  }),
  group('PUT /groups/:id/members/:user_id', () => '/members/10', gLevel(50, 200), {
    body: json({ access_level: 20 }),
  }),
  group('DELETE /groups/:id/members/:user_id', () => '/members/10', gLevel(50, 204)),
  group('GET /groups/:id/access_requests', () => '/access_requests', gLevel(50, 200)),
  group('POST /groups/:id/access_requests', () => '/access_requests', requestAccess(GNF, EXISTS)),
  group(
    'PUT /groups/:id/access_requests/:user_id/approve',
    () => '/access_requests/8/approve',
    gLevel(50, 201),
  ),
  group(
    'DELETE /groups/:id/access_requests/:user_id',
    () => '/access_requests/8',
    (c) => (c.anonymous ? U : !c.visible ? GNF : c.level >= 50 || c.external ? [204] : F),
  ),
  group('GET /groups/:id/invitations', () => '/invitations', gAuthRead()),
  group('POST /groups/:id/invitations', () => '/invitations', gLevel(50, 201), {
    body: json({ email: 'new@example.org', access_level: 30 }),
  }),
  group('GET /groups/:id/milestones', () => '/milestones', gAuthRead()),
  group('POST /groups/:id/milestones', () => '/milestones', gLevel(30, 201), {
    body: json({ title: 'gm2' }),
  }),
  group(
    'GET /groups/:id/milestones/:milestone_id',
    (v, ids) => `/milestones/${ids.groupMilestone[v]}`,
    gAuthRead(),
  ),
  group(
    'PUT /groups/:id/milestones/:milestone_id',
    (v, ids) => `/milestones/${ids.groupMilestone[v]}`,
    gLevel(30, 200),
    {
      body: json({ title: 'gm1b' }),
    },
  ),
  group(
    'DELETE /groups/:id/milestones/:milestone_id',
    (v, ids) => `/milestones/${ids.groupMilestone[v]}`,
    gLevel(30, 204),
  ),
  ...(['issues', 'merge_requests', 'burndown_events'] as const).map((x) =>
    group(
      `GET /groups/:id/milestones/:milestone_id/${x}`,
      (v, ids) => `/milestones/${ids.groupMilestone[v]}/${x}`,
      gAuthRead(),
    ),
  ),
  // Group CI variables: `authorize! :admin_group` (owners), after `authenticate!`.
  group('GET /groups/:id/variables', () => '/variables', gLevel(50, 200)),
  group('GET /groups/:id/variables/:key', () => '/variables/GROUP_KEY', gLevel(50, 200)),
  group('POST /groups/:id/variables', () => '/variables', gLevel(50, 201), {
    body: json({ key: 'NEW_KEY', value: 'v' }),
  }),
  group('PUT /groups/:id/variables/:key', () => '/variables/GROUP_KEY', gLevel(50, 200), {
    body: json({ value: 'other' }),
  }),
  group('DELETE /groups/:id/variables/:key', () => '/variables/GROUP_KEY', gLevel(50, 204)),
  // Group deploy tokens: maintainers read, owners create and revoke.
  group(
    'GET /groups/:id/deploy_tokens',
    () => '/deploy_tokens',
    (c) => (!c.visible ? GNF : c.level >= 40 ? [200] : F),
  ),
  group('POST /groups/:id/deploy_tokens', () => '/deploy_tokens', gAuthorize(50, 201), {
    body: json({ name: 'new', scopes: ['read_repository'] }),
  }),
  group(
    'DELETE /groups/:id/deploy_tokens/:token_id',
    (v, ids) => `/deploy_tokens/${ids.groupDeployToken[v]}`,
    gAuthorize(50, 204),
  ),
  // Epic notes (paid tiers): anyone who reads the epic comments; the author or maintainers edit.
  group('GET /groups/:id/epics/:noteable_id/notes', (v, ids) => `/epics/${ids.epic[v]}/notes`, gAuthRead()),
  group(
    'GET /groups/:id/epics/:noteable_id/notes/:note_id',
    (v, ids) => `/epics/${ids.epic[v]}/notes/${ids.epicNote[v]}`,
    gAuthRead(),
  ),
  group('POST /groups/:id/epics/:noteable_id/notes', (v, ids) => `/epics/${ids.epic[v]}/notes`, gUser(201), {
    body: json({ body: 'hello' }),
  }),
  group(
    'PUT /groups/:id/epics/:noteable_id/notes/:note_id',
    (v, ids) => `/epics/${ids.epic[v]}/notes/${ids.epicNote[v]}`,
    (c) => (c.anonymous ? U : !c.visible ? GNF : noteAdmin(200)(c)),
    { body: json({ body: 'edited' }) },
  ),
  group(
    'DELETE /groups/:id/epics/:noteable_id/notes/:note_id',
    (v, ids) => `/epics/${ids.epic[v]}/notes/${ids.epicNote[v]}`,
    (c) => (c.anonymous ? U : !c.visible ? GNF : noteAdmin(204)(c)),
  ),
  // Award emoji on epic &1 and its note (paid tiers, EE's awardable): the group (404), the epic by iid,
  // then `read_epic`; removing needs only one's own award.
  ...[false, true].flatMap((onNote) => {
    const base = `/groups/:id/epics/:epic_iid${onNote ? '/notes/:note_id' : ''}/award_emoji`;
    const at = (v: Visibility, ids: Ids) =>
      `/epics/1${onNote ? `/notes/${ids.epicNote[v]}` : ''}/award_emoji`;
    const one = (v: Visibility, ids: Ids) =>
      `${at(v, ids)}/${onNote ? ids.epicNoteAward[v] : ids.epicAward[v]}`;
    const own = (c: Cell): Expect =>
      c.anonymous ? U : !c.visible ? GNF : c.role === 'owner' || c.role === 'admin' ? [204] : U;
    return [
      group(`GET ${base}`, at, gAuthRead()),
      group(`GET ${base}/:award_id`, one, gAuthRead()),
      group(`POST ${base}`, at, gUser(201), { body: json({ name: 'smile' }) }),
      group(`DELETE ${base}/:award_id`, one, own),
    ];
  }),
  // Epics (paid tiers): `authenticate_non_get!`, the group (404), then `admin_epic` (reporters) to
  // write and `destroy_epic` (owners) to delete.
  group('GET /groups/:id/epics', () => '/epics', gRead()),
  group('GET /groups/:id/epics/:epic_iid', () => '/epics/1', gRead()),
  group('POST /groups/:id/epics', () => '/epics', gLevel(20, 201), { body: json({ title: 'New epic' }) }),
  group('PUT /groups/:id/epics/:epic_iid', () => '/epics/1', gLevel(20, 200), {
    body: json({ title: 'Renamed' }),
  }),
  group('DELETE /groups/:id/epics/:epic_iid', () => '/epics/1', gLevel(50, 204)),
  // Epic issues (paid tiers): `authenticate!`, the group, then `read_epic` to list and `admin_epic`
  // (reporters) to assign, reorder and remove; the set-up puts issues in the epic (links 1 and 2).
  group('GET /groups/:id/epics/:epic_iid/issues', () => '/epics/1/issues', gAuthRead()),
  group(
    'POST /groups/:id/epics/:epic_iid/issues/:issue_id',
    (v, ids) => `/epics/1/issues/${ids.issueId[v]}`,
    gLevel(20, 201),
  ),
  group('PUT /groups/:id/epics/:epic_iid/issues/:epic_issue_id', () => '/epics/1/issues/1', gLevel(20, 200), {
    body: json({ move_after_id: 2 }),
    setup: async (fx, v, ids) => {
      const other = await send(fx, 'POST', `${P(v)}/issues`, 'root-api', { title: 'In the epic too' });
      await send(fx, 'POST', `${G(v)}/epics/1/issues/${ids.issueId[v]}`, 'root-api');
      await send(fx, 'POST', `${G(v)}/epics/1/issues/${(other.body as { id: number }).id}`, 'root-api');
    },
  }),
  group(
    'DELETE /groups/:id/epics/:epic_iid/issues/:epic_issue_id',
    () => '/epics/1/issues/1',
    gLevel(20, 200),
    {
      setup: (fx, v, ids) => send(fx, 'POST', `${G(v)}/epics/1/issues/${ids.issueId[v]}`, 'root-api'),
    },
  ),
  // Child epics: `authenticate!`, the group (404), then `read_epic` to list; linking, creating and
  // reordering need the licensed `subepics` feature (ultimate), so the premium matrix answers 403 to
  // everyone who sees the group; unlinking needs `destroy_epic_link` (reporters) on any paid tier.
  group('GET /groups/:id/epics/:epic_iid/epics', () => '/epics/1/epics', gAuthRead()),
  group('POST /groups/:id/epics/:epic_iid/epics', () => '/epics/1/epics', subepics, {
    body: json({ title: 'A child' }),
  }),
  group(
    'POST /groups/:id/epics/:epic_iid/epics/:child_epic_id',
    (v, ids) => `/epics/2/epics/${ids.epic[v]}`,
    subepics,
  ),
  group(
    'PUT /groups/:id/epics/:epic_iid/epics/:child_epic_id',
    (v, ids) => `/epics/1/epics/${ids.childEpic[v]}`,
    subepics,
    {
      body: json({ move_after_id: 1 }),
    },
  ),
  group(
    'DELETE /groups/:id/epics/:epic_iid/epics/:child_epic_id',
    (v, ids) => `/epics/1/epics/${ids.childEpic[v]}`,
    gLevel(20, 200),
  ),
  // Import into the group: `find_namespace!` (404 when unreadable), then the create rights (developers,
  // the default project_creation_level) or "Namespace is not valid".
  ep(
    'POST /projects/import',
    'group',
    () => `${API}/projects/import`,
    (c) =>
      c.anonymous
        ? U
        : !c.visible
          ? nf('Namespace')
          : c.level >= 30
            ? [201]
            : [400, { message: 'Namespace is not valid' }],
    { body: (v) => importForm('imported', `g-${v}`) },
  ),
  // ---- personal snippets, of each visibility, written by `owner`
  ep(
    'GET /snippets/:id',
    'snippet',
    (v, ids) => `${API}/snippets/${ids.personalSnippet[v]}`,
    (c) => (c.visible ? [200] : nf('Snippet')),
  ),
  ep(
    'GET /snippets/:id/raw',
    'snippet',
    (v, ids) => `${API}/snippets/${ids.personalSnippet[v]}/raw`,
    (c) => (c.visible ? [200] : nf('Snippet')),
  ),
  ep(
    'GET /snippets/:id/files/:ref/:file_path/raw',
    'snippet',
    (v, ids) => `${API}/snippets/${ids.personalSnippet[v]}/files/master/snippet.txt/raw`,
    (c) => (c.visible ? [200] : nf('Snippet')),
  ),
  // Updates find the snippet among the caller's own (`author: current_user`): even an admin gets 404.
  ep(
    'PUT /snippets/:id',
    'snippet',
    (v, ids) => `${API}/snippets/${ids.personalSnippet[v]}`,
    (c) => (c.anonymous ? U : c.role === 'owner' ? [200] : nf('Snippet')),
    { body: json({ title: 'Renamed' }) },
  ),
  ep(
    'DELETE /snippets/:id',
    'snippet',
    (v, ids) => `${API}/snippets/${ids.personalSnippet[v]}`,
    (c) => (c.anonymous ? U : c.role === 'owner' ? [204] : nf('Snippet')),
  ),
  // ---- instance-wide: admin only
  instance('GET /admin/ci/variables', () => '/admin/ci/variables', adminOnly(200)),
  instance('POST /admin/ci/variables', () => '/admin/ci/variables', adminOnly(201), {
    body: json({ key: 'NEW_KEY', value: 'v' }),
  }),
  instance('GET /admin/ci/variables/:key', () => '/admin/ci/variables/INSTANCE_KEY', adminOnly(200)),
  instance('PUT /admin/ci/variables/:key', () => '/admin/ci/variables/INSTANCE_KEY', adminOnly(200), {
    body: json({ value: 'other' }),
  }),
  instance('DELETE /admin/ci/variables/:key', () => '/admin/ci/variables/INSTANCE_KEY', adminOnly(204)),
  instance('GET /application/settings', () => '/application/settings', adminOnly(200)),
  instance('PUT /application/settings', () => '/application/settings', adminOnly(200), {
    body: json({ home_page_url: 'http://example.com' }),
  }),
  instance('GET /application/appearance', () => '/application/appearance', adminOnly(200)),
  instance('PUT /application/appearance', () => '/application/appearance', adminOnly(200), {
    body: json({ title: 'Matrix' }),
  }),
  instance('GET /application/plan_limits', () => '/application/plan_limits', adminOnly(200)),
  instance('PUT /application/plan_limits', () => '/application/plan_limits', adminOnly(200), {
    body: json({ plan_name: 'default', npm_max_file_size: 1024 }),
  }),
  // No job waits in fauxlab's queues: the drop deletes nothing.
  instance(
    'DELETE /admin/sidekiq/queues/:queue_name',
    () => '/admin/sidekiq/queues/default?user=root',
    adminOnly(200),
    {
      readOnly: true,
    },
  ),
  instance('GET /applications', () => '/applications', adminOnly(200)),
  instance('POST /applications', () => '/applications', adminOnly(201), {
    body: json({ name: 'app2', redirect_uri: 'http://example.com/cb2', scopes: 'api' }),
  }),
  instance('DELETE /applications/:id', (ids) => `/applications/${ids.application}`, adminOnly(204)),
  instance('GET /deploy_tokens', () => '/deploy_tokens', adminOnly(200)),
  instance('GET /features', () => '/features', adminOnly(200)),
  // ---- Sidekiq metrics: admins
  ...['queue_metrics', 'process_metrics', 'job_stats', 'compound_metrics'].map((m) =>
    instance(`GET /sidekiq/${m}`, () => `/sidekiq/${m}`, adminOnly(200)),
  ),
  // ---- instance templates: anyone
  instance('GET /templates/licenses', () => '/templates/licenses?popular=true', anyone(200)),
  instance('GET /templates/licenses/:name', () => '/templates/licenses/mit', anyone(200)),
  ...(['gitignores', 'dockerfiles'] as const).flatMap((type) => [
    instance(`GET /templates/${type}`, () => `/templates/${type}`, anyone(200)),
    instance(
      `GET /templates/${type}/:name`,
      () => `/templates/${type}/${type === 'gitignores' ? 'Node' : 'Binary'}`,
      anyone(200),
    ),
  ]),
  instance('GET /templates/gitlab_ci_ymls', () => '/templates/gitlab_ci_ymls', anyone(200)),
  instance('GET /templates/gitlab_ci_ymls/:name', () => '/templates/gitlab_ci_ymls/Ruby', anyone(200)),
  instance('POST /features/:name', () => '/features/new_flag', adminOnly(201), {
    body: json({ value: 'true' }),
  }),
  instance('DELETE /features/:name', () => '/features/junit_pipeline_view', adminOnly(204)),
  instance('GET /license', () => '/license', adminOnly(200)),
  instance('POST /license', () => '/license', adminOnly(400), { body: json({ license: 'not-a-key' }) }),
  instance('GET /geo_nodes', () => '/geo_nodes', adminOnly(200)),
  instance('GET /geo_nodes/status', () => '/geo_nodes/status', adminOnly(200)),
  instance('GET /application/statistics', () => '/application/statistics', adminOnly(200)),
  instance('GET /issues/:id', (ids) => `/issues/${ids.issueId.private}`, adminOnly(200)),
  instance(
    'GET /snippets/:id/user_agent_detail',
    (ids) => `/snippets/${ids.agentSnippet}/user_agent_detail`,
    adminOnly(200),
  ),
  // `authenticated_as_admin!`, then the project made in user 10's namespace.
  instance('POST /projects/user/:user_id', () => '/projects/user/10', adminOnly(201), {
    body: json({ name: 'Made for a user' }),
  }),
  // `authenticated_with_can_read_all_resources!`: admins, whatever the project's visibility; the matrix
  // project has no Pages domains, so nothing is removed.
  project('DELETE /projects/:id/pages', () => '/pages', adminOnly(204), { readOnly: true }),
  instance('POST /users', () => '/users', adminOnly(201), {
    body: json({ email: 'new@example.com', username: 'newbie', name: 'New', password: 'a-long-password-1' }),
  }),
  instance('PUT /users/:id', () => '/users/10', adminOnly(200), { body: json({ bio: 'changed' }) }),
  instance('DELETE /users/:id', () => '/users/10', adminOnly(204)),
  instance('DELETE /users/:id/identities/:provider', () => '/users/10/identities/ldapmain', adminOnly(204)),
  instance('POST /users/:id/block', () => '/users/10/block', adminOnly(201)),
  instance('POST /users/:id/unblock', () => '/users/10/unblock', adminOnly(201), {
    setup: (fx) => send(fx, 'POST', `${API}/users/10/block`, 'root-api'),
  }),
  instance('GET /users/:user_id/memberships', () => '/users/10/memberships', adminOnly(200)),
  instance('POST /users/:id/deactivate', () => '/users/10/deactivate', adminOnly(201)),
  instance('POST /users/:id/activate', () => '/users/10/activate', adminOnly(201), {
    setup: (fx) => send(fx, 'POST', `${API}/users/10/deactivate`, 'root-api'),
  }),
  // No `authenticated_as_admin!`: `Users::ApproveService` refuses with its own message; the matrix
  // world's user is active, so an admin meets the service's 409.
  instance(
    'POST /users/:id/approve',
    () => '/users/10/approve',
    (c) =>
      c.anonymous
        ? U
        : c.level >= 100
          ? [409, { message: 'The user you are trying to approve is not pending approval' }]
          : [403, { message: 'You are not allowed to approve a user' }],
  ),
  instance('GET /users/:id/emails', () => '/users/10/emails', adminOnly(200)),
  instance('POST /users/:id/emails', () => '/users/10/emails', adminOnly(201), {
    body: json({ email: 'target-3@example.com' }),
  }),
  instance(
    'DELETE /users/:id/emails/:email_id',
    (ids) => `/users/10/emails/${ids.targetEmail}`,
    adminOnly(204),
  ),
  instance('POST /users/:id/keys', () => '/users/10/keys', adminOnly(201), {
    body: json({ title: 'k2', key: sshKey(101) }),
  }),
  instance('DELETE /users/:id/keys/:key_id', (ids) => `/users/10/keys/${ids.targetKey}`, adminOnly(204)),
  instance('POST /users/:id/gpg_keys', () => '/users/10/gpg_keys', adminOnly(201), {
    body: json({ key: gpgKey(101) }),
  }),
  instance(
    'DELETE /users/:id/gpg_keys/:key_id',
    (ids) => `/users/10/gpg_keys/${ids.targetGpgKey}`,
    adminOnly(204),
  ),
  instance(
    'POST /users/:id/gpg_keys/:key_id/revoke',
    (ids) => `/users/10/gpg_keys/${ids.targetGpgKey}/revoke`,
    adminOnly(202),
  ),
  instance(
    'GET /users/:user_id/impersonation_tokens',
    () => '/users/10/impersonation_tokens',
    adminOnly(200),
  ),
  instance(
    'POST /users/:user_id/impersonation_tokens',
    () => '/users/10/impersonation_tokens',
    adminOnly(201),
    {
      body: json({ name: 'imp', scopes: ['api'] }),
    },
  ),
  instance(
    'GET /users/:user_id/impersonation_tokens/:impersonation_token_id',
    (ids) => `/users/10/impersonation_tokens/${ids.impersonationToken}`,
    adminOnly(200),
  ),
  instance(
    'DELETE /users/:user_id/impersonation_tokens/:impersonation_token_id',
    (ids) => `/users/10/impersonation_tokens/${ids.impersonationToken}`,
    adminOnly(204),
  ),
  instance(
    'POST /users/:user_id/personal_access_tokens',
    () => '/users/10/personal_access_tokens',
    adminOnly(201),
    {
      body: json({ name: 'pat', scopes: ['api'] }),
    },
  ),
  // ---- instance-wide: public
  instance('GET /projects', () => '/projects', anyone(200)),
  instance('GET /groups', () => '/groups', anyone(200)),
  instance('GET /users/:id', () => '/users/10', anyone(200)),
  instance('GET /users/:user_id/projects', () => '/users/10/projects', anyone(200)),
  instance('GET /users/:user_id/starred_projects', () => '/users/10/starred_projects', anyone(200)),
  instance('GET /users/:user_id/keys', () => '/users/10/keys', anyone(200)),
  instance('GET /users/:user_id/status', () => '/users/10/status', anyone(200)),
  // Following (13.11): the lists are as readable as the profile; any signed-in user follows.
  instance('GET /users/:id/followers', () => '/users/10/followers', anyone(200)),
  instance('GET /users/:id/following', () => '/users/10/following', anyone(200)),
  instance('POST /users/:id/follow', () => '/users/10/follow', authed(201)),
  instance('POST /users/:id/unfollow', () => '/users/10/unfollow', authed(201), {
    setup: (fx, _v, _ids, token) => send(fx, 'POST', `${API}/users/10/follow`, token),
  }),
  instance('GET /users/:id/gpg_keys', () => '/users/10/gpg_keys', anyone(200)),
  instance('GET /users/:id/gpg_keys/:key_id', (ids) => `/users/10/gpg_keys/${ids.targetGpgKey}`, anyone(200)),
  // No authentication in 13.x (it came in 15.3); a render, nothing stored.
  instance('POST /markdown', () => '/markdown', anyone(201), {
    body: json({ text: 'Hello' }),
    readOnly: true,
  }),
  // An anonymous caller gets a user by username only, never the list.
  instance(
    'GET /users',
    () => '/users',
    (c) =>
      c.anonymous ? [403, { message: '403 Forbidden - Not authorized to access /api/v4/users' }] : [200],
  ),
  // ---- instance-wide: any signed-in user, on their own records
  instance('GET /user', () => '/user', authed(200)),
  instance('GET /user/status', () => '/user/status', authed(200)),
  instance('PUT /user/status', () => '/user/status', authed(200), { body: json({ message: 'busy' }) }),
  instance('GET /user/emails', () => '/user/emails', authed(200)),
  instance('POST /user/emails', () => '/user/emails', authed(201), {
    body: json({ email: 'fresh@example.com' }),
  }),
  instance(
    'GET /user/emails/:email_id',
    (ids, role) => `/user/emails/${own(ids, role, 'email')}`,
    authed(200),
  ),
  instance(
    'DELETE /user/emails/:email_id',
    (ids, role) => `/user/emails/${own(ids, role, 'email')}`,
    authed(204),
  ),
  instance('GET /user/keys', () => '/user/keys', authed(200)),
  instance('POST /user/keys', () => '/user/keys', authed(201), {
    body: json({ title: 'k', key: sshKey(102) }),
  }),
  instance('GET /user/keys/:key_id', (ids, role) => `/user/keys/${own(ids, role, 'key')}`, authed(200)),
  instance('DELETE /user/keys/:key_id', (ids, role) => `/user/keys/${own(ids, role, 'key')}`, authed(204)),
  instance('GET /user/gpg_keys', () => '/user/gpg_keys', authed(200)),
  instance('POST /user/gpg_keys', () => '/user/gpg_keys', authed(201), { body: json({ key: gpgKey(102) }) }),
  instance(
    'GET /user/gpg_keys/:key_id',
    (ids, role) => `/user/gpg_keys/${own(ids, role, 'gpgKey')}`,
    authed(200),
  ),
  instance(
    'DELETE /user/gpg_keys/:key_id',
    (ids, role) => `/user/gpg_keys/${own(ids, role, 'gpgKey')}`,
    authed(204),
  ),
  instance(
    'POST /user/gpg_keys/:key_id/revoke',
    (ids, role) => `/user/gpg_keys/${own(ids, role, 'gpgKey')}/revoke`,
    authed(202),
  ),
  instance('PUT /user/preferences', () => '/user/preferences', authed(200), {
    body: json({ view_diffs_file_by_file: true }),
  }),
  instance('GET /user_counts', () => '/user_counts', authed(200)),
  instance('GET /personal_access_tokens', () => '/personal_access_tokens', authed(200)),
  // Revoking someone else's token: RevokeService refuses, and the API answers `bad_request!(nil)`.
  instance(
    'DELETE /personal_access_tokens/:id',
    (ids) => `/personal_access_tokens/${ids.targetToken}`,
    (c) => (c.anonymous ? U : c.level >= 100 ? [204] : [400, { message: '400 Bad request' }]),
  ),
  instance('GET /todos', () => '/todos', authed(200)),
  instance(
    'POST /todos/:id/mark_as_done',
    (ids, role) => `/todos/${own(ids, role, 'todo')}/mark_as_done`,
    authed(201),
  ),
  instance('POST /todos/mark_as_done', () => '/todos/mark_as_done', authed(204)),
  // The default scope `created_by_me` needs a user.
  instance('GET /issues', () => '/issues', authed(200)),
  instance('GET /issues_statistics', () => '/issues_statistics', authed(200)),
  instance('GET /merge_requests', () => '/merge_requests', authed(200)),
  instance('GET /version', () => '/version', authed(200)),
  instance('GET /metadata', () => '/metadata', authed(200)),
  instance('GET /snippets', () => '/snippets', authed(200)),
  instance('GET /snippets/public', () => '/snippets/public', authed(200)),
  // External users may not create snippets, groups or personal projects (can_create_group false,
  // projects_limit 0).
  instance(
    'POST /snippets',
    () => '/snippets',
    (c) => (c.anonymous ? U : c.external ? F : [201]),
    {
      body: json({ title: 'New', file_name: 'new.txt', content: 'x', visibility: 'private' }),
    },
  ),
  instance(
    'POST /groups',
    () => '/groups',
    (c) => (c.anonymous ? U : c.external ? F : [201]),
    {
      body: json({ name: 'New group', path: 'new-group' }),
    },
  ),
  instance(
    'POST /projects',
    () => '/projects',
    (c) => (c.anonymous ? U : c.external ? LIMIT : [201]),
    {
      body: json({ name: 'new-project' }),
    },
  ),
  // ---- remote mirrors: `admin_remote_mirror` (maintainers) in a `before` filter, refused with a 401
  project('GET /projects/:id/remote_mirrors', () => '/remote_mirrors', mirrorAdmin(200, false)),
  project('POST /projects/:id/remote_mirrors', () => '/remote_mirrors', mirrorAdmin(201, true), {
    body: json({ url: 'https://mirror.example.com/a.git' }),
  }),
  project('PUT /projects/:id/remote_mirrors/:mirror_id', () => '/remote_mirrors/1', mirrorAdmin(200, true), {
    setup: (fx, v) =>
      send(fx, 'POST', `${P(v)}/remote_mirrors`, 'root-api', { url: 'https://m.example.com/a.git' }),
    body: json({ enabled: true }),
  }),
  // ---- boards: `authenticate!` first; readers of the project (issues on) or group read, reporters edit
  // lists and (paid tiers) boards
  project('GET /projects/:id/boards', () => '/boards', pAuthRead()),
  project('GET /projects/:id/boards/:board_id', (v, ids) => `/boards/${ids.board[v]}`, pAuthRead()),
  project(
    'GET /projects/:id/boards/:board_id/lists',
    (v, ids) => `/boards/${ids.board[v]}/lists`,
    pAuthRead(),
  ),
  project(
    'GET /projects/:id/boards/:board_id/lists/:list_id',
    (v, ids) => `/boards/${ids.board[v]}/lists/${ids.boardList[v]}`,
    pAuthRead(),
  ),
  project(
    'POST /projects/:id/boards/:board_id/lists',
    (v, ids) => `/boards/${ids.board[v]}/lists`,
    pLevel(20, 201),
    {
      body: (v, ids) => ({ label_id: ids.boardLabel[v] }),
    },
  ),
  project(
    'PUT /projects/:id/boards/:board_id/lists/:list_id',
    (v, ids) => `/boards/${ids.board[v]}/lists/${ids.boardList[v]}`,
    pLevel(20, 200),
    { body: json({ position: 1 }) },
  ),
  project(
    'DELETE /projects/:id/boards/:board_id/lists/:list_id',
    (v, ids) => `/boards/${ids.board[v]}/lists/${ids.boardList[v]}`,
    pLevel(20, 204),
  ),
  project('POST /projects/:id/boards', () => '/boards', pLevel(20, 201), {
    body: json({ name: 'New board' }),
  }),
  project('PUT /projects/:id/boards/:board_id', (v, ids) => `/boards/${ids.board[v]}`, pLevel(20, 200), {
    body: json({ name: 'Renamed' }),
  }),
  project('DELETE /projects/:id/boards/:board_id', (v, ids) => `/boards/${ids.board[v]}`, pLevel(20, 204)),
  group('GET /groups/:id/boards', () => '/boards', gAuthRead()),
  group('GET /groups/:id/boards/:board_id', (v, ids) => `/boards/${ids.groupBoard[v]}`, gAuthRead()),
  group(
    'GET /groups/:id/boards/:board_id/lists',
    (v, ids) => `/boards/${ids.groupBoard[v]}/lists`,
    gAuthRead(),
  ),
  group(
    'GET /groups/:id/boards/:board_id/lists/:list_id',
    (v, ids) => `/boards/${ids.groupBoard[v]}/lists/${ids.groupBoardList[v]}`,
    gAuthRead(),
  ),
  group(
    'POST /groups/:id/boards/:board_id/lists',
    (v, ids) => `/boards/${ids.groupBoard[v]}/lists`,
    gLevel(20, 201),
    {
      body: (v, ids) => ({ label_id: ids.groupBoardLabel[v] }),
    },
  ),
  group(
    'PUT /groups/:id/boards/:board_id/lists/:list_id',
    (v, ids) => `/boards/${ids.groupBoard[v]}/lists/${ids.groupBoardList[v]}`,
    gLevel(20, 200),
    { body: json({ position: 1 }) },
  ),
  group(
    'DELETE /groups/:id/boards/:board_id/lists/:list_id',
    (v, ids) => `/boards/${ids.groupBoard[v]}/lists/${ids.groupBoardList[v]}`,
    gLevel(20, 204),
  ),
  group('POST /groups/:id/boards', () => '/boards', gLevel(20, 201), { body: json({ name: 'New board' }) }),
  group('PUT /groups/:id/boards/:board_id', (v, ids) => `/boards/${ids.groupBoard[v]}`, gLevel(20, 200), {
    body: json({ name: 'Renamed' }),
  }),
  group('DELETE /groups/:id/boards/:board_id', (v, ids) => `/boards/${ids.groupBoard[v]}`, gLevel(20, 204)),
  // ---- wikis: read_wiki (whoever sees the project or group), create_wiki (developers), admin_wiki
  // (maintainers); group wikis are a paid feature (the matrix world is premium)
  project('GET /projects/:id/wikis', () => '/wikis', pRead()),
  project('GET /projects/:id/wikis/:slug', () => '/wikis/Home', pRead(), { setup: wikiPage('project') }),
  project('POST /projects/:id/wikis', () => '/wikis', pLevel(30, 201), {
    body: json({ title: 'New page', content: 'hello' }),
  }),
  project('PUT /projects/:id/wikis/:slug', () => '/wikis/Home', pLevel(30, 200), {
    setup: wikiPage('project'),
    body: json({ content: 'changed' }),
  }),
  project('DELETE /projects/:id/wikis/:slug', () => '/wikis/Home', pLevel(40, 204), {
    setup: wikiPage('project'),
  }),
  project('POST /projects/:id/wikis/attachments', () => '/wikis/attachments', pLevel(30, 201), {
    body: () => uploadForm(),
  }),
  group('GET /groups/:id/wikis', () => '/wikis', gRead()),
  group('GET /groups/:id/wikis/:slug', () => '/wikis/Home', gRead(), { setup: wikiPage('group') }),
  group('POST /groups/:id/wikis', () => '/wikis', gLevel(30, 201), {
    body: json({ title: 'New page', content: 'hello' }),
  }),
  group('PUT /groups/:id/wikis/:slug', () => '/wikis/Home', gLevel(30, 200), {
    setup: wikiPage('group'),
    body: json({ content: 'changed' }),
  }),
  group('DELETE /groups/:id/wikis/:slug', () => '/wikis/Home', gLevel(40, 204), { setup: wikiPage('group') }),
  group('POST /groups/:id/wikis/attachments', () => '/wikis/attachments', gLevel(30, 201), {
    body: () => uploadForm(),
  }),
  // ---- labels: `before { authenticate! }`; admin_label is reporters' (project and group)
  project('GET /projects/:id/labels', () => '/labels', pAuthRead()),
  project('GET /projects/:id/labels/:name', () => '/labels/bug', pAuthRead()),
  project('POST /projects/:id/labels', () => '/labels', pLevel(20, 201), {
    body: json({ name: 'new', color: '#000' }),
  }),
  project('PUT /projects/:id/labels', () => '/labels', pLevel(20, 200), {
    body: json({ name: 'bug', color: 'red' }),
  }),
  project('PUT /projects/:id/labels/:name', () => '/labels/bug', pLevel(20, 200), {
    body: json({ new_name: 'defect' }),
  }),
  project('DELETE /projects/:id/labels', () => '/labels', pLevel(20, 204), { body: json({ name: 'bug' }) }),
  project('DELETE /projects/:id/labels/:name', () => '/labels/bug', pLevel(20, 204)),
  project('PUT /projects/:id/labels/promote', () => '/labels/promote', pLevel(20, 200), {
    body: json({ name: 'bug' }),
  }),
  project('PUT /projects/:id/labels/:name/promote', () => '/labels/bug/promote', pLevel(20, 200)),
  project('POST /projects/:id/labels/:subscribable_id/subscribe', () => '/labels/bug/subscribe', pUser(201)),
  project(
    'POST /projects/:id/labels/:subscribable_id/unsubscribe',
    () => '/labels/bug/unsubscribe',
    pUser(201),
    {
      setup: (fx, v, _ids, token) => send(fx, 'POST', `${P(v)}/labels/bug/subscribe`, token),
    },
  ),
  group('GET /groups/:id/labels', () => '/labels', gAuthRead()),
  group('POST /groups/:id/labels', () => '/labels', gLevel(20, 201), {
    body: json({ name: 'new', color: '#000' }),
  }),
  ...(
    [
      ['GET /groups/:id/labels/:name', '/labels/glabel', gAuthRead()],
      ['PUT /groups/:id/labels', '/labels', gLevel(20, 200), { name: 'glabel', color: 'red' }],
      ['PUT /groups/:id/labels/:name', '/labels/glabel', gLevel(20, 200), { new_name: 'other' }],
      ['DELETE /groups/:id/labels', '/labels', gLevel(20, 204), { name: 'glabel' }],
      ['DELETE /groups/:id/labels/:name', '/labels/glabel', gLevel(20, 204)],
      ['POST /groups/:id/labels/:subscribable_id/subscribe', '/labels/glabel/subscribe', gUser(201)],
    ] as [string, string, Endpoint['expect'], unknown?][]
  ).map(([route, suffix, expect, body]) =>
    group(route, () => suffix, expect, {
      ...(body ? { body: json(body) } : {}),
      // Groups have no label of their own in the world: one is made first.
      setup: (fx, v) => send(fx, 'POST', `${G(v)}/labels`, 'root-api', { name: 'glabel', color: '#000' }),
    }),
  ),
  group(
    'POST /groups/:id/labels/:subscribable_id/unsubscribe',
    () => '/labels/glabel/unsubscribe',
    gUser(201),
    {
      setup: async (fx, v, _ids, token) => {
        await send(fx, 'POST', `${G(v)}/labels`, 'root-api', { name: 'glabel', color: '#000' });
        return send(fx, 'POST', `${G(v)}/labels/glabel/subscribe`, token);
      },
    },
  ),
  // ---- discussions: the notes' rules (the plain note of each noteable is a discussion of its own)
  ...(
    [
      ['issues', () => '1', 'issue', seenNote],
      ['merge_requests', () => '1', 'mr', mrNote],
      ['snippets', (v: Visibility, ids: Ids) => String(ids.projectSnippet[v]), 'snippet', seenNote],
    ] as const
  ).flatMap(([kind, noteable, key, gate]) => {
    const base = `/projects/:id/${kind}/:noteable_id/discussions`;
    const at = (v: Visibility, ids: Ids) => `/${kind}/${noteable(v, ids)}/discussions`;
    const d = (v: Visibility, ids: Ids) => `${at(v, ids)}/${ids.discussion[key][v]}`;
    const noteId = { issue: 'issueNote', mr: 'mrNote', snippet: 'snippetNote' } as const;
    const note = (v: Visibility, ids: Ids) => `${d(v, ids)}/notes/${ids[noteId[key]][v]}`;
    const ok = (status: number) => () => [status] as Expect;
    return [
      project(`GET ${base}`, at, gate(ok(200))),
      project(`GET ${base}/:discussion_id`, d, gate(ok(200))),
      project(`POST ${base}`, at, gate(ok(201)), { body: json({ body: 'hello' }) }),
      project(`GET ${base}/:discussion_id/notes`, (v, ids) => `${d(v, ids)}/notes`, gate(ok(200))),
      // An individual snippet note cannot be replied to.
      project(
        `POST ${base}/:discussion_id/notes`,
        (v, ids) => `${d(v, ids)}/notes`,
        gate(ok(key === 'snippet' ? 400 : 201)),
        {
          body: json({ body: 'reply' }),
        },
      ),
      project(`GET ${base}/:discussion_id/notes/:note_id`, note, gate(ok(200))),
      project(`PUT ${base}/:discussion_id/notes/:note_id`, note, gate(noteAdmin(200)), {
        body: json({ body: 'edited' }),
      }),
      project(`DELETE ${base}/:discussion_id/notes/:note_id`, note, gate(noteAdmin(204))),
    ];
  }),
  // Epic discussions (paid tiers, by epic id): the epic notes' rules; an individual epic note can be replied to.
  ...(() => {
    const base = '/groups/:id/epics/:noteable_id/discussions';
    const at = (v: Visibility, ids: Ids) => `/epics/${ids.epic[v]}/discussions`;
    const d = (v: Visibility, ids: Ids) => `${at(v, ids)}/${ids.discussion.epic[v]}`;
    const note = (v: Visibility, ids: Ids) => `${d(v, ids)}/notes/${ids.epicNote[v]}`;
    const edit = (ok: number) => (c: Cell) => (c.anonymous ? U : !c.visible ? GNF : noteAdmin(ok)(c));
    return [
      group(`GET ${base}`, at, gAuthRead()),
      group(`GET ${base}/:discussion_id`, d, gAuthRead()),
      group(`POST ${base}`, at, gUser(201), { body: json({ body: 'hello' }) }),
      group(`GET ${base}/:discussion_id/notes`, (v, ids) => `${d(v, ids)}/notes`, gAuthRead()),
      group(`POST ${base}/:discussion_id/notes`, (v, ids) => `${d(v, ids)}/notes`, gUser(201), {
        body: json({ body: 'reply' }),
      }),
      group(`GET ${base}/:discussion_id/notes/:note_id`, note, gAuthRead()),
      group(`PUT ${base}/:discussion_id/notes/:note_id`, note, edit(200), { body: json({ body: 'edited' }) }),
      group(`DELETE ${base}/:discussion_id/notes/:note_id`, note, edit(204)),
    ];
  })(),
  // Resolving: developers and up, and the merge request's author; the note is made a thread first.
  project(
    'PUT /projects/:id/merge_requests/:noteable_id/discussions/:discussion_id',
    (v, ids) => `/merge_requests/1/discussions/${ids.discussion.mr[v]}`,
    mrNote((c) => (c.level >= 30 ? [200] : F)),
    {
      body: json({ resolved: true }),
      setup: (fx, v, ids) =>
        send(fx, 'POST', `${P(v)}/merge_requests/1/discussions/${ids.discussion.mr[v]}/notes`, 'root-api', {
          body: 'a reply',
        }),
    },
  ),
  // ---- resource events: `before { authenticate! }`, the issuable found as the notes API finds it
  ...(['issues', 'merge_requests'] as const).flatMap((kind) =>
    (['label', 'milestone', 'state'] as const).flatMap((what) => {
      const base = `/projects/:id/${kind}/:eventable_id/resource_${what}_events`;
      const gate = kind === 'issues' ? pAuthRead() : mrNote(() => [200]);
      return [
        project(`GET ${base}`, () => `/${kind}/1/resource_${what}_events`, gate),
        project(
          `GET ${base}/:event_id`,
          (v, ids) => `/${kind}/1/resource_${what}_events/${ids.events[kind][v][what]}`,
          gate,
        ),
      ];
    }),
  ),
  // ---- issue weight events (EE): as the other resource events of issues
  project(
    'GET /projects/:id/issues/:eventable_id/resource_weight_events',
    () => '/issues/1/resource_weight_events',
    pAuthRead(),
  ),
  project(
    'GET /projects/:id/issues/:eventable_id/resource_weight_events/:event_id',
    (v, ids) => `/issues/1/resource_weight_events/${ids.weightEvent[v]}`,
    pAuthRead(),
  ),
  // ---- epic label events (EE): as the epic's notes, by the epic's global id
  group(
    'GET /groups/:id/epics/:eventable_id/resource_label_events',
    (v, ids) => `/epics/${ids.epic[v]}/resource_label_events`,
    gAuthRead(),
  ),
  group(
    'GET /groups/:id/epics/:eventable_id/resource_label_events/:event_id',
    (v, ids) => `/epics/${ids.epic[v]}/resource_label_events/${ids.epicLabelEvent[v]}`,
    gAuthRead(),
  ),
  // Marking epic &1 as a todo (EE todos.rb): `authenticate!`, the group, then `read_epic`.
  group('POST /groups/:id/epics/:epic_iid/todo', () => '/epics/1/todo', gUser(201)),
  // ---- time tracking: admin_issue (reporters) or admin_merge_request (developers) after the issuable is found
  ...(
    [
      ['issues', 'issue_iid', pLevel(20, 200), pLevel(20, 201), pAuthRead()],
      [
        'merge_requests',
        'merge_request_iid',
        mrFound((c) => (c.level >= 30 ? [200] : F)),
        mrFound((c) => (c.level >= 30 ? [201] : F)),
        mrFound(() => [200]),
      ],
    ] as const
  ).flatMap(([kind, key, ok, created, read]) => [
    project(`POST /projects/:id/${kind}/:${key}/time_estimate`, () => `/${kind}/1/time_estimate`, ok, {
      body: json({ duration: '1h' }),
    }),
    project(
      `POST /projects/:id/${kind}/:${key}/reset_time_estimate`,
      () => `/${kind}/1/reset_time_estimate`,
      ok,
      {
        // There is an estimate to reset.
        setup: (fx, v) => send(fx, 'POST', `${P(v)}/${kind}/1/time_estimate`, 'root-api', { duration: '1h' }),
      },
    ),
    project(`POST /projects/:id/${kind}/:${key}/add_spent_time`, () => `/${kind}/1/add_spent_time`, created, {
      body: json({ duration: '1h' }),
    }),
    project(`POST /projects/:id/${kind}/:${key}/reset_spent_time`, () => `/${kind}/1/reset_spent_time`, ok, {
      setup: (fx, v) => send(fx, 'POST', `${P(v)}/${kind}/1/add_spent_time`, 'root-api', { duration: '1h' }),
    }),
    project(`GET /projects/:id/${kind}/:${key}/time_stats`, () => `/${kind}/1/time_stats`, read),
  ]),
  // ---- award emoji on notes: as on their issue or merge request
  ...(
    [
      ['issues', 'issue_iid', pAuthRead(), pUser(201)],
      ['merge_requests', 'merge_request_iid', mrAward(200), mrAward(201)],
    ] as const
  ).flatMap(([kind, key, read, award]) => {
    const base = `/projects/:id/${kind}/:${key}/notes/:note_id/award_emoji`;
    const at = (v: Visibility, ids: Ids) =>
      `/${kind}/1/notes/${kind === 'issues' ? ids.issueNote[v] : ids.mrNote[v]}/award_emoji`;
    const one = (v: Visibility, ids: Ids) => `${at(v, ids)}/${ids.noteAward[kind][v]}`;
    return [
      project(`GET ${base}`, at, read),
      project(`GET ${base}/:award_id`, one, read),
      project(`POST ${base}`, at, award, { body: json({ name: 'smile' }) }),
      project(`DELETE ${base}/:award_id`, one, ownAward),
    ];
  }),
  // ---- award emoji on project snippets and their notes: found by id, then `read_snippet` (the snippet's
  // visibility is its project's here, so whoever sees the project reads it)
  ...[false, true].flatMap((onNote) => {
    const base = `/projects/:id/snippets/:snippet_id${onNote ? '/notes/:note_id' : ''}/award_emoji`;
    const at = (v: Visibility, ids: Ids) =>
      `/snippets/${ids.projectSnippet[v]}${onNote ? `/notes/${ids.snippetNote[v]}` : ''}/award_emoji`;
    const one = (v: Visibility, ids: Ids) =>
      `${at(v, ids)}/${onNote ? ids.snippetNoteAward[v] : ids.snippetAward[v]}`;
    return [
      project(`GET ${base}`, at, pAuthRead()),
      project(`GET ${base}/:award_id`, one, pAuthRead()),
      project(`POST ${base}`, at, pUser(201), { body: json({ name: 'smile' }) }),
      project(`DELETE ${base}/:award_id`, one, ownAward),
    ];
  }),
  // ---- issue links: admin_issue_link (reporters) on both issues; #3 is the set-up's open issue
  project('GET /projects/:id/issues/:issue_iid/links', () => '/issues/1/links', pAuthRead()),
  project(
    'POST /projects/:id/issues/:issue_iid/links',
    () => '/issues/1/links',
    (c) =>
      c.anonymous
        ? U
        : !c.visible
          ? PNF
          : c.level >= 20
            ? [201]
            : [404, { message: 'No matching issue found. Make sure that you are adding a valid issue URL.' }],
    { body: (v) => ({ target_project_id: `g-${v}/p`, target_issue_iid: 3 }) },
  ),
  project(
    'DELETE /projects/:id/issues/:issue_iid/links/:issue_link_id',
    // The set-up's link is the world's first.
    () => '/issues/1/links/1',
    (c) =>
      c.anonymous ? U : !c.visible ? PNF : c.level >= 20 ? [200] : [404, { message: 'No Issue Link found' }],
    {
      setup: (fx, v) =>
        send(fx, 'POST', `${P(v)}/issues/1/links`, 'root-api', {
          target_project_id: `g-${v}/p`,
          target_issue_iid: 3,
        }),
    },
  ),
  // ---- webhooks: project hooks (admin_project), group hooks (admin_group, paid), system hooks (admins)
  project('GET /projects/:id/hooks', () => '/hooks', pLevel(40, 200)),
  project('GET /projects/:id/hooks/:hook_id', () => '/hooks/1', pLevel(40, 200), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/hooks`, 'root-api', HOOK),
  }),
  project('POST /projects/:id/hooks', () => '/hooks', pLevel(40, 201), { body: json(HOOK) }),
  project('PUT /projects/:id/hooks/:hook_id', () => '/hooks/1', pLevel(40, 200), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/hooks`, 'root-api', HOOK),
    body: json({ ...HOOK, note_events: true }),
  }),
  project('DELETE /projects/:id/hooks/:hook_id', () => '/hooks/1', pLevel(40, 204), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/hooks`, 'root-api', HOOK),
  }),
  group('GET /groups/:id/hooks', () => '/hooks', gLevel(50, 200)),
  group('GET /groups/:id/hooks/:hook_id', () => '/hooks/1', gLevel(50, 200), {
    setup: (fx, v) => send(fx, 'POST', `${G(v)}/hooks`, 'root-api', HOOK),
  }),
  group('POST /groups/:id/hooks', () => '/hooks', gLevel(50, 201), { body: json(HOOK) }),
  group('PUT /groups/:id/hooks/:hook_id', () => '/hooks/1', gLevel(50, 200), {
    setup: (fx, v) => send(fx, 'POST', `${G(v)}/hooks`, 'root-api', HOOK),
    body: json({ ...HOOK, issues_events: true }),
  }),
  group('DELETE /groups/:id/hooks/:hook_id', () => '/hooks/1', gLevel(50, 204), {
    setup: (fx, v) => send(fx, 'POST', `${G(v)}/hooks`, 'root-api', HOOK),
  }),
  instance('GET /hooks', () => '/hooks', adminOnly(200)),
  instance('POST /hooks', () => '/hooks', adminOnly(201), { body: json(HOOK) }),
  instance('GET /hooks/:id', () => '/hooks/1', adminOnly(200), {
    setup: (fx) => send(fx, 'POST', `${API}/hooks`, 'root-api', HOOK),
  }),
  instance('DELETE /hooks/:id', () => '/hooks/1', adminOnly(204), {
    setup: (fx) => send(fx, 'POST', `${API}/hooks`, 'root-api', HOOK),
  }),
  // ---- events: a project's for whoever sees it, the caller's own, a user's (filtered per viewer)
  project('GET /projects/:id/events', () => '/events', pRead()),
  instance('GET /events', () => '/events?scope=all', authed(200)),
  instance('GET /users/:id/events', () => '/users/10/events', anyone(200)),
  instance('GET /user/activities', () => '/user/activities', adminOnly(200)),
  // ---- repository (download_code: reporters of private projects, anyone who sees a public or
  // internal one; push_code: developers; protected branches: maintainers)
  project('GET /projects/:id/repository/branches', () => '/repository/branches', mrRead()),
  project('GET /projects/:id/repository/branches/:branch', () => '/repository/branches/master', mrRead()),
  project('POST /projects/:id/repository/branches', () => '/repository/branches', pLevel(30, 201), {
    body: json({ branch: 'topic', ref: 'master' }),
  }),
  project(
    'DELETE /projects/:id/repository/branches/:branch',
    () => '/repository/branches/topic',
    pLevel(30, 204),
    {
      setup: (fx, v) =>
        send(fx, 'POST', `${P(v)}/repository/branches`, 'root-api', { branch: 'topic', ref: 'master' }),
    },
  ),
  project(
    'DELETE /projects/:id/repository/merged_branches',
    () => '/repository/merged_branches',
    pLevel(30, 202),
    {
      readOnly: true,
    },
  ),
  ...(['protect', 'unprotect'] as const).map((a) =>
    project(
      `PUT /projects/:id/repository/branches/:branch/${a}`,
      () => `/repository/branches/master/${a}`,
      pLevel(40, 200),
      { readOnly: a === 'unprotect' },
    ),
  ),
  project('GET /projects/:id/protected_branches', () => '/protected_branches', pAuthorize(40, 200)),
  project(
    'GET /projects/:id/protected_branches/:name',
    () => '/protected_branches/master',
    pAuthorize(40, 200),
    {
      setup: (fx, v) => send(fx, 'POST', `${P(v)}/protected_branches`, 'root-api', { name: 'master' }),
    },
  ),
  project('POST /projects/:id/protected_branches', () => '/protected_branches', pLevel(40, 201), {
    body: json({ name: 'release/*' }),
  }),
  project(
    'DELETE /projects/:id/protected_branches/:name',
    () => '/protected_branches/master',
    pLevel(40, 204),
    {
      setup: (fx, v) => send(fx, 'POST', `${P(v)}/protected_branches`, 'root-api', { name: 'master' }),
    },
  ),
  project('GET /projects/:id/protected_tags', () => '/protected_tags', pAuthorize(40, 200)),
  project('GET /projects/:id/protected_tags/:name', () => '/protected_tags/v*', pAuthorize(40, 200), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/protected_tags`, 'root-api', { name: 'v*' }),
  }),
  project('POST /projects/:id/protected_tags', () => '/protected_tags', pLevel(40, 201), {
    body: json({ name: 'v*', create_access_level: 30 }),
  }),
  project('DELETE /projects/:id/protected_tags/:name', () => '/protected_tags/v*', pLevel(40, 204), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/protected_tags`, 'root-api', { name: 'v*' }),
  }),
  // `authenticated_with_can_read_all_resources!` before the project: 403 whatever the visibility.
  project('GET /projects/:id/snapshot', () => '/snapshot', adminOnly(200)),
  project('GET /projects/:id/repository/commits', () => '/repository/commits', mrRead()),
  // `authenticate!`, then `authorize! :daily_statistics`: write access to the repository in 13.12.
  project('GET /projects/:id/statistics', () => '/statistics', pAuthLevel(30)),
  project('GET /projects/:id/repository/commits/:sha', () => '/repository/commits/master', mrRead()),
  // `authorize! :push_code` (developers), then `Submodules::UpdateService`: the matrix project has no
  // submodule, so a pusher's request is its 400 and writes nothing.
  project(
    'PUT /projects/:id/repository/submodules/:submodule',
    () => '/repository/submodules/libs%2Fsix',
    (c) =>
      c.anonymous ? U : !c.visible ? PNF : c.level >= 30 ? [400, { message: 'Invalid submodule path' }] : F,
    {
      body: json({ branch: 'master', commit_sha: 'e25eda1fece24ac7a03624ed1320f82396f35bd8' }),
      readOnly: true,
    },
  ),
  project(
    'GET /projects/:id/repository/commits/:sha/diff',
    () => '/repository/commits/master/diff',
    mrRead(),
  ),
  project(
    'GET /projects/:id/repository/commits/:sha/refs',
    () => '/repository/commits/master/refs',
    mrRead(),
  ),
  project(
    'GET /projects/:id/repository/commits/:sha/merge_requests',
    () => '/repository/commits/master/merge_requests',
    mrRead(),
  ),
  project('POST /projects/:id/repository/commits', () => '/repository/commits', pushTo(201), {
    body: json({
      branch: 'master',
      commit_message: 'Add a file',
      actions: [{ action: 'create', file_path: 'added.txt', content: 'x' }],
    }),
  }),
  project(
    'GET /projects/:id/repository/files/:file_path/raw',
    () => '/repository/files/README.md/raw',
    mrRead(),
  ),
  project(
    'GET /projects/:id/repository/files/:file_path',
    () => '/repository/files/README.md?ref=master',
    mrRead(),
  ),
  project(
    'POST /projects/:id/repository/files/:file_path',
    () => '/repository/files/added.txt',
    pLevel(30, 201),
    {
      body: json({ branch: 'master', content: 'x', commit_message: 'Add' }),
    },
  ),
  project(
    'PUT /projects/:id/repository/files/:file_path',
    () => '/repository/files/README.md',
    pLevel(30, 200),
    {
      body: json({ branch: 'master', content: 'changed', commit_message: 'Change' }),
    },
  ),
  project(
    'DELETE /projects/:id/repository/files/:file_path',
    () => '/repository/files/README.md',
    pLevel(30, 204),
    {
      body: json({ branch: 'master', commit_message: 'Remove' }),
    },
  ),
  project('GET /projects/:id/repository/tree', () => '/repository/tree?recursive=true', mrRead()),
  project('GET /projects/:id/repository/blobs/:sha', () => `/repository/blobs/${BLOB_X}`, mrRead(), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/repository/files/x.txt`, 'root-api', X_FILE),
  }),
  project('GET /projects/:id/repository/blobs/:sha/raw', () => `/repository/blobs/${BLOB_X}/raw`, mrRead(), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/repository/files/x.txt`, 'root-api', X_FILE),
  }),
  project(
    'GET /projects/:id/repository/compare',
    () => '/repository/compare?from=master&to=master',
    mrRead(),
  ),
  project(
    'GET /projects/:id/repository/merge_base',
    () => '/repository/merge_base?refs[]=master&refs[]=master',
    mrRead(),
  ),
  project('GET /projects/:id/repository/contributors', () => '/repository/contributors', mrRead()),
  project('GET /projects/:id/repository/tags', () => '/repository/tags', mrRead()),
  project('GET /projects/:id/repository/tags/:tag_name', () => '/repository/tags/v1', mrRead(), {
    setup: (fx, v) =>
      send(fx, 'POST', `${P(v)}/repository/tags`, 'root-api', { tag_name: 'v1', ref: 'master' }),
  }),
  project('POST /projects/:id/repository/tags', () => '/repository/tags', pLevel(30, 201), {
    body: json({ tag_name: 'v2', ref: 'master', message: 'Release' }),
  }),
  project('DELETE /projects/:id/repository/tags/:tag_name', () => '/repository/tags/v1', pLevel(30, 204), {
    setup: (fx, v) =>
      send(fx, 'POST', `${P(v)}/repository/tags`, 'root-api', { tag_name: 'v1', ref: 'master' }),
  }),
  // A tag's release notes: download_code first (a private project's guest), then create_release /
  // update_release (developers).
  project(
    'POST /projects/:id/repository/tags/:tag_name/release',
    () => '/repository/tags/v1/release',
    pLevel(30, 201),
    {
      setup: (fx, v) =>
        send(fx, 'POST', `${P(v)}/repository/tags`, 'root-api', { tag_name: 'v1', ref: 'master' }),
      body: json({ description: 'Notes' }),
    },
  ),
  project(
    'PUT /projects/:id/repository/tags/:tag_name/release',
    () => '/repository/tags/v1/release',
    pLevel(30, 200),
    {
      setup: (fx, v) =>
        send(fx, 'POST', `${P(v)}/repository/tags`, 'root-api', {
          tag_name: 'v1',
          ref: 'master',
          release_description: 'Notes',
        }),
      body: json({ description: 'Changed notes' }),
    },
  ),
  project(
    'GET /projects/:id/repository/commits/:sha/statuses',
    () => '/repository/commits/master/statuses',
    mrRead(),
  ),
  project('POST /projects/:id/statuses/:sha', () => '/statuses/master', pLevel(30, 201), {
    body: json({ state: 'success', name: 'ci' }),
  }),
  project(
    'POST /projects/:id/repository/commits/:sha/cherry_pick',
    () => '/repository/commits/master/cherry_pick',
    pushTo(201),
    {
      setup: async (fx, v) => {
        await send(fx, 'POST', `${P(v)}/repository/branches`, 'root-api', {
          branch: 'stable',
          ref: 'master',
        });
        await send(fx, 'POST', `${P(v)}/repository/files/x.txt`, 'root-api', X_FILE);
      },
      body: json({ branch: 'stable' }),
    },
  ),
  project(
    'POST /projects/:id/repository/commits/:sha/revert',
    () => '/repository/commits/master/revert',
    pushTo(201),
    {
      setup: (fx, v) => send(fx, 'POST', `${P(v)}/repository/files/x.txt`, 'root-api', X_FILE),
      body: json({ branch: 'master' }),
    },
  ),
  project(
    'GET /projects/:id/repository/commits/:sha/signature',
    () => '/repository/commits/master/signature',
    (c) => (!c.visible ? PNF : !readsMr(c) ? F : nf('Signature')),
  ),
  project(
    'GET /projects/:id/repository/:archive{archive(?:\\.[a-z0-9.]+)?}',
    () => '/repository/archive.zip',
    mrRead(),
  ),
  project(
    'GET /projects/:id/repository/files/:file_path/blame',
    () => '/repository/files/README.md/blame?ref=master',
    mrRead(),
  ),
  project(
    'GET /projects/:id/repository/commits/:sha/comments',
    () => '/repository/commits/master/comments',
    mrRead(),
  ),
  project(
    'POST /projects/:id/repository/commits/:sha/comments',
    () => '/repository/commits/master/comments',
    mrUser(201),
    {
      body: json({ note: 'Looks good' }),
    },
  ),
  // Commit discussions: `authenticate!`, the project, then the commit only for a caller who may download
  // the code (`404 Commit Not Found`); the notes' rules after. The world's commit thread is `owner`'s.
  ...(() => {
    const base = '/projects/:id/repository/commits/:noteable_id/discussions';
    const at = () => '/repository/commits/master/discussions';
    const d = (v: Visibility, ids: Ids) => `${at()}/${ids.discussion.commit[v]}`;
    const note = (v: Visibility, ids: Ids) => `${d(v, ids)}/notes/${ids.commitNote[v]}`;
    const gate = (then: (c: Cell) => Expect) => (c: Cell) =>
      c.anonymous ? U : !c.visible ? PNF : !readsMr(c) ? nf('Commit') : then(c);
    const ok = (status: number) => () => [status] as Expect;
    return [
      project(`GET ${base}`, at, gate(ok(200))),
      project(`GET ${base}/:discussion_id`, d, gate(ok(200))),
      project(`POST ${base}`, at, gate(ok(201)), { body: json({ body: 'hello' }) }),
      project(`GET ${base}/:discussion_id/notes`, (v, ids) => `${d(v, ids)}/notes`, gate(ok(200))),
      project(`POST ${base}/:discussion_id/notes`, (v, ids) => `${d(v, ids)}/notes`, gate(ok(201)), {
        body: json({ body: 'reply' }),
      }),
      project(`GET ${base}/:discussion_id/notes/:note_id`, note, gate(ok(200))),
      project(`PUT ${base}/:discussion_id/notes/:note_id`, note, gate(noteAdmin(200)), {
        body: json({ body: 'edited' }),
      }),
      project(`DELETE ${base}/:discussion_id/notes/:note_id`, note, gate(noteAdmin(204))),
    ];
  })(),
  // ---- namespaces: `before { authenticate! }`, then `read_namespace`
  instance('GET /namespaces', () => '/namespaces', authed(200)),
  ep(
    'GET /namespaces/:id',
    'group',
    (v) => `${API}/namespaces/g-${v}`,
    (c) => (c.anonymous ? U : c.visible ? [200] : nf('Namespace')),
  ),
  instance('GET /namespaces/:namespace/exists', () => '/namespaces/g-public/exists', authed(200)),
  // ---- search: `before { authenticate! }`, then the group or project
  instance('GET /search', () => '/search?scope=projects&search=p', authed(200)),
  ...['/groups/:id/search', '/groups/:id/-/search'].map((route) =>
    group(`GET ${route}`, () => `${route.slice('/groups/:id'.length)}?scope=issues&search=issue`, gUser(200)),
  ),
  ...['/projects/:id/search', '/projects/:id/-/search'].map((route) =>
    project(
      `GET ${route}`,
      () => `${route.slice('/projects/:id'.length)}?scope=issues&search=issue`,
      pUser(200),
    ),
  ),
  // ---- badges: readers list and read them; `admin_project` (maintainers) and `admin_group` (owners)
  // manage them. Each cell's set-up makes badge 1.
  project('GET /projects/:id/badges', () => '/badges', pRead()),
  project('GET /projects/:id/badges/render', () => `/badges/render?${BADGE_QUERY}`, pLevel(40, 200), {
    readOnly: true,
  }),
  project('GET /projects/:id/badges/:badge_id', () => '/badges/1', pRead(), { setup: badgeSetup(P) }),
  project('POST /projects/:id/badges', () => '/badges', pLevel(40, 201), { body: json(BADGE) }),
  project('PUT /projects/:id/badges/:badge_id', () => '/badges/1', pLevel(40, 200), {
    body: json({ name: 'renamed' }),
    setup: badgeSetup(P),
  }),
  project('DELETE /projects/:id/badges/:badge_id', () => '/badges/1', pLevel(40, 204), {
    setup: badgeSetup(P),
  }),
  group('GET /groups/:id/badges', () => '/badges', gRead()),
  group('GET /groups/:id/badges/render', () => `/badges/render?${BADGE_QUERY}`, gLevel(50, 200), {
    readOnly: true,
  }),
  group('GET /groups/:id/badges/:badge_id', () => '/badges/1', gRead(), { setup: badgeSetup(G) }),
  group('POST /groups/:id/badges', () => '/badges', gLevel(50, 201), { body: json(BADGE) }),
  group('PUT /groups/:id/badges/:badge_id', () => '/badges/1', gLevel(50, 200), {
    body: json({ name: 'renamed' }),
    setup: badgeSetup(G),
  }),
  group('DELETE /groups/:id/badges/:badge_id', () => '/badges/1', gLevel(50, 204), { setup: badgeSetup(G) }),
  // ---- broadcast messages: anyone reads them, admins write them; each cell's set-up makes message 1
  instance('GET /broadcast_messages', () => '/broadcast_messages', anyone(200)),
  instance('GET /broadcast_messages/:id', () => '/broadcast_messages/1', anyone(200), {
    setup: messageSetup,
  }),
  instance('POST /broadcast_messages', () => '/broadcast_messages', adminOnly(201), {
    body: json({ message: 'Hello' }),
  }),
  instance('PUT /broadcast_messages/:id', () => '/broadcast_messages/1', adminOnly(200), {
    body: json({ message: 'Changed' }),
    setup: messageSetup,
  }),
  instance('DELETE /broadcast_messages/:id', () => '/broadcast_messages/1', adminOnly(204), {
    setup: messageSetup,
  }),
  // ---- custom attributes: `authorize!` on the instance (admins), so anonymous reads are a 403 too
  ...(['users', 'groups', 'projects'] as const).flatMap((kind) => {
    const at = (v: Visibility) => (kind === 'users' ? `${API}/users/10` : kind === 'groups' ? G(v) : P(v));
    const route = `/${kind}/:id/custom_attributes`;
    const setup = (fx: Fauxlab, v: Visibility) =>
      send(fx, 'PUT', `${at(v)}/custom_attributes/team`, 'root-api', { value: 'core' });
    const adminRead = (c: Cell): Expect => (c.level >= 100 ? [200] : F);
    const scope: Scope = kind === 'users' ? 'instance' : kind === 'groups' ? 'group' : 'project';
    return [
      ep(`GET ${route}`, scope, (v) => `${at(v)}/custom_attributes`, adminRead),
      ep(`GET ${route}/:key`, scope, (v) => `${at(v)}/custom_attributes/team`, adminRead, { setup }),
      ep(`PUT ${route}/:key`, scope, (v) => `${at(v)}/custom_attributes/team`, adminOnly(200), {
        body: json({ value: 'ops' }),
      }),
      ep(`DELETE ${route}/:key`, scope, (v) => `${at(v)}/custom_attributes/team`, adminOnly(204), { setup }),
    ];
  }),
  // ---- notification settings: the caller's own, after `authenticate!`
  instance('GET /notification_settings', () => '/notification_settings', authed(200)),
  instance('PUT /notification_settings', () => '/notification_settings', authed(200), {
    body: json({ level: 'watch' }),
  }),
  group('GET /groups/:id/notification_settings', () => '/notification_settings', gUser(200)),
  group('PUT /groups/:id/notification_settings', () => '/notification_settings', gUser(200), {
    body: json({ level: 'custom', new_note: true }),
  }),
  project('GET /projects/:id/notification_settings', () => '/notification_settings', pUser(200)),
  project('PUT /projects/:id/notification_settings', () => '/notification_settings', pUser(200), {
    body: json({ level: 'mention' }),
  }),
  // ---- project snippets: the project and its snippets feature first; the world's snippet is the
  // owner's, of the project's visibility
  project(
    'GET /projects/:id/snippets',
    () => '/snippets',
    (c) => (!c.visible ? PNF : c.anonymous ? U : [200]),
  ),
  project(
    'GET /projects/:id/snippets/:snippet_id',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}`,
    pRead(),
  ),
  project(
    'GET /projects/:id/snippets/:snippet_id/raw',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}/raw`,
    pRead(),
  ),
  project(
    'GET /projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}/files/master/nope.txt/raw`,
    (c) => (!c.visible ? PNF : nf('File')),
  ),
  project(
    'POST /projects/:id/snippets',
    () => '/snippets',
    (c) => (!c.visible ? PNF : c.anonymous ? U : c.level >= 20 ? [201] : F),
    { body: json({ title: 'New', file_name: 'n.txt', content: 'x', visibility: 'private' }) },
  ),
  project(
    'PUT /projects/:id/snippets/:snippet_id',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}`,
    (c) => (!c.visible ? PNF : c.anonymous ? U : c.level >= 40 ? [200] : F),
    { body: json({ title: 'Renamed' }) },
  ),
  project(
    'DELETE /projects/:id/snippets/:snippet_id',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}`,
    (c) => (!c.visible ? PNF : c.anonymous ? U : c.level >= 40 ? [204] : F),
  ),
  // Scenario snippets were made by no request: an admin finds no user agent.
  project(
    'GET /projects/:id/snippets/:snippet_id/user_agent_detail',
    (v, ids) => `/snippets/${ids.projectSnippet[v]}/user_agent_detail`,
    (c) => (!c.visible ? PNF : c.anonymous ? U : c.level >= 100 ? nf('UserAgentDetail') : F),
  ),
  // ---- SSH keys by id or fingerprint: admins
  instance('GET /keys/:id', (ids) => `/keys/${ids.targetKey}`, adminOnly(200)),
  instance(
    'GET /keys',
    () => `/keys?fingerprint=${'0a:'.repeat(15)}0a`,
    (c) => (c.anonymous ? U : c.level >= 100 ? nf('Key') : F),
  ),
  // ---- forks, housekeeping (`admin_project`) and storage (admins)
  project('GET /projects/:id/forks', () => '/forks', pRead()),
  project('POST /projects/:id/housekeeping', () => '/housekeeping', pLevel(40, 201)),
  project('GET /projects/:id/storage', () => '/storage', adminOnly(200)),
  project(
    'POST /projects/:id/fork/:forked_from_id',
    (v, ids) => `/fork/${ids.project[v === 'public' ? 'private' : 'public']}`,
    adminOnly(201),
  ),
  // The world's projects are no forks: their owners get the 304.
  project(
    'DELETE /projects/:id/fork',
    () => '/fork',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 50 ? [304] : F),
  ),
  group('GET /groups/:id/descendant_groups', () => '/descendant_groups', gRead()),
  // ---- issue move and reorder: `admin_issue` (reporters) in both projects, else the service's 400
  project(
    'POST /projects/:id/issues/:issue_iid/move',
    () => '/issues/1/move',
    (c) =>
      c.anonymous
        ? U
        : !c.visible
          ? PNF
          : c.level >= 20
            ? [201]
            : [400, { message: 'Cannot move issue due to insufficient permissions!' }],
    { body: (v, ids) => ({ to_project_id: ids.project[v === 'public' ? 'private' : 'public'] }) },
  ),
  project('PUT /projects/:id/issues/:issue_iid/reorder', () => '/issues/1/reorder', pLevel(20, 200), {
    body: (v, ids) => ({ move_after_id: ids.issueId[v] + 1 }),
  }),
  // ---- project transfers: `change_namespace` (owners), then `transfer_projects` on the namespace
  project(
    'PUT /projects/:id/transfer',
    () => '/transfer',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 50 ? [200] : F),
    { body: json({ namespace: 'g-share-a' }) },
  ),
  group('POST /groups/:id/projects/:project_id', () => '/projects/root%2Fmoveme', adminOnly(201), {
    setup: (fx) => send(fx, 'POST', `${API}/projects`, 'root-api', { path: 'moveme' }),
  }),
  // ---- Pages domains: `authenticate!`, then `read_pages` / `update_pages` (maintainers)
  instance('GET /pages/domains', () => '/pages/domains', adminOnly(200)),
  project('GET /projects/:id/pages/domains', () => '/pages/domains', pLevel(40, 200)),
  project('POST /projects/:id/pages/domains', () => '/pages/domains', pLevel(40, 201), {
    body: json({ domain: 'new.example.org' }),
  }),
  project('GET /projects/:id/pages/domains/:domain', () => '/pages/domains/pd.example.org', pLevel(40, 200), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/pages/domains`, 'root-api', { domain: 'pd.example.org' }),
  }),
  project('PUT /projects/:id/pages/domains/:domain', () => '/pages/domains/pd.example.org', pLevel(40, 200), {
    setup: (fx, v) => send(fx, 'POST', `${P(v)}/pages/domains`, 'root-api', { domain: 'pd.example.org' }),
    body: json({ auto_ssl_enabled: true }),
  }),
  project(
    'DELETE /projects/:id/pages/domains/:domain',
    () => '/pages/domains/pd.example.org',
    pLevel(40, 204),
    {
      setup: (fx, v) => send(fx, 'POST', `${P(v)}/pages/domains`, 'root-api', { domain: 'pd.example.org' }),
    },
  ),
  // ---- avatars: `read_users_list`, which anonymous callers have unless public visibility is restricted
  instance('GET /avatar', () => '/avatar?email=someone%40example.com', anyone(200)),
  // ---- group export (`admin_group`: owners) and import (`create_group`; a name in the form)
  group('POST /groups/:id/export', () => '/export', gLevel(50, 202)),
  group('GET /groups/:id/export/download', () => '/export/download', gLevel(50, 200), {
    readOnly: true,
    setup: async (fx, v) => {
      await send(fx, 'POST', `${G(v)}/export`, 'root-api');
      fx.clock.advance(3000);
    },
  }),
  instance(
    'POST /groups/import',
    () => '/groups/import',
    (c) => (c.anonymous ? U : c.external ? F : [202]),
    {
      body: () => {
        const form = importForm('imported', '');
        form.delete('namespace');
        form.append('name', 'Imported');
        return form;
      },
    },
  ),
  // ---- CI lint: anyone lints content while sign-up is open; a project's file needs `download_code`,
  // linting content for a project `create_pipeline` (developers)
  instance('POST /ci/lint', () => '/ci/lint', anyone(200), {
    body: json({ content: 'build:\n  script: make\n' }),
    readOnly: true,
  }),
  project('GET /projects/:id/ci/lint', () => '/ci/lint', mrUser(200)),
  project('POST /projects/:id/ci/lint', () => '/ci/lint', pLevel(30, 200), {
    body: json({ content: 'build:\n  script: make\n' }),
    readOnly: true,
  }),
  // ---- repository storage moves: `before { authenticated_as_admin! }`, before the container is looked
  // up (the same answer whatever the visibility); the single reads find the move the admin's set-up made.
  ...storageMoveRows('project', (v) => P(v)),
  ...storageMoveRows('group', (v) => G(v)),
  ...storageMoveRows('snippet', (v, ids) => `${API}/snippets/${ids.personalSnippet[v]}`),

  // ---- container registry: `before { authorize_read_container_images! }` (the project, then
  // `read_container_image`: reporters, or the public access of a public or internal project); deletes
  // need `admin_container_image` (maintainers), a tag's delete `destroy_container_image` (developers).
  project('GET /projects/:id/registry/repositories', () => '/registry/repositories', imageRead(200)),
  project(
    'GET /projects/:id/registry/repositories/:repository_id/tags',
    (v) => `/registry/repositories/${REPO[v]}/tags`,
    imageRead(200),
  ),
  project(
    'GET /projects/:id/registry/repositories/:repository_id/tags/:tag_name',
    (v) => `/registry/repositories/${REPO[v]}/tags/v1`,
    imageRead(200),
  ),
  project(
    'DELETE /projects/:id/registry/repositories/:repository_id',
    (v) => `/registry/repositories/${REPO[v]}`,
    imageWrite(40, 202),
  ),
  project(
    'DELETE /projects/:id/registry/repositories/:repository_id/tags',
    (v) => `/registry/repositories/${REPO[v]}/tags`,
    imageWrite(40, 202),
    {
      body: json({ name_regex_delete: '.*' }),
    },
  ),
  project(
    'DELETE /projects/:id/registry/repositories/:repository_id/tags/:tag_name',
    (v) => `/registry/repositories/${REPO[v]}/tags/v1`,
    imageWrite(30, 200),
  ),
  // GroupPolicy's `read_container_image`: the group's reporters.
  group('GET /groups/:id/registry/repositories', () => '/registry/repositories', gAuthorize(20, 200)),
  // `authenticate!`, then the repository's ability: a 403 (not a 404) where the project is hidden.
  ep(
    'GET /registry/repositories/:id',
    'project',
    (v) => `${API}/registry/repositories/${REPO[v]}`,
    (c) => (c.anonymous ? U : imageReads(c) ? [200] : F),
  ),

  // ---- package registry: generic packages take `authenticate!` first, then `create_package`
  // (developers) or `read_package` (reporters, or whoever public and internal access lets in); the
  // packages API reads with `read_package` and deletes with `destroy_package` (maintainers). Each
  // cell's set-up publishes package 1 (`pkg 1.0.0`, file `a.txt`) as root.
  project(
    'PUT /projects/:id/packages/generic/:package_name/:version_and_file{.+}',
    () => '/packages/generic/pkg/1.0.0/a.txt',
    pLevel(30, 201),
    { body: json({ any: 'bytes' }) },
  ),
  project(
    'GET /projects/:id/packages/generic/:package_name/:version_and_file{.+}',
    () => '/packages/generic/pkg/1.0.0/a.txt',
    mrUser(200),
    { setup: (fx, v) => publishPackage(fx, v) },
  ),
  project('GET /projects/:id/packages', () => '/packages', mrRead(), {
    setup: (fx, v) => publishPackage(fx, v),
  }),
  project('GET /projects/:id/packages/:package_id', () => '/packages/1', mrRead(), {
    setup: (fx, v) => publishPackage(fx, v),
  }),
  project(
    'GET /projects/:id/packages/:package_id/package_files',
    () => '/packages/1/package_files',
    mrRead(),
    {
      setup: (fx, v) => publishPackage(fx, v),
    },
  ),
  project(
    'DELETE /projects/:id/packages/:package_id',
    () => '/packages/1',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 40 ? [204] : F),
    { setup: (fx, v) => publishPackage(fx, v) },
  ),
  project(
    'DELETE /projects/:id/packages/:package_id/package_files/:package_file_id',
    () => '/packages/1/package_files/1',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 40 ? [204] : F),
    { setup: (fx, v) => publishPackage(fx, v) },
  ),
  // npm (`NpmEndpoints`): `authenticate_non_get!` first, then the project, then the ability.
  project(
    'PUT /projects/:id/packages/npm/:package_name',
    (v) => `/packages/npm/@g-${v}%2flib`,
    pLevel(30, 200),
    {
      body: (v) => npmDoc(v),
    },
  ),
  project('GET /projects/:id/packages/npm/:package_name', (v) => `/packages/npm/@g-${v}%2flib`, mrRead(), {
    setup: (fx, v) => publishNpm(fx, v),
  }),
  project(
    'GET /projects/:id/packages/npm/:tarball{.+/-/.+}',
    (v) => `/packages/npm/@g-${v}/lib/-/@g-${v}/lib-1.0.0.tgz`,
    mrRead(),
    { setup: (fx, v) => publishNpm(fx, v) },
  ),
  project(
    'GET /projects/:id/packages/npm/-/package/:package_name/dist-tags',
    (v) => `/packages/npm/-/package/@g-${v}%2flib/dist-tags`,
    mrRead(),
    { setup: (fx, v) => publishNpm(fx, v) },
  ),
  project(
    'PUT /projects/:id/packages/npm/-/package/:package_name/dist-tags/:tag',
    (v) => `/packages/npm/-/package/@g-${v}%2flib/dist-tags/stable`,
    pLevel(30, 204),
    { setup: (fx, v) => publishNpm(fx, v), body: json('1.0.0') },
  ),
  project(
    'DELETE /projects/:id/packages/npm/-/package/:package_name/dist-tags/:tag',
    (v) => `/packages/npm/-/package/@g-${v}%2flib/dist-tags/latest`,
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 40 ? [204] : F),
    { setup: (fx, v) => publishNpm(fx, v) },
  ),
  // PyPI (`pypi_packages.rb`): the project first, then the params, then who may read it and the ability;
  // files are served by digest and name to whoever asks.
  project(
    'POST /projects/:id/packages/pypi',
    () => '/packages/pypi',
    (c) => (!c.visible ? pypiHidden(c) : c.level >= 30 ? [201] : F),
    { body: () => pypiForm() },
  ),
  project(
    'GET /projects/:id/packages/pypi/simple/:package_name{.+}',
    () => '/packages/pypi/simple/demo',
    (c) => (!c.visible ? pypiHidden(c) : readsMr(c) ? [200] : F),
    { setup: (fx, v) => publishPypi(fx, v) },
  ),
  project(
    'GET /projects/:id/packages/pypi/files/:sha256/:file_identifier{.+}',
    () =>
      `/packages/pypi/files/${createHash('sha256').update('wheel').digest('hex')}/demo-1.0.0-py3-none-any.whl`,
    anyone(200),
    { setup: (fx, v) => publishPypi(fx, v) },
  ),
  // Group PyPI (`pypi_packages.rb`, integer ids): the group whoever asks, then `find_authorized_group!`
  // (401 to anonymous, else 404) and GroupPolicy's `read_package` (reporters); downloads through the
  // finder alone (`packages_visible_to_user`: the projects the viewer reports on or sees by visibility).
  ep(
    'GET /groups/:id/-/packages/pypi/simple/:package_name{.+}',
    'group',
    (v, ids) => `${API}/groups/${ids.group[v]}/-/packages/pypi/simple/demo`,
    (c) => (!c.visible ? (c.anonymous ? U : [404, { message: '404 Not Found' }]) : c.level >= 20 ? [200] : F),
    { setup: (fx, v) => publishPypi(fx, v) },
  ),
  ep(
    'GET /groups/:id/-/packages/pypi/files/:sha256/:file_identifier{.+}',
    'group',
    (v, ids) =>
      `${API}/groups/${ids.group[v]}/-/packages/pypi/files/${createHash('sha256').update('wheel').digest('hex')}/demo-1.0.0-py3-none-any.whl`,
    (c) =>
      c.visible &&
      (c.level >= 20 || c.vis === 'public' || (c.vis === 'internal' && !c.anonymous && !c.external))
        ? [200]
        : RNF,
    { setup: (fx, v) => publishPypi(fx, v) },
  ),
  // Maven (`maven_packages.rb`): `authenticate_non_get!`, the project, `create_package`/`read_package`;
  // the group's finds the package among the projects the viewer sees, then checks its project; the
  // instance's takes the project whose path is the package's name, and refuses with 403 alone.
  project(
    'PUT /projects/:id/packages/maven/:maven_path{.+}',
    (v) => `/packages/maven/g-${v}/p/1.0/p-1.0.jar`,
    pLevel(30, 200),
    { body: () => 'jar' },
  ),
  project(
    'GET /projects/:id/packages/maven/:maven_path{.+}',
    (v) => `/packages/maven/g-${v}/p/1.0/p-1.0.jar`,
    mrRead(200),
    { setup: (fx, v) => publishMaven(fx, v) },
  ),
  group(
    'GET /groups/:id/-/packages/maven/:maven_path{.+}',
    (v) => `/-/packages/maven/g-${v}/p/1.0/p-1.0.jar`,
    (c) => (!c.visible ? GNF : readsMr(c) ? [200] : F),
    { setup: (fx, v) => publishMaven(fx, v) },
  ),
  ep(
    'GET /packages/maven/:maven_path{.+}',
    'project',
    (v) => `${API}/packages/maven/g-${v}/p/1.0/p-1.0.jar`,
    (c) => (c.visible && readsMr(c) ? [200] : F),
    { setup: (fx, v) => publishMaven(fx, v) },
  ),
  // Go proxy (`go_proxy.rb`): the project (401 to anonymous), `read_package`, then the flag and module.
  ...(['list', 'v1.0.0.info', 'v1.0.0.mod', 'v1.0.0.zip'] as const).map((file) =>
    project(
      file === 'list'
        ? 'GET /projects/:id/packages/go/:module_name{.+}/@v/list'
        : `GET /projects/:id/packages/go/:module_name{.+}/@v/:module_version{[^/]+\\.${file.slice(7)}}`,
      (v) => `/packages/go/localhost/g-${v}/p/@v/${file}`,
      goRead,
      { setup: (fx, v) => goModule(fx, v), readOnly: true },
    ),
  ),
  // RubyGems (`rubygem_packages.rb`): `authenticate!`, the project, the flag; the index files are stubs.
  project(
    'GET /projects/:id/packages/rubygems/:file_name{[^/]+}',
    () => '/packages/rubygems/specs.4.8.gz',
    (c) => (c.anonymous ? U : !c.visible ? PNF : [404, { message: '404 Not Found' }]),
    { setup: (fx, v) => pushGem(fx, v) },
  ),
  project(
    'GET /projects/:id/packages/rubygems/quick/Marshal.4.8/:file_name{[^/]+}',
    () => '/packages/rubygems/quick/Marshal.4.8/g-1.0.0.gemspec.rz',
    (c) => (c.anonymous ? U : !c.visible ? PNF : [404, { message: '404 Not Found' }]),
    { setup: (fx, v) => pushGem(fx, v) },
  ),
  project(
    'GET /projects/:id/packages/rubygems/gems/:file_name{[^/]+}',
    () => '/packages/rubygems/gems/g-1.0.0.gem',
    gemRead([200]),
    { setup: (fx, v) => pushGem(fx, v) },
  ),
  project(
    'POST /projects/:id/packages/rubygems/api/v1/gems',
    () => '/packages/rubygems/api/v1/gems',
    (c) => (c.anonymous ? U : !c.visible ? PNF : c.level >= 30 ? [201] : F),
    {
      setup: (fx) => send(fx, 'POST', `${API}/features/rubygem_packages`, 'root-api', { value: 'true' }),
      body: () => new Uint8Array(gem('h', '1.0.0')),
    },
  ),
  project(
    'GET /projects/:id/packages/rubygems/api/v1/dependencies',
    () => '/packages/rubygems/api/v1/dependencies?gems=g',
    gemRead([200]),
    { setup: (fx, v) => pushGem(fx, v) },
  ),
  group(
    'GET /groups/:id/packages',
    () => '/packages',
    (c) => (!c.visible ? GNF : c.vis === 'public' || c.level >= 20 ? [200] : F),
  ),
  // ---- merge request approvals (paid tiers): developers who open merge requests read the settings,
  // maintainers change them
  project('GET /projects/:id/approvals', () => '/approvals', pLevel(30, 200), { readOnly: true }),
  project('POST /projects/:id/approvals', () => '/approvals', pLevel(40, 201), {
    body: json({ approvals_before_merge: 1 }),
  }),
  project('GET /projects/:id/approval_rules', () => '/approval_rules', pLevel(30, 200), { readOnly: true }),
  project('POST /projects/:id/approval_rules', () => '/approval_rules', pLevel(40, 201), {
    body: json({ name: 'Security', approvals_required: 1 }),
  }),
  project(
    'GET /projects/:id/approval_rules/:approval_rule_id',
    () => `/approval_rules/${ruleId}`,
    pLevel(30, 200),
    { readOnly: true, setup: newApprovalRule },
  ),
  project(
    'PUT /projects/:id/approval_rules/:approval_rule_id',
    () => `/approval_rules/${ruleId}`,
    pLevel(40, 200),
    {
      body: json({ approvals_required: 2 }),
      setup: newApprovalRule,
    },
  ),
  project(
    'DELETE /projects/:id/approval_rules/:approval_rule_id',
    () => `/approval_rules/${ruleId}`,
    pLevel(40, 204),
    {
      setup: newApprovalRule,
    },
  ), // Without rules any developer may approve a merge request, except its author (the owner here).
  // CE's `authenticate_non_get!`: anonymous reads of a public project; `404 Merge Request Not Found`
  // where merge requests are hidden (CE's check before `find_merge_request_with_access`).
  project(
    'GET /projects/:id/merge_requests/:merge_request_iid/approvals',
    () => '/merge_requests/1/approvals',
    mrHidden,
    { readOnly: true },
  ),
  // EE's prepend: `find_merge_request_with_access` (`authorize! :read_merge_request`, 403).
  project(
    'GET /projects/:id/merge_requests/:merge_request_iid/approval_state',
    () => '/merge_requests/1/approval_state',
    (c) => (!c.visible ? PNF : readsMr(c) ? [200] : F),
    { readOnly: true },
  ),
  // `authorize! :approve_merge_request` (`update_merge_request`: developers and the author, 403), then
  // the service refuses the author (401: the project does not let authors approve).
  project(
    'POST /projects/:id/merge_requests/:merge_request_iid/approve',
    () => '/merge_requests/1/approve',
    mrMay((c) => (c.role === 'owner' ? U : [201])),
  ),
  project(
    'POST /projects/:id/merge_requests/:merge_request_iid/unapprove',
    () => '/merge_requests/1/unapprove',
    mrMay((c) => (c.role === 'owner' ? [404, { message: '404 Not Found' }] : [201])),
    { setup: (fx, v, _ids, token) => send(fx, 'POST', `${P(v)}/merge_requests/1/approve`, token) },
  ),
  project(
    'POST /projects/:id/merge_requests/:merge_request_iid/approvals',
    () => '/merge_requests/1/approvals',
    mrMay(() => [201]),
    { body: json({ approvals_required: 1 }) },
  ),
  // ---- external approval rules (ultimate, behind ff_compliance_approval_gates): the matrix's premium
  // instance mounts them, and `check_feature_enabled!` answers 401 once the project is found.
  project(
    'GET /projects/:id/external_approval_rules',
    () => '/external_approval_rules',
    (c) => (!c.anonymous && !c.visible ? PNF : U),
  ),
  project(
    'POST /projects/:id/external_approval_rules',
    () => '/external_approval_rules',
    (c) => (!c.anonymous && !c.visible ? PNF : U),
    { body: json({ name: 'Gate', external_url: 'https://gate.example' }) },
  ),
  project(
    'PUT /projects/:id/external_approval_rules/:rule_id',
    () => '/external_approval_rules/1',
    (c) => (!c.anonymous && !c.visible ? PNF : U),
    { body: json({ name: 'Gate' }) },
  ),
  project(
    'DELETE /projects/:id/external_approval_rules/:rule_id',
    () => '/external_approval_rules/1',
    (c) => (!c.anonymous && !c.visible ? PNF : U),
  ),
  // ---- Terraform state: `authenticate!`, then `read_terraform_state` (developers) in `before`;
  // writes, locks and version deletes `admin_terraform_state` (maintainers). The set-ups post state
  // `prod` (serial 1) as root, or lock it with the lock the unlock sends.
  project('GET /projects/:id/terraform/state/:name', () => '/terraform/state/prod', pLevel(30, 200), {
    setup: postState,
  }),
  project('POST /projects/:id/terraform/state/:name', () => '/terraform/state/prod', pLevel(40, 200), {
    body: json({ version: 4, serial: 1, lineage: 'l', resources: [] }),
  }),
  project('DELETE /projects/:id/terraform/state/:name', () => '/terraform/state/prod', pLevel(40, 200), {
    setup: postState,
  }),
  project(
    'POST /projects/:id/terraform/state/:name/lock',
    () => '/terraform/state/prod/lock',
    pLevel(40, 200),
    {
      body: json(LOCK_INFO),
    },
  ),
  project(
    'DELETE /projects/:id/terraform/state/:name/lock',
    () => '/terraform/state/prod/lock',
    pLevel(40, 200),
    {
      body: json(LOCK_INFO),
      setup: (fx, v) => send(fx, 'POST', `${P(v)}/terraform/state/prod/lock`, 'root-api', LOCK_INFO),
    },
  ),
  project(
    'GET /projects/:id/terraform/state/:name/versions/:serial',
    () => '/terraform/state/prod/versions/1',
    pLevel(30, 200),
    { setup: postState },
  ),
  // The module registry's upload: `authorized_project_find!` (401 for no one, 404 for someone), then
  // `create_package` (developers).
  project(
    'PUT /projects/:id/packages/terraform/modules/:module_name/:module_system/:module_version/file',
    () => '/packages/terraform/modules/vpc/aws/1.0.0/file',
    (c) =>
      c.anonymous
        ? c.vis === 'public'
          ? F
          : U
        : !c.visible
          ? [404, { message: '404 Not Found' }]
          : c.level >= 30
            ? [201]
            : F,
    { body: json({ any: 'bytes' }) },
  ),
  project(
    'DELETE /projects/:id/terraform/state/:name/versions/:serial',
    () => '/terraform/state/prod/versions/1',
    pLevel(40, 204),
    { setup: postState },
  ),
  ...SECURITY_ENDPOINTS,
];

function own(ids: Ids, role: Role, what: 'email' | 'key' | 'gpgKey' | 'todo'): number {
  const user = ROLES[role].user;
  return (user && ids.own[user]?.[what]) || 999;
}

/**
 * Routes the matrix leaves out, each with the reason. A route missing from both the matrix and this
 * list fails the coverage test below.
 */
export const EXCLUDED: Record<string, string> = {
  'PUT /projects/:id/merge_requests/:merge_request_iid/reset_approvals':
    'a route of a later GitLab release (15.4), absent from the 13.12 instance this matrix runs on; bots only, tested at its release in approvals/reset_approvals.test.ts',
  'POST /projects/remote-import-s3':
    'a route of a later GitLab release (14.9), absent from the 13.12 instance this matrix runs on; tested at its releases in import_export/remote_import.test.ts',
  'POST /projects/remote-import':
    'behind import_project_from_remote_file, off at 13.12 (404 for every viewer); it never makes a project (no remote file is reachable): import_export/remote_import.test.ts',
  // The registry's notification endpoint reads no user token: only `registry.notification_secret` in
  // Authorization opens it (every matrix cell is the same 401): covered in container_registry/events.test.ts.
  'POST /container_registry_event/events':
    "the registry's notification secret only; see container_registry/events.test.ts",
  // `authenticate_with`: the module registry's reads take Bearer tokens and a JWT only, never the
  // matrix's PRIVATE-TOKEN: covered in test/resources/terraform/modules.test.ts.
  'GET /packages/terraform/modules/v1/:module_namespace/:module_name/:module_system/versions':
    'Bearer tokens only; see terraform/modules.test.ts',
  'GET /packages/terraform/modules/v1/:module_namespace/:module_name/:module_system/:module_version/download':
    'Bearer tokens only; see terraform/modules.test.ts',
  'GET /packages/terraform/modules/v1/:module_namespace/:module_name/:module_system/:module_version/file':
    'the download’s JWT only; see terraform/modules.test.ts',
  // The instance-level npm registry finds its project through the package's scope, then checks as the
  // project routes do: covered in test/resources/packages/npm.test.ts and npm-cli.test.ts.
  'GET /packages/npm/:package_name': 'the project comes from the scope; see npm.test.ts',
  'GET /packages/npm/-/package/:package_name/dist-tags': 'the project comes from the scope; see npm.test.ts',
  'PUT /packages/npm/-/package/:package_name/dist-tags/:tag':
    'the project comes from the scope; see npm.test.ts',
  'DELETE /packages/npm/-/package/:package_name/dist-tags/:tag':
    'the project comes from the scope; see npm.test.ts',
  'POST /users/:id/ban':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-ban.test.ts',
  'POST /users/:id/unban':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-ban.test.ts',
  'GET /topics':
    'a route of a later GitLab release (14.5), absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in topics/topics.test.ts',
  'GET /topics/:id':
    'a route of a later GitLab release (14.5), absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in topics/topics.test.ts',
  'POST /topics':
    'a route of a later GitLab release (14.5), absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in topics/topics.test.ts',
  'PUT /topics/:id':
    'a route of a later GitLab release (14.5), absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in topics/topics.test.ts',
  'DELETE /topics/:id':
    'a route of a later GitLab release (14.9), absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in topics/topics.test.ts',
  'POST /topics/merge':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in topics/versions-title.test.ts',
  'GET /users/:id/keys/:key_id':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-keys.test.ts',
  'GET /personal_access_tokens/self':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-pat.test.ts',
  'GET /personal_access_tokens/:id':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-pat.test.ts',
  'DELETE /personal_access_tokens/self':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-pat.test.ts',
  'GET /groups/:id/avatar':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-moves.test.ts',
  'POST /groups/:id/transfer':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-moves.test.ts',
  'GET /groups/:id/transfer_locations':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-moves.test.ts',
  'GET /projects/:id/deploy_tokens/:token_id':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-single.test.ts',
  'GET /groups/:id/deploy_tokens/:token_id':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in versions-single.test.ts',
  'GET /projects/:id/job_token_scope':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in job_token_scope/versions-job-token-scope.test.ts',
  'PATCH /projects/:id/job_token_scope':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in job_token_scope/versions-job-token-scope.test.ts',
  'GET /projects/:id/job_token_scope/allowlist':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in job_token_scope/versions-job-token-scope.test.ts',
  'POST /projects/:id/job_token_scope/allowlist':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in job_token_scope/versions-job-token-scope.test.ts',
  'DELETE /projects/:id/job_token_scope/allowlist/:target_project_id':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in job_token_scope/versions-job-token-scope.test.ts',
  'GET /projects/:id/job_token_scope/groups_allowlist':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in job_token_scope/versions-job-token-scope.test.ts',
  'POST /projects/:id/job_token_scope/groups_allowlist':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in job_token_scope/versions-job-token-scope.test.ts',
  'DELETE /projects/:id/job_token_scope/groups_allowlist/:target_group_id':
    'a route of a later GitLab release, absent from the 13.12 instance this matrix runs on; its permissions are tested at its release in job_token_scope/versions-job-token-scope.test.ts',
  // Who may cancel depends on the merge request's author as well as the role (`can_cancel_auto_merge?`):
  // covered in test/resources/issuables/mr-pipelines.test.ts.
  'POST /projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds':
    'the author may cancel whatever their role; see mr-pipelines.test.ts',
};

/**
 * Cells where fauxlab answers otherwise than the platform, until fixed: they run as `test.fails`, so the
 * suite stays green and a fix shows up as a failure here (then remove the entry). Each names the file.
 */
export const KNOWN: { route: string; cells: (c: Cell) => boolean; why: string }[] = [];

/** The cell of a role and visibility for an endpoint. */
export function cellFor(e: Endpoint, role: Role, vis: Visibility): Cell {
  const r = ROLES[role];
  return {
    role,
    vis,
    level: r.level,
    anonymous: !r.token,
    external: r.external === true,
    visible: e.scope === 'snippet' ? snippetVisibleTo(role, vis) : visibleTo(role, vis),
  };
}

/** What the platform answers the cell: a blocked user is refused everywhere first. */
export const expected = (e: Endpoint, c: Cell): Expect =>
  c.role === 'blocked' ? [403, BLOCKED] : e.expect(c);
