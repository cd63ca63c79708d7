/**
 * The group SCIM API (`/api/scim/v2/groups/:group/Users`, RFC 7644 Users, paid tiers): authenticated by
 * the group's SCIM token, answered in `application/scim+json` with the SCIM error envelope.
 */
import type { Ctx } from '../../core/context.js';
import { state, write } from '../../core/context.js';
import { lookupGroup } from '../../core/access.js';
import { ApiError, internalError, noRoute, unauthorized } from '../../core/errors.js';
import type { RawParams } from '../../core/params.js';
import { tierHas, type ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { ScimIdentityRecord } from '../oauth/store.js';
import { userIdByEmail } from '../users/model.js';
import { readWebParams, str } from '../oauth/web.js';
import {
  OperationsMissing,
  UnsupportedFilter,
  changeExternUid,
  deprovision,
  identityByUid,
  planProvisioning,
  planUserUpdate,
  postParams,
  reprovision,
  samlProviderOf,
  scimTokenMatches,
  searchIdentities,
  updateParams,
} from './model.js';
import { rubyInspect } from './inspect.js';

const SCIM_TYPE = 'application/scim+json';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A SCIM error: 404 NotFound, 409 Conflict, 412 for everything else. */
class ScimError extends Error {
  constructor(
    readonly status: 404 | 409 | 412,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'ScimError';
  }
}

const scimJson = (c: Ctx, body: unknown, status: number) =>
  c.newResponse(JSON.stringify(body), status as 200, { 'Content-Type': SCIM_TYPE });

/** `Entities::Scim::User`. */
function renderUser(st: PlatformState, i: ScimIdentityRecord) {
  const u = tget(st.users, i.user_id)!;
  const words = u.name.trim() === '' ? [] : u.name.trim().split(/\s+/);
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    id: i.extern_uid,
    active: i.active,
    emails: [{ type: 'work', value: u.email, primary: true }],
    name: {
      formatted: u.name,
      givenName: words.length ? words[0] : null,
      familyName: words.length ? words.slice(1).join(' ') : null,
    },
    meta: { resourceType: 'User' },
    userName: u.username,
  };
}

/** Ruby's `to_i`: leading digits, else 0. */
const toI = (v: string | undefined) => {
  const m = /^\s*([+-]?\d+)/.exec(v ?? '');
  return m ? Number(m[1]) : 0;
};

/** `per_page(count)`: 20 when absent or not positive, at most 100. */
const perPage = (count: string | undefined) => {
  const n = toI(count);
  return n <= 0 ? 20 : Math.min(n, 100);
};

interface Scope {
  params: RawParams;
  group: GroupRecord;
}

/** `find_and_authenticate_group!`: the group, its SAML configuration, then the group's SCIM token. */
function authenticateGroup(c: Ctx, params: RawParams): GroupRecord {
  const st = state(c);
  const path = str(params, 'group') ?? '';
  const group = lookupGroup(st, path);
  if (!group) throw new ScimError(404, `Group ${path} not found`);
  if (!samlProviderOf(st, group.id))
    throw new ScimError(404, `Group ${path} does not have SAML SSO configured`);
  const authz = c.req.header('authorization');
  const token =
    str(params, 'access_token') ||
    (authz && /^Bearer /i.test(authz) ? authz.replace(/^Bearer /i, '') : undefined) ||
    str(params, 'bearer_token');
  if (!token || !scimTokenMatches(st, group.id, token)) throw unauthorized();
  return group;
}

/** Runs a SCIM endpoint: tier check, params (route params last, as Grape merges them), errors. */
function endpoint(handler: (c: Ctx, s: Scope) => Response) {
  return async (c: Ctx): Promise<Response> => {
    if (!tierHas(c.get('fx').tier(), 'premium'))
      throw noRoute(`no such route on the ${c.get('fx').tier()} tier (SCIM needs premium)`);
    try {
      const params = await readWebParams(c);
      Object.assign(params, c.req.param() as Record<string, string>);
      const group = authenticateGroup(c, params);
      return handler(c, { params, group });
    } catch (e) {
      if (e instanceof ScimError)
        return scimJson(c, { schemas: [ERROR_SCHEMA], detail: e.detail, status: e.status }, e.status);
      // The platform iterates `Operations` unguarded: a PATCH without them crashes there.
      if (e instanceof OperationsMissing) return scimJson(c, internalError().body, 500);
      if (e instanceof ApiError && e.status !== 304) {
        for (const [k, v] of Object.entries(e.headers)) c.header(k, v);
        return scimJson(c, e.body, e.status);
      }
      throw e;
    }
  };
}

const notFoundResource = (id: string) => new ScimError(404, `Resource ${id} not found`);

function list(c: Ctx, { params, group }: Scope): Response {
  const st = state(c);
  let found: ScimIdentityRecord[];
  try {
    found = searchIdentities(st, group.id, str(params, 'filter'));
  } catch (e) {
    if (e instanceof UnsupportedFilter) throw new ScimError(412, 'Unsupported Filter');
    throw e;
  }
  const startIndex = str(params, 'startIndex');
  const count = perPage(str(params, 'count'));
  const offset = Math.max(toI(startIndex), 1) - 1;
  return scimJson(
    c,
    {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: found.length,
      itemsPerPage: count,
      // The platform echoes the parameter as it came (a string), or 1.
      startIndex: startIndex !== undefined && startIndex.trim() !== '' ? startIndex : 1,
      Resources: found.slice(offset, offset + count).map((i) => renderUser(st, i)),
    },
    200,
  );
}

function show(c: Ctx, { params, group }: Scope): Response {
  const id = str(params, 'id') ?? '';
  const identity = identityByUid(state(c), group.id, id);
  if (!identity) throw notFoundResource(id);
  return scimJson(c, renderUser(state(c), identity), 200);
}

function create(c: Ctx, { params, group }: Scope): Response {
  const outcome = planProvisioning(state(c), group.id, postParams(params));
  const saving = () => `Error saving user with ${rubyInspect(params)}`;
  if (typeof outcome !== 'function') {
    if (outcome.status === 'success')
      return scimJson(
        c,
        renderUser(state(c), tget(state(c).identity.scimIdentities, outcome.identityId)!),
        201,
      );
    if (outcome.status === 'conflict') throw new ScimError(409, `${saving()}: ${outcome.message}`);
    throw new ScimError(412, [saving(), outcome.message].filter(Boolean).join(': '));
  }
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => outcome(d, now));
  return scimJson(c, renderUser(state(c), tget(state(c).identity.scimIdentities, id)!), 201);
}

function update(c: Ctx, { params, group }: Scope): Response {
  const id = str(params, 'id') ?? '';
  const st = state(c);
  const identity = identityByUid(st, group.id, id);
  if (!identity) throw notFoundResource(id);
  const parsed = updateParams(params);
  const user = tget(st.users, identity.user_id)!;
  const failed = () => new ScimError(412, `Error updating ${user.name} with ${rubyInspect(params)}`);
  const now = c.get('fx').clock.iso();
  if (parsed.active === false) write(c, (d) => deprovision(d, identity.id));
  else if (!identity.active && parsed.active === true) write(c, (d) => reprovision(d, identity.id, now));
  else if (parsed.extern_uid !== undefined && parsed.extern_uid !== null && parsed.extern_uid !== false) {
    if (!write(c, (d) => changeExternUid(d, identity.id, String(parsed.extern_uid)))) throw failed();
  } else {
    if (typeof parsed.email === 'string') {
      const owner = userIdByEmail(st, parsed.email.trim());
      if (owner !== undefined && owner !== user.id) throw new ScimError(409, 'Email has already been taken');
    }
    const apply = planUserUpdate(st, user, parsed);
    if (!apply) throw failed();
    write(c, apply);
  }
  return c.newResponse(null, 204);
}

function remove(c: Ctx, { params, group }: Scope): Response {
  const id = str(params, 'id') ?? '';
  const identity = identityByUid(state(c), group.id, id);
  if (!identity) throw notFoundResource(id);
  write(c, (d) => deprovision(d, identity.id));
  return c.newResponse(null, 204);
}

export function scimRoutes(r: ApiRouter): void {
  const base = '/api/scim/v2/groups/:group/Users';
  // The id may hold anything, slashes included (`USER_ID_REQUIREMENTS = { id: /.+/ }`).
  const one = `${base}/:id{.+}`;
  r.web.get(base, endpoint(list));
  r.web.post(base, endpoint(create));
  r.web.get(one, endpoint(show));
  r.web.patch(one, endpoint(update));
  r.web.delete(one, endpoint(remove));
}
