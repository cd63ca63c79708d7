/**
 * Token management: impersonation tokens (admin, `/users/:user_id/impersonation_tokens`) and personal
 * access tokens as clients manage them (`GET`/`DELETE /personal_access_tokens`, admin
 * `POST /users/:user_id/personal_access_tokens`).
 */
import { createHash } from 'node:crypto';
import type { Ctx } from '../../core/context.js';
import { state, write } from '../../core/context.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { badRequest, notFound, recordNotFound, unauthorized, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState, TokenRecord } from '../../core/state.js';
import { mget, tget, tvalues } from '../../core/table.js';
import { TOKEN_SCOPES } from '../oauth/model.js';
import { addToken } from '../users/model.js';
import { has } from '../../core/versions.js';
import { PAT_ADMIN_NOT_FOUND, PAT_DOC } from './versions.js';

const isAccessToken = (t: TokenRecord) => t.kind === 'personal' || t.kind === 'impersonation';

/** Personal tokens stop working when their expiry date begins. */
function expired(t: TokenRecord, nowMs: number): boolean {
  return t.expires_at !== null && nowMs >= Date.parse(`${t.expires_at.slice(0, 10)}T00:00:00Z`);
}

/** The `active` / `inactive` scopes: SQL compares the date, so a token is active on its expiry day. */
function activeByDate(t: TokenRecord, today: string): boolean {
  return !t.revoked && (t.expires_at === null || t.expires_at.slice(0, 10) >= today);
}

/** `Entities::PersonalAccessToken` (and its impersonation and with-token variants). */
function render(t: TokenRecord, nowMs: number, opts: { token?: string; impersonation?: boolean } = {}) {
  return {
    id: t.id,
    name: t.name,
    revoked: t.revoked,
    created_at: t.created_at,
    scopes: t.scopes,
    user_id: t.user_id,
    active: !t.revoked && !expired(t, nowMs),
    expires_at: t.expires_at === null ? null : t.expires_at.slice(0, 10),
    ...(opts.token !== undefined && { token: opts.token }),
    ...(opts.impersonation && { impersonation: t.kind === 'impersonation' }),
  };
}

/** Every personal and impersonation token, cached while the tokens table keeps its identity. */
const allAccessTokens = (() => {
  const cache = new WeakMap<object, TokenRecord[]>();
  return (st: PlatformState): TokenRecord[] => {
    let list = cache.get(st.tokens);
    if (!list) cache.set(st.tokens, (list = tvalues(st.tokens).filter(isAccessToken)));
    return list;
  };
})();

const tokensOf = (st: PlatformState, userId: number) =>
  mget(st.idx.tokensByUser, String(userId))
    .map((id) => tget(st.tokens, id)!)
    .filter(isAccessToken);

/**
 * A token string as the platform's PATs look (20 characters, Devise's friendly token alphabet), derived
 * from the record id and the instance clock so that scenarios replay byte for byte.
 */
function friendlyToken(id: number, ms: number): string {
  return createHash('sha256')
    .update(`fauxlab:pat:${id}:${ms}`)
    .digest('base64url')
    .slice(0, 20)
    .replace(/[lIO0]/g, (ch) => ({ l: 's', I: 'x', O: 'y', '0': 'z' })[ch]!);
}

function findUserById(c: Ctx, id: number) {
  const u = tget(state(c).users, id);
  if (!u) throw notFound('User');
  return u;
}

/** Stores a new token for `userId`; returns its id and string. */
function createToken(
  c: Ctx,
  userId: number,
  input: { name: string; scopes: string[]; expires_at: string | null; impersonation: boolean },
): { id: number; token: string } {
  const nowMs = c.get('fx').clock.ms();
  const now = c.get('fx').clock.iso();
  return write(c, (d) => {
    const next = (d.seq.tokens ?? 0) + 1;
    const token = friendlyToken(next, nowMs);
    const id = addToken(
      d,
      {
        user_id: userId,
        token,
        kind: input.impersonation ? 'impersonation' : 'personal',
        name: input.name,
        scopes: input.scopes,
        expires_at: input.expires_at,
      },
      now,
    );
    return { id, token };
  });
}

/** `PersonalAccessToken` validation: scopes present and all available. */
function scopeErrors(scopes: readonly string[] | undefined): Record<string, string[]> {
  if (!scopes || scopes.length === 0) return { scopes: ["can't be blank"] };
  if (!scopes.every((s) => TOKEN_SCOPES.includes(s)))
    return { scopes: ['can only contain available scopes'] };
  return {};
}

export function tokensRoutes(r: ApiRouter): void {
  // ---- Impersonation tokens: admins only, checked before the params (a `before` filter).
  const impersonation = '/users/:user_id/impersonation_tokens';

  r.get(impersonation, { auth: 'admin' }, (c) => {
    const prm = parse(c, {
      user_id: p.int().required(),
      ...paginationParams,
      state: p.str().default('all').values(['all', 'active', 'inactive']),
    });
    const user = findUserById(c, prm.user_id);
    const today = c.get('fx').clock.today();
    const nowMs = c.get('fx').clock.ms();
    const list = tokensOf(state(c), user.id).filter(
      (t) =>
        t.kind === 'impersonation' &&
        (prm.state === 'all' || activeByDate(t, today) === (prm.state === 'active')),
    );
    return paginate(c, list, (t) => render(t, nowMs, { impersonation: true }));
  });

  r.post(impersonation, { auth: 'admin' }, (c) => {
    const prm = parse(c, {
      user_id: p.int().required(),
      name: p.str().required(),
      expires_at: p.date(),
      // `type: Array`: any list; the model then checks what is in it.
      scopes: p.strArray(),
    });
    const user = findUserById(c, prm.user_id);
    const errors = scopeErrors(prm.scopes);
    if (Object.keys(errors).length) throw validationError(errors);
    const made = createToken(c, user.id, {
      name: prm.name,
      scopes: prm.scopes!,
      expires_at: prm.expires_at ?? null,
      impersonation: true,
    });
    const t = tget(state(c).tokens, made.id)!;
    return c.json(render(t, c.get('fx').clock.ms(), { token: made.token, impersonation: true }), 201);
  });

  const one = `${impersonation}/:impersonation_token_id`;
  const findImpersonation = (c: Ctx) => {
    const prm = parse(c, { user_id: p.int().required(), impersonation_token_id: p.int().required() });
    const user = findUserById(c, prm.user_id);
    const t = tget(state(c).tokens, prm.impersonation_token_id);
    if (!t || t.user_id !== user.id || t.kind !== 'impersonation') throw notFound('Impersonation Token');
    return t;
  };

  r.get(one, { auth: 'admin' }, (c) =>
    c.json(render(findImpersonation(c), c.get('fx').clock.ms(), { impersonation: true })),
  );

  r.delete(one, { auth: 'admin' }, (c) => {
    const t = findImpersonation(c);
    checkUnmodifiedSince(c, t.created_at);
    write(c, (d) => {
      tget(d.tokens, t.id)!.revoked = true;
    });
    return c.body(null, 204);
  });

  // ---- Personal access tokens.
  r.post('/users/:user_id/personal_access_tokens', { auth: 'admin' }, (c) => {
    const prm = parse(c, {
      user_id: p.int().required(),
      name: p.str().required(),
      // Grape checks `values` element by element on an array param.
      scopes: p
        .strArray({ commaSeparated: true })
        .required()
        .values(TOKEN_SCOPES as unknown as string[][]),
      expires_at: p.date(),
    });
    const user = findUserById(c, prm.user_id);
    const made = createToken(c, user.id, {
      name: prm.name,
      scopes: prm.scopes,
      expires_at: prm.expires_at ?? null,
      impersonation: false,
    });
    const t = tget(state(c).tokens, made.id)!;
    return c.json(render(t, c.get('fx').clock.ms(), { token: made.token }), 201);
  });

  /** The `before` filter: a user, and a non-admin may only name themselves in `user_id`. */
  const restrictNonAdmins = (c: Ctx) => {
    const viewer = c.get('viewer').user!;
    if (viewer.admin) return;
    const raw = c.get('params').user_id;
    if (raw === undefined || raw === null || raw === '') return;
    if (String(raw).trim() !== String(viewer.id)) throw unauthorized();
  };

  r.get('/personal_access_tokens', { auth: 'required' }, (c) => {
    const viewer = c.get('viewer').user;
    if (!viewer) throw unauthorized();
    restrictNonAdmins(c);
    const prm = parse(c, { user_id: p.int(), ...paginationParams });
    const st = state(c);
    let list: TokenRecord[];
    if (!viewer.admin) list = tokensOf(st, viewer.id).filter((t) => t.kind === 'personal');
    else {
      // An admin naming no user, or one that does not exist, gets every user's tokens.
      const user = prm.user_id === undefined ? undefined : tget(st.users, prm.user_id);
      list = user ? tokensOf(st, user.id) : allAccessTokens(st);
    }
    const nowMs = c.get('fx').clock.ms();
    return paginate(c, list, (t) => render(t, nowMs));
  });

  // ---- One token (15.x). `self` names the token the request came with; before its route was added the
  // word reached `:id` (and found nothing), as the router's fall-through to the later route does here.
  const revoke = (c: Ctx, t: TokenRecord) => {
    // `PersonalAccessTokens::RevokeService`: only a personal (or impersonation) token is revoked.
    if (!isAccessToken(t)) throw badRequest();
    write(c, (d) => {
      tget(d.tokens, t.id)!.revoked = true;
    });
    return c.body(null, 204);
  };
  const usedToken = (c: Ctx) => {
    const t = c.get('viewer').token;
    if (!t) throw unauthorized();
    return t;
  };

  // `API::PersonalAccessTokens::SelfInformation`: any scope may read its own token.
  r.get(
    '/personal_access_tokens/self',
    {
      auth: 'required',
      anyScope: true,
      since: '15.5',
      source: `${PAT_DOC} "Self-informing" (Introduced in GitLab 15.5)`,
    },
    (c) => c.json(render(usedToken(c), c.get('fx').clock.ms())),
  );

  r.get(
    '/personal_access_tokens/:id',
    {
      auth: 'required',
      since: '15.1',
      source: `${PAT_DOC} "Get single personal access token" (Introduced in GitLab 15.1)`,
    },
    (c) => {
      restrictNonAdmins(c);
      const viewer = c.get('viewer').user!;
      // `PersonalAccessToken.find_by_id`: a word, or an id of no access token, finds nothing.
      const raw = c.req.param('id') ?? '';
      const found = /^\d+$/.test(raw) ? tget(state(c).tokens, Number(raw)) : undefined;
      const t = found && isAccessToken(found) ? found : undefined;
      // `:read_user_personal_access_tokens` on the token's user: its owner, or an administrator.
      if (t && (viewer.admin || t.user_id === viewer.id)) return c.json(render(t, c.get('fx').clock.ms()));
      if (viewer.admin && has(c, PAT_ADMIN_NOT_FOUND)) throw recordNotFound('no such personal access token');
      throw unauthorized();
    },
  );

  // 15.0 to 15.3 in `API::PersonalAccessTokens` (its scopes and its `before`); 15.4 moved it to
  // `API::PersonalAccessTokens::SelfRevocation`, open to every scope.
  r.delete(
    '/personal_access_tokens/self',
    {
      auth: 'required',
      since: '15.0',
      until: '15.4',
      source: `${PAT_DOC} "Self-revoke" (Introduced in GitLab 15.0, api scope only)`,
    },
    (c) => {
      restrictNonAdmins(c);
      return revoke(c, usedToken(c));
    },
  );
  r.delete(
    '/personal_access_tokens/self',
    {
      auth: 'required',
      anyScope: true,
      since: '15.4',
      source: `${PAT_DOC} "Self-revoke" (any token from GitLab 15.4)`,
    },
    (c) => revoke(c, usedToken(c)),
  );

  r.delete('/personal_access_tokens/:id', { auth: 'required' }, (c) => {
    restrictNonAdmins(c);
    const raw = c.req.param('id') ?? '';
    const t = /^\d+$/.test(raw) ? tget(state(c).tokens, Number(raw)) : undefined;
    if (!t || !isAccessToken(t)) throw recordNotFound();
    const viewer = c.get('viewer').user!;
    if (!viewer.admin && t.user_id !== viewer.id) throw badRequest();
    write(c, (d) => {
      tget(d.tokens, t.id)!.revoked = true;
    });
    return c.body(null, 204);
  });
}
