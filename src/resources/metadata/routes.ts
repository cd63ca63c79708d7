/**
 * What clients ask an instance before their work: `GET /version` (and the later `GET /metadata`), and on
 * the paid tiers the license (`GET /license`, administrators).
 */
import { state, type Ctx } from '../../core/context.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { tleaves } from '../../core/table.js';
import { releaseOf } from '../../core/versions.js';

/** A commit id of the platform's shape; no real revision is implied. */
export const REVISION = 'b0e3ad4a5b6';

/** The version string: the configured release, else the minor's own, with `-ee` on the paid tiers. */
export function instanceVersion(c: Ctx): string {
  const fx = c.get('fx');
  const v = releaseOf(fx.gitlab(), fx.version);
  return c.get('fx').tier() === 'free' || /-ee$/.test(v) ? v : `${v}-ee`;
}

const activeCounts = new WeakMap<object, number>();

/** `User.active.count`: active humans (bots are internal users), counted per bucket and cached. */
function activeUsers(st: PlatformState): number {
  let n = 0;
  for (const [, leaf] of tleaves(st.users)) {
    let k = activeCounts.get(leaf);
    if (k === undefined) {
      k = 0;
      for (const u of leaf) if (u && u.state === 'active' && !u.bot) k++;
      activeCounts.set(leaf, k);
    }
    n += k;
  }
  return n;
}

/**
 * `EE::API::Entities::GitlabLicenseWithActiveUsers` of the instance's license: the tier's plan, valid
 * for the clock's year, with no user limit (so no overage).
 */
function licenseEntity(c: Ctx) {
  const year = Number(c.get('fx').clock.today().slice(0, 4));
  const active = activeUsers(state(c));
  return {
    id: 1,
    plan: c.get('fx').tier(),
    created_at: `${year}-01-01T00:00:00.000Z`,
    starts_at: `${year}-01-01`,
    expires_at: `${year + 1}-01-01`,
    historical_max: active,
    maximum_user_count: active,
    licensee: { Name: 'fauxlab', Email: 'admin@example.com', Company: 'fauxlab' },
    add_ons: {},
    expired: false,
    overage: 0,
    user_limit: 0,
    active_users: active,
  };
}

export function metadataRoutes(r: ApiRouter): void {
  const opts = { auth: 'required' as const, readScopes: ['read_user'] };

  r.get('/version', opts, (c) => c.json({ version: instanceVersion(c), revision: REVISION }));

  r.get('/metadata', opts, (c) =>
    c.json({
      version: instanceVersion(c),
      revision: REVISION,
      kas: { enabled: false, externalUrl: null, version: null },
      enterprise: c.get('fx').tier() !== 'free',
    }),
  );

  r.get('/license', { auth: 'admin', tier: 'premium' }, (c) => c.json(licenseEntity(c)));
}
