/**
 * `GET /projects/:id/snapshot` (`lib/api/project_snapshots.rb`, 10.7): the bare repository as a tar, for
 * administrators (`authenticated_with_can_read_all_resources!`), as Gitaly's `GetSnapshot` makes it and
 * Workhorse's `git-snapshot` sends it (`snapshot.tar`, `application/x-tar`). The tar holds what `git
 * fetch` would replicate (Gitaly leaves out config, hooks, info and logs): `HEAD`, every ref as a loose
 * file, and the objects the refs reach as one pack with its version 2 index, so that the unpacked
 * directory is a repository `git` reads. `wiki=true` gives the wiki's repository instead: its pages
 * (`<slug>.<ext>`) as one commit on `master`.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { crc32 } from 'node:zlib';
import { findProject } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import type { Project } from '../projects/model.js';
import { ownerPages } from '../wikis/model.js';
import { ObjectStore, signatureAt, type TreeEntry } from './objects.js';
import { packChunks, reachableObjects } from './pack.js';
import { names, otherRefs, refTarget } from './refs.js';
import { objectsOf } from './store.js';

interface Entry {
  name: string;
  data?: Buffer;
  mode: number;
}

/** Pack entries written between two turns of the event loop. */
const BATCH = 256;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A pack of `ids` and its index (`git index-pack`'s version 2 `.idx`: fan-out, sorted ids, CRC-32 of
 * each entry, 31-bit offsets with a 64-bit table past 2 GiB, the pack's checksum, its own), made a
 * batch at a time so that other requests are answered meanwhile.
 */
async function packWithIndex(store: ObjectStore, ids: readonly string[]) {
  const pieces: Buffer[] = [];
  const at: { id: string; offset: number; crc: number }[] = [];
  let offset = 0;
  let i = -1;
  for (const piece of packChunks(store, ids)) {
    if (i >= 0 && i < ids.length) at.push({ id: ids[i]!, offset, crc: crc32(piece) });
    pieces.push(piece);
    offset += piece.length;
    if (++i % BATCH === 0) await nextTurn();
  }
  const pack = Buffer.concat(pieces);
  const checksum = pack.subarray(pack.length - 20);
  at.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const fanout = Buffer.alloc(256 * 4);
  for (const o of at)
    for (let b = parseInt(o.id.slice(0, 2), 16); b < 256; b++)
      fanout.writeUInt32BE(fanout.readUInt32BE(b * 4) + 1, b * 4);
  const large: number[] = [];
  const offsets = Buffer.alloc(at.length * 4);
  at.forEach((o, k) => {
    if (o.offset < 0x80000000) offsets.writeUInt32BE(o.offset, k * 4);
    else offsets.writeUInt32BE((0x80000000 | (large.push(o.offset) - 1)) >>> 0, k * 4);
  });
  const big = Buffer.alloc(large.length * 8);
  large.forEach((n, k) => big.writeBigUInt64BE(BigInt(n), k * 8));
  const crcs = Buffer.alloc(at.length * 4);
  at.forEach((o, k) => crcs.writeUInt32BE(o.crc >>> 0, k * 4));
  const body = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ...at.map((o) => Buffer.from(o.id, 'hex')),
    crcs,
    offsets,
    big,
    checksum,
  ]);
  const idx = Buffer.concat([body, createHash('sha1').update(body).digest()]);
  return { pack, idx, name: checksum.toString('hex') };
}

/** The refs of the project's repository by full name (the lazy default branch included). */
function repositoryRefs(st: PlatformState, proj: ProjectRecord): [string, string][] {
  const out: [string, string][] = [];
  const store = objectsOf(st);
  for (const [kind, prefix] of [
    ['branch', 'refs/heads/'],
    ['tag', 'refs/tags/'],
  ] as const)
    for (const n of names(st, proj, kind)) {
      const id = refTarget(st, proj, kind, n);
      // A ref a scenario gave a sha no object has cannot be in a repository git reads.
      if (id !== undefined && store.has(id)) out.push([`${prefix}${n}`, id]);
    }
  for (const [name, id] of otherRefs(st, proj)) if (store.has(id)) out.push([name, id]);
  return out;
}

const WIKI_EXT: Record<string, string> = { markdown: 'md', rdoc: 'rdoc', asciidoc: 'asciidoc', org: 'org' };

/**
 * The wiki's repository: its pages' current text as files of one commit on `master` (the page records
 * keep no authors, so the commit is the instance's own), in a store of its own.
 */
function wikiRepository(st: PlatformState, proj: ProjectRecord) {
  const store = new ObjectStore();
  const pages = ownerPages(st, { project_id: proj.id, group_id: null });
  if (pages.length === 0) return { store, refs: [] as [string, string][] };
  // Pages in folders (`dir/Page`) are files in trees of those folders.
  const root: Map<string, unknown> = new Map();
  for (const pg of pages) {
    const parts = `${pg.slug}.${WIKI_EXT[pg.format] ?? 'md'}`.split('/');
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      if (!(node.get(dir) instanceof Map)) node.set(dir, new Map());
      node = node.get(dir) as Map<string, unknown>;
    }
    node.set(parts[parts.length - 1]!, store.putBlob(Buffer.from(pg.content)));
  }
  const tree = (node: Map<string, unknown>): string => {
    const entries: TreeEntry[] = [...node].map(([name, v]) =>
      v instanceof Map ? { mode: '40000', name, id: tree(v) } : { mode: '100644', name, id: v as string },
    );
    return store.putTree(entries);
  };
  const time = Math.floor(Math.max(...pages.map((pg) => Date.parse(pg.updated_at))) / 1000);
  const who = signatureAt({ name: 'Administrator', email: 'admin@example.com' }, time);
  const commit = store.putCommit({
    tree: tree(root),
    parents: [],
    author: who,
    committer: who,
    message: 'Wiki\n',
  });
  return { store, refs: [['refs/heads/master', commit]] as [string, string][] };
}

/** The tar's entries: `HEAD`, the ref files under their folders, the objects' pack and index. */
async function snapshotEntries(store: ObjectStore, refs: [string, string][], head: string): Promise<Entry[]> {
  const out: Entry[] = [{ name: 'HEAD', data: Buffer.from(`ref: refs/heads/${head}\n`), mode: 0o644 }];
  const dirs = new Set<string>(['refs', 'refs/heads', 'refs/tags']);
  for (const [name] of refs) {
    const parts = name.split('/');
    for (let k = 1; k < parts.length; k++) dirs.add(parts.slice(0, k).join('/'));
  }
  const files = new Map(refs);
  // Each folder before what it holds, in byte order.
  for (const path of [...dirs, ...files.keys()].sort()) {
    const id = files.get(path);
    out.push(
      id === undefined
        ? { name: `${path}/`, mode: 0o755 }
        : { name: path, data: Buffer.from(`${id}\n`), mode: 0o644 },
    );
  }
  out.push({ name: 'objects/', mode: 0o755 });
  const ids = reachableObjects(store, [...new Set(refs.map(([, id]) => id))]);
  if (ids.length > 0) {
    const { pack, idx, name } = await packWithIndex(store, ids);
    out.push({ name: 'objects/pack/', mode: 0o755 });
    out.push({ name: `objects/pack/pack-${name}.idx`, data: idx, mode: 0o444 });
    out.push({ name: `objects/pack/pack-${name}.pack`, data: pack, mode: 0o444 });
  }
  return out;
}

/** tar-stream loads with the first snapshot, not with the server. */
const tarStream = () => (createRequire(import.meta.url)('tar-stream') as typeof import('tar-stream')).pack();

async function tarOf(entries: readonly Entry[], mtime: Date): Promise<Buffer> {
  const t = tarStream();
  const chunks: Buffer[] = [];
  t.on('data', (b: unknown) => {
    chunks.push(b as Buffer);
  });
  const done = new Promise<void>((resolve, reject) => {
    t.on('end', resolve);
    t.on('error', reject);
  });
  for (const e of entries)
    if (e.data === undefined) t.entry({ name: e.name, type: 'directory', mode: e.mode, mtime });
    else t.entry({ name: e.name, mode: e.mode, mtime }, e.data);
  t.finalize();
  await done;
  return Buffer.concat(chunks);
}

export function snapshotRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/snapshot',
    { auth: 'admin', params: { id: p.str().required(), wiki: p.bool() } },
    async (c: Ctx, prm) => {
      const proj = findProject(c, prm.id) as Project;
      const st = state(c);
      const repo = prm.wiki
        ? { ...wikiRepository(st, proj), head: 'master' }
        : { store: objectsOf(st), refs: repositoryRefs(st, proj), head: proj.default_branch ?? 'master' };
      const tar = await tarOf(
        await snapshotEntries(repo.store, repo.refs, repo.head),
        new Date(c.get('fx').clock.ms()),
      );
      // Workhorse's `git-snapshot` sender: its own headers, no length (the tar is streamed from Gitaly).
      return c.body(new Uint8Array(tar), 200, {
        'Content-Disposition': 'attachment; filename="snapshot.tar"',
        'Content-Type': 'application/x-tar',
        'Content-Transfer-Encoding': 'binary',
        'Cache-Control': 'private',
      });
    },
  );
}
