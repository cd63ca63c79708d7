/**
 * The runners API (13.12 `lib/api/ci/runners.rb`) and the runner process's registration and unregistration
 * (`lib/api/ci/runner.rb`: `POST /runners`, `DELETE /runners`; `POST /runners/verify` and the job routes
 * are the runner process's own and left out). Check order, as the platform's: the class's `before` blocks
 * (`authenticate!`, then `authorize_admin_project` / `authorize_admin_group` after finding the project or
 * group) run before Grape validates the params; the runner (`Ci::Runner.find`: the record's 404), then the
 * endpoint's own `authenticate_*_runner!` rule.
 */
import { findProject } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, notFound, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { atLeastOneOf, p, type Shape } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { canAdminGroup, findGroupRecord } from '../groups/access.js';
import { canAdminProject } from '../projects/helpers.js';
import { runnerDetails, runnerEntity } from './entities.js';
import {
  assignRunner,
  AVAILABLE_STATUSES,
  AVAILABLE_TYPES_LEGACY,
  cleanTags,
  createRunner,
  deleteRunner,
  groupByRunnersToken,
  groupRunners,
  hasTags,
  inScope,
  ownedRunners,
  ownsRunner,
  projectByRunnersToken,
  projectRunners,
  runnerByToken,
  runnerErrors,
  secureCompare,
  unassignRunner,
  type NewRunner,
} from './model.js';
import { ACCESS_LEVELS, RUNNER_TYPES, type RunnerRecord } from './store.js';

/** `Ci::Runner::AVAILABLE_SCOPES`: the legacy types, the types and the statuses. */
const AVAILABLE_SCOPES = [...AVAILABLE_TYPES_LEGACY, ...RUNNER_TYPES, ...AVAILABLE_STATUSES];

const tagList = () => p.strArray({ commaSeparated: true });

/** The list routes' filters; `scope` takes the values each route declares. */
const filterShape = (scopes: readonly string[] | null): Shape => ({
  ...(scopes && { scope: p.str().values(scopes) }),
  type: p.str().values(RUNNER_TYPES),
  status: p.str().values(AVAILABLE_STATUSES),
  tag_list: tagList(),
  ...paginationParams,
});

interface Filters {
  scope?: string;
  type?: string;
  status?: string;
  tag_list?: string[];
}

/** `filter_runners` for the scope, then `apply_filter` (type, status, tags), at one clock reading. */
function applyFilters(list: readonly RunnerRecord[], f: Filters, now: number): RunnerRecord[] {
  return list.filter(
    (r) =>
      (!f.scope || inScope(r, f.scope, now)) &&
      (!f.type || inScope(r, f.type, now)) &&
      (!f.status || inScope(r, f.status, now)) &&
      (f.tag_list === undefined || hasTags(r, f.tag_list)),
  );
}

function listRunners(c: Ctx, list: readonly RunnerRecord[], f: Filters): Response {
  const now = c.get('fx').clock.ms();
  return paginate(c, applyFilters(list, f, now), (r) => runnerEntity(r, now));
}

/** `get_runner`: `Ci::Runner.find(id)`, whose miss is ActiveRecord's 404. */
function getRunner(st: PlatformState, id: number): RunnerRecord {
  const r = tget(st.runners.records, id);
  if (!r) throw recordNotFound('no runner with this id');
  return r;
}

const NO_ACCESS = 'No access granted';

/** `RunnerPolicy`: admins and the runner's owners (`ci_owned_runners`) may read, update, delete, assign it. */
const owns = (st: PlatformState, user: UserRecord, r: RunnerRecord) => user.admin || ownsRunner(st, user, r);

/** `authenticate_show_runner!`: an instance runner is any signed-in user's to read. */
export function authorizeShowRunner(st: PlatformState, user: UserRecord, r: RunnerRecord): void {
  if (r.runner_type === 'instance_type' || user.admin) return;
  if (!ownsRunner(st, user, r)) throw forbidden(NO_ACCESS);
}

/** `authenticate_list_runners_jobs!`: `read_runner`. */
export function authorizeRunnerJobs(st: PlatformState, user: UserRecord, r: RunnerRecord): void {
  if (!owns(st, user, r)) throw forbidden(NO_ACCESS);
}

/** `authorize_admin_project` on `user_project`, a `before` block: before the params are validated. */
function adminProject(c: Ctx): ProjectRecord {
  requireUser(c);
  const proj = findProject(c, c.req.param('id') ?? '');
  if (!canAdminProject(c, proj)) throw forbidden();
  return proj;
}

/** `get_runner_details_from_request`: the process's `info`, and the address it called from. */
function runnerDetailsFromRequest(c: Ctx, info: Record<string, unknown> | undefined): Partial<NewRunner> {
  const out: Partial<NewRunner> = {};
  if (info)
    for (const k of ['name', 'version', 'revision', 'platform', 'architecture'] as const) {
      const v = info[k];
      if (typeof v === 'string') out[k] = v;
    }
  out.ip_address = (c.req.header('x-forwarded-for') ?? '127.0.0.1').split(',')[0]!.trim();
  return out;
}

const registerShape = {
  token: p.str().required(),
  description: p.str(),
  info: p.hash(),
  active: p.bool(),
  locked: p.bool(),
  access_level: p.str().values(ACCESS_LEVELS),
  run_untagged: p.bool(),
  tag_list: tagList(),
  maximum_timeout: p.int(),
};

const updateShape = {
  id: p.int().required(),
  description: p.str(),
  active: p.bool(),
  tag_list: tagList(),
  run_untagged: p.bool(),
  locked: p.bool(),
  access_level: p.str().values(ACCESS_LEVELS),
  maximum_timeout: p.int(),
};
const UPDATABLE = [
  'description',
  'active',
  'tag_list',
  'run_untagged',
  'locked',
  'access_level',
  'maximum_timeout',
];

const idShape = { id: p.int().required() };
const runnerIdShape = { runner_id: p.int().required() };

export function runnersRoutes(r: ApiRouter): void {
  // ---- the runner process: registration and unregistration by token ----------------------------------

  r.post('/runners', { auth: 'optional', params: registerShape }, (c, prm) => {
    const st = state(c);
    // `Ci::RegisterRunnerService#check_token_and_extract_attrs`: the instance's token, then a project's
    // runners token, then a group's.
    const instance = secureCompare(prm.token, st.runners.registration_token);
    const project = instance ? undefined : projectByRunnersToken(st, prm.token);
    const group = instance || project ? undefined : groupByRunnersToken(st, prm.token);
    let kind: Pick<NewRunner, 'runner_type' | 'project_ids' | 'group_id'>;
    if (instance) kind = { runner_type: 'instance_type' };
    else if (project) kind = { runner_type: 'project_type', project_ids: [project.id] };
    else if (group) kind = { runner_type: 'group_type', group_id: group.id };
    else throw forbidden();
    const attrs = {
      tag_list: cleanTags(prm.tag_list ?? []),
      run_untagged: prm.run_untagged ?? true,
      maximum_timeout: prm.maximum_timeout ?? null,
    };
    const errors = runnerErrors(attrs);
    if (errors) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) =>
      createRunner(d, {
        ...kind,
        ...attrs,
        ...(prm.description !== undefined && { description: prm.description }),
        ...(prm.active !== undefined && { active: prm.active }),
        ...(prm.locked !== undefined && { locked: prm.locked }),
        ...(prm.access_level !== undefined && { access_level: prm.access_level }),
        ...runnerDetailsFromRequest(c, prm.info as Record<string, unknown> | undefined),
        created_at: now,
      }),
    );
    // `Entities::RunnerRegistrationDetails`.
    const made = tget(state(c).runners.records, id)!;
    return c.json({ id: made.id, token: made.token }, 201);
  });

  r.delete('/runners', { auth: 'optional', params: { token: p.str().required() } }, (c, prm) => {
    // `authenticate_runner!`.
    const runner = runnerByToken(state(c), prm.token);
    if (!runner) throw forbidden();
    checkUnmodifiedSince(c, runner.updated_at);
    write(c, (d) => deleteRunner(d, runner.id));
    return c.body(null, 204);
  });

  // ---- the runners API ----------------------------------------------------------------------------------

  const ownedShape = filterShape(AVAILABLE_STATUSES);
  r.get('/runners', { auth: 'optional' }, (c) => {
    const user = requireUser(c);
    const f = parse(c, ownedShape) as Filters;
    return listRunners(c, ownedRunners(state(c), user), f);
  });

  const allShape = filterShape(AVAILABLE_SCOPES);
  r.get('/runners/all', { auth: 'optional' }, (c) => {
    const user = requireUser(c);
    const f = parse(c, allShape) as Filters;
    if (!user.admin) throw forbidden();
    return listRunners(c, tvalues(state(c).runners.records), f);
  });

  r.get('/runners/:id', { auth: 'optional' }, (c) => {
    const user = requireUser(c);
    const prm = parse(c, idShape);
    const st = state(c);
    const runner = getRunner(st, prm.id);
    authorizeShowRunner(st, user, runner);
    return c.json(runnerDetails(c, runner, c.get('fx').clock.ms()));
  });

  r.put('/runners/:id', { params: updateShape }, (c, prm) => {
    atLeastOneOf(c.get('params'), ...UPDATABLE);
    const st = state(c);
    const user = c.get('viewer').user!;
    const runner = getRunner(st, prm.id);
    // `authenticate_update_runner!`.
    if (!owns(st, user, runner)) throw forbidden(NO_ACCESS);
    const next = {
      description: prm.description ?? runner.description,
      active: prm.active ?? runner.active,
      tag_list: prm.tag_list !== undefined ? cleanTags(prm.tag_list) : runner.tag_list,
      run_untagged: prm.run_untagged ?? runner.run_untagged,
      locked: prm.locked ?? runner.locked,
      access_level: prm.access_level ?? runner.access_level,
      maximum_timeout: prm.maximum_timeout !== undefined ? prm.maximum_timeout : runner.maximum_timeout,
    };
    const errors = runnerErrors(next);
    if (errors) throw validationError(errors);
    const changed =
      next.description !== runner.description ||
      next.active !== runner.active ||
      next.tag_list.join('\0') !== runner.tag_list.join('\0') ||
      next.run_untagged !== runner.run_untagged ||
      next.locked !== runner.locked ||
      next.access_level !== runner.access_level ||
      next.maximum_timeout !== runner.maximum_timeout;
    // An update that changes nothing leaves `updated_at` alone, as ActiveRecord does.
    if (changed) {
      const now = c.get('fx').clock.iso();
      write(c, (d) => {
        Object.assign(tget(d.runners.records, runner.id)!, next, { updated_at: now });
      });
    }
    const after = tget(state(c).runners.records, runner.id)!;
    return c.json(runnerDetails(c, after, c.get('fx').clock.ms()));
  });

  r.delete('/runners/:id', { params: idShape }, (c, prm) => {
    const st = state(c);
    const user = c.get('viewer').user!;
    const runner = getRunner(st, prm.id);
    // `authenticate_delete_runner!`.
    if (!user.admin) {
      if (runner.project_ids.length > 1) throw forbidden('Runner associated with more than one project');
      if (!ownsRunner(st, user, runner)) throw forbidden(NO_ACCESS);
    }
    checkUnmodifiedSince(c, runner.updated_at);
    write(c, (d) => deleteRunner(d, runner.id));
    return c.body(null, 204);
  });

  // ---- a project's runners (`authorize_admin_project`) ------------------------------------------------

  const projectShape = filterShape(AVAILABLE_SCOPES);
  r.get('/projects/:id/runners', { auth: 'optional' }, (c) => {
    const proj = adminProject(c);
    const f = parse(c, projectShape) as Filters;
    return listRunners(c, projectRunners(state(c), proj), f);
  });

  r.post('/projects/:id/runners', { auth: 'optional' }, (c) => {
    const proj = adminProject(c);
    const prm = parse(c, runnerIdShape);
    const st = state(c);
    const user = c.get('viewer').user!;
    const runner = getRunner(st, prm.runner_id);
    // `authenticate_enable_runner!`.
    if (runner.runner_type === 'group_type') throw forbidden('Runner is a group runner');
    if (!user.admin) {
      if (runner.locked) throw forbidden('Runner is locked');
      if (!ownsRunner(st, user, runner)) throw forbidden(NO_ACCESS);
    }
    // `assign_to`: the `RunnerProject` uniqueness validation, reported under `assign_to`.
    if (runner.project_ids.includes(proj.id))
      throw validationError({ assign_to: ['Validation failed: Runner has already been taken'] });
    const now = c.get('fx').clock.iso();
    write(c, (d) => assignRunner(d, runner.id, proj.id, now));
    return c.json(runnerEntity(tget(state(c).runners.records, runner.id)!, c.get('fx').clock.ms()), 201);
  });

  r.delete('/projects/:id/runners/:runner_id', { auth: 'optional' }, (c) => {
    const proj = adminProject(c);
    const prm = parse(c, runnerIdShape);
    const runner = tget(state(c).runners.records, prm.runner_id);
    // `user_project.runner_projects.find_by(runner_id:)`.
    if (!runner || !runner.project_ids.includes(proj.id))
      throw notFound('Runner', 'the runner is not the project’s');
    if (runner.project_ids.length === 1)
      throw forbidden('Only one project associated with the runner. Please remove the runner instead');
    write(c, (d) => unassignRunner(d, runner.id, proj.id));
    return c.body(null, 204);
  });

  // ---- a group's runners (`authorize_admin_group`) ----------------------------------------------------

  const groupShape = filterShape(null);
  r.get('/groups/:id/runners', { auth: 'optional' }, (c) => {
    const user = requireUser(c);
    const g = findGroupRecord(c, c.req.param('id') ?? '');
    if (!canAdminGroup(state(c), user, g)) throw forbidden();
    const f = parse(c, groupShape) as Filters;
    return listRunners(c, groupRunners(state(c), g), f);
  });
}
