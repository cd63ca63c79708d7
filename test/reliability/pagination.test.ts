import { beforeAll, describe, expect, test } from 'vitest';
import type { Fauxlab } from '../../src/index.js';
import { ENDPOINTS } from './endpoints.js';
import { matrixFx, ROLES, type Ids } from './matrix.js';

/**
 * The spec: "Pagination headers are returned by every endpoint that returns an array." Every GET route
 * of the permission matrix is called as the admin on the public group and project; each one that
 * answers a JSON array must carry the offset pagination headers (or, for keyset, the Link header).
 */

/**
 * Array routes the platform presents without `paginate` (so without the headers), with where it says so.
 */
const UNPAGINATED: Record<string, string> = {
  'GET /groups/:id/epics/:epic_iid/epics': 'ee/lib/api/epic_links.rb: `present child_epics` (no paginate)',
  'GET /vulnerabilities/:id/issue_links':
    'ee/lib/api/vulnerability_issue_links.rb: `present Ability.issues_readable_by_user(related_issues, ...)` (no paginate, as issue_links.rb)',
};
const GETS = ENDPOINTS.filter((e) => e.route.startsWith('GET ') && !(e.route in UNPAGINATED));
/** Routes whose answer was an array, and routes that answered something else (objects, files, errors). */
const arrays: string[] = [];
const others: string[] = [];

describe('pagination headers on every array route', () => {
  let fx: Fauxlab;
  let ids: Ids;
  let start: ReturnType<Fauxlab['snapshot']>;
  beforeAll(async () => {
    ({ fx, ids } = await matrixFx());
    start = fx.snapshot();
  }, 60_000);

  for (const e of GETS) {
    test(`${e.route}: an array answer carries X-Total, X-Page, X-Per-Page and Link`, async () => {
      fx.restore(start);
      const token = ROLES.admin.token;
      if (e.setup) await e.setup(fx, 'public', ids, token);
      const res = await fx.app.request(e.path('public', ids, 'admin'), {
        headers: token ? { 'PRIVATE-TOKEN': token } : {},
      });
      const type = res.headers.get('content-type') ?? '';
      const text = await res.text();
      const body: unknown = type.includes('json') && text !== '' ? JSON.parse(text) : undefined;
      if (!Array.isArray(body)) {
        others.push(`${e.route} ${res.status}`);
        return;
      }
      arrays.push(e.route);
      const h = (n: string) => res.headers.get(n);
      expect({
        total: h('x-total') !== null,
        page: h('x-page'),
        perPage: h('x-per-page') !== null,
        link: h('link') !== null,
      }).toEqual({ total: true, page: '1', perPage: true, link: true });
    });
  }

  test('the walk reached the array routes: every list of the matrix answered an array to the admin', () => {
    // A route answering an error instead of its list would escape the check above.
    expect(arrays.length).toBeGreaterThan(140);
    expect(others.filter((o) => / 5\d\d$/.test(o))).toEqual([]);
  });
});
