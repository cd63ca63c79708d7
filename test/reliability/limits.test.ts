import { describe, expect, test } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { DEFAULT_MAX_BODY_SIZE } from '../../src/app.js';
import { reliabilityFx } from './world.js';

const TOO_LARGE = { message: '413 Request Entity Too Large' };
const ISSUES = '/api/v4/projects/g-public%2Fp/issues';

async function post(fx: ReturnType<typeof createFauxlab>, path: string, body: BodyInit, headers = {}) {
  const res = await fx.app.request(path, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': 'dev-api', 'Content-Type': 'application/json', ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** An endless body in chunks of 1 MiB; counts how many chunks were pulled. */
function endlessBody() {
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  const seen = { chunks: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.chunks++;
      controller.enqueue(chunk);
    },
  });
  return { stream, seen };
}

describe('limits: the request body cap', () => {
  test('a body over the cap with a declared length is refused with 413 before it is read, writing nothing', async () => {
    const fx = reliabilityFx({ maxBodySize: 1024 });
    const before = fx.state;
    const body = JSON.stringify({ title: 'x'.repeat(2000) });
    const res = await post(fx, ISSUES, body, { 'Content-Length': String(body.length) });
    expect(res).toEqual({ status: 413, body: TOO_LARGE });
    expect(fx.state).toBe(before);
  });

  test('the default cap is 64 MiB: a declared 65 MiB body is refused', async () => {
    expect(DEFAULT_MAX_BODY_SIZE).toBe(64 * 1024 * 1024);
    const fx = reliabilityFx();
    const res = await post(fx, ISSUES, '{"title":"t"}', { 'Content-Length': String(65 * 1024 * 1024) });
    expect(res).toEqual({ status: 413, body: TOO_LARGE });
  });

  test('an endless body of unknown length is cut off at the cap: 413, and only the cap is ever read', async () => {
    const fx = reliabilityFx({ maxBodySize: 4 * 1024 * 1024 });
    const before = fx.state;
    const { stream, seen } = endlessBody();
    const res = await post(fx, ISSUES, stream);
    expect(res).toEqual({ status: 413, body: TOO_LARGE });
    expect(seen.chunks).toBeLessThanOrEqual(7);
    expect(fx.state).toBe(before);
  });

  test('an endless multipart body is cut off with 413 too (not a 400 for a broken form)', async () => {
    const fx = reliabilityFx({ maxBodySize: 2 * 1024 * 1024 });
    const { stream } = endlessBody();
    const res = await post(fx, '/api/v4/projects/g-public%2Fp/uploads', stream, {
      'Content-Type': 'multipart/form-data; boundary=zzz',
    });
    expect(res).toEqual({ status: 413, body: TOO_LARGE });
  });

  test('a body within the cap is served as usual', async () => {
    const fx = reliabilityFx({ maxBodySize: 1024 });
    const res = await post(fx, ISSUES, JSON.stringify({ title: 'small' }));
    expect(res.status).toBe(201);
  });
});

describe('limits: the platform’s own', () => {
  const fx = reliabilityFx();
  const start = fx.snapshot();
  const NOTES = '/api/v4/projects/g-public%2Fp/issues/1/notes';

  test('POST notes: a body of 1,000,000 characters is accepted, one more is 400 with the notes API’s message', async () => {
    fx.restore(start);
    expect((await post(fx, NOTES, JSON.stringify({ body: 'a'.repeat(1_000_000) }))).status).toBe(201);
    const before = fx.state;
    const res = await post(fx, NOTES, JSON.stringify({ body: 'a'.repeat(1_000_001) }));
    expect(res).toEqual({
      status: 400,
      // `bad_request!("Note #{note.errors.messages}")`: the errors hash as Ruby prints it.
      body: { message: '400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}' },
    });
    expect(fx.state).toBe(before);
  });

  test('POST variables: a key of 255 characters is accepted, 256 is 400', async () => {
    fx.restore(start);
    const VARS = '/api/v4/projects/g-public%2Fp/variables';
    const ok = await post(fx, VARS, JSON.stringify({ key: 'K'.repeat(255), value: 'v' }), {
      'PRIVATE-TOKEN': 'maint-api',
    });
    expect(ok.status).toBe(201);
    const before = fx.state;
    const res = await post(fx, VARS, JSON.stringify({ key: 'K'.repeat(256), value: 'v' }), {
      'PRIVATE-TOKEN': 'maint-api',
    });
    expect(res).toEqual({
      status: 400,
      body: { message: { key: ['is too long (maximum is 255 characters)'] } },
    });
    expect(fx.state).toBe(before);
  });

  test('GET /merge_requests: approved_by_ids beyond 5 are ignored, not an error (the finder takes the first 5)', async () => {
    const paid = reliabilityFx({ tier: 'premium' });
    const ids = [1, 2, 3, 4, 5, 6, 7].map((i) => `approved_by_ids[]=${i}`).join('&');
    const res = await paid.app.request(`/api/v4/merge_requests?scope=all&${ids}`, {
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });

  test('POST uploads: a file over max_attachment_size (10 MB) is 413 and nothing is stored', async () => {
    fx.restore(start);
    const before = fx.state;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(10 * 1024 * 1024 + 1)]), 'big.bin');
    const res = await fx.app.request('/api/v4/projects/g-public%2Fp/uploads', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'dev-api' },
      body: form,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(TOO_LARGE);
    expect(fx.state).toBe(before);
  });
});

describe('limits: import and snippet sizes (application settings)', () => {
  const fx = reliabilityFx();
  const start = fx.snapshot();
  const admin = { 'PRIVATE-TOKEN': 'root-api' };
  const settings = (body: Record<string, unknown>) =>
    fx.app.request('/api/v4/application/settings', {
      method: 'PUT',
      headers: { ...admin, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const importFile = (bytes: number) => {
    const form = new FormData();
    form.append('path', `imported-${bytes}`);
    form.append('namespace', 'g-public');
    form.append('file', new Blob([new Uint8Array(bytes)]), 'export.tar.gz');
    return fx.app.request('/api/v4/projects/import', { method: 'POST', headers: admin, body: form });
  };
  const createSnippet = (body: Record<string, unknown>) =>
    post(fx, '/api/v4/snippets', JSON.stringify(body), { 'PRIVATE-TOKEN': 'owner-api' });

  test('the defaults are the spec’s: max_import_size 50 (MB), snippet_size_limit 52428800 bytes', async () => {
    const res = await fx.app.request('/api/v4/application/settings', { headers: admin });
    expect(await res.json()).toMatchObject({ max_import_size: 50, snippet_size_limit: 52_428_800 });
  });

  test('POST /projects/import: a file over max_import_size is 413 and nothing is imported; at the limit it is accepted', async () => {
    fx.restore(start);
    expect((await settings({ max_import_size: 1 })).status).toBe(200);
    const before = fx.state;
    const over = await importFile(1024 * 1024 + 1);
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual(TOO_LARGE);
    expect(fx.state).toBe(before);
    const ok = await importFile(1024 * 1024);
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({ path: `imported-${1024 * 1024}`, import_status: 'scheduled' });
  });

  test('POST /snippets: content over snippet_size_limit is 400 with the model’s message, and nothing is stored', async () => {
    fx.restore(start);
    expect((await settings({ snippet_size_limit: 2048 })).status).toBe(200);
    const body = (content: string) => ({ title: 't', file_name: 'a.txt', content, visibility: 'private' });
    expect((await createSnippet(body('x'.repeat(2048)))).status).toBe(201);
    const before = fx.state;
    const res = await createSnippet(body('x'.repeat(3000)));
    expect(res).toEqual({
      status: 400,
      body: { message: { error: 'Content is too long (2.93 KB). The maximum size is 2 KB.' } },
    });
    expect(fx.state).toBe(before);
  });

  test('PUT /snippets/:id: new content over snippet_size_limit is 400 too, and the snippet is unchanged', async () => {
    fx.restore(start);
    expect((await settings({ snippet_size_limit: 10 })).status).toBe(200);
    const list = await fx.app.request('/api/v4/snippets', { headers: { 'PRIVATE-TOKEN': 'owner-api' } });
    const [own] = (await list.json()) as { id: number }[];
    const before = fx.state;
    const res = await fx.app.request(`/api/v4/snippets/${own!.id}`, {
      method: 'PUT',
      headers: { 'PRIVATE-TOKEN': 'owner-api', 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'x'.repeat(11) }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      message: { error: 'Content is too long (11 Bytes). The maximum size is 10 Bytes.' },
    });
    expect(fx.state).toBe(before);
  });
});

describe('limits: uploads within a total cap', () => {
  const upload = (fx: ReturnType<typeof createFauxlab>, bytes: number) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), 'f.bin');
    return fx.app.request('/api/v4/projects/g-public%2Fp/uploads', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'dev-api' },
      body: form,
    });
  };

  test('POST uploads: past maxUploadsTotal an upload is 413 and nothing is stored; within it, uploads go on', async () => {
    const fx = reliabilityFx({ maxUploadsTotal: 10_000 });
    for (let i = 0; i < 3; i++) expect((await upload(fx, 3_000)).status).toBe(201);
    const before = fx.state;
    const refused = await upload(fx, 1_001);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual(TOO_LARGE);
    expect(fx.state).toBe(before);
    expect((await upload(fx, 1_000)).status).toBe(201);
    expect((await upload(fx, 1)).status).toBe(413);
  });

  test('the total follows the state: after a reset the whole cap is free again', async () => {
    const fx = reliabilityFx({ maxUploadsTotal: 5_000 });
    expect((await upload(fx, 5_000)).status).toBe(201);
    expect((await upload(fx, 1)).status).toBe(413);
    fx.reset();
    expect((await upload(fx, 5_000)).status).toBe(201);
  });
});

describe('control plane token', () => {
  test('with controlPlaneToken, /__fauxlab/* needs the bearer token: else 401, and nothing happens', async () => {
    const fx = reliabilityFx({ controlPlaneToken: 's3cret-admin' });
    await fx.app.request('/api/v4/projects/g-public%2Fp/star', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'dev-api' },
    });
    const changed = fx.state;
    const missing = {
      message: '401 Unauthorized - admin token missing: send "Authorization: Bearer <admin token>"',
    };
    const wrong = { message: '401 Unauthorized - wrong admin token' };
    const attempts: [Record<string, string>, unknown][] = [
      [{}, missing],
      [{ Authorization: 'Bearer wrong' }, wrong],
      [{ 'PRIVATE-TOKEN': 's3cret-admin' }, missing],
    ];
    for (const [headers, body] of attempts) {
      const res = await fx.app.request('/__fauxlab/reset', {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(body);
      const state = await fx.app.request('/__fauxlab/state', { headers });
      expect(state.status).toBe(401);
    }
    expect(fx.state).toBe(changed);
    const ok = await fx.app.request('/__fauxlab/reset', {
      method: 'POST',
      headers: { Authorization: 'Bearer s3cret-admin', 'Content-Type': 'application/json' },
    });
    expect(ok.status).toBe(200);
    expect(fx.state).not.toBe(changed);
  });

  test('the API itself does not need the control plane token', async () => {
    const fx = reliabilityFx({ controlPlaneToken: 's3cret-admin' });
    const res = await fx.app.request('/api/v4/projects/g-public%2Fp');
    expect(res.status).toBe(200);
  });

  test('without controlPlaneToken the control plane stays open, as before', async () => {
    const res = await reliabilityFx().app.request('/__fauxlab/clock');
    expect(res.status).toBe(200);
  });
});
