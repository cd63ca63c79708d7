/**
 * `GET /projects/:id/repository/archive[.format]`: the tree at a ref (or one path of it) as a tar, a
 * tar.gz, a tar.bz2 or a zip, every entry under `<project>-<ref>-<sha>/` as the platform names them. The
 * same commit gives the same bytes (entry times are the commit's).
 */
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { state } from '../../core/context.js';
import { grapeError, notFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { readableRepo } from './access.js';
import { bzip2, MAX_BZIP2_INPUT } from './bzip2.js';
import { TREE_MODE, type ObjectStore } from './objects.js';
import { resolveCommit } from './refs.js';
import { objectsOf } from './store.js';
import { entryAt, listTree } from './tree.js';

const FORMATS = ['tar.gz', 'tgz', 'gz', 'tar', 'zip', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'] as const;
/** The names 13.12 takes for a bzip2-compressed tar. */
const BZIP2_FORMATS: readonly string[] = ['tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'];

/** Files of the archive: the most bytes one archive packs. */
const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;

interface Item {
  path: string;
  mode: string;
  data: Buffer;
}

/** tar-stream loads with the first archive, not with the server. */
const pack = () => (createRequire(import.meta.url)('tar-stream') as typeof import('tar-stream')).pack();

async function tar(items: readonly Item[], mtime: Date): Promise<Buffer> {
  const t = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    t.on('data', (c: unknown) => chunks.push(c as Buffer));
    t.on('end', resolve);
    t.on('error', reject);
  });
  for (const it of items) {
    if (it.mode === TREE_MODE) t.entry({ name: `${it.path}/`, type: 'directory', mode: 0o755, mtime });
    else if (it.mode === '120000')
      t.entry({ name: it.path, type: 'symlink', linkname: it.data.toString('utf8'), mode: 0o777, mtime });
    else t.entry({ name: it.path, mode: it.mode === '100755' ? 0o755 : 0o644, mtime }, it.data);
  }
  t.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** A zip of deflated entries (APPNOTE 6.3: local headers, then the central directory). */
function zip(items: readonly Item[], mtime: Date): Buffer {
  const time =
    ((mtime.getUTCHours() << 11) | (mtime.getUTCMinutes() << 5) | (mtime.getUTCSeconds() >> 1)) & 0xffff;
  const date =
    (((mtime.getUTCFullYear() - 1980) << 9) | ((mtime.getUTCMonth() + 1) << 5) | mtime.getUTCDate()) & 0xffff;
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const it of items) {
    const dir = it.mode === TREE_MODE;
    const name = Buffer.from(dir ? `${it.path}/` : it.path);
    const body = dir ? Buffer.alloc(0) : deflateRawSync(it.data);
    const crc = dir ? 0 : crc32(it.data);
    const size = dir ? 0 : it.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(dir ? 0 : 8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const unixMode = dir
      ? 0o40755
      : it.mode === '100755'
        ? 0o100755
        : it.mode === '120000'
          ? 0o120777
          : 0o100644;
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE((3 << 8) | 20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(dir ? 0 : 8, 10);
    entry.writeUInt16LE(time, 12);
    entry.writeUInt16LE(date, 14);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(body.length, 20);
    entry.writeUInt32LE(size, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE((unixMode << 16) >>> 0, 38);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += 30 + name.length + body.length;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(items.length, 8);
  end.writeUInt16LE(items.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dirBytes, end]);
}

function itemsOf(store: ObjectStore, tree: string, path: string, prefix: string): Item[] {
  const dir = entryAt(store, tree, path);
  if (!dir) return [];
  const rel = (p: string) => `${prefix}/${p}`;
  if (dir.mode !== TREE_MODE)
    return [{ path: rel(path), mode: dir.mode, data: store.raw(dir.id, 'blob') ?? Buffer.alloc(0) }];
  const items: Item[] = [{ path: prefix, mode: TREE_MODE, data: Buffer.alloc(0) }];
  let bytes = 0;
  for (const e of listTree(store, dir.id, path, true)) {
    const data = e.mode === TREE_MODE ? Buffer.alloc(0) : (store.raw(e.id, 'blob') ?? Buffer.alloc(0));
    bytes += data.length;
    if (bytes > MAX_ARCHIVE_BYTES) throw grapeError(400, 'the archive would be too large');
    items.push({ path: rel(e.path), mode: e.mode, data });
  }
  return items;
}

export function archiveRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/repository/:archive{archive(?:\\.[a-z0-9.]+)?}',
    { params: { id: p.str().required(), sha: p.str(), format: p.str(), path: p.str() } },
    async (c, prm) => {
      const suffix = (c.req.param('archive') ?? 'archive').slice('archive'.length + 1);
      const format = prm.format ?? (suffix || 'tar.gz');
      if (!(FORMATS as readonly string[]).includes(format))
        throw grapeError(400, 'format does not have a valid value');
      const proj = readableRepo(c);
      const st = state(c);
      const ref = prm.sha || proj.default_branch || 'HEAD';
      const sha = resolveCommit(st, proj, ref);
      if (sha === undefined) throw notFound('File', 'no commit by this ref');
      const store = objectsOf(st);
      const commit = store.commit(sha)!;
      const prefix = `${proj.path}-${ref.replace(/\//g, '-')}-${sha}`;
      const items = itemsOf(store, commit.tree, (prm.path ?? '').replace(/^\/+|\/+$/g, ''), prefix);
      const mtime = new Date(commit.committer.time * 1000);
      const bz2 = BZIP2_FORMATS.includes(format);
      const ext = format === 'tgz' || format === 'gz' ? 'tar.gz' : bz2 ? 'tar.bz2' : format;
      let body: Buffer;
      if (format === 'zip') body = zip(items, mtime);
      else if (format === 'tar') body = await tar(items, mtime);
      else if (bz2) {
        const plain = await tar(items, mtime);
        // The compressor is synchronous: a smaller bound than the other formats keeps one request short.
        if (plain.length > MAX_BZIP2_INPUT) throw grapeError(400, 'the archive would be too large');
        body = bzip2(plain);
      } else body = gzipSync(await tar(items, mtime));
      // Workhorse types a zip as such and every tar, compressed or not, as a byte stream.
      c.header('Content-Type', format === 'zip' ? 'application/zip' : 'application/octet-stream');
      c.header('Content-Transfer-Encoding', 'binary');
      c.header('Content-Disposition', `attachment; filename="${prefix}.${ext}"`);
      return c.body(new Uint8Array(body));
    },
  );
}
