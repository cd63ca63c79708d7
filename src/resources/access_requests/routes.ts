/**
 * The access requests API (`lib/api/access_requests.rb`, 8.11) of groups and projects: every route
 * `authenticate!`s first, then finds the source as its other APIs do.
 *
 * - GET: `AccessRequestsFinder#execute!` (`admin_group` / `admin_project`, else 403), by id.
 * - POST: `Members::RequestAccessService`: the `request_access` ability (403 without it), then a member
 *   row at Developer with `requested_at`; a second request fails the member model's uniqueness
 *   (`user_id` "already exists in source").
 * - PUT approve: `source.requesters.find_by!` (404), then `update_*_member` (403), then
 *   `Member#accept_request`: the row loses `requested_at` and becomes a membership (the member hooks'
 *   `*_add_to_*`, as `after_accept_request` runs `post_create_hook`). A level the member model refuses
 *   leaves the request pending, and the 201 shows the level all the same: the service presents the
 *   unsaved record.
 * - DELETE: `find_by!` (404), `If-Unmodified-Since` (412), then `destroy_*_member` (the approvers, and
 *   the requester withdrawing their own request; else 403): 204. A pending row fires no member hook.
 */
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { memberSystemEvent } from '../hooks/system.js';
import { setMember } from '../projects/model.js';
import { userRenderer } from '../users/entities.js';
import { createRequest, removeRequest, requestOf, requestsOf } from './model.js';
import { PENDING_SOURCES, type PendingSource } from './sources.js';
import type { AccessRequestRecord } from './store.js';

/** `Entities::AccessRequester`: the user's basic entity, then `requested_at`. */
function requesterRenderer(c: Ctx): (r: AccessRequestRecord) => Record<string, unknown> {
  const users = userRenderer(c);
  return (r) => {
    const out = users.basic(tget(state(c).users, r.user_id)!) as Record<string, unknown>;
    out.requested_at = r.requested_at;
    return out;
  };
}

const userIdShape = { user_id: p.int().required() };
const approveShape = { user_id: p.int().required(), access_level: p.int() };

function accessRequestRoutesOf(r: ApiRouter, src: PendingSource): void {
  const base = `/${src.kind}s/:id/access_requests`;
  const requester = (c: Ctx, s: { id: number }, userId: number) => {
    const req = requestOf(state(c), src.kind, s.id, userId);
    if (!req || !tget(state(c).users, userId)) throw recordNotFound(`user ${userId} has no pending request`);
    return req;
  };

  r.get(base, (c) => {
    const user = requireUser(c);
    parse(c, paginationParams);
    const s = src.load(c);
    if (!src.canAdmin(c, user, s)) throw forbidden();
    return paginate(c, requestsOf(state(c), src.kind, s.id), requesterRenderer(c));
  });

  r.post(base, (c) => {
    const user = requireUser(c);
    const s = src.load(c);
    const st = state(c);
    if (!src.canRequest(st, user, s)) throw forbidden();
    // `validates :user_id, uniqueness: { scope: [:source_type, :source_id] }` over every member row.
    if (requestOf(st, src.kind, s.id, user.id) || src.directMember(st, s, user.id))
      throw validationError({ user_id: ['already exists in source'] });
    const now = c.get('fx').clock.iso();
    const rec = write(c, (d) => createRequest(d, src.kind, s.id, user.id, now));
    return c.json(requesterRenderer(c)(rec), 201);
  });

  r.put(`${base}/:user_id/approve`, (c) => {
    const user = requireUser(c);
    const prm = parse(c, approveShape);
    const s = src.load(c);
    const req = requester(c, s, prm.user_id);
    if (!src.canAdmin(c, user, s)) throw forbidden();
    const level = prm.access_level ?? req.access_level;
    const st = state(c);
    const errors = src.errors(st, s, req.user_id, level, null, c.get('fx').clock.today());
    const render = src.renderMember(c);
    if (Object.keys(errors).length > 0) {
      // `accept_request` fails validation and saves nothing; the record presented is the unsaved one.
      const unsaved = {
        id: req.id,
        source: req.source,
        source_id: req.source_id,
        user_id: req.user_id,
        access_level: level,
        expires_at: null,
        created_at: req.created_at,
      };
      return c.json(render(unsaved), 201);
    }
    const id = write(c, (d) => {
      removeRequest(d, req.id);
      return setMember(d, src.kind, s.id, req.user_id, level, req.created_at, null);
    });
    const member = tget(state(c).members, id)!;
    memberSystemEvent(c, member, 'create');
    return c.json(render(member), 201);
  });

  r.delete(`${base}/:user_id`, (c) => {
    const user = requireUser(c);
    const prm = parse(c, userIdShape);
    const s = src.load(c);
    const req = requester(c, s, prm.user_id);
    checkUnmodifiedSince(c, req.created_at);
    if (!src.canAdmin(c, user, s) && req.user_id !== user.id) throw forbidden();
    write(c, (d) => removeRequest(d, req.id));
    return c.body(null, 204);
  });
}

export function accessRequestsRoutes(r: ApiRouter): void {
  for (const src of PENDING_SOURCES) accessRequestRoutesOf(r, src);
}
