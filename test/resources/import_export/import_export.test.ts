import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { state, write } from '../../../src/core/context.js';
import { iget, tget, tvalues } from '../../../src/core/table.js';
import { createLabel } from '../../../src/resources/issuables/model.js';
import { fileStore } from '../../../src/resources/import_export/store.js';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { tarGz, untar } from './tar.js';

const tok = (token: string) => [{ token, scopes: ['api'] as ['api'] }];
const T0 = Date.parse('2021-03-01T12:00:00.000Z');

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: tok('root') },
    { username: 'owner', name: 'Olive Owner', email: 'olive@example.com', tokens: tok('owner') },
    { username: 'dev', name: 'Dev User', email: 'dev@example.com', tokens: tok('dev') },
    { username: 'guest', name: 'Guest User', tokens: tok('guest') },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [
        { username: 'owner', access_level: 'owner' },
        { username: 'dev', access_level: 'developer' },
      ],
    },
    { path: 'beta', visibility: 'private', members: [{ username: 'owner', access_level: 'owner' }] },
  ],
  projects: [
    {
      path: 'acme/app',
      visibility: 'private',
      creator: 'owner',
      description: 'The app',
      variables: [
        { key: 'DEPLOY_TOKEN', value: 'sekret-value', masked: true, protected: true },
        { key: 'CONFIG', value: 'a: 1', variable_type: 'file' },
      ],
    },
  ],
};

const APP = '/api/v4/projects/acme%2Fapp';

/** An instance with a test-only route that makes a group label (the API has no label endpoints). */
const world = (s: ScenarioFile = scenario) =>
  createFauxlab({
    scenario: s,
    routes: (r) =>
      r.post('/test/groups/:id/labels', (c) => {
        const gid = iget(state(c).idx.namespaces, c.req.param('id') ?? '')!;
        const body = c.get('params') as { title: string; color?: string };
        const id = write(c, (d) =>
          createLabel(
            d,
            { group_id: gid },
            { title: body.title, color: body.color },
            c.get('fx').clock.iso(),
          ),
        );
        return c.json({ id }, 201);
      }),
  });

async function call(fx: Fauxlab, method: string, path: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers['PRIVATE-TOKEN'] = token;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  return fx.app.request(path.startsWith('/') ? path : `/api/v4/${path}`, { method, headers, body: payload });
}
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const get = async (fx: Fauxlab, path: string, token = 'owner') => json(await call(fx, 'GET', path, token));
const getAny = async (fx: Fauxlab, path: string, token = 'owner') =>
  (await (await call(fx, 'GET', path, token)).json()) as unknown;
const advance = (fx: Fauxlab, ms: number) => fx.clock.advance(ms);
const elapsed = (fx: Fauxlab) => fx.clock.ms() - T0;

async function exported(fx: Fauxlab, project = APP): Promise<Buffer> {
  expect((await call(fx, 'POST', `${project}/export`, 'owner')).status).toBe(202);
  advance(fx, 3000);
  const res = await call(fx, 'GET', `${project}/export/download`, 'owner');
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

function importForm(bytes: Buffer | Uint8Array, fields: Record<string, string>, filename = 'export.tar.gz') {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/gzip' }), filename);
  return form;
}

async function startImport(
  fx: Fauxlab,
  bytes: Buffer | Uint8Array,
  fields: Record<string, string>,
  token = 'owner',
): Promise<Record<string, unknown>> {
  const res = await call(fx, 'POST', 'projects/import', token, importForm(bytes, fields));
  expect(res.status).toBe(201);
  return json(res);
}

/** The files of a tar.gz, as text (the binary git bundle as latin1, so that `tarGzText` restores its bytes). */
async function untarText(bytes: Buffer): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [name, body] of await untar(bytes))
    out.set(name, body.toString(name === 'project.bundle' ? 'latin1' : 'utf8'));
  return out;
}

/** A tar.gz of the given text files (for archives fauxlab did not write). */
const tarGzText = (files: Record<string, string>) =>
  tarGz(
    Object.entries(files).map(([name, body]): [string, Buffer | string] => [
      name,
      name === 'project.bundle' ? Buffer.from(body, 'latin1') : body,
    ]),
  );

const ndjson = (text: string | undefined) =>
  (text ?? '')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const IDENTITY_KEYS = [
  'id',
  'description',
  'name',
  'name_with_namespace',
  'path',
  'path_with_namespace',
  'created_at',
];

describe('project export', () => {
  it('GET /projects/:id/export: none, then queued, started and finished as the clock passes each step; _links only when finished', async () => {
    const fx = world();
    const status = () => get(fx, `${APP}/export`);
    const none = await status();
    expect(Object.keys(none)).toEqual([...IDENTITY_KEYS, 'export_status']);
    expect(none).toMatchObject({ export_status: 'none', name_with_namespace: 'acme / app' });
    const res = await call(fx, 'POST', `${APP}/export`, 'owner');
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ message: '202 Accepted' });
    const seen: [number, unknown, boolean][] = [];
    for (const step of [0, 999, 1, 1999, 1]) {
      advance(fx, step);
      const s = await status();
      seen.push([elapsed(fx), s.export_status, '_links' in s]);
    }
    expect(seen).toEqual([
      [0, 'queued', false],
      [999, 'queued', false],
      [1000, 'started', false],
      [2999, 'started', false],
      [3000, 'finished', true],
    ]);
    expect((await status())._links).toEqual({
      api_url: 'http://localhost/api/v4/projects/1/export/download',
      web_url: 'http://localhost/acme/app/download_export',
    });
  });

  it('POST /projects/:id/export: the archive is the project as it was when the export started, not when it was asked for', async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/export`, 'owner');
    await call(fx, 'POST', 'projects/1/issues', 'owner', { title: 'while queued' });
    advance(fx, 1000);
    expect((await get(fx, `${APP}/export`)).export_status).toBe('started');
    await call(fx, 'POST', 'projects/1/issues', 'owner', { title: 'while started' });
    advance(fx, 2000);
    const files = await untarText(
      Buffer.from(await (await call(fx, 'GET', `${APP}/export/download`, 'owner')).arrayBuffer()),
    );
    expect(ndjson(files.get('tree/project/issues.ndjson')).map((i) => i.title)).toEqual(['while queued']);
  });

  it('POST /projects/:id/export: a new export while a file exists removes it (remove_exports) and is regeneration_in_progress until its file is ready', async () => {
    const fx = world();
    const first = await exported(fx);
    await call(fx, 'POST', 'projects/1/issues', 'owner', { title: 'added later' });
    expect((await call(fx, 'POST', `${APP}/export`, 'owner')).status).toBe(202);
    const seen: [number, unknown, boolean, number, unknown][] = [];
    for (const step of [0, 999, 1, 1999]) {
      advance(fx, step);
      const s = await get(fx, `${APP}/export`);
      const during = await call(fx, 'GET', `${APP}/export/download`, 'owner');
      seen.push([elapsed(fx) - 3000, s.export_status, '_links' in s, during.status, await during.json()]);
    }
    const notYet = { message: 'The project export file is not available yet' };
    expect(seen).toEqual([
      [0, 'regeneration_in_progress', false, 404, notYet],
      [999, 'regeneration_in_progress', false, 404, notYet],
      [1000, 'regeneration_in_progress', false, 404, notYet],
      [2999, 'regeneration_in_progress', false, 404, notYet],
    ]);
    advance(fx, 1);
    const done = await get(fx, `${APP}/export`);
    expect(done.export_status).toBe('finished');
    expect(done._links).toBeDefined();
    const after = Buffer.from(await (await call(fx, 'GET', `${APP}/export/download`, 'owner')).arrayBuffer());
    expect(after.equals(first)).toBe(false);
    expect(ndjson((await untarText(after)).get('tree/project/issues.ndjson')).map((i) => i.title)).toEqual([
      'added later',
    ]);
    // A second request during that export finds no file any more: a plain export, not a regeneration.
    expect((await call(fx, 'POST', `${APP}/export`, 'owner')).status).toBe(202);
    expect((await call(fx, 'POST', `${APP}/export`, 'owner')).status).toBe(202);
    expect((await get(fx, `${APP}/export`)).export_status).toBe('queued');
  });

  it('POST /projects/:id/export: a request while one is under way starts over; the superseded one never finishes', async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/export`, 'owner');
    advance(fx, 1500);
    expect((await get(fx, `${APP}/export`)).export_status).toBe('started');
    await call(fx, 'POST', `${APP}/export`, 'owner');
    expect((await get(fx, `${APP}/export`)).export_status).toBe('queued');
    advance(fx, 1500);
    // The first export would have finished now.
    expect((await get(fx, `${APP}/export`)).export_status).toBe('started');
    advance(fx, 1500);
    expect((await get(fx, `${APP}/export`)).export_status).toBe('finished');
  });

  it('GET /projects/:id/export/download: 404 bodies before any export and while the first one runs; the file with the platform name once finished', async () => {
    const fx = world();
    const none = await call(fx, 'GET', `${APP}/export/download`, 'owner');
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ message: '404 Not found or has expired' });
    await call(fx, 'POST', `${APP}/export`, 'owner');
    for (const step of [0, 1000, 1999]) {
      advance(fx, step);
      const pending = await call(fx, 'GET', `${APP}/export/download`, 'owner');
      expect(pending.status).toBe(404);
      expect(await pending.json()).toEqual({ message: 'The project export file is not available yet' });
    }
    advance(fx, 1);
    const ok = await call(fx, 'GET', `${APP}/export/download`, 'owner');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('Content-Type')).toBe('application/gzip');
    expect(ok.headers.get('Content-Disposition')).toBe(
      `attachment; filename="2021-03-01_12-00-000_acme_app_export.tar.gz"; filename*=UTF-8''2021-03-01_12-00-000_acme_app_export.tar.gz`,
    );
    const tar = gunzipSync(Buffer.from(await ok.arrayBuffer()));
    expect(tar.subarray(0, 7).toString()).toBe('VERSION');
  });

  it('GET /projects/:id/export/download: a long path is cut to the platform file name limit', async () => {
    const long = 'a-very-long-project-path-that-goes-on-and-on';
    const fx = world({
      ...scenario,
      projects: [{ path: `acme/${long}`, creator: 'owner' }],
    });
    const res = await call(fx, 'POST', `projects/acme%2F${long}/export`, 'owner');
    expect(res.status).toBe(202);
    advance(fx, 3000);
    const dl = await call(fx, 'GET', `projects/acme%2F${long}/export/download`, 'owner');
    expect(dl.headers.get('Content-Disposition')).toContain(
      'filename="2021-03-01_12-00-000_acme_a-very-long-project-path-_export.tar.gz"',
    );
  });

  it('export endpoints: maintainers and up; 401 anonymous, 403 developers, 404 unknown', async () => {
    const fx = world();
    for (const [m, path] of [
      ['GET', `${APP}/export`],
      ['POST', `${APP}/export`],
      ['GET', `${APP}/export/download`],
    ] as const) {
      const anon = await call(fx, m, path);
      expect(anon.status).toBe(401);
      expect(await anon.json()).toEqual({ message: '401 Unauthorized' });
      const dev = await call(fx, m, path, 'dev');
      expect(dev.status).toBe(403);
      expect(await dev.json()).toEqual({ message: '403 Forbidden' });
      const unknown = await call(fx, m, path.replace('acme%2Fapp', '999'), 'owner');
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ message: '404 Project Not Found' });
    }
  });

  it('export endpoints: 404 when project export is switched off; access is checked before the params', async () => {
    const fx = world();
    const bad = { upload: { http_method: 'GET' } };
    const dev = await call(fx, 'POST', `${APP}/export`, 'dev', bad);
    expect(dev.status).toBe(403);
    expect(
      (await call(fx, 'PUT', 'application/settings', 'root', { project_export_enabled: false })).status,
    ).toBe(200);
    for (const [m, path] of [
      ['GET', `${APP}/export`],
      ['POST', `${APP}/export`],
      ['GET', `${APP}/export/download`],
    ] as const) {
      const res = await call(fx, m, path, 'owner', m === 'POST' ? bad : undefined);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: '404 Not Found' });
    }
  });

  it('POST /projects/:id/export: an empty upload group (go-gitlab sends upload: {}) is no upload, 202', async () => {
    const fx = world();
    const res = await call(fx, 'POST', `${APP}/export`, 'owner', { upload: {} });
    expect([res.status, await res.json()]).toEqual([202, { message: '202 Accepted' }]);
    expect((await get(fx, `${APP}/export`)).export_status).toBe('queued');
  });

  it('POST /projects/:id/export: upload[url] is required with upload, http_method is PUT or POST', async () => {
    const fx = world();
    const a = await call(fx, 'POST', `${APP}/export`, 'owner', { upload: { http_method: 'PUT' } });
    expect(a.status).toBe(400);
    expect(await a.json()).toEqual({ error: 'upload[url] is missing' });
    const b = await call(fx, 'POST', `${APP}/export`, 'owner', {
      upload: { url: 'http://x', http_method: 'GET' },
    });
    expect(b.status).toBe(400);
    expect(await b.json()).toEqual({ error: 'upload[http_method] does not have a valid value' });
    expect((await get(fx, `${APP}/export`)).export_status).toBe('none');
  });

  it('POST /projects/:id/export: description overrides the project description in the archive', async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/export`, 'owner', { description: 'Exported copy' });
    advance(fx, 3000);
    const bytes = Buffer.from(await (await call(fx, 'GET', `${APP}/export/download`, 'owner')).arrayBuffer());
    expect(JSON.parse((await untarText(bytes)).get('tree/project.json')!)).toMatchObject({
      description: 'Exported copy',
    });
    const { id } = await startImport(fx, bytes, { path: 'copy', namespace: 'acme' });
    advance(fx, 3000);
    expect((await get(fx, `projects/${id}`)).description).toBe('Exported copy');
    expect((await get(fx, APP)).description).toBe('The app');
  });

  it('DELETE /projects/:id: a pending export is dropped with its jobs', async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/export`, 'owner');
    expect(fx.state.jobs.length).toBe(1);
    expect((await call(fx, 'DELETE', APP, 'owner')).status).toBe(202);
    expect(fx.state.jobs).toEqual([]);
  });

  it('the archive: VERSION, project attributes, relations with users by reference, repository refs; no CI variables, as on the platform', async () => {
    const fx = world({
      ...scenario,
      projects: [
        {
          ...scenario.projects![0]!,
          branches: ['feature'],
          members: [{ username: 'guest', access_level: 'reporter' }],
          issues: [
            {
              title: 'bug',
              author: 'dev',
              award_emoji: [{ name: 'thumbsup', user: 'owner' }],
              notes: [{ body: 'a note', author: 'dev' }],
            },
          ],
          merge_requests: [{ title: 'MR', source_branch: 'feature', author: 'dev' }],
        },
      ],
    });
    const files = await untarText(await exported(fx));
    expect([...files.keys()]).toEqual([
      'VERSION',
      'GITLAB_VERSION',
      'tree/project.json',
      'tree/project/labels.ndjson',
      'tree/project/milestones.ndjson',
      'tree/project/project_members.ndjson',
      'tree/project/issues.ndjson',
      'tree/project/merge_requests.ndjson',
      'tree/project/snippets.ndjson',
      'tree/project/ci_pipelines.ndjson',
      'repository.json',
      'project.bundle',
    ]);
    expect(files.get('VERSION')).toBe('0.2.4\n');
    const project = JSON.parse(files.get('tree/project.json')!) as Record<string, unknown>;
    expect(project).toMatchObject({
      description: 'The app',
      visibility: 'private',
      default_branch: 'master',
    });
    for (const k of ['id', 'name', 'path', 'runners_token', 'creator_id', 'created_at', 'import_status'])
      expect(project, k).not.toHaveProperty(k);
    expect(ndjson(files.get('tree/project/project_members.ndjson'))).toEqual([
      {
        user: { username: 'guest', email: 'guest@example.com' },
        access_level: 20,
        expires_at: null,
        created_at: '2021-03-01T12:00:00.000Z',
      },
    ]);
    const [issue] = ndjson(files.get('tree/project/issues.ndjson'));
    expect(issue).toMatchObject({
      iid: 1,
      author: { username: 'dev', email: 'dev@example.com' },
      award_emoji: [{ name: 'thumbsup', user: { username: 'owner', email: 'olive@example.com' } }],
      notes: [{ body: 'a note', author: { username: 'dev', email: 'dev@example.com' }, award_emoji: [] }],
    });
    const [mr] = ndjson(files.get('tree/project/merge_requests.ndjson'));
    expect(mr).toMatchObject({ source_branch: 'feature', target_branch: 'master' });
    const diffs = mr!.merge_request_diffs as Record<string, unknown>[];
    expect(diffs).toHaveLength(1);
    expect(diffs[0]!.head_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(JSON.parse(files.get('repository.json')!).branches as object).sort()).toEqual([
      'feature',
      'master',
    ]);
    expect([...files.values()].join('\n')).not.toContain('sekret-value');
    expect([...files.values()].join('\n')).not.toContain('DEPLOY_TOKEN');
  });
});

describe('export upload', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  async function receiver(status = 200) {
    const got: { method: string; type: string | undefined; body: Buffer }[] = [];
    server = createServer((req: IncomingMessage, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        got.push({ method: req.method!, type: req.headers['content-type'], body: Buffer.concat(parts) });
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/put-here`, got };
  }
  /** Receivers on 127.0.0.1: local requests allowed, as users configure them. */
  const localWorld = () =>
    world({ ...scenario, settings: { allow_local_requests_from_web_hooks_and_services: true } });
  const uploads = async (fx: Fauxlab) =>
    (await (await fx.app.request('/__fauxlab/export_uploads?wait=true')).json()) as Record<string, unknown>[];

  it('upload[url]: the archive is sent with PUT and application/gzip once the export finishes', async () => {
    const fx = localWorld();
    const { url, got } = await receiver();
    await call(fx, 'POST', `${APP}/export`, 'owner', { upload: { url } });
    expect((await uploads(fx))[0]).toMatchObject({ status: 'waiting', due_at: '2021-03-01T12:00:03.000Z' });
    advance(fx, 2999);
    expect((await uploads(fx))[0]!.status).toBe('waiting');
    expect(got).toEqual([]);
    advance(fx, 1);
    expect((await uploads(fx))[0]).toMatchObject({
      status: 'uploaded',
      method: 'PUT',
      response_status: 200,
      url,
    });
    const archive = Buffer.from(
      await (await call(fx, 'GET', `${APP}/export/download`, 'owner')).arrayBuffer(),
    );
    expect(got).toHaveLength(1);
    expect(got[0]!.method).toBe('PUT');
    expect(got[0]!.type).toBe('application/gzip');
    expect(got[0]!.body.equals(archive)).toBe(true);
  });

  it('upload[http_method]=POST; a 5xx receiver is retried three times, then failed', async () => {
    const fx = localWorld();
    const { url, got } = await receiver(503);
    await call(fx, 'POST', `${APP}/export`, 'owner', { upload: { url, http_method: 'POST' } });
    advance(fx, 3000);
    const [log] = await uploads(fx);
    expect(log).toMatchObject({ status: 'failed', method: 'POST', response_status: 503 });
    expect(log!.attempts).toHaveLength(3);
    expect(got.map((g) => g.method)).toEqual(['POST', 'POST', 'POST']);
  });

  it('upload[url]: a newer export supersedes the upload its predecessor waited for', async () => {
    const fx = localWorld();
    const { url, got } = await receiver();
    await call(fx, 'POST', `${APP}/export`, 'owner', { upload: { url } });
    advance(fx, 500);
    await call(fx, 'POST', `${APP}/export`, 'owner', { upload: { url: `${url}/2` } });
    advance(fx, 3000);
    const log = await uploads(fx);
    expect(log.map((l) => l.status)).toEqual(['failed', 'uploaded']);
    expect(got).toHaveLength(1);
  });
});

describe('project import', () => {
  it('POST /projects/import: 201 scheduled; the import and the project report scheduled, started and finished on the clock, and its content appears only when finished', async () => {
    const fx = world({
      ...scenario,
      projects: [{ ...scenario.projects![0]!, issues: [{ title: 'bug' }], milestones: [{ title: 'v1' }] }],
    });
    const bytes = await exported(fx);
    const created = await startImport(fx, bytes, { path: 'copy', namespace: 'acme' });
    expect(Object.keys(created)).toEqual([
      ...IDENTITY_KEYS,
      'import_status',
      'correlation_id',
      'failed_relations',
    ]);
    expect(created).toMatchObject({
      import_status: 'scheduled',
      path_with_namespace: 'acme/copy',
      name: 'copy',
      description: '',
      failed_relations: [],
    });
    expect(created.correlation_id).toMatch(/^[0-9a-f]{32}$/);
    const id = created.id as number;
    const seen: unknown[][] = [];
    for (const step of [0, 999, 1, 1999, 1]) {
      advance(fx, step);
      const imp = await get(fx, `projects/${id}/import`);
      const project = await get(fx, `projects/${id}`);
      const issues = (await getAny(fx, `projects/${id}/issues`)) as unknown[];
      const milestones = (await getAny(fx, `projects/${id}/milestones`)) as unknown[];
      seen.push([
        elapsed(fx) - 3000,
        imp.import_status,
        project.import_status,
        project.description,
        issues.length,
        milestones.length,
      ]);
      expect(imp.correlation_id).toBe(created.correlation_id);
    }
    expect(seen).toEqual([
      [0, 'scheduled', 'scheduled', '', 0, 0],
      [999, 'scheduled', 'scheduled', '', 0, 0],
      [1000, 'started', 'started', '', 0, 0],
      [2999, 'started', 'started', '', 0, 0],
      [3000, 'finished', 'finished', 'The app', 1, 1],
    ]);
    expect((await get(fx, `projects/${id}`)).import_error).toBeNull();
    expect(await get(fx, APP)).toMatchObject({ import_status: 'none' });
    expect(Object.keys(await get(fx, APP + '/import'))).toEqual([
      ...IDENTITY_KEYS,
      'import_status',
      'correlation_id',
      'failed_relations',
    ]);
  });

  it('POST /projects/import: the project lists the namespace of the importer by default, and the import delays are configurable', async () => {
    const fx = world();
    const bytes = await exported(fx);
    const put = await fx.app.request('/__fauxlab/import_export', {
      method: 'PUT',
      body: JSON.stringify({ import_scheduled_ms: '5s', import_started_ms: 100 }),
    });
    expect(put.status).toBe(200);
    const created = await startImport(fx, bytes, { path: 'mine' });
    expect(created.path_with_namespace).toBe('owner/mine');
    advance(fx, 4999);
    expect((await get(fx, `projects/${created.id}/import`)).import_status).toBe('scheduled');
    advance(fx, 1);
    expect((await get(fx, `projects/${created.id}/import`)).import_status).toBe('started');
    advance(fx, 100);
    expect((await get(fx, `projects/${created.id}/import`)).import_status).toBe('finished');
  });

  const failing: [string, () => Promise<Buffer>, string][] = [
    [
      'not gzip',
      async () => Buffer.from('not a gzip'),
      'Unable to decompress the archive: it is not a gzip-compressed file',
    ],
    [
      'gzip, not tar',
      async () => gzipSync(Buffer.from('x'.repeat(600))),
      'Unable to extract the archive: it is not a tar file',
    ],
    ['no VERSION', async () => gzipSync(Buffer.alloc(1024)), 'Invalid archive: the VERSION file is missing'],
    [
      'another version',
      () => tarGzText({ VERSION: '0.2.3\n', 'tree/project.json': '{}' }),
      'Import version mismatch: Required 0.2.4 but was 0.2.3',
    ],
    [
      'no project.json',
      () => tarGzText({ VERSION: '0.2.4' }),
      'Invalid archive: tree/project.json is missing',
    ],
    [
      'project.json not JSON',
      () => tarGzText({ VERSION: '0.2.4', 'tree/project.json': '{' }),
      'Invalid archive: tree/project.json is not valid JSON',
    ],
    [
      'a relation line not JSON',
      () =>
        tarGzText({
          VERSION: '0.2.4',
          'tree/project.json': '{}',
          'tree/project/issues.ndjson': '{"title":"a"}\nnope\n',
        }),
      'Invalid archive: line 2 of tree/project/issues.ndjson is not valid JSON',
    ],
  ];
  for (const [what, archive, message] of failing)
    it(`POST /projects/import: a corrupt or foreign archive (${what}) ends in failed with import_error and writes nothing`, async () => {
      const fx = world();
      const created = await startImport(fx, await archive(), { path: 'bad', namespace: 'acme' });
      const id = created.id as number;
      advance(fx, 2999);
      expect((await get(fx, `projects/${id}/import`)).import_status).toBe('started');
      const before = fx.state;
      advance(fx, 1);
      const after = fx.state;
      const st = await get(fx, `projects/${id}/import`);
      const error = `Error importing repository  into acme/bad - ${message}`;
      expect(st).toMatchObject({ import_status: 'failed', import_error: error, failed_relations: [] });
      expect(Object.keys(st).slice(-2)).toEqual(['failed_relations', 'import_error']);
      expect(await get(fx, `projects/${id}`)).toMatchObject({ import_status: 'failed', import_error: error });
      // Nothing but the import's own state changed: the content tables are the very same objects.
      for (const k of ['issuables', 'members', 'refs', 'pipelines', 'variables', 'groups', 'stars'] as const)
        expect(after[k], k).toBe(before[k]);
      expect(after.jobs).toEqual([]);
    });

  it('POST /projects/import: an import whose finishing step crashes ends in failed, not started for ever', async () => {
    const logged: string[] = [];
    const fx = createFauxlab({ scenario, logger: (msg) => logged.push(msg) });
    const bytes = await exported(fx);
    const { id } = await startImport(fx, bytes, { path: 'copy', namespace: 'acme' });
    // The stored archive makes the reader throw something it does not expect (a bug, say).
    const rec = tget(fx.state.importExport.imports, id as number)!;
    const stored = fileStore(fx.clock).get(rec.file_id)!;
    const boom = {
      toString: () => {
        throw new Error('boom');
      },
    };
    Object.assign(stored, { files: new Map([['VERSION', boom]]) });
    advance(fx, 3000);
    const st = await get(fx, `projects/${id}/import`);
    expect(st).toMatchObject({
      import_status: 'failed',
      import_error: 'Error importing repository  into acme/copy - The import could not be completed',
    });
    expect(logged.filter((m) => m.includes('project_import.finish'))).toHaveLength(1);
    expect(((await getAny(fx, `projects/${id}/issues`)) as unknown[]).length).toBe(0);
  });

  it('POST /projects/import: a failed import leaves the project shell, as the platform does; it can be deleted', async () => {
    const fx = world();
    const { id } = await startImport(fx, Buffer.from('junk'), { path: 'bad', namespace: 'acme' });
    advance(fx, 3000);
    expect((await get(fx, `projects/${id}`)).path_with_namespace).toBe('acme/bad');
    expect((await call(fx, 'DELETE', `projects/${id}`, 'owner')).status).toBe(202);
  });

  it('POST /projects/import: errors: 401, missing params, invalid file, taken path, unknown or forbidden namespace, bad override, too large', async () => {
    const fx = world();
    const bytes = await exported(fx);
    const post = (fields: Record<string, string>, token: string | null = 'owner', name?: string) =>
      call(fx, 'POST', 'projects/import', token ?? undefined, importForm(bytes, fields, name));
    const expectError = async (res: Promise<Response>, status: number, body: unknown) => {
      const r = await res;
      expect(r.status).toBe(status);
      expect(await r.json()).toEqual(body);
    };
    await expectError(post({ path: 'x' }, null), 401, { message: '401 Unauthorized' });
    await expectError(post({}), 400, { error: 'path is missing' });
    const noFile = new FormData();
    noFile.append('path', 'x');
    await expectError(call(fx, 'POST', 'projects/import', 'owner', noFile), 400, {
      error: 'file is missing',
    });
    await expectError(post({ path: 'x' }, 'owner', 'export.txt'), 400, { message: 'The file is invalid' });
    await expectError(post({ path: 'app', namespace: 'acme' }), 400, {
      message: 'Name has already been taken',
    });
    await expectError(post({ path: 'x', namespace: 'nope' }), 404, { message: '404 Namespace Not Found' });
    await expectError(post({ path: 'x', namespace: 'beta' }, 'dev'), 404, {
      message: '404 Namespace Not Found',
    });
    await expectError(post({ path: 'x', namespace: 'acme' }, 'guest'), 400, {
      message: 'Namespace is not valid',
    });
    await expectError(post({ path: 'x', 'override_params[visibility]': 'secret' }), 400, {
      error: 'override_params[visibility] does not have a valid value',
    });
    await call(fx, 'PUT', 'application/settings', 'root', { max_import_size: 1 });
    await expectError(
      call(
        fx,
        'POST',
        'projects/import',
        'owner',
        importForm(Buffer.alloc(1024 * 1024 + 1), { path: 'big' }),
      ),
      413,
      { message: '413 Request Entity Too Large' },
    );
    // None of them made a project or queued work.
    expect(fx.state.jobs).toEqual([]);
    expect((await getAny(fx, 'projects?simple=true', 'root')) as unknown[]).toHaveLength(1);
  });

  it('import endpoints: 403 when the GitLab export is not an enabled import source, before the params', async () => {
    const fx = world();
    const bytes = await exported(fx);
    await call(fx, 'PUT', 'application/settings', 'root', { import_sources: ['github'] });
    const post = await call(fx, 'POST', 'projects/import', 'owner', importForm(bytes, {}));
    expect(post.status).toBe(403);
    expect(await post.json()).toEqual({ message: '403 Forbidden' });
    const status = await call(fx, 'GET', `${APP}/import`, 'owner');
    expect(status.status).toBe(403);
    expect(await status.json()).toEqual({ message: '403 Forbidden' });
  });

  it('POST /projects/import: override_params take precedence over the archive when the import runs', async () => {
    const fx = world();
    const bytes = await exported(fx);
    const { id } = await startImport(fx, bytes, {
      path: 'copy',
      namespace: 'acme',
      'override_params[description]': 'Overridden',
      'override_params[issues_enabled]': 'false',
      'override_params[merge_method]': 'ff',
    });
    expect((await get(fx, `projects/${id}`)).description).toBe('');
    advance(fx, 3000);
    expect(await get(fx, `projects/${id}`)).toMatchObject({
      description: 'Overridden',
      issues_enabled: false,
      merge_method: 'ff',
    });
  });

  it('POST /projects/import: the visibility of the archive is lowered to what the namespace allows', async () => {
    const fx = world({
      ...scenario,
      projects: [{ path: 'acme/app', visibility: 'public', creator: 'owner' }],
    });
    const bytes = await exported(fx);
    const a = await startImport(fx, bytes, { path: 'pub', namespace: 'acme' });
    const b = await startImport(fx, bytes, { path: 'priv', namespace: 'beta' });
    advance(fx, 3000);
    expect((await get(fx, `projects/${a.id}`)).visibility).toBe('public');
    expect((await get(fx, `projects/${b.id}`)).visibility).toBe('private');
  });

  it('POST /projects/import with overwrite: the import goes to a path of its own and replaces the project only when it finishes', async () => {
    const fx = world({
      ...scenario,
      projects: [
        {
          ...scenario.projects![0]!,
          issues: [{ title: 'old issue' }],
          starred_by: ['dev'],
          members: [{ username: 'guest', access_level: 'reporter' }],
        },
      ],
    });
    const bytes = await exported(fx);
    await call(fx, 'POST', 'projects/1/issues', 'owner', { title: 'after the export' });
    const created = await startImport(fx, bytes, { path: 'app', namespace: 'acme', overwrite: 'true' });
    expect(created.path).toMatch(/^app-[0-9a-f]{32}$/);
    expect(created.name).toBe(created.path);
    expect(created.path_with_namespace).toBe(`acme/${created.path as string}`);
    const id = created.id as number;
    for (const step of [0, 1000, 1999]) {
      advance(fx, step);
      expect((await get(fx, APP)).id).toBe(1);
      expect(((await getAny(fx, `${APP}/issues`)) as unknown[]).length).toBe(2);
    }
    advance(fx, 1);
    expect((await get(fx, `projects/${id}/import`)).import_status).toBe('finished');
    expect((await call(fx, 'GET', '/api/v4/projects/1', 'owner')).status).toBe(404);
    const now = await get(fx, APP);
    expect(now).toMatchObject({ id, name: 'app', path: 'app', star_count: 1, description: 'The app' });
    expect(((await getAny(fx, `${APP}/issues`)) as { title: string }[]).map((i) => i.title)).toEqual([
      'old issue',
    ]);
    const members = (await getAny(fx, `${APP}/members`)) as { username: string; access_level: number }[];
    expect(members.map((m) => [m.username, m.access_level]).sort()).toEqual([
      ['guest', 20],
      ['owner', 40],
    ]);
  });

  it('POST /projects/import with overwrite: a failed import leaves the project it would have replaced as it was', async () => {
    const fx = world();
    const created = await startImport(fx, Buffer.from('junk'), {
      path: 'app',
      namespace: 'acme',
      overwrite: 'true',
    });
    advance(fx, 3000);
    expect((await get(fx, `projects/${created.id}/import`)).import_status).toBe('failed');
    expect((await get(fx, APP)).id).toBe(1);
  });

  it('POST /projects/import with overwrite: only an owner of the namespace may replace a project', async () => {
    const fx = world();
    const bytes = await exported(fx);
    const created = await startImport(
      fx,
      bytes,
      { path: 'app', namespace: 'acme', overwrite: 'true' },
      'dev',
    );
    advance(fx, 3000);
    expect(await get(fx, `projects/${created.id}/import`, 'dev')).toMatchObject({
      import_status: 'failed',
      import_error: `Error importing repository  into acme/${created.path as string} - User dev (3) cannot overwrite a project in acme`,
    });
    expect((await get(fx, APP)).id).toBe(1);
  });

  it('POST /projects/import: overwrite without a project at the path is a plain import', async () => {
    const fx = world();
    const bytes = await exported(fx);
    const created = await startImport(fx, bytes, { path: 'fresh', namespace: 'acme', overwrite: 'true' });
    expect(created.path).toBe('fresh');
  });

  it('DELETE /projects/:id: deleting a project whose import is pending cancels the import', async () => {
    const fx = world();
    const bytes = await exported(fx);
    const { id } = await startImport(fx, bytes, { path: 'copy', namespace: 'acme' });
    advance(fx, 1500);
    expect(fx.state.jobs.map((j) => j.kind)).toEqual(['project_import.finish', 'project_import.guard']);
    expect((await call(fx, 'DELETE', `projects/${id}`, 'owner')).status).toBe(202);
    expect(fx.state.jobs).toEqual([]);
    advance(fx, 5000);
    expect((await call(fx, 'GET', `projects/${id}`, 'owner')).status).toBe(404);
    expect(tget(fx.state.importExport.imports, id as number)).toBeUndefined();
  });

  it('GET /projects/:id/import: records that cannot be imported are failed relations (unknown note author, award user, bad rows)', async () => {
    const fx = world({
      ...scenario,
      projects: [
        {
          ...scenario.projects![0]!,
          issues: [
            {
              title: 'bug',
              award_emoji: [{ name: 'thumbsup', user: 'dev' }],
              notes: [
                { body: 'by dev', author: 'dev' },
                { body: 'by owner', author: 'owner' },
              ],
            },
          ],
        },
      ],
    });
    const bytes = await exported(fx);
    // The dev user is gone on the importing side.
    await call(fx, 'DELETE', '/api/v4/users/3?hard_delete=true', 'root');
    const { id } = await startImport(fx, bytes, { path: 'copy', namespace: 'acme' });
    advance(fx, 2999);
    expect((await get(fx, `projects/${id}/import`)).failed_relations).toEqual([]);
    advance(fx, 1);
    const st = await get(fx, `projects/${id}/import`);
    expect(st.import_status).toBe('finished');
    const failure = (n: number, message: string, relation: string) => ({
      id: n,
      created_at: '2021-03-01T12:00:06.000Z',
      exception_class: 'ActiveRecord::RecordInvalid',
      exception_message: message,
      source: 'process_relation_item!',
      relation_name: relation,
    });
    expect(st.failed_relations).toEqual([
      failure(1, "Validation failed: User can't be blank", 'award_emoji'),
      failure(2, "Validation failed: Author can't be blank", 'notes'),
    ]);
    const notes = (await getAny(fx, `projects/${id}/issues/1/notes`)) as { body: string }[];
    expect(notes.map((n) => n.body)).toEqual(['by owner']);
  });

  it('GET /projects/:id/import: at most 100 failed relations are reported', async () => {
    const fx = world();
    const rows = Array.from({ length: 120 }, () => JSON.stringify({ title: '' })).join('\n');
    const bytes = await tarGzText({
      VERSION: '0.2.4',
      'tree/project.json': '{}',
      'tree/project/issues.ndjson': rows,
    });
    const { id } = await startImport(fx, bytes, { path: 'copy', namespace: 'acme' });
    advance(fx, 3000);
    const st = await get(fx, `projects/${id}/import`);
    expect(st.import_status).toBe('finished');
    expect(st.failed_relations).toHaveLength(100);
    expect((st.failed_relations as { exception_message: string }[])[0]!.exception_message).toBe(
      "Validation failed: Title can't be blank",
    );
  });

  it('GET /projects/:id/import: a project that was not imported reports none', async () => {
    const fx = world();
    expect(await get(fx, `${APP}/import`)).toMatchObject({
      import_status: 'none',
      correlation_id: null,
      failed_relations: [],
    });
    expect((await call(fx, 'GET', 'projects/999/import', 'owner')).status).toBe(404);
  });

  it('import: members and users are mapped by username, then email; unknown members are left out; the importer is a maintainer', async () => {
    const fx = world({
      ...scenario,
      projects: [
        {
          ...scenario.projects![0]!,
          members: [
            { username: 'dev', access_level: 'developer' },
            { username: 'guest', access_level: 'maintainer' },
          ],
          issues: [{ title: 'by guest', author: 'guest', assignees: ['dev'] }],
        },
      ],
    });
    const files = await untarText(await exported(fx));
    // On the importing side, `guest` is known by e-mail only, and `dev` not at all.
    const members = ndjson(files.get('tree/project/project_members.ndjson'));
    members[0]!.user = { username: 'someone-else', email: 'nobody@example.com' };
    members[1]!.user = { username: 'renamed', email: 'guest@example.com' };
    const issues = ndjson(files.get('tree/project/issues.ndjson'));
    issues[0]!.author = { username: 'renamed', email: 'guest@example.com' };
    const archive = await tarGzText({
      ...Object.fromEntries(files),
      'tree/project/project_members.ndjson': members.map((m) => JSON.stringify(m)).join('\n'),
      'tree/project/issues.ndjson': issues.map((m) => JSON.stringify(m)).join('\n'),
    });
    const { id } = await startImport(fx, archive, { path: 'copy', namespace: 'beta' });
    advance(fx, 3000);
    const list = (await getAny(fx, `projects/${id}/members`)) as { username: string; access_level: number }[];
    expect(list.map((m) => [m.username, m.access_level]).sort()).toEqual([
      ['guest', 40],
      ['owner', 40],
    ]);
    expect(await getAny(fx, `projects/${id}/issues/1`)).toMatchObject({
      author: { username: 'guest' },
      assignees: [{ username: 'dev' }],
    });
  });

  it('import: group labels and milestones are found in the new group, made there when missing, and become the project’s own in a personal namespace', async () => {
    const fx = world();
    await call(fx, 'POST', 'test/groups/acme/labels', 'owner', { title: 'group-bug', color: '#FF0000' });
    const gm = await json(await call(fx, 'POST', 'groups/acme/milestones', 'owner', { title: 'Q1' }));
    await call(fx, 'POST', 'projects/1/issues', 'owner', {
      title: 'uses group things',
      labels: 'group-bug',
      milestone_id: gm.id,
    });
    const bytes = await exported(fx);
    const same = await startImport(fx, bytes, { path: 'copy', namespace: 'acme' });
    const other = await startImport(fx, bytes, { path: 'copy', namespace: 'beta' });
    const mine = await startImport(fx, bytes, { path: 'copy' });
    advance(fx, 3000);
    const issue = async (id: unknown) =>
      (await get(fx, `projects/${id as number}/issues/1`)) as {
        labels: string[];
        milestone: { id: number; group_id?: number; project_id?: number; title: string };
      };
    const a = await issue(same.id);
    expect(a.labels).toEqual(['group-bug']);
    expect(a.milestone).toMatchObject({ id: gm.id, title: 'Q1', group_id: gm.group_id });
    expect(((await getAny(fx, 'groups/acme/milestones')) as unknown[]).length).toBe(1);
    const b = await issue(other.id);
    expect(b.labels).toEqual(['group-bug']);
    const beta = (await getAny(fx, 'groups/beta/milestones')) as { id: number; title: string; iid: number }[];
    expect(beta.map((m) => [m.title, m.iid])).toEqual([['Q1', 1]]);
    expect(b.milestone).toMatchObject({ id: beta[0]!.id, title: 'Q1' });
    const c = await issue(mine.id);
    expect(c.labels).toEqual(['group-bug']);
    expect(c.milestone).toMatchObject({ title: 'Q1', project_id: mine.id });
  });
});

describe('commit notes', () => {
  it('GET /projects/:id/export/download: the notes on a commit go with each pipeline of that commit; an import makes them once', async () => {
    const fx = world({
      ...scenario,
      projects: [
        {
          ...scenario.projects![0]!,
          pipelines: [
            { ref: 'master', status: 'success', user: 'owner' },
            { ref: 'master', status: 'failed', user: 'owner' },
          ],
        },
      ],
    });
    const sha = (await get(fx, `${APP}/repository/commits/master`)).id as string;
    const comment = await call(fx, 'POST', `${APP}/repository/commits/${sha}/comments`, 'dev', {
      note: 'Nice',
    });
    expect(comment.status).toBe(201);
    const bytes = await exported(fx);
    const files = await untarText(bytes);
    const pipelines = ndjson(files.get('tree/project/ci_pipelines.ndjson'));
    expect(pipelines).toHaveLength(2);
    for (const pl of pipelines)
      expect(pl).toMatchObject({
        sha,
        notes: [{ body: 'Nice', author: { username: 'dev', email: 'dev@example.com' }, system: false }],
      });
    const created = await startImport(fx, bytes, { path: 'copy', namespace: 'acme' });
    advance(fx, 3000);
    expect((await get(fx, `projects/${created.id as number}/import`)).import_status).toBe('finished');
    const copied = (await getAny(
      fx,
      `projects/${created.id as number}/repository/commits/${sha}/comments`,
    )) as {
      note: string;
    }[];
    expect(copied.map((n) => n.note)).toEqual(['Nice']);
  });
});

describe('round trip', () => {
  const full: ScenarioFile = {
    ...scenario,
    projects: [
      {
        ...scenario.projects![0]!,
        name: 'The App',
        branches: ['feature', { name: 'fix', sha: 'a'.repeat(40) }],
        tags: ['v1.0.0'],
        members: [
          { username: 'owner', access_level: 'maintainer' },
          { username: 'dev', access_level: 'developer' },
        ],
        labels: [
          { name: 'bug', color: '#FF0000', description: 'Broken', priority: 1 },
          { name: 'feature', color: '#00FF00' },
        ],
        milestones: [
          { title: 'v1', description: 'first', due_date: '2021-04-01', start_date: '2021-03-01' },
          { title: 'v0', state: 'closed' },
        ],
        issues: [
          {
            iid: 1,
            title: 'first',
            description: 'body',
            labels: ['bug'],
            milestone: 'v1',
            assignees: ['dev'],
            confidential: true,
            due_date: '2021-05-01',
            award_emoji: [
              { name: 'thumbsup', user: 'dev' },
              { name: 'tada', user: 'owner' },
            ],
            notes: [
              { body: 'a comment', author: 'dev', created_at: '2021-02-01T10:00:00Z' },
              { body: 'changed the description', author: 'owner', system: true },
            ],
            created_at: '2021-01-15T09:00:00Z',
            updated_at: '2021-02-02T09:00:00Z',
          },
          {
            iid: 5,
            title: 'closed one',
            author: 'dev',
            state: 'closed',
            closed_by: 'owner',
            closed_at: '2021-02-10T00:00:00Z',
            discussion_locked: true,
          },
        ],
        merge_requests: [
          {
            title: 'Feature',
            description: 'Closes #1',
            source_branch: 'feature',
            labels: ['feature'],
            milestone: 'v1',
            reviewers: ['owner'],
            award_emoji: [{ name: 'thumbsdown', user: 'owner' }],
            notes: [{ body: 'LGTM', author: 'owner' }],
            changes: 3,
          },
          {
            title: 'Fix',
            source_branch: 'fix',
            state: 'merged',
            merged_by: 'owner',
            merged_at: '2021-02-20T00:00:00Z',
            squash: true,
          },
        ],
        snippets: [
          { title: 'snip', file_name: 'a.rb', content: 'puts 1', notes: [{ body: 'nice', author: 'dev' }] },
        ],
        pipelines: [
          { ref: 'master', status: 'success' },
          { ref: 'feature', status: 'failed' },
        ],
      },
    ],
  };

  /**
   * A response made comparable: the ids of recreated records (a project's own records get new ids on
   * import; users and groups keep theirs) are dropped, and the project's path, name and id inside
   * strings (URLs, references) replaced by placeholders. Everything else must be equal.
   */
  function comparable(v: unknown, project: { id: number; path: string; name: string }): unknown {
    const text = JSON.stringify(v)
      .replaceAll(project.path, '<path>')
      .replaceAll(encodeURIComponent(project.path), '<path>')
      .replaceAll(project.name, '<name>')
      .replace(new RegExp(`/projects/${project.id}(?=[/"?])`, 'g'), '/projects/<id>')
      // Ids of the project's records inside their URLs.
      .replace(/(\/-\/(?:pipelines|snippets|jobs)\/)\d+/g, '$1<id>')
      .replace(/#note_\d+/g, '#note_<id>');
    const walk = (x: unknown): unknown => {
      if (Array.isArray(x)) return x.map(walk);
      if (x === null || typeof x !== 'object') return x;
      const isUser = 'username' in x;
      const isGroup = 'full_path' in x && 'kind' in x;
      const out: Record<string, unknown> = {};
      for (const [k, val] of Object.entries(x)) {
        if (k === 'id' && !isUser && !isGroup) continue;
        if (['project_id', 'noteable_id', 'awardable_id', 'merge_request_id'].includes(k)) continue;
        if (['source_project_id', 'target_project_id'].includes(k)) continue;
        out[k] = walk(val);
      }
      return out;
    };
    return walk(JSON.parse(text));
  }

  it('export then import under a new path: every response of the imported project equals the original’s but for ids, paths and legitimately new values', async () => {
    const fx = world(full);
    const gm = await json(await call(fx, 'POST', 'groups/acme/milestones', 'owner', { title: 'Q1' }));
    await call(fx, 'POST', 'test/groups/acme/labels', 'owner', { title: 'group-label', color: '#123456' });
    await call(fx, 'PUT', 'projects/1/issues/5', 'owner', { milestone_id: gm.id, labels: 'group-label' });
    await call(fx, 'POST', 'projects/1/merge_requests/1/award_emoji', 'dev', { name: 'rocket' });
    await call(fx, 'PUT', 'projects/1', 'owner', {
      merge_method: 'rebase_merge',
      only_allow_merge_if_pipeline_succeeds: true,
      wiki_enabled: false,
      ci_config_path: 'ci/main.yml',
    });
    advance(fx, 60_000);
    const bytes = await exported(fx);
    const created = await startImport(fx, bytes, { path: 'copy', namespace: 'acme', name: 'The Copy' });
    const id = created.id as number;
    advance(fx, 3000);
    const st = await get(fx, `projects/${id}/import`);
    expect(st).toMatchObject({ import_status: 'finished', failed_relations: [] });
    const a = { id: 1, path: 'acme/app', name: 'The App' };
    const b = { id, path: 'acme/copy', name: 'The Copy' };

    const subs = [
      'issues',
      'issues/1',
      'issues/5',
      'issues/1/notes',
      'issues/1/award_emoji',
      'issues/1/related_merge_requests',
      'issues/1/closed_by',
      'merge_requests',
      'merge_requests/1',
      'merge_requests/2',
      'merge_requests/1/notes',
      'merge_requests/1/award_emoji',
      'merge_requests/1/changes',
      'merge_requests/1/commits',
      'merge_requests/1/versions',
      'merge_requests/1/closes_issues',
      'milestones',
      'milestones?include_parent_milestones=true',
      'members',
      'pipelines',
      'snippets/1/notes',
      'issues_statistics',
    ];
    for (const sub of subs) {
      const ra = await call(
        fx,
        'GET',
        `projects/1/${sub.replace('snippets/1', `snippets/${snippetId(1)}`)}`,
        'owner',
      );
      const rb = await call(
        fx,
        'GET',
        `projects/${id}/${sub.replace('snippets/1', `snippets/${snippetId(id)}`)}`,
        'owner',
      );
      expect(rb.status, sub).toBe(ra.status);
      expect(ra.status, sub).toBe(200);
      let va = (await ra.json()) as unknown;
      let vb = (await rb.json()) as unknown;
      if (sub.includes('include_parent_milestones')) {
        // Ordered by id: the group's milestone (kept) and the project's (new ids) interleave differently.
        const byTitle = (l: unknown) =>
          [...(l as { title: string }[])].sort((x, y) => x.title.localeCompare(y.title));
        va = byTitle(va);
        vb = byTitle(vb);
      }
      expect(comparable(vb, b), sub).toEqual(comparable(va, a));
      expect(JSON.stringify(va).length, sub).toBeGreaterThan(2);
    }

    // The project: equal but for what an import makes new (the platform's import does the same).
    const pa = comparable(await get(fx, 'projects/1'), a) as Record<string, unknown>;
    const pb = comparable(await get(fx, `projects/${id}`), b) as Record<string, unknown>;
    // `path` is the one given to the import (the full paths and URLs are substituted above).
    const renewed = ['path', 'created_at', 'last_activity_at', 'import_status', 'runners_token'];
    expect(Object.keys(pb)).toEqual(Object.keys(pa));
    for (const k of Object.keys(pa)) if (!renewed.includes(k)) expect(pb[k], k).toEqual(pa[k]);
    expect(pa.import_status).toBe('none');
    expect(pb.import_status).toBe('finished');

    // CI/CD variables are not exported by the platform: an imported project has none.
    expect((await getAny(fx, 'projects/1/variables')) as unknown[]).toHaveLength(2);
    expect(await getAny(fx, `projects/${id}/variables`)).toEqual([]);

    function snippetId(pid: number): number {
      return tvalues(fx.state.issuables.snippets).find((x) => x.project_id === pid)!.id;
    }
  });
});
