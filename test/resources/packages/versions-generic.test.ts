import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { body, call, GENERIC, PKGS, packagesWorld } from './world.js';

const at = (version: string) => createFauxlab({ scenario: packagesWorld, version });
const put = (fx: ReturnType<typeof at>, path: string, data: Uint8Array) =>
  fx.app.request(path, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/octet-stream', 'PRIVATE-TOKEN': 'dev' },
    body: data as Uint8Array<ArrayBuffer>,
  });
const bytes = new Uint8Array([1, 2, 3]);

describe('PUT generic package ?select=package_file (GitLab 14.5)', () => {
  it('14.4: select is undeclared and ignored (201 Created, any value)', async () => {
    const fx = at('14.4');
    for (const q of ['select=package_file', 'select=nonsense']) {
      const res = await put(fx, `${GENERIC}/app/1.0.0/app.bin?${q}`, bytes);
      expect(res.status, q).toBe(201);
      expect(await body(res)).toEqual({ message: '201 Created' });
    }
  });

  it('14.5: the package file record with its file url (200); another value is 400; without it 201', async () => {
    const fx = at('14.5');
    const res = await put(fx, `${GENERIC}/app/1.0.0/app.bin?select=package_file`, bytes);
    expect(res.status).toBe(200);
    const out = await body(res);
    const project = (await body(await call(fx, 'GET', PKGS, 'dev'))).id as number;
    const pkg = (await body(await call(fx, 'GET', `${PKGS}/packages?package_name=app`, 'dev')))[0]
      .id as number;
    const h = createHash('sha256').update(String(project)).digest('hex');
    expect(Object.keys(out)).toEqual([
      'id',
      'package_id',
      'created_at',
      'updated_at',
      'size',
      'file_store',
      'file_md5',
      'file_sha1',
      'file_name',
      'file',
      'file_sha256',
      'verification_retry_at',
      'verified_at',
      'verification_failure',
      'verification_retry_count',
      'verification_checksum',
      'verification_state',
      'verification_started_at',
      'new_file_path',
    ]);
    expect(out).toMatchObject({
      package_id: pkg,
      size: 3,
      file_store: 1,
      file_name: 'app.bin',
      file_sha256: createHash('sha256').update(bytes).digest('hex'),
      file: { url: `/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}/packages/${pkg}/files/${out.id}/app.bin` },
    });
    const files = await body(await call(fx, 'GET', `${PKGS}/packages/${pkg}/package_files`, 'dev'));
    expect(files.map((f: { id: number }) => f.id)).toContain(out.id);
    const bad = await put(fx, `${GENERIC}/app/1.0.0/app.bin?select=nonsense`, bytes);
    expect(bad.status).toBe(400);
    expect(await body(bad)).toEqual({ error: 'select does not have a valid value' });
    expect((await put(fx, `${GENERIC}/app/1.0.0/other.bin`, bytes)).status).toBe(201);
  });
});
