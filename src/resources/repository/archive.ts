/**
 * `GET /projects/:id/repository/archive[.format]`: the tree at a ref (or one path of it) as a tar, a
 * tar.gz, a tar.bz2 or a zip, every entry under `<project>-<ref>-<sha>/` as the platform names them. The
 * same commit gives the same bytes (entry times are the commit's).
 */
import { createRequire } from 'node:module';
import { PassThrough, Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Pack } from 'tar-stream';
import type { Clock } from '../../core/clock.js';
import { state } from '../../core/context.js';
import { grapeError, notFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { readableRepo } from './access.js';
import { bzip2, MAX_BZIP2_INPUT } from './bzip2.js';
import { TREE_MODE, type ObjectStore } from './objects.js';
import { resolveCommit } from './refs.js';
import { objectsOf } from './store.js';
import { ZipWriter } from './zip.js';
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
const load = <T>(name: string) => createRequire(import.meta.url)(name) as T;

/** Entries handed to the archive writer between two turns of the event loop. */
const BATCH = 256;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Archives being written per instance (the response has begun; the last bytes are not yet out). */
const inFlight = new WeakMap<Clock, { count: number }>();

function counterOf(clock: Clock): { count: number } {
  let counter = inFlight.get(clock);
  if (!counter) inFlight.set(clock, (counter = { count: 0 }));
  return counter;
}

/** How many archive responses of the instance with this clock are still being written. */
export function archivesInFlight(clock: Clock): number {
  return inFlight.get(clock)?.count ?? 0;
}

/**
 * Feeds `items` to `add` a batch at a time, yielding between batches, then `end`s; stops when the
 * response is gone. The instance counts the archive in flight until its stream closes.
 */
function produce(
  clock: Clock,
  out: Readable,
  items: readonly Item[],
  add: (it: Item) => void,
  end: () => void,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  const c = counterOf(clock);
  c.count++;
  let closed = false;
  out.once('close', () => {
    closed = true;
    c.count--;
  });
  void (async () => {
    for (let i = 0; i < items.length && !closed; i++) {
      add(items[i]!);
      if (i % BATCH === BATCH - 1) await nextTurn();
    }
    if (!closed) end();
  })().catch((e: unknown) => out.destroy(e as Error));
  return Readable.toWeb(out) as unknown as ReadableStream<Uint8Array<ArrayBuffer>>;
}

const fileMode = (it: Item) => (it.mode === '100755' ? 0o755 : it.mode === '120000' ? 0o777 : 0o644);

/** A tar (of git archive's layout), written as it is read; gzipped on zlib's thread pool if asked. */
function tarStream(clock: Clock, items: readonly Item[], mtime: Date, gzip: boolean) {
  const t = load<typeof import('tar-stream')>('tar-stream').pack();
  // Through a Node stream either way: tar-stream's own streams are not Node's, which toWeb takes.
  const out: Readable = t.pipe(gzip ? createGzip() : new PassThrough());
  t.on('error', (e: Error) => out.destroy(e));
  return produce(
    clock,
    out,
    items,
    (it) => tarEntry(t, it, mtime),
    () => t.finalize(),
  );
}

function tarEntry(t: Pack, it: Item, mtime: Date): void {
  if (it.mode === TREE_MODE) t.entry({ name: `${it.path}/`, type: 'directory', mode: 0o755, mtime });
  else if (it.mode === '120000')
    t.entry({ name: it.path, type: 'symlink', linkname: it.data.toString('utf8'), mode: 0o777, mtime });
  else t.entry({ name: it.path, mode: fileMode(it), mtime }, it.data);
}

/** The whole tar at once: the bzip2 compressor is synchronous and takes its input whole. */
async function tarBuffer(items: readonly Item[], mtime: Date): Promise<Buffer> {
  const t = load<typeof import('tar-stream')>('tar-stream').pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    t.on('data', (c: unknown) => chunks.push(c as Buffer));
    t.on('end', resolve);
    t.on('error', reject);
  });
  for (const it of items) tarEntry(t, it, mtime);
  t.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** Bytes of zip entries one pull of the response stream writes, at most (plus one entry). */
const ZIP_PULL_BYTES = 256 * 1024;

/**
 * A zip of the items (zip.ts), written as the response is read: each pull writes entries until it has
 * a quarter MiB or BATCH entries, so one turn of the event loop does a bounded amount of work.
 */
function zipStream(
  clock: Clock,
  items: readonly Item[],
  mtime: Date,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  const zip = new ZipWriter(mtime);
  const c = counterOf(clock);
  c.count++;
  let next = 0;
  let open = true;
  const close = () => {
    if (open) c.count--;
    open = false;
  };
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(ctl) {
      try {
        const parts: Buffer[] = [];
        let bytes = 0;
        for (let n = 0; next < items.length && n < BATCH && bytes < ZIP_PULL_BYTES; n++) {
          const it = items[next++]!;
          const dir = it.mode === TREE_MODE;
          const mode = dir
            ? 0o40755
            : it.mode === '120000'
              ? 0o120777
              : it.mode === '100755'
                ? 0o100755
                : 0o100644;
          for (const b of await zip.entry({ path: it.path, dir, mode, data: it.data })) {
            parts.push(b);
            bytes += b.length;
          }
        }
        if (next >= items.length) parts.push(...zip.end());
        ctl.enqueue(new Uint8Array(Buffer.concat(parts)));
        if (next >= items.length) {
          close();
          ctl.close();
        }
      } catch (e) {
        close();
        ctl.error(e);
      }
    },
    cancel: close,
  });
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
      const clock = c.get('fx').clock;
      let body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>;
      if (format === 'zip') body = zipStream(clock, items, mtime);
      else if (bz2) {
        const plain = await tarBuffer(items, mtime);
        // The compressor is synchronous: a smaller bound than the other formats keeps one request short.
        if (plain.length > MAX_BZIP2_INPUT) throw grapeError(400, 'the archive would be too large');
        body = new Uint8Array(bzip2(plain));
      } else body = tarStream(clock, items, mtime, format !== 'tar');
      // Workhorse types a zip as such and every tar, compressed or not, as a byte stream.
      c.header('Content-Type', format === 'zip' ? 'application/zip' : 'application/octet-stream');
      c.header('Content-Transfer-Encoding', 'binary');
      c.header('Content-Disposition', `attachment; filename="${prefix}.${ext}"`);
      return c.body(body);
    },
  );
}
