/**
 * Group export and import: the export as a background job on the instance clock, its tar.gz in 13.12's
 * NDJSON layout, and an import of that archive making a new group with its subgroups, labels, milestones
 * and members; the routes' refusals.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request, tok } from '../helpers.js';

const world: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    { username: 'alice', email: 'alice@example.com', tokens: tok('alice-api') },
    { username: 'bob', email: 'bob@example.com', tokens: tok('bob-api') },
  ],
  groups: [
    {
      path: 'acme',
      name: 'Acme',
      description: 'The company',
      visibility: 'public',
      members: [
        { username: 'alice', access_level: 'owner' },
        { username: 'bob', access_level: 'developer' },
      ],
      labels: [{ name: 'bug', color: '#FF0000', description: 'Broken' }],
    },
    { path: 'acme/labs', name: 'Labs', visibility: 'internal' },
  ],
};

const fx0 = () => createFauxlab({ scenario: world });
type Fx = ReturnType<typeof fx0>;

async function send(fx: Fx, method: string, path: string, token?: string, body?: unknown, form?: FormData) {
  const res = await request(fx, method, `/api/v4${path}`, { token, body, form });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

/** The names in a tar.gz, read from the tar headers. */
function tarNames(gz: Buffer): string[] {
  const tar = gunzipSync(gz);
  const names: string[] = [];
  for (let off = 0; off + 512 <= tar.length;) {
    const name = tar
      .subarray(off, off + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (name === '') break;
    const size = parseInt(
      tar
        .subarray(off + 124, off + 136)
        .toString('utf8')
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    names.push(name);
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}

async function exported(fx: Fx): Promise<Buffer> {
  expect(await send(fx, 'POST', '/groups/acme/export', 'alice-api')).toMatchObject({
    status: 202,
    body: { message: '202 Accepted' },
  });
  fx.clock.advance(3000);
  const res = await request(fx, 'GET', '/api/v4/groups/acme/export/download', { token: 'alice-api' });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('POST /groups/:id/export', () => {
  it('POST /groups/:id/export: the download is not there until the export job has finished, then is a tar.gz', async () => {
    const fx = fx0();
    await send(fx, 'POST', '/groups/acme/export', 'alice-api');
    expect(await send(fx, 'GET', '/groups/acme/export/download', 'alice-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found or has expired' },
    });
    fx.clock.advance(3000);
    const res = await request(fx, 'GET', '/api/v4/groups/acme/export/download', { token: 'alice-api' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="2021-03-01_12-00-\d{3}_acme_export\.tar\.gz"/,
    );
    const names = tarNames(Buffer.from(await res.arrayBuffer()));
    expect(names.slice(0, 3)).toEqual(['VERSION', 'GITLAB_VERSION', 'tree/groups/_all.ndjson']);
    const id = (await send(fx, 'GET', '/groups/acme', 'alice-api')).body.id as number;
    const sub = (await send(fx, 'GET', '/groups/acme%2Flabs', 'alice-api')).body.id as number;
    expect(names.slice(3)).toEqual([
      `tree/groups/${id}.json`,
      `tree/groups/${id}/labels.ndjson`,
      `tree/groups/${id}/milestones.ndjson`,
      `tree/groups/${id}/members.ndjson`,
      `tree/groups/${sub}.json`,
      `tree/groups/${sub}/labels.ndjson`,
      `tree/groups/${sub}/milestones.ndjson`,
      `tree/groups/${sub}/members.ndjson`,
    ]);
  });

  it('POST /groups/:id/export: 403 for a developer, 404 for a group the caller cannot see, 401 anonymously', async () => {
    const fx = fx0();
    const before = fx.state;
    expect((await send(fx, 'POST', '/groups/acme/export', 'bob-api')).status).toBe(403);
    expect((await send(fx, 'GET', '/groups/acme/export/download', 'bob-api')).status).toBe(403);
    expect((await send(fx, 'POST', '/groups/nope/export', 'alice-api')).body).toEqual({
      message: '404 Group Not Found',
    });
    expect((await send(fx, 'POST', '/groups/acme/export')).status).toBe(401);
    expect(fx.state).toBe(before);
  });
});

describe('POST /groups/import', () => {
  it('POST /groups/import: a new group at once, filled from the archive when the import job has run', async () => {
    const fx = fx0();
    const archive = await exported(fx);
    const form = new FormData();
    form.set('name', 'Copy');
    form.set('path', 'copy');
    form.set('file', new File([new Uint8Array(archive)], 'acme_export.tar.gz'));
    const r = await send(fx, 'POST', '/groups/import', 'root-api', undefined, form);
    expect(r).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
    const made = await send(fx, 'GET', '/groups/copy', 'root-api');
    expect(made.body).toMatchObject({ name: 'Copy', path: 'copy', visibility: 'private', description: '' });
    fx.clock.advance(3000);
    const after = await send(fx, 'GET', '/groups/copy', 'root-api');
    expect(after.body).toMatchObject({ name: 'Copy', description: 'The company', visibility: 'private' });
    const subgroups = await send(fx, 'GET', '/groups/copy/subgroups', 'root-api');
    expect(
      subgroups.body.map((g: { full_path: string; visibility: string }) => [g.full_path, g.visibility]),
    ).toEqual([['copy/labs', 'private']]);
    const labels = await send(fx, 'GET', '/groups/copy/labels', 'root-api');
    expect(labels.body).toMatchObject([{ name: 'bug', color: '#FF0000', description: 'Broken' }]);
    const members = await send(fx, 'GET', '/groups/copy/members', 'root-api');
    expect(
      members.body
        .map((m: { username: string; access_level: number }) => [m.username, m.access_level])
        .sort(),
    ).toEqual([
      ['alice', 50],
      ['bob', 30],
      ['root', 50],
    ]);
  });

  it('POST /groups/import: 400 for a file that is not .gz, a taken path, a missing param', async () => {
    const fx = fx0();
    const before = fx.state;
    const form = (name: string, path: string) => {
      const f = new FormData();
      f.set('name', 'X');
      f.set('path', path);
      f.set('file', new File(['x'], name));
      return f;
    };
    expect(
      await send(fx, 'POST', '/groups/import', 'root-api', undefined, form('x.zip', 'fresh')),
    ).toMatchObject({
      status: 400,
      body: { message: 'The file is invalid' },
    });
    const taken = await send(fx, 'POST', '/groups/import', 'root-api', undefined, form('x.tar.gz', 'acme'));
    expect(taken.status).toBe(400);
    expect(taken.body.message).toMatch(/^Failed to save group \{:path=>\["has already been taken"\]/);
    expect(await send(fx, 'POST', '/groups/import', 'root-api', { name: 'X', path: 'y' })).toMatchObject({
      status: 400,
      body: { error: 'file is missing' },
    });
    expect(fx.state).toBe(before);
  });

  it('POST /groups/import: into a parent the caller cannot create subgroups in, 400; a broken archive imports nothing', async () => {
    const fx = fx0();
    const f = new FormData();
    f.set('name', 'Sub');
    f.set('path', 'sub');
    f.set('parent_id', String((await send(fx, 'GET', '/groups/acme', 'alice-api')).body.id));
    f.set('file', new File(['not gzip'], 'x.tar.gz'));
    const refused = await send(fx, 'POST', '/groups/import', 'bob-api', undefined, f);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      'Failed to save group {:parent_id=>["You don’t have permission to create a subgroup in this group."]}',
    );
    const ok = await send(fx, 'POST', '/groups/import', 'alice-api', undefined, f);
    expect(ok.status).toBe(202);
    fx.clock.advance(3000);
    const sub = await send(fx, 'GET', '/groups/acme%2Fsub', 'alice-api');
    expect(sub.body).toMatchObject({ full_path: 'acme/sub', visibility: 'public', description: '' });
    expect((await send(fx, 'GET', '/groups/acme%2Fsub/subgroups', 'alice-api')).body).toEqual([]);
  });
});
