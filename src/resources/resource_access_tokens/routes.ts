/**
 * Project access tokens (13.12 `lib/api/resource_access_tokens.rb`, introduced in 13.9; Free on
 * self-managed). The platform's answers as they are: a reader below maintainer is `unauthorized!`
 * (401), a creator or revoker below maintainer gets the service's message as a 400.
 */
import { findProject } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { badRequest, notFound, unauthorized } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { TokenRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { TOKEN_SCOPES } from '../oauth/model.js';
import { canAdminProject } from '../projects/helpers.js';
import { createProjectToken, projectAccessTokens, projectBots, revokeProjectToken } from './model.js';

/** `Entities::PersonalAccessToken` (`WithToken` adds the token, once). */
function tokenEntity(t: TokenRecord, nowMs: number, token?: string) {
  const expired = t.expires_at !== null && nowMs >= Date.parse(`${t.expires_at.slice(0, 10)}T00:00:00Z`);
  return {
    id: t.id,
    name: t.name,
    revoked: t.revoked,
    created_at: t.created_at,
    scopes: t.scopes,
    user_id: t.user_id,
    active: !t.revoked && !expired,
    expires_at: t.expires_at === null ? null : t.expires_at.slice(0, 10),
    ...(token !== undefined && { token }),
  };
}

const project = (c: Ctx) => findProject(c, c.req.param('id') ?? '');

const listShape = { id: p.str().required(), ...paginationParams };
const createShape = {
  id: p.str().required(),
  name: p.str().required(),
  scopes: p.strArray().required(),
  expires_at: p.date(),
};
const deleteShape = { id: p.str().required(), token_id: p.str().required() };

/** `PersonalAccessToken`'s scope validations, as `to_sentence` of the full messages. */
function scopeError(scopes: readonly string[]): string | undefined {
  if (scopes.length === 0) return "Scopes can't be blank";
  if (!scopes.every((s) => TOKEN_SCOPES.includes(s))) return 'Scopes can only contain available scopes';
  return undefined;
}

export function resourceAccessTokensRoutes(r: ApiRouter): void {
  r.get('/projects/:id/access_tokens', { auth: 'optional' }, (c) => {
    requireUser(c);
    parse(c, listShape);
    const proj = project(c);
    // `read_resource_access_tokens`: maintainers.
    if (!canAdminProject(c, proj)) throw unauthorized();
    const now = c.get('fx').clock.ms();
    return paginate(c, projectAccessTokens(state(c), proj.id), (t) => tokenEntity(t, now));
  });

  r.post('/projects/:id/access_tokens', { params: createShape }, (c, prm) => {
    const proj = project(c);
    // `ResourceAccessTokens::CreateService#has_permission_to_create?` (`admin_resource_access_tokens`).
    if (!canAdminProject(c, proj))
      throw badRequest('User does not have permission to create Project Access Token');
    const problem = scopeError(prm.scopes);
    if (problem) throw badRequest(problem);
    const now = c.get('fx').clock.iso();
    const made = write(c, (d) =>
      createProjectToken(
        d,
        proj,
        { name: prm.name, scopes: prm.scopes, expires_at: prm.expires_at ?? null },
        now,
      ),
    );
    const t = tget(state(c).tokens, made.id)!;
    return c.json(tokenEntity(t, c.get('fx').clock.ms(), made.token), 201);
  });

  r.delete('/projects/:id/access_tokens/:token_id', { params: deleteShape }, (c, prm) => {
    const proj = project(c);
    const st = state(c);
    // `PersonalAccessTokensFinder.new(user: resource.bots, impersonation: false).find_by_id`.
    const token = /^\d+$/.test(prm.token_id)
      ? projectAccessTokens(st, proj.id).find((t) => t.id === Number(prm.token_id))
      : undefined;
    if (!token) throw notFound(`Could not find project access token with token_id: ${prm.token_id}`);
    const bot = tget(st.users, token.user_id)!;
    // `RevokeService#can_destroy_bot_member?` (`admin_project_member`).
    if (!canAdminProject(c, proj))
      throw badRequest(`${c.get('viewer').user!.name} cannot delete ${bot.name}`);
    if (!projectBots(st, proj.id).includes(bot.id)) throw badRequest('Failed to find bot user');
    write(c, (d) => revokeProjectToken(d, proj.id, token));
    return c.body(null, 204);
  });
}
