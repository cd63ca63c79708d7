/**
 * The request fuzzer: fast-check arbitraries for whole requests against every route of the route table
 * (wrong types, missing and extra params, huge values, invalid UTF-8 and percent-encoding, bad JSON and
 * multipart, deep `name[a][b][c]` nesting, very long paths, prototype keys such as `__proto__[x]`,
 * pathological Markdown, parameter counts past Rack's limits), and the invariants every answer must keep.
 */
import fc from 'fast-check';
import type { Fauxlab } from '../../src/app.js';
import type { RouteInfo } from '../../src/core/router.js';
import { cellFor, ENDPOINTS, expected, type Endpoint } from './endpoints.js';
import { ROLE_NAMES, ROLES, type Ids, type Role } from './matrix.js';
import { VISIBILITIES, type Visibility } from './world.js';

/**
 * 500s the platform itself gives, which a faithful mock reproduces (and nothing else is allowed to be a
 * 5xx): each entry is the method, a pattern of the path, what decides it, and why. The 13.x 500 for
 * `per_page=0` is mocked as a 400, which the reference allows, so it is not here.
 */
export const DOCUMENTED_500S: {
  method: string;
  path: RegExp;
  when: (r: FuzzRequest) => boolean;
  why: string;
}[] = [
  {
    method: 'POST',
    path: /^\/api\/v4\/features\/[^/]+$/,
    when: () => true,
    why:
      "a percentage outside 0..100: Flipper's ArgumentError, which features.rb (13.x) does not rescue " +
      '(src/resources/features/routes.ts reproduces it)',
  },
  {
    method: 'POST',
    path: /^\/api\/v4\/projects\/[^/]+\/deployments$/,
    when: () => true,
    why:
      'an environment name the model refuses: deployments.rb (13.12) then renders a variable it has not ' +
      'set (src/resources/deployments/routes.ts reproduces it)',
  },
  {
    method: 'POST',
    path: /^\/api\/v4\/projects\/[^/]+\/terraform\/state\/[^/]+(\/lock)?$/,
    when: () => true,
    why:
      "a state without a serial, a lock ID that is not the state's, a blank lock ID: NOT NULL, StateLockedError " +
      'and ArgumentError, which state.rb (13.12) rescues only on unlock (src/resources/terraform/routes.ts)',
  },
  {
    method: 'DELETE',
    path: /^\/api\/v4\/projects\/[^/]+\/terraform\/state\/[^/]+$/,
    when: () => true,
    why: "a lock ID that is not the state's: StateLockedError, unrescued on delete (src/resources/terraform/routes.ts)",
  },
  {
    method: 'PUT',
    path: /^\/api\/v4\/projects\/[^/]+\/packages\/npm\/.+$/,
    when: () => true,
    why:
      "a publish body whose attachments or versions are not objects: CreatePackageService's NoMethodError " +
      '(src/resources/packages/npm-routes.ts)',
  },
  {
    method: 'POST',
    path: /^\/api\/v4\/(projects\/[^/]+\/clusters\/user|groups\/[^/]+\/clusters\/user|admin\/clusters\/add)$/,
    when: () => true,
    why:
      'a name or environment scope past its varchar(255) column, which no validation of Clusters::Cluster ' +
      'bounds: the database refuses the insert (src/resources/clusters/routes.ts)',
  },
  {
    method: 'PUT',
    path: /^\/api\/v4\/(projects|groups)\/[^/]+\/clusters\/[^/]+$|^\/api\/v4\/admin\/clusters\/[^/]+$/,
    when: () => true,
    why: 'the same columns on update (src/resources/clusters/routes.ts)',
  },
  {
    method: 'POST',
    path: /^\/api\/v4\/clusters\/[^/]+\/metrics_dashboard\/annotations$/,
    when: () => true,
    why:
      "a group cluster's annotation on a dashboard file: the finder reads the repository of the cluster's " +
      'project, which a group cluster has not (src/resources/clusters/annotations.ts)',
  },
  {
    method: 'POST',
    path: /^\/api\/v4\/vulnerabilities\/[^/]+\/issue_links$/,
    when: () => true,
    why:
      "a link_type other than related or created: the enum's ArgumentError, which vulnerability_issue_links.rb " +
      '(13.12) does not rescue (src/resources/vulnerabilities/issue-links.ts)',
  },
];

const documented500 = (r: FuzzRequest) => {
  const path = new URL(r.url).pathname;
  return DOCUMENTED_500S.find((d) => d.method === r.method && d.path.test(path) && d.when(r));
};

const TOKENS = [
  undefined,
  'root-api',
  'owner-api',
  'dev-api',
  'dev-read',
  'outsider-api',
  'bogus',
  'dev-expired',
];

const PARAM_NAMES = [
  'title',
  'body',
  'description',
  'name',
  'path',
  'key',
  'value',
  'visibility',
  'per_page',
  'page',
  'labels',
  'assignee_ids',
  'assignee_id',
  'milestone_id',
  'state',
  'state_event',
  'confidential',
  'order_by',
  'sort',
  'search',
  'scope',
  'due_date',
  'created_after',
  'access_level',
  'user_id',
  'email',
  'username',
  'password',
  'namespace_id',
  'parent_id',
  'variable_type',
  'protected',
  'masked',
  'environment_scope',
  'ref',
  'variables',
  'iids',
  'approved_by_ids',
  'not',
  'in',
  'sudo',
  'expires_at',
  'scopes',
  'content',
  'file_name',
  'files',
  'file',
  'text',
  'gfm',
  'project',
  'feature_flag',
  'admin',
  'id',
  'iid',
  'noteable_id',
  'note_id',
  'tag_list',
  'topics',
  'default_branch',
  'archived',
  'simple',
];

/** Names that would reach `Object.prototype` through a params object that has one. */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
];

/** Texts micromark once took seconds over, or overflowed its stack on. */
const PATHOLOGICAL_MARKDOWN = [
  '*a'.repeat(25_000),
  '[a]('.repeat(20_000),
  '>'.repeat(3_000) + ' x',
  '- '.repeat(3_000) + 'x',
  '*'.repeat(5_000) + 'a' + '*'.repeat(5_000),
  '!['.repeat(2_000) + 'a' + '](b)'.repeat(2_000),
];

const hugeString = fc.constantFrom(
  'x'.repeat(70_000),
  'é'.repeat(5_000),
  '9'.repeat(400),
  ...PATHOLOGICAL_MARKDOWN,
);
const weirdString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'true',
    '-1',
    '0',
    '1e309',
    'NaN',
    '\u0000',
    '\ud800',
    '😀',
    '<script>',
    '%',
    '../..',
    'None',
    'Any',
  ),
  fc.integer().map(String),
  hugeString,
);
const scalar: fc.Arbitrary<unknown> = fc.oneof(
  weirdString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 2 ** 31, 1e300),
);
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    scalar,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...PARAM_NAMES, ...PROTOTYPE_KEYS, 'a', 'b'), tie('v'), { maxKeys: 4 }),
  ),
})).v;

const paramName = fc.oneof(
  fc.constantFrom(...PARAM_NAMES),
  fc.string({ maxLength: 12 }),
  // Deep Rack nesting: name[a][b][c]...
  fc
    .tuple(fc.constantFrom(...PARAM_NAMES), fc.integer({ min: 1, max: 40 }))
    .map(([n, d]) => n + '[a]'.repeat(d)),
  fc.constantFrom(
    'labels[]',
    'assignee_ids[]',
    'not[labels]',
    'variables[][key]',
    '[]',
    '[',
    'a]]',
    'x[][][]',
  ),
  fc.constantFrom(...PROTOTYPE_KEYS),
  fc
    .tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.constantFrom(...PARAM_NAMES, 'sudo', 'polluted'))
    .chain(([k, n]) =>
      fc.constantFrom(
        `${k}[${n}]`,
        `a[${k}][${n}]`,
        `a[][${k}][${n}]`,
        `${k}[prototype][${n}]`,
        `${n}[${k}]`,
      ),
    ),
);

const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80'; // a lone surrogate: invalid UTF-8 once decoded
  }
};

/** Raw query or form pairs, sometimes with broken percent-encoding. */
const rawPair = fc.oneof(
  fc.tuple(paramName, weirdString).map(([k, v]) => `${enc(k)}=${enc(v)}`),
  fc
    .tuple(paramName, fc.constantFrom('%', '%Z', '%C3%28', '%FF%FE', '%E2%82', '%00', '%ED%A0%80'))
    .map(([k, v]) => `${enc(k)}=${v}`),
  fc.constantFrom(
    '=',
    '&&',
    '==x',
    'a',
    '%=%',
    'per_page=0',
    'page=-5',
    'per_page=100000',
    'page=99999999999999999999',
    // Past Rack's params_limit (4,096) and key space (65,536 characters).
    'a=1&'.repeat(5_000) + 'a=1',
    `${'k'.repeat(70_000)}=1`,
  ),
);
const rawQuery = fc.array(rawPair, { maxLength: 6 }).map((p) => p.join('&'));

/** A path param: a value that exists in the reliability world, or garbage. */
const pathValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '1',
      '2',
      '3',
      'g-public%2Fp',
      'g-private%2Fp',
      'g-public',
      'SECRET_KEY',
      'owner',
      'issues',
      'main',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '0',
      '-1',
      '99999999999999999999',
      '1.5',
      '%',
      '%C3%28',
      '%2F',
      '..',
      '%00',
      'a'.repeat(5_000),
      '%ED%A0%80',
    ),
  },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 10 }).map(enc) },
);

/** How a request was made: garbage, plausible params on a real path, or a valid request (maybe mutated). */
export type FuzzKind = 'garbage' | 'plausible' | 'valid';

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
  kind?: FuzzKind;
}

const multipart = fc
  .tuple(fc.array(fc.tuple(paramName, weirdString), { maxLength: 4 }), fc.boolean())
  .map(([pairs, withFile]) => {
    const form = new FormData();
    for (const [k, v] of pairs) form.append(k, v);
    if (withFile) form.append('file', new Blob([new Uint8Array([0xff, 0xfe, 0x00, 0x41])]), 'a.bin');
    return form;
  });

type BodyPart = [contentType: string | undefined, body: FuzzRequest['body']];
const body: fc.Arbitrary<BodyPart> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constant<[string | undefined, FuzzRequest['body']]>([
      undefined,
      undefined,
    ]) as fc.Arbitrary<BodyPart>,
  },
  {
    weight: 4,
    arbitrary: fc
      .dictionary(fc.constantFrom(...PARAM_NAMES, ...PROTOTYPE_KEYS), jsonValue, { maxKeys: 6 })
      .map((o) => ['application/json', JSON.stringify(o)] as [string, string]) as fc.Arbitrary<BodyPart>,
  },
  {
    weight: 1,
    arbitrary: jsonValue.map(
      (v) => ['application/json', JSON.stringify(v) ?? ''] as [string, string],
    ) as fc.Arbitrary<BodyPart>,
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('{', '{"a":', '[1,2', 'nul', '{"a":1}}', '\u0000', '"x"')
      .map((t) => ['application/json', t] as [string, string]) as fc.Arbitrary<BodyPart>,
  },
  {
    weight: 2,
    arbitrary: rawQuery.map(
      (q) => ['application/x-www-form-urlencoded', q] as [string, string],
    ) as fc.Arbitrary<BodyPart>,
  },
  {
    weight: 1,
    arbitrary: multipart.map((f) => [undefined, f] as [undefined, FormData]) as fc.Arbitrary<BodyPart>,
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('--x\r\nbroken', '', '--\r\n\r\n')
      .map((t) => ['multipart/form-data; boundary=x', t] as [string, string]) as fc.Arbitrary<BodyPart>,
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'),
        fc.uint8Array({ maxLength: 64 }),
      )
      .map(([t, b]) => [t, b] as [string, Uint8Array]),
  },
);

/**
 * One request against one of `routes` (or a mangled path), with its method, params, body and token.
 * Given the matrix world's `ids`, most requests are built from the permission matrix's endpoints: a
 * real path, a valid body and a role the platform lets through, then mutated or not.
 */
export function requestArb(routes: RouteInfo[], ids?: Ids): fc.Arbitrary<FuzzRequest> {
  const route = fc.constantFrom(...routes);
  const path = fc.oneof(
    {
      weight: 12,
      arbitrary: route.chain((r) =>
        fc
          .tuple(fc.constant(r), fc.array(pathValue, { minLength: 8, maxLength: 8 }))
          .map(([r, vals]) => ({ method: r.method as string, path: `/api/v4${fillPath(r.path, vals)}` })),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(route, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'))
        .map(([r, m]) => ({ method: m, path: `/api/v4${fillPath(r.path, ['1', '1', '1', '1'])}` })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('GET', 'POST'),
          fc.constantFrom(
            '/api/v4/' + 'a/'.repeat(3000),
            '/api/v4/projects/' + '%'.repeat(100),
            '/api/v4//projects',
            '/api/v3/projects',
            '/__fauxlab/nothing',
            '/api/v4/projects/1/../../users',
            '/',
            '/api/v4/%C3%28',
          ),
        )
        .map(([m, p]) => ({ method: m, path: p })),
    },
  );
  const garbage = fc
    .record({
      target: path,
      query: rawQuery,
      body,
      token: fc.constantFrom(...TOKENS),
      sudo: fc.option(fc.constantFrom('dev', 'nobody', '1'), { freq: 8 }),
    })
    .map(({ target, query, body: [type, b], token, sudo }) => {
      const headers: Record<string, string> = {};
      if (token) headers['PRIVATE-TOKEN'] = token;
      if (sudo) headers.Sudo = sudo;
      if (type) headers['Content-Type'] = type;
      const noBody = target.method === 'GET' || target.method === 'HEAD';
      return {
        method: target.method,
        url: `http://localhost${target.path}${query ? `?${query}` : ''}`,
        headers,
        ...(!noBody && b !== undefined && { body: b }),
      };
    });
  const kinds: fc.WeightedArbitrary<FuzzRequest>[] = [
    { weight: 2, arbitrary: garbage.map((r): FuzzRequest => ({ ...r, kind: 'garbage' })) },
    { weight: 1, arbitrary: plausible(route).map((r): FuzzRequest => ({ ...r, kind: 'plausible' })) },
  ];
  if (ids) kinds.push({ weight: 5, arbitrary: validRequest(ids) });
  return fc.oneof(...kinds);
}

// ---- valid requests, from the permission matrix's endpoints -----------------------------------------

interface Target {
  e: Endpoint;
  vis: Visibility;
  role: Role;
}

/** Every (endpoint, visibility, role) the platform answers with a 2xx: the valid requests. */
function allowedTargets(): Target[] {
  const out: Target[] = [];
  for (const e of ENDPOINTS)
    for (const vis of e.scope === 'instance' ? (['public'] as const) : VISIBILITIES)
      for (const role of ROLE_NAMES) {
        const [status] = expected(e, cellFor(e, role, vis));
        if (status < 300) out.push({ e, vis, role });
      }
  return out;
}

/** Query params every list takes, and values of the common filters, as a client sends them. */
const listQuery = fc.dictionary(
  fc.constantFrom('per_page', 'page', 'order_by', 'sort', 'search', 'state', 'scope', 'simple'),
  fc.constantFrom(
    '1',
    '2',
    '5',
    '20',
    '100',
    'created_at',
    'updated_at',
    'id',
    'asc',
    'desc',
    'all',
    'opened',
    'true',
  ),
  { maxKeys: 3 },
);

type Mutation = 'none' | 'query' | 'unknown' | 'value' | 'drop' | 'role';
const mutation = fc.constantFrom<Mutation>(
  ...([
    'none',
    'none',
    'none',
    'none',
    'none',
    'query',
    'query',
    'unknown',
    'value',
    'drop',
    'role',
  ] as const),
);

function validRequest(ids: Ids): fc.Arbitrary<FuzzRequest> {
  const targets = allowedTargets();
  return fc
    .record({
      t: fc.constantFrom(...targets),
      m: mutation,
      query: listQuery,
      value: scalar,
      role: fc.constantFrom(...ROLE_NAMES),
      pick: fc.nat(),
    })
    .map(({ t, m, query, value, role, pick }) => {
      const method = t.e.route.split(' ')[0]!;
      const who = m === 'role' ? role : t.role;
      const token = ROLES[who].token;
      let body = t.e.body?.(t.vis, ids);
      let q = m === 'query' && method === 'GET' ? new URLSearchParams(query).toString() : '';
      if (m === 'unknown') q = 'fuzz_unknown_param=1';
      if (body !== undefined && !(body instanceof FormData) && (m === 'value' || m === 'drop')) {
        const o = { ...(body as Record<string, unknown>) };
        const keys = Object.keys(o);
        const k = keys[pick % Math.max(1, keys.length)];
        if (k !== undefined) {
          if (m === 'drop') delete o[k];
          else o[k] = value;
        }
        body = o;
      }
      const headers: Record<string, string> = {};
      if (token) headers['PRIVATE-TOKEN'] = token;
      const form = body instanceof FormData;
      if (body !== undefined && !form) headers['Content-Type'] = 'application/json';
      return {
        kind: 'valid' as const,
        method,
        url: `http://localhost${t.e.path(t.vis, ids, who)}${q ? `?${q}` : ''}`,
        headers,
        ...(body !== undefined && { body: form ? (body as FormData) : JSON.stringify(body) }),
      };
    });
}

const plausibleValue = fc.oneof(
  fc.constantFrom(
    't',
    'hello world',
    'public',
    'private',
    'internal',
    'opened',
    'closed',
    'close',
    'reopen',
    '30',
    '40',
    '1',
    '2',
    'true',
    'false',
    'created_at',
    'updated_at',
    'desc',
    'asc',
    '2021-03-01',
    'bug,docs',
    'KEY_1',
    'api',
    'owner',
    'all',
    'issues',
  ),
  fc.integer({ min: 1, max: 12 }),
  fc.boolean(),
);

/**
 * Requests a client could well send: real paths of the world, privileged tokens, params of the right
 * kind. They get past validation into the handlers, where successful writes change the state as the run
 * goes on.
 */
function plausible(route: fc.Arbitrary<RouteInfo>): fc.Arbitrary<FuzzRequest> {
  const ids = fc.constantFrom(
    '1',
    '2',
    '3',
    'g-public%2Fp',
    'g-private%2Fp',
    'g-public',
    'SECRET_KEY',
    'owner',
  );
  return fc
    .record({
      r: route,
      vals: fc.array(ids, { minLength: 8, maxLength: 8 }),
      params: fc.dictionary(fc.constantFrom(...PARAM_NAMES), plausibleValue, { maxKeys: 4 }),
      token: fc.constantFrom('root-api', 'owner-api', 'maint-api', 'dev-api', 'guest-api'),
    })
    .map(({ r, vals, params, token }) => {
      const path = `/api/v4${fillPath(r.path, vals)}`;
      const read = r.method === 'GET';
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
      return {
        method: r.method,
        url: `http://localhost${path}${read && query ? `?${query}` : ''}`,
        headers: { 'PRIVATE-TOKEN': token, ...(!read && { 'Content-Type': 'application/json' }) },
        ...(!read && { body: JSON.stringify(params) }),
      };
    });
}

function fillPath(pattern: string, values: string[]): string {
  let i = 0;
  return pattern.replace(/:[A-Za-z_]+/g, () => values[i++ % values.length]!);
}

const isStr = (v: unknown) => typeof v === 'string';

/** Whether a parsed error body has one of the platform's shapes. */
export function isPlatformErrorBody(status: number, body: unknown): boolean {
  if (status === 304) return body === undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body).sort().join(',');
  const b = body as Record<string, unknown>;
  if (keys === 'message') return isStr(b.message) || (typeof b.message === 'object' && b.message !== null);
  // `error!(project.errors[:limit_reached], 403)` hands Grape an array: `{"error":["…"]}`.
  if (keys === 'error') return isStr(b.error) || (Array.isArray(b.error) && b.error.every(isStr));
  if (keys === 'error,error_description') return isStr(b.error) && isStr(b.error_description);
  if (keys === 'error,error_description,scope')
    return isStr(b.error) && isStr(b.error_description) && isStr(b.scope);
  return false;
}

/**
 * A file inside an artifacts archive is served by Workhorse, not by the API: an entry the archive does not
 * hold is Go's plain `404 page not found`, not a JSON body.
 */
function workhorseNotFound(r: FuzzRequest, status: number, text: string): boolean {
  if (status !== 404 || text !== '404 page not found\n') return false;
  const path = new URL(r.url).pathname;
  return /\/jobs\/[^/]+\/artifacts\/./.test(path) || /\/jobs\/artifacts\/[^/]+\/raw\//.test(path);
}

export interface Outcome {
  status: number;
  problem?: string;
}

/** Sends one request and checks the invariants; returns a problem description or nothing. */
export async function sendAndCheck(fx: Fauxlab, r: FuzzRequest, crashes: unknown[]): Promise<Outcome> {
  const before = fx.state;
  const crashesBefore = crashes.length;
  const res = await fx.fetch(
    new Request(r.url, { method: r.method, headers: r.headers, body: r.body as BodyInit | undefined }),
  );
  const text = await res.text();
  const status = res.status;
  if (status >= 500) {
    const ok = status === 500 && documented500(r) && text === '{"message":"500 Internal Server Error"}';
    if (!ok)
      return {
        status,
        problem: `status ${status}: ${text.slice(0, 300)} ${String(crashes[crashesBefore] ?? '')}`,
      };
    if (fx.state !== before) return { status, problem: 'a documented 500 changed the state' };
    return { status };
  }
  if (workhorseNotFound(r, status, text))
    return fx.state === before ? { status } : { status, problem: 'a 404 changed the state' };
  if (status >= 300 && status !== 302) {
    let parsed: unknown;
    if (text !== '' && r.method !== 'HEAD') {
      try {
        parsed = JSON.parse(text);
      } catch {
        return { status, problem: `status ${status} with a body that is not JSON: ${text.slice(0, 200)}` };
      }
    }
    const okEmpty = r.method === 'HEAD' || status === 304 || status === 204;
    // state.rb's unlock rescues StateLockedError with a bare `status :conflict`, whose value (409) Grape
    // renders as the body (src/resources/terraform/routes.ts).
    const unlockConflict =
      r.method === 'DELETE' &&
      /\/terraform\/state\/[^/]+\/lock$/.test(new URL(r.url).pathname) &&
      text === '409';
    if (
      !(okEmpty && text === '') &&
      !(status === 409 && unlockConflict) &&
      !isPlatformErrorBody(status, parsed)
    )
      return { status, problem: `status ${status} with a body of no platform shape: ${text.slice(0, 200)}` };
    if (status >= 400 && fx.state !== before)
      return { status, problem: `status ${status} but the state changed` };
  }
  return { status };
}
