import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { platformRoutesMarkdown } from '../../src/admin/platform-routes-doc.js';
import {
  parsePlatformRoutes,
  platformCoverage,
  statusOf,
  type PlatformRoute,
} from '../../src/admin/platform-routes.js';
import type { RouteInfo } from '../../src/core/router.js';
import { createFauxlab } from '../../src/index.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const list = parsePlatformRoutes(read('src/admin/gitlab-13.12-routes.txt'));
const routes = createFauxlab().routes;
const coverage = platformCoverage(list, routes);
const name = (r: PlatformRoute) =>
  `${r.method} ${r.path}${r.tier === 'free' ? '' : ` (${r.tier})`} [line ${r.line}]`;
const missing = list.filter((r) => r.missing).length;

describe('GitLab 13.12 routes (src/admin/gitlab-13.12-routes.txt)', () => {
  it(`every route is served at its tier, listed as missing (${missing} now) or left out`, () => {
    expect(coverage.unaccounted.map(name)).toEqual([]);
  });

  it('no route listed as missing is served (remove its flag: the list only shrinks)', () => {
    expect(coverage.servedButListed.map(name)).toEqual([]);
  });

  it('lists each route once', () => {
    expect(coverage.duplicates.map(name)).toEqual([]);
  });

  it('leaves out only the internal APIs, the upload pre-authorisations, Geo and the runner process API', () => {
    const wrong = list.filter((r) => {
      if (r.path.startsWith('/internal/')) return !['shell', 'pages', 'kas'].includes(r.leftOut ?? '');
      switch (r.leftOut) {
        case undefined:
          return false;
        case 'workhorse':
          return !r.path.endsWith('/authorize');
        case 'geo':
          return !/^\/geo(?:_nodes|_replication)?\//.test(`${r.path}/`);
        case 'runner':
          return r.source !== 'lib/api/ci/runner.rb';
        default:
          return true;
      }
    });
    expect(wrong.map(name)).toEqual([]);
    // An administrator registers and deletes runners through the API: those two are not left out.
    const runnerApi = list.filter((r) => r.source === 'lib/api/ci/runner.rb' && !r.leftOut);
    expect(runnerApi.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /runners', 'DELETE /runners']);
  });

  it('docs/gitlab-13.12-routes.md matches the list and the routes (run `npm run coverage-list`)', () => {
    expect(read('docs/gitlab-13.12-routes.md')).toBe(platformRoutesMarkdown(list, routes));
  });
});

describe('matching a platform route against fauxlab routes', () => {
  const route = (line: string): PlatformRoute => parsePlatformRoutes(`@ lib/api/x.rb\n${line}`)[0]!;
  const kind = (line: string, served: RouteInfo[]) => statusOf(route(line), served).kind;

  it('compares shapes, not param names', () => {
    expect(
      kind('GET /projects/:id/issues/:issue_iid', [{ method: 'GET', path: '/projects/:id/issues/:iid' }]),
    ).toBe('served');
    expect(
      kind('PUT /projects/:id/issues/:issue_iid', [{ method: 'GET', path: '/projects/:id/issues/:iid' }]),
    ).toBe('absent');
  });

  it("a plain param does not serve the platform's literal segment (its handler answers for something else)", () => {
    expect(kind('GET /runners/all', [{ method: 'GET', path: '/runners/:id' }])).toBe('absent');
  });

  it('a param with a pattern serves what the pattern matches, across segments too', () => {
    const artifacts = {
      method: 'GET' as const,
      path: '/projects/:id/jobs/:job_id/artifacts/:artifact_path{.+}',
    };
    expect(kind('GET /projects/:id/jobs/:job_id/artifacts/:artifact_path', [artifacts])).toBe('served');
    const archive = {
      method: 'GET' as const,
      path: '/projects/:id/repository/:archive{archive(?:\\.[a-z0-9.]+)?}',
    };
    expect(kind('GET /projects/:id/repository/archive', [archive])).toBe('served');
    expect(kind('GET /projects/:id/repository/tree', [archive])).toBe('absent');
  });

  it('a HEAD route is served by the GET route of its shape', () => {
    const get = { method: 'GET' as const, path: '/projects/:id/repository/branches/:branch' };
    expect(kind('HEAD /projects/:id/repository/branches/:branch', [get])).toBe('served');
  });

  it('a CE route served on a paid tier only is not served; an EE route is served from its tier down', () => {
    const premium: RouteInfo = { method: 'GET', path: '/projects/:id/approvals', tier: 'premium' };
    expect(kind('GET /projects/:id/approvals', [premium])).toBe('higher-tier');
    expect(kind('GET /projects/:id/approvals premium', [premium])).toBe('served');
    expect(kind('GET /projects/:id/approvals ultimate', [premium])).toBe('served');
    expect(kind('GET /projects/:id/approvals premium', [{ ...premium, tier: 'ultimate' }])).toBe(
      'higher-tier',
    );
  });

  it('refuses a line it cannot read rather than skipping it', () => {
    expect(() => parsePlatformRoutes('GET /users')).toThrow(/before any "@ source"/);
    expect(() => parsePlatformRoutes('@ lib/api/x.rb\nGET /users left:pages-daemon')).toThrow(/unknown flag/);
    expect(() => parsePlatformRoutes('@ lib/api/x.rb\nFETCH /users')).toThrow(/no method/);
    expect(() => parsePlatformRoutes('@ lib/api/x.rb\nGET /users missing left:shell')).toThrow(/both/);
  });
});
