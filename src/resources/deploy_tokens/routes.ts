/**
 * Deploy tokens: every token of the instance (`GET /deploy_tokens`, admins), and a project's or group's
 * (list, create, delete). The token itself is shown once, in the create response.
 *
 * Projects: maintainers read, create and delete. Groups: maintainers read, owners create and delete.
 * An unknown project token is `404 Deploy Token Not Found`; an unknown group token a record-not-found
 * 404, and a group token's delete honours `If-Unmodified-Since` (the platform destroys the group's link
 * record conditionally, the project's unconditionally).
 */
import { ACCESS, groupAccess } from '../../core/access.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, notFound, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, type Param } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { GroupRecord, ProjectRecord } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { findGroupRecord } from '../groups/access.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import { deterministicToken } from '../projects/model.js';
import {
  createDeployToken,
  deleteDeployToken,
  deployTokenProblem,
  deployTokenUsername,
  ownedDeployTokens,
} from './model.js';
import { DEPLOY_TOKEN_SCOPES, type DeployTokenRecord, type DeployTokenScope } from './store.js';

/** `Entities::DeployToken` (13.x). */
export const deployTokenEntity = (t: DeployTokenRecord) => ({
  id: t.id,
  name: t.name,
  username: deployTokenUsername(t),
  expires_at: t.expires_at,
  scopes: t.scopes,
});

const createShape = {
  name: p.str().required(),
  expires_at: p.datetime(),
  username: p.str(),
  // `values:` on an array checks each element.
  scopes: (p.strArray({ commaSeparated: true }).required() as Param<string[]>).values(
    DEPLOY_TOKEN_SCOPES as unknown as string[][],
  ),
};

const tokenIdShape = { token_id: p.int().required() };

type Owner = { kind: 'project'; rec: ProjectRecord } | { kind: 'group'; rec: GroupRecord };

const groupLevel = (c: Ctx, g: GroupRecord) => {
  const u = c.get('viewer').user;
  return u?.admin ? ACCESS.OWNER : groupAccess(state(c), u, g);
};

/** The route's project or group, after `authorize!` of a read (`read`) or a write (`write`). */
function loadOwner(c: Ctx, kind: 'project' | 'group', need: 'read' | 'write'): Owner {
  if (kind === 'project') {
    const rec = loadProject(c);
    if (!canAdminProject(c, rec)) throw forbidden();
    return { kind, rec };
  }
  const rec = findGroupRecord(c, c.req.param('id') ?? '');
  if (groupLevel(c, rec) < (need === 'read' ? ACCESS.MAINTAINER : ACCESS.OWNER)) throw forbidden();
  return { kind, rec };
}

export function deployTokensRoutes(r: ApiRouter): void {
  r.get('/deploy_tokens', { auth: 'admin', params: paginationParams }, (c) =>
    paginate(c, tvalues(state(c).deployTokens.records), deployTokenEntity),
  );

  for (const kind of ['project', 'group'] as const) {
    const base = `/${kind}s/:id/deploy_tokens`;

    r.get(base, { params: paginationParams }, (c) => {
      const o = loadOwner(c, kind, 'read');
      return paginate(c, ownedDeployTokens(state(c), kind, o.rec.id), deployTokenEntity);
    });

    // No `authenticate!` in deploy_tokens.rb: `authorize!` refuses an anonymous caller with 403 there too.
    r.post(base, { auth: 'optional', params: createShape }, (c, prm) => {
      const o = loadOwner(c, kind, 'write');
      const scopes = [...new Set(prm.scopes)] as DeployTokenScope[];
      const problem = deployTokenProblem({ username: prm.username, scopes });
      if (problem) throw apiError(400, problem);
      const now = c.get('fx').clock.iso();
      const user = c.get('viewer').user!;
      const out = write(c, (d) => {
        const seq = (d.seq.deploy_tokens ?? 0) + 1;
        const token = deterministicToken(seq, 0x2545f491 ^ o.rec.id);
        const id = createDeployToken(
          d,
          {
            owner: kind,
            owner_id: o.rec.id,
            name: prm.name,
            username: prm.username,
            // The model keeps the scopes in its own order (one boolean column each).
            scopes: DEPLOY_TOKEN_SCOPES.filter((s) => scopes.includes(s)),
            expires_at: prm.expires_at ?? null,
            token,
            creator_id: user.id,
          },
          now,
        );
        return { id, token };
      });
      const t = tget(state(c).deployTokens.records, out.id)!;
      return c.json({ ...deployTokenEntity(t), token: out.token }, 201);
    });

    // 14.9: `authorize!(:read_deploy_token)` as the list, then `deploy_tokens.find`: RecordNotFound's 404.
    r.get(
      `${base}/:token_id`,
      {
        params: tokenIdShape,
        since: '14.9',
        source: `doc/api/deploy_tokens.md "Get a ${kind} deploy token" (Introduced in GitLab 14.9)`,
      },
      (c, prm) => {
        const o = loadOwner(c, kind, 'read');
        const t = tget(state(c).deployTokens.records, prm.token_id);
        if (!t || t.owner !== kind || t.owner_id !== o.rec.id)
          throw recordNotFound(`no such token in this ${kind}`);
        return c.json(deployTokenEntity(t));
      },
    );

    r.delete(`${base}/:token_id`, { auth: 'optional', params: tokenIdShape }, (c, prm) => {
      const o = loadOwner(c, kind, 'write');
      const t = tget(state(c).deployTokens.records, prm.token_id);
      if (!t || t.owner !== kind || t.owner_id !== o.rec.id) {
        if (kind === 'project') throw notFound('Deploy Token', 'no such token in this project');
        throw recordNotFound('no such token in this group');
      }
      if (kind === 'group') checkUnmodifiedSince(c, t.created_at);
      write(c, (d) => deleteDeployToken(d, t.id));
      return c.body(null, 204);
    });
  }
}
