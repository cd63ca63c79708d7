/**
 * Uploaded archives are unpacked bounded and off the request path: a gzip bomb stops at the
 * decompressed-size bound with the platform's failure, other requests are answered while an archive is
 * unpacked, and entries that would land outside the archive's tree or link elsewhere are not kept.
 */
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { describe, expect, test } from 'vitest';
import { tget, tvalues } from '../../src/core/table.js';
import {
  MAX_DECOMPRESSED_BYTES,
  MAX_DEPTH,
  MAX_ENTRIES,
  MAX_NAME_BYTES,
  SIZE_FAILURE,
  SYNC_BYTES,
  Unpacker,
  unpacks,
} from '../../src/resources/import_export/unpack.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const MiB = 1024 * 1024;

type Fx = ReturnType<typeof reliabilityFx>;

/** A tar header of one regular file of `size` bytes (ustar, checksum filled in). */
function tarHeader(name: string, size: number, type = '0', linkname = ''): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write(type, 156);
  h.write(linkname, 157, 100, 'utf8');
  h.write('ustar\0' + '00', 257);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

/**
 * A .tar.gz whose one entry (`name`) is `size` bytes of zeros (a whole number of MiB): gzip members
 * one after the other, as gzip itself reads them, each 1 MiB of zeros (about 1 KiB compressed).
 */
function zeroBomb(name: string, size: number): Buffer {
  const member = gzipSync(Buffer.alloc(MiB), { level: 9 });
  const parts = [gzipSync(tarHeader(name, size))];
  for (let left = size; left > 0; left -= MiB) parts.push(member);
  parts.push(gzipSync(Buffer.alloc(1024)));
  return Buffer.concat(parts);
}

async function tarGz(
  entries: { name: string; body?: string; type?: 'symlink' | 'link'; linkname?: string }[],
) {
  const p = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((r) => {
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', () => r());
  });
  for (const e of entries)
    if (e.type) p.entry({ name: e.name, type: e.type, linkname: e.linkname });
    else p.entry({ name: e.name }, e.body ?? '');
  p.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

async function unpackAll(bytes: Uint8Array, maxBytes = MAX_DECOMPRESSED_BYTES) {
  const u = new Unpacker(bytes, { maxBytes, wanted: () => true });
  const small = u.small();
  if (!small) await u.stream();
  return { files: u.files, inflated: u.inflated, small };
}

async function upload(
  fx: Fx,
  area: 'projects' | 'groups',
  path: string,
  bytes: Buffer,
  name = 'bomb.tar.gz',
) {
  const form = new FormData();
  form.append('path', path);
  if (area === 'groups') form.append('name', path);
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/gzip' }), name);
  return fx.app.request(`/api/v4/${area}/import`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': 'root-api' },
    body: form,
  });
}

const importOf = async (fx: Fx, id: number) =>
  (await (
    await fx.app.request(`/api/v4/projects/${id}/import`, { headers: { 'PRIVATE-TOKEN': 'root-api' } })
  ).json()) as Record<string, unknown>;

describe('security: bounded decompression of uploaded archives', () => {
  test('POST /projects/import of 800 MiB of zeros (a ~0.8 MiB gzip): scheduled at once; other requests answered while it unpacks; the import fails with the size validator message once the bound is reached, having inflated no more than the bound', async () => {
    const bomb = zeroBomb('project.bundle', 800 * MiB);
    expect(bomb.length).toBeLessThan(MiB);
    const fx = reliabilityFx();
    const queue = unpacks(fx.clock);
    const res = await upload(fx, 'projects', 'bomb', bomb);
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: number; import_status: string };
    expect(created.import_status).toBe('scheduled');
    // The upload is still being unpacked after its request was answered...
    expect(queue.pending).toBe(1);
    // ... and another request is answered meanwhile, the clock past the import's finishing step: the
    // import waits for its archive as `started` (the guard does not fail it).
    fx.clock.advance(3000);
    const me = await fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'dev-api' } });
    expect(me.status).toBe(200);
    expect(await importOf(fx, created.id)).toMatchObject({ import_status: 'started' });
    expect(queue.pending).toBe(1);
    expect(tget(fx.state.importExport.imports, created.id)!.awaiting_unpack).toBe(true);

    await queue.settled();
    const outcome = queue.log.at(-1)!;
    expect(outcome.error).toBe(SIZE_FAILURE);
    // Inflating stopped at the bound (plus the one zlib chunk that crossed it), not at 800 MiB.
    expect(outcome.inflated).toBeGreaterThan(MAX_DECOMPRESSED_BYTES);
    expect(outcome.inflated).toBeLessThanOrEqual(MAX_DECOMPRESSED_BYTES + 256 * 1024);
    expect(await importOf(fx, created.id)).toMatchObject({
      import_status: 'failed',
      import_error: `Error importing repository  into root/bomb - ${SIZE_FAILURE}`,
    });
    expect(tget(fx.state.importExport.imports, created.id)!.awaiting_unpack).toBeUndefined();
    await expectUnharmed(fx);
  });

  test('POST /groups/import of a bomb: the group import fails at its 50 MiB bound; no subgroup or label is made', async () => {
    const fx = reliabilityFx();
    const res = await upload(fx, 'groups', 'g-bomb', zeroBomb('tree/groups/_all.ndjson', 200 * MiB));
    expect(res.status).toBe(202);
    const queue = unpacks(fx.clock);
    await queue.settled();
    expect(queue.log.at(-1)).toMatchObject({ error: SIZE_FAILURE });
    expect(queue.log.at(-1)!.inflated).toBeLessThanOrEqual(50 * MiB + 256 * 1024);
    const before = fx.state.groups;
    fx.clock.advance(3000);
    expect(tvalues(fx.state.groupExport.imports)).toMatchObject([{ status: 'failed', error: SIZE_FAILURE }]);
    expect(fx.state.groups).toBe(before);
    await expectUnharmed(fx);
  });

  test('Unpacker: an ordinary archive is read at once; a larger one is streamed, and stops at the bound', async () => {
    const small = await tarGz([{ name: 'VERSION', body: '0.2.4\n' }]);
    expect(await unpackAll(small)).toMatchObject({ small: true, inflated: 2048 });
    const bomb = zeroBomb('x.bin', 64 * MiB);
    // The synchronous try inflates no more than SYNC_BYTES before it hands the archive to the stream.
    const u = new Unpacker(bomb, { maxBytes: 128 * MiB, wanted: () => true });
    expect(u.small()).toBe(false);
    expect(u.inflated).toBe(0);
    const read = await unpackAll(bomb, 128 * MiB);
    expect(read).toMatchObject({ small: false, inflated: 64 * MiB + 512 + 1024 });
    expect(read.files.get('x.bin')!.length).toBe(64 * MiB);
    const bounded = new Unpacker(bomb, { maxBytes: 16 * MiB, wanted: () => true });
    await expect(bounded.stream()).rejects.toThrow(SIZE_FAILURE);
    expect(bounded.inflated).toBeLessThanOrEqual(16 * MiB + 256 * 1024);
    expect(SYNC_BYTES).toBeLessThan(16 * MiB);
  });

  test('Unpacker: traversal and absolute names never leave the archive tree (GNU tar safer names); symlinks and hard links are removed', async () => {
    const archive = await tarGz([
      { name: 'VERSION', body: '0.2.4\n' },
      { name: '/etc/passwd', body: 'absolute' },
      { name: '../../escape.txt', body: 'up' },
      { name: 'tree/../../x/y.txt', body: 'inside' },
      { name: './tree/project.json', body: '{}' },
      { name: 'tree/project/issues.ndjson', type: 'symlink', linkname: '/etc/shadow' },
      { name: 'tree/hard', type: 'link', linkname: 'VERSION' },
    ]);
    const { files } = await unpackAll(archive);
    expect([...files.keys()].sort()).toEqual([
      'VERSION',
      'escape.txt',
      'etc/passwd',
      'tree/project.json',
      'x/y.txt',
    ]);
    for (const name of files.keys()) {
      expect(name.startsWith('/')).toBe(false);
      expect(name.split('/')).not.toContain('..');
    }
  });

  test('POST /projects/import: names with a leading / or ../ are read inside the archive as tar reads them; a symlink is removed, not followed', async () => {
    const fx = reliabilityFx();
    const archive = await tarGz([
      { name: 'VERSION', body: '0.2.4\n' },
      { name: '/tree/project.json', body: '{"description":"from an absolute name"}' },
      { name: '../../tree/project/issues.ndjson', body: '{"iid":1,"title":"Climbed","state":"opened"}\n' },
      { name: 'tree/project/labels.ndjson', type: 'symlink', linkname: '/etc/passwd' },
    ]);
    const res = await upload(fx, 'projects', 'linked', archive, 'linked.tar.gz');
    const { id } = (await res.json()) as { id: number };
    fx.clock.advance(3000);
    expect(await importOf(fx, id)).toMatchObject({ import_status: 'finished' });
    const get = async (path: string) =>
      (await (
        await fx.app.request(`/api/v4/projects/${id}${path}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } })
      ).json()) as Record<string, unknown> & unknown[];
    expect((await get('')).description).toBe('from an absolute name');
    expect((await get('/issues')).map((i) => (i as { title: string }).title)).toEqual(['Climbed']);
    expect(await get('/labels')).toEqual([]);
    await expectUnharmed(fx);
  });

  test('Unpacker: entry count, name length and depth are bounded before their entries are kept', async () => {
    const many = Buffer.concat([
      ...Array.from({ length: MAX_ENTRIES + 1 }, (_, i) => tarHeader(`f${i}`, 0)),
      Buffer.alloc(1024),
    ]);
    await expect(unpackAll(gzipSync(many))).rejects.toThrow(`more than ${MAX_ENTRIES} entries`);
    const ok = Buffer.concat([
      ...Array.from({ length: MAX_ENTRIES }, (_, i) => tarHeader(`f${i}`, 0)),
      Buffer.alloc(1024),
    ]);
    expect((await unpackAll(gzipSync(ok))).files.size).toBe(MAX_ENTRIES);
    const long = await tarGz([{ name: `${'n'.repeat(MAX_NAME_BYTES + 1)}`, body: 'x' }]);
    await expect(unpackAll(long)).rejects.toThrow(`longer than ${MAX_NAME_BYTES} bytes`);
    const deep = await tarGz([{ name: `${'d/'.repeat(MAX_DEPTH)}f`, body: 'x' }]);
    await expect(unpackAll(deep)).rejects.toThrow(`deeper than ${MAX_DEPTH} levels`);
    const fine = await tarGz([{ name: `${'d/'.repeat(MAX_DEPTH - 1)}f`, body: 'x' }]);
    expect((await unpackAll(fine)).files.size).toBe(1);
  });
});
