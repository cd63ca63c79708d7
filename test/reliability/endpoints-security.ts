/**
 * The permission matrix's rows of the ultimate tier's security routes (vulnerabilities, their findings,
 * issue links and exports, managed licenses, dependencies): the matrix runs on premium, so each row's
 * set-up turns the cell's instance ultimate first (the tier is part of the state, restored per cell).
 * `authenticate!` comes first on all of them; `read_vulnerability` and the abilities beside it are
 * developers' and up.
 */
import type { Fauxlab } from '../../src/index.js';
import type { Endpoint, Expect } from './endpoints.js';
import { send, type Ids } from './matrix.js';
import type { Visibility } from './world.js';

const P = (v: Visibility) => `/api/v4/projects/g-${v}%2Fp`;
const API = '/api/v4';
const U: Expect = [401, { message: '401 Unauthorized' }];
const F: Expect = [403, { message: '403 Forbidden' }];
const PNF: Expect = [404, { message: '404 Project Not Found' }];

interface Cell {
  role: string;
  level: number;
  anonymous: boolean;
  visible: boolean;
}

/** `authenticate!`, the project, then a developer's ability. */
const pDev = (ok: number) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? PNF : c.level >= 30 ? ([ok] as Expect) : F;
/** `authenticate!`, the vulnerability by id, then `authorize!` on its project: a 403 where it is hidden too. */
const vDev = (ok: number) => (c: Cell) => (c.anonymous ? U : c.level >= 30 ? ([ok] as Expect) : F);

/** The id of the project's vulnerability (the matrix world gives each project one), set by `ultimate`. */
let vulnerabilityId = 0;

const GNF: Expect = [404, { message: '404 Group Not Found' }];
/** `authenticate!`, the group, then a developer's ability on it. */
const gDev = (ok: number) => (c: Cell) =>
  c.anonymous ? U : !c.visible ? GNF : c.level >= 30 ? ([ok] as Expect) : F;
/** An export `dev` made: only its author reads it. */
const author = (ok: number) => (c: Cell) => (c.anonymous ? U : c.role === 'developer' ? ([ok] as Expect) : F);

/** The id of the export a cell's set-up made (as `dev`). */
let exportId = 0;
async function devExport(fx: Fauxlab, v: Visibility, finish: boolean): Promise<void> {
  await ultimate(fx, v);
  const made = await send(fx, 'POST', `${API}/security/projects/g-${v}%2Fp/vulnerability_exports`, 'dev-api');
  exportId = (made.body as { id: number }).id;
  if (finish) fx.clock.advance(2000);
}

/** The id of the issue link a cell's set-up made. */
let linkId = 0;

/** Turns the instance ultimate (the tier is the state's), keeping its clock; finds the vulnerability. */
async function ultimate(fx: Fauxlab, v: Visibility): Promise<void> {
  const s = fx.snapshot();
  fx.restore({ state: Object.freeze({ ...s.state, tier: 'ultimate' as const }), clock: s.clock });
  const list = (await send(fx, 'GET', `${P(v)}/vulnerabilities`, 'root-api')).body as { id: number }[];
  vulnerabilityId = list[0]!.id;
}

function row(
  route: string,
  path: (v: Visibility, ids: Ids) => string,
  expect: (c: Cell) => Expect,
  more: Partial<Endpoint> = {},
): Endpoint {
  return { route, scope: 'project', path, expect, setup: (fx, v) => ultimate(fx, v), ...more };
}

export const SECURITY_ENDPOINTS: Endpoint[] = [
  row('GET /projects/:id/vulnerabilities', (v) => `${P(v)}/vulnerabilities`, pDev(200)),
  row('GET /vulnerabilities/:id', () => `${API}/vulnerabilities/${vulnerabilityId}`, vDev(200)),
  ...(['resolve', 'dismiss', 'confirm'] as const).map((a) =>
    row(`POST /vulnerabilities/:id/${a}`, () => `${API}/vulnerabilities/${vulnerabilityId}/${a}`, vDev(201)),
  ),
  // The world's vulnerability is detected: the set-up confirms it, so that reverting changes it.
  row(
    'POST /vulnerabilities/:id/revert',
    () => `${API}/vulnerabilities/${vulnerabilityId}/revert`,
    vDev(201),
    {
      setup: async (fx, v) => {
        await ultimate(fx, v);
        await send(fx, 'POST', `${API}/vulnerabilities/${vulnerabilityId}/confirm`, 'root-api');
      },
    },
  ),
  row('GET /projects/:id/vulnerability_findings', (v) => `${P(v)}/vulnerability_findings`, pDev(200)),
  row(
    'GET /vulnerabilities/:id/issue_links',
    () => `${API}/vulnerabilities/${vulnerabilityId}/issue_links`,
    vDev(200),
  ),
  row(
    'POST /vulnerabilities/:id/issue_links',
    () => `${API}/vulnerabilities/${vulnerabilityId}/issue_links`,
    vDev(201),
    {
      body: () => ({ target_issue_iid: 1 }),
    },
  ),
  row(
    'DELETE /vulnerabilities/:id/issue_links/:issue_link_id',
    () => `${API}/vulnerabilities/${vulnerabilityId}/issue_links/${linkId}`,
    vDev(200),
    {
      setup: async (fx, v) => {
        await ultimate(fx, v);
        const made = await send(
          fx,
          'POST',
          `${API}/vulnerabilities/${vulnerabilityId}/issue_links`,
          'root-api',
          {
            target_issue_iid: 1,
          },
        );
        linkId = (made.body as { id: number }).id;
      },
    },
  ),
  row(
    'POST /security/projects/:id/vulnerability_exports',
    (v) => `${API}/security/projects/g-${v}%2Fp/vulnerability_exports`,
    pDev(201),
  ),
  row(
    'POST /security/groups/:id/vulnerability_exports',
    (v) => `${API}/security/groups/g-${v}/vulnerability_exports`,
    gDev(201),
    {
      scope: 'group',
    },
  ),
  row(
    'POST /security/vulnerability_exports',
    () => `${API}/security/vulnerability_exports`,
    (c) => (c.anonymous ? U : [201]),
    {
      scope: 'instance',
    },
  ),
  // Not finished on a frozen clock: the author's answer is the 202.
  row(
    'GET /security/vulnerability_exports/:id',
    () => `${API}/security/vulnerability_exports/${exportId}`,
    author(202),
    {
      setup: (fx, v) => devExport(fx, v, false),
    },
  ),
  row(
    'GET /security/vulnerability_exports/:id/download',
    () => `${API}/security/vulnerability_exports/${exportId}/download`,
    author(200),
    { setup: (fx, v) => devExport(fx, v, true) },
  ),
];
