/**
 * Webhook management: project hooks (`lib/api/project_hooks.rb`, maintainers), group hooks
 * (`ee/lib/api/group_hooks.rb`, group owners, paid tiers) and system hooks (`lib/api/system_hooks.rb`,
 * admins). Every route checks the user and their rights first (the APIs' `before` filters), then its
 * params. 13.12 has no API route to test a project hook (only the web UI's); the system hooks API tests
 * a hook with `GET /hooks/:id`.
 */
import { requireAdmin, requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import {
  ApiError,
  apiError,
  forbidden,
  notFound,
  recordNotFound,
  unprocessable,
  validationError,
} from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, type Shape } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { rubyInspect } from '../groups/model.js';
import { canAdminGroup, findGroupRecord } from '../groups/access.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import { emitEvent, followRunningPipelines } from '../integrations/events.js';
import { explainBlocked, WEB_HOOKS } from '../settings/outbound.js';
import {
  createHook,
  deleteHook,
  GROUP_FLAGS,
  hookErrors,
  hooksOf,
  PROJECT_FLAGS,
  SYSTEM_FLAGS,
  updateHook,
  type HookInput,
} from './model.js';
import type { HookFlag, HookKind, HookRecord } from './store.js';

/** `Entities::Hook`. */
function hookEntity(h: HookRecord): Record<string, unknown> {
  return {
    id: h.id,
    url: h.url,
    created_at: h.created_at,
    push_events: h.push_events,
    tag_push_events: h.tag_push_events,
    merge_requests_events: h.merge_requests_events,
    repository_update_events: h.repository_update_events,
    enable_ssl_verification: h.enable_ssl_verification,
  };
}

/**
 * The entity of a project's or group's hook: `Entities::Hook`, the owner's id, then the flags in the
 * order each entity exposes them.
 */
function ownedHookEntity(
  owner: 'project_id' | 'group_id',
  flags: readonly HookFlag[],
  branchFilter: boolean,
) {
  return (h: HookRecord) => ({
    ...hookEntity(h),
    [owner]: h[owner],
    ...Object.fromEntries(flags.map((f) => [f, h[f]])),
    ...(branchFilter && { push_events_branch_filter: h.push_events_branch_filter }),
  });
}

const OWNED_FLAGS: readonly HookFlag[] = [
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'confidential_note_events',
  'pipeline_events',
  'wiki_page_events',
];

/** `Entities::ProjectHook`. */
const projectHookEntity = ownedHookEntity(
  'project_id',
  [...OWNED_FLAGS, 'deployment_events', 'job_events', 'releases_events'],
  true,
);

/** `EE::API::Entities::GroupHook`. */
const groupHookEntity = ownedHookEntity(
  'group_id',
  [...OWNED_FLAGS, 'job_events', 'deployment_events', 'releases_events', 'subgroup_events'],
  false,
);

/** The declared params of a kind's POST and PUT: `url` required, its flags, then the rest. */
function propertiesShape(flags: readonly HookFlag[], branchFilter: boolean): Shape {
  const shape: Shape = { url: p.str().required() };
  for (const f of flags) shape[f] = p.bool();
  shape.enable_ssl_verification = p.bool();
  shape.token = p.str();
  if (branchFilter) shape.push_events_branch_filter = p.str();
  return shape;
}

const PROJECT_SHAPE = propertiesShape(PROJECT_FLAGS, true);
const GROUP_SHAPE = propertiesShape(GROUP_FLAGS, false);
const SYSTEM_SHAPE: Shape = {
  url: p.str().required(),
  token: p.str(),
  ...Object.fromEntries(SYSTEM_FLAGS.map((f) => [f, p.bool()])),
  enable_ssl_verification: p.bool(),
};
const HOOK_ID = { hook_id: p.int().required() };

/** `declared_params(include_missing: false)`. */
const given = (prm: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(prm).filter(([k, v]) => v !== undefined && k !== 'hook_id'),
  ) as HookInput & {
    url: string;
  };

/** The hooks API's `422 Invalid url given`, explaining (`X-Fauxlab-Explain`) what the model said. */
const invalidUrl = (problems: string[]) =>
  new ApiError(422, { message: 'Invalid url given' }, {}, explainBlocked(problems[0] ?? '', WEB_HOOKS));

interface Owner {
  kind: HookKind;
  key: string;
  owner: { project_id?: number; group_id?: number };
  entity: (h: HookRecord) => Record<string, unknown>;
  shape: Shape;
  /** How a failed save answers. */
  invalid: (errors: Record<string, string[]>) => Error;
}

function projectOwner(c: Ctx): Owner {
  requireUser(c);
  const project = loadProject(c);
  if (!canAdminProject(c, project)) throw forbidden();
  return {
    kind: 'project',
    key: `p${project.id}`,
    owner: { project_id: project.id },
    entity: projectHookEntity,
    shape: PROJECT_SHAPE,
    invalid: (errors) => {
      if (errors.url) return invalidUrl(errors.url);
      if (errors.push_events_branch_filter) return unprocessable('Invalid branch filter given');
      return notFound(`Project hook ${rubyInspect(errors)}`);
    },
  };
}

function groupOwner(c: Ctx): Owner {
  const user = requireUser(c);
  const group = findGroupRecord(c, c.req.param('id') ?? '');
  if (!canAdminGroup(state(c), user, group)) throw forbidden();
  return {
    kind: 'group',
    key: `g${group.id}`,
    owner: { group_id: group.id },
    entity: groupHookEntity,
    shape: GROUP_SHAPE,
    invalid: (errors) =>
      errors.url ? invalidUrl(errors.url) : apiError(422, `Group hook ${rubyInspect(errors)}`),
  };
}

/** `hooks.find(params[:hook_id])`: another owner's hook is not found. */
function findHook(st: PlatformState, o: Owner, id: number): HookRecord {
  const h = tget(st.hooks.records, id);
  if (!h || h.kind !== o.kind || (h.project_id ?? h.group_id) !== (o.owner.project_id ?? o.owner.group_id))
    throw recordNotFound('no hook with this id here');
  return h;
}

function ownedRoutes(r: ApiRouter, base: string, ownerOf: (c: Ctx) => Owner, tier?: 'premium'): void {
  const opts = tier ? { auth: 'required' as const, tier } : { auth: 'required' as const };
  r.get(base, opts, (c) => {
    const o = ownerOf(c);
    parse(c, paginationParams);
    return paginate(c, hooksOf(state(c), o.key), o.entity);
  });
  r.get(`${base}/:hook_id`, opts, (c) => {
    const o = ownerOf(c);
    const prm = parse(c, HOOK_ID);
    return c.json(o.entity(findHook(state(c), o, prm.hook_id)));
  });
  r.post(base, tier ? { tier } : {}, async (c) => {
    const o = ownerOf(c);
    const input = given(parse(c, o.shape));
    const errors = await hookErrors(c.get('fx'), o.kind, input);
    if (Object.keys(errors).length) throw o.invalid(errors);
    // The name was resolved meanwhile: the owner may have gone.
    ownerOf(c);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => createHook(d, o.kind, o.owner, input, now));
    if (o.owner.project_id !== undefined) followRunningPipelines(c, o.owner.project_id);
    return c.json(o.entity(tget(state(c).hooks.records, id)!), 201);
  });
  r.put(`${base}/:hook_id`, tier ? { tier } : {}, async (c) => {
    const o = ownerOf(c);
    const prm = parse(c, { ...HOOK_ID, ...o.shape });
    const hook = findHook(state(c), o, prm.hook_id as number);
    const input = given(prm);
    const errors = await hookErrors(c.get('fx'), o.kind, { ...hook, ...input });
    if (Object.keys(errors).length) throw o.invalid(errors);
    // The name was resolved meanwhile: the hook may have gone.
    findHook(state(c), o, hook.id);
    const now = c.get('fx').clock.iso();
    write(c, (d) => updateHook(d, hook.id, input, now));
    if (o.owner.project_id !== undefined) followRunningPipelines(c, o.owner.project_id);
    return c.json(o.entity(tget(state(c).hooks.records, hook.id)!));
  });
  r.delete(`${base}/:hook_id`, tier ? { tier } : {}, (c) => {
    const o = ownerOf(c);
    const prm = parse(c, HOOK_ID);
    const hook = findHook(state(c), o, prm.hook_id);
    checkUnmodifiedSince(c, hook.updated_at);
    write(c, (d) => deleteHook(d, hook.id));
    return c.body(null, 204);
  });
}

/** What `GET /hooks/:id` sends to the hook and answers with: the platform's fixed sample. */
const SYSTEM_TEST_DATA = {
  event_name: 'project_create',
  name: 'Ruby',
  path: 'ruby',
  project_id: 1,
  owner_name: 'Someone',
  owner_email: 'example@gitlabhq.com',
};

function systemRoutes(r: ApiRouter): void {
  const ID = { id: p.int().required() };
  r.get('/hooks', { auth: 'required' }, (c) => {
    requireAdmin(c);
    parse(c, paginationParams);
    return paginate(c, hooksOf(state(c), 'system'), hookEntity);
  });
  r.post('/hooks', {}, async (c) => {
    requireAdmin(c);
    const input = given(parse(c, SYSTEM_SHAPE));
    const errors = await hookErrors(c.get('fx'), 'system', input);
    if (Object.keys(errors).length) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => createHook(d, 'system', {}, input, now));
    return c.json(hookEntity(tget(state(c).hooks.records, id)!), 201);
  });
  r.get('/hooks/:id', { auth: 'required' }, (c) => {
    requireAdmin(c);
    const prm = parse(c, ID);
    const hook = tget(state(c).hooks.records, prm.id);
    if (!hook || hook.kind !== 'system') throw recordNotFound('no system hook with this id');
    // The platform sends it synchronously; here it is queued like every delivery, to this hook only.
    emitEvent(c, { kind: 'system', name: 'project_create', data: SYSTEM_TEST_DATA, only: hook.id });
    return c.json(SYSTEM_TEST_DATA);
  });
  r.delete('/hooks/:id', {}, (c) => {
    requireAdmin(c);
    const prm = parse(c, ID);
    const hook = tget(state(c).hooks.records, prm.id);
    if (!hook || hook.kind !== 'system') throw notFound('System hook');
    checkUnmodifiedSince(c, hook.updated_at);
    write(c, (d) => deleteHook(d, hook.id));
    return c.body(null, 204);
  });
}

export function hooksRoutes(r: ApiRouter): void {
  ownedRoutes(r, '/projects/:id/hooks', projectOwner);
  ownedRoutes(r, '/groups/:id/hooks', groupOwner, 'premium');
  systemRoutes(r);
}
