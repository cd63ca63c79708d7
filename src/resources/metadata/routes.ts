/**
 * What clients ask an instance before their work: `GET /version` (and the later `GET /metadata`), and on
 * the paid tiers the license (`GET /license`, `POST /license`, administrators) and the Geo nodes
 * (`GET /geo_nodes`: an instance with no secondaries has none); the instance's counts
 * (`GET /application/statistics`, statistics.ts).
 */
import { state, type Ctx } from '../../core/context.js';
import type { ApiRouter } from '../../core/router.js';
import { apiError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, parseParams } from '../../core/params.js';
import { applicationStatistics } from './statistics.js';
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

/**
 * `License#valid_license`: a key is valid when it decrypts with GitLab Inc.'s public key into a license.
 * No key a client holds was made for fauxlab's instance license (it has no such key pair): every key is
 * refused as the platform refuses one it cannot read, and the instance keeps its license.
 */
const licenseParams = { license: p.str().required() };
const INVALID_LICENSE =
  'The license key is invalid. Make sure it is exactly as you received it from GitLab Inc.';

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

  // `before { authenticated_as_admin! }` runs ahead of the params: a non-admin gets the 403 first.
  r.post('/license', { auth: 'admin', tier: 'premium' }, (c) => {
    parseParams(licenseParams, c.get('params'));
    throw apiError(400, INVALID_LICENSE);
  });

  r.get('/application/statistics', { auth: 'admin' }, (c) => applicationStatistics(c, activeUsers));

  // `GeoNode.all`, paginated: the instance is a primary with no Geo nodes configured.
  r.get('/geo_nodes', { auth: 'admin', tier: 'premium', params: paginationParams }, (c) =>
    paginate(c, [], () => null),
  );
  // `GeoNodeStatus` of every node, paginated: none either.
  r.get('/geo_nodes/status', { auth: 'admin', tier: 'premium', params: paginationParams }, (c) =>
    paginate(c, [], () => null),
  );
}
