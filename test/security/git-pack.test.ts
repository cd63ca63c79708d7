/**
 * Pushed packs and gzipped git requests never stall the process: deltas resolve in linear time
 * whatever their order while other requests are answered, every bound of the reader refuses a push as
 * git reports an unpack failure (nothing written), and a gzip bomb to either RPC stops inflating at
 * its bound. Real git checks that well-formed delta chains (OFS and REF, deep) still land whole.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fauxlab } from '../../src/index.js';
import {
  GIT_MAX_REQUEST_BUFFER,
  gunzipBounded,
  InflatedTooLarge,
} from '../../src/resources/git_http/body.js';
import { DELIM, FLUSH, pkt } from '../../src/resources/git_http/pktline.js';
import { hashObject, ObjectStore, type ObjectType } from '../../src/resources/repository/objects.js';
import { DEFAULT_PACK_LIMITS, PackError, readPack } from '../../src/resources/repository/pack.js';
import { objectsOf } from '../../src/resources/repository/store.js';
import { localServers } from '../helpers.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const HOST = 'http://gitlab.test';
const ZERO = '0'.repeat(40);
const GIT = '/usr/bin/git';
const hasGit = existsSync(GIT);
const listen = localServers();
const auth = { Authorization: `Basic ${Buffer.from('dev:dev-api').toString('base64')}` };

// A pack as git writes one: entries of `<type, size>` headers and deflated payloads, the SHA-1 trailer.
const CODE: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
function entryHeader(code: number, size: number): Buffer {
  const out = [(code << 4) | (size & 0x0f)];
  for (let rest = Math.floor(size / 16); rest > 0; rest = Math.floor(rest / 128)) {
    out[out.length - 1]! |= 0x80;
    out.push(rest & 0x7f);
  }
  return Buffer.from(out);
}
const whole = (type: ObjectType, data: Buffer, level = 6) =>
  Buffer.concat([entryHeader(CODE[type], data.length), deflateSync(data, { level })]);
const refDelta = (base: string, delta: Buffer) =>
  Buffer.concat([entryHeader(7, delta.length), Buffer.from(base, 'hex'), deflateSync(delta)]);
function packOf(entries: Buffer[], count = entries.length): Buffer {
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(count, 8);
  const body = Buffer.concat([head, ...entries]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}
function varint(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}
/** A delta that keeps the first `keep` bytes of its base and appends `tail`. */
const keepAndAppend = (baseSize: number, keep: number, tail: Buffer) =>
  Buffer.from([...varint(baseSize), ...varint(keep + tail.length), 0x90, keep, tail.length, ...tail]);

/** A root commit of a tree of `blobs` (named f0, f1, ...), as a scratch store encodes them. */
function commitOf(blobs: string[]): { commit: string; tree: string; raw: (id: string) => Buffer } {
  const scratch = new ObjectStore();
  const tree = scratch.putTree(blobs.map((id, i) => ({ mode: '100644', name: `f${i}`, id })));
  const who = { name: 'Dev', email: 'dev@example.com', time: 1614600000 };
  const commit = scratch.putCommit({ tree, parents: [], author: who, committer: who, message: 'deltas\n' });
  return { commit, tree, raw: (id) => scratch.raw(id)! };
}

/** A push of `ref` (new) to `id`, with `pack`. */
const pushBody = (ref: string, id: string, pack: Buffer) =>
  Buffer.concat([pkt(`${ZERO} ${id} ${ref}\0report-status side-band-64k\n`), FLUSH, pack]);

const rpc = (fx: Fauxlab, service: string, body: Buffer, headers: Record<string, string> = {}) =>
  fx.fetch(
    new Request(`${HOST}/g-public/p.git/${service}`, {
      method: 'POST',
      body: new Uint8Array(body),
      headers: { ...auth, 'Content-Type': `application/x-${service}-request`, ...headers },
    }),
  );

const branches = async (fx: Fauxlab) =>
  (
    (await (
      await fx.fetch(
        new Request(`${HOST}/api/v4/projects/g-public%2Fp/repository/branches`, {
          headers: { 'PRIVATE-TOKEN': 'dev-api' },
        }),
      )
    ).json()) as { name: string; commit: { id: string } }[]
  ).map((b) => `${b.name} ${b.commit.id}`);

const setSetting = async (fx: Fauxlab, query: string) => {
  const res = await fx.fetch(
    new Request(`${HOST}/api/v4/application/settings?${query}`, {
      method: 'PUT',
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    }),
  );
  expect(res.status).toBe(200);
};

/**
 * 7,000 REF_DELTA entries in two chains of 3,500, each delta listed before the delta it is made
 * from and the two whole blobs last: the order that made the reader rescan every pending delta once
 * per resolved one.
 */
function baseLastPack(): { pack: Buffer; blobs: Map<string, Buffer>; commit: string } {
  const blobs = new Map<string, Buffer>();
  const chains: { id: string; delta: Buffer }[][] = [];
  const bases: Buffer[] = [];
  for (const name of ['a', 'b']) {
    let data = Buffer.from(`${name} `.repeat(28));
    bases.push(data);
    let id = hashObject('blob', data);
    blobs.set(id, data);
    const chain: { id: string; delta: Buffer }[] = [];
    for (let i = 0; i < 3_500; i++) {
      const tail = Buffer.from(String(i).padStart(8, '0'));
      const delta = keepAndAppend(data.length, 48, tail);
      const next = Buffer.concat([data.subarray(0, 48), tail]);
      chain.push({ id, delta });
      id = hashObject('blob', next);
      blobs.set(id, next);
      data = next;
    }
    chains.push(chain);
  }
  const { commit, tree, raw } = commitOf([...blobs.keys()]);
  const entries = [whole('commit', raw(commit)), whole('tree', raw(tree))];
  // Deepest first, the two chains interleaved; then the bases.
  for (let i = 3_499; i >= 0; i--)
    for (const chain of chains) entries.push(refDelta(chain[i]!.id, chain[i]!.delta));
  for (const b of bases) entries.push(whole('blob', b));
  return { pack: packOf(entries), blobs, commit };
}

describe('security: pushed packs', () => {
  it('POST git-receive-pack of 7,000 deltas listed base-last: every object resolves, and other requests are answered meanwhile', async () => {
    const fx = reliabilityFx();
    const { pack, blobs, commit } = baseLastPack();
    expect(blobs.size).toBe(7_002);
    const order: string[] = [];
    let pending = true;
    let turns = 0;
    const spin = () => {
      if (!pending) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    const push = rpc(fx, 'git-receive-pack', pushBody('refs/heads/deltas', commit, pack)).then(async (r) => {
      pending = false;
      order.push('push');
      return { status: r.status, text: await r.text() };
    });
    // A read once the push is under way (its request is in and the loop has turned a few times).
    while (turns < 3 && pending) await new Promise((r) => setImmediate(r));
    const read = branches(fx).then((b) => {
      order.push('read');
      return b;
    });
    const [pushed, listed] = await Promise.all([push, read]);
    expect(order).toEqual(['read', 'push']);
    // The reader let the loop turn every few hundred objects, not once for the whole pack.
    expect(turns).toBeGreaterThanOrEqual(20);
    expect(listed.some((b) => b.startsWith('master '))).toBe(true);
    expect(pushed.status).toBe(200);
    expect(pushed.text).toContain('unpack ok\n');
    expect(pushed.text).toContain('ok refs/heads/deltas\n');
    const store = objectsOf(fx.state);
    for (const [id, data] of blobs) expect(store.raw(id)?.equals(data)).toBe(true);
    expect(await branches(fx)).toContain(`deltas ${commit}`);
    await expectUnharmed(fx);
  });

  /** A push of `pack` to a new branch, refused: git's words on the progress band, the refs as they were. */
  async function refused(fx: Fauxlab, pack: Buffer, reason: string, unpacker: string): Promise<void> {
    const before = await branches(fx);
    const objects = objectsOf(fx.state).count;
    const res = await rpc(fx, 'git-receive-pack', pushBody('refs/heads/refused', '1'.repeat(40), pack));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain(`\x02fatal: ${reason}\n`);
    expect(text).toContain(`unpack ${unpacker} abnormal exit\n`);
    expect(text).toContain('ng refs/heads/refused unpacker error\n');
    expect(await branches(fx)).toEqual(before);
    expect(objectsOf(fx.state).count).toBe(objects);
  }

  it('POST git-receive-pack over receive_max_input_size: "pack exceeds maximum allowed size", as git with receive.maxInputSize', async () => {
    const fx = reliabilityFx();
    await setSetting(fx, 'receive_max_input_size=1');
    // 1.5 MiB that does not deflate: a pack larger than 1 MiB as sent.
    const big = Buffer.alloc(1536 * 1024);
    for (let i = 0; i < big.length; i += 32) createHash('sha256').update(String(i)).digest().copy(big, i);
    const blob = hashObject('blob', big);
    const c = commitOf([blob]);
    const pack = packOf([whole('commit', c.raw(c.commit)), whole('tree', c.raw(c.tree)), whole('blob', big)]);
    expect(pack.length).toBeGreaterThan(1024 * 1024);
    await refused(fx, pack, 'pack exceeds maximum allowed size', 'unpack-objects');
    // The same push within a 2 MiB limit lands.
    await setSetting(fx, 'receive_max_input_size=2');
    const ok = await rpc(fx, 'git-receive-pack', pushBody('refs/heads/big', c.commit, pack));
    expect(await ok.text()).toContain('ok refs/heads/big\n');
    await expectUnharmed(fx);
  });

  it('POST git-receive-pack of a pack counting more objects than the bound: refused on its header, nothing written', async () => {
    const fx = reliabilityFx();
    // None follow: the count refuses first.
    await refused(
      fx,
      packOf([], DEFAULT_PACK_LIMITS.maxObjects + 1),
      `pack has more than ${DEFAULT_PACK_LIMITS.maxObjects} objects`,
      'index-pack',
    );
    await expectUnharmed(fx);
  });

  it('POST git-receive-pack of an entry or a delta result declared over the object bound: refused before inflating or allocating it', async () => {
    const fx = reliabilityFx();
    // An entry declaring more than the object bound: refused on its header, before inflating.
    const huge = Buffer.concat([entryHeader(3, DEFAULT_PACK_LIMITS.maxObjectBytes + 1), deflateSync('x')]);
    await refused(fx, packOf([huge]), 'object too large', 'unpack-objects');
    // A delta declaring a result over the object bound: refused before the result is allocated.
    const base = Buffer.from('base');
    const grow = Buffer.from([...varint(4), ...varint(DEFAULT_PACK_LIMITS.maxObjectBytes + 1), 0x90, 4]);
    await refused(
      fx,
      packOf([whole('blob', base), refDelta(hashObject('blob', base), grow)]),
      'object too large',
      'unpack-objects',
    );
    await expectUnharmed(fx);
  });

  it('POST git-receive-pack of a REF_DELTA chain one deeper than the bound, base first: refused, nothing written', async () => {
    const fx = reliabilityFx();
    const base = Buffer.from('base');
    const entries = [whole('blob', base)];
    let data = base;
    for (let i = 0; i <= DEFAULT_PACK_LIMITS.maxDeltaDepth; i++) {
      const tail = Buffer.from(String(i).padStart(8, '0'));
      entries.push(refDelta(hashObject('blob', data), keepAndAppend(data.length, 4, tail)));
      data = Buffer.concat([base, tail]);
    }
    await refused(fx, packOf(entries), 'delta chain too deep', 'index-pack');
    await expectUnharmed(fx);
  });

  it('readPack: the total bound counts what deltas declare before they are applied', async () => {
    const base = Buffer.alloc(1000, 'a');
    // Declares 2 MiB but carries nothing to make it with: refused on the declaration, not on the ops.
    const bogus = Buffer.from([...varint(1000), ...varint(2 * 1024 * 1024), 0x90, 0]);
    const pack = packOf([whole('blob', base), refDelta(hashObject('blob', base), bogus)]);
    const limits = { ...DEFAULT_PACK_LIMITS, maxTotalBytes: 1024 * 1024 };
    expect(() => readPack(pack, undefined, limits)).toThrow(new PackError('pack is too large'));
    // Entries inflated count too: the second 600 KiB blob passes 1 MiB before it is inflated.
    const blobs = packOf([
      whole('blob', Buffer.alloc(600 * 1024)),
      whole('blob', Buffer.alloc(600 * 1024, 1)),
    ]);
    expect(() => readPack(blobs, undefined, limits)).toThrow(new PackError('pack is too large'));
    await expectUnharmed(reliabilityFx());
  });
});

/** `member` gzipped once and repeated `times`: gzip members concatenate, so the bomb costs one gzip. */
const bomb = (member: Buffer, times: number) => Buffer.concat(Array<Buffer>(times).fill(gzipSync(member)));

describe('security: gzipped git requests', () => {
  const zeros = bomb(Buffer.alloc(64 * 1024 * 1024), 64); // 4 GiB inflated
  const haveLine = pkt(`have ${'a'.repeat(40)}\n`);
  const haves = bomb(Buffer.concat(Array<Buffer>(20_000).fill(haveLine)), 64); // 64 MB inflated

  it('gunzipBounded: a 4 GiB bomb of pkt-lines stops at the bound; one of zeros after its first chunk', async () => {
    const framedBomb = bomb(Buffer.concat(Array<Buffer>(80_000).fill(haveLine)), 1_000); // 4 GB
    const e = await gunzipBounded(framedBomb, GIT_MAX_REQUEST_BUFFER).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InflatedTooLarge);
    expect((e as InflatedTooLarge).inflated).toBeGreaterThan(GIT_MAX_REQUEST_BUFFER);
    expect((e as InflatedTooLarge).inflated).toBeLessThanOrEqual(GIT_MAX_REQUEST_BUFFER + 64 * 1024);
    const head = await gunzipBounded(zeros, GIT_MAX_REQUEST_BUFFER);
    expect(head.length).toBeGreaterThanOrEqual(4);
    expect(head.length).toBeLessThanOrEqual(64 * 1024);
    expect(head.every((b) => b === 0)).toBe(true);
    await expectUnharmed(reliabilityFx());
  });

  it('POST git-upload-pack, Content-Encoding: gzip: 64 MB of haves is 413 at http.maxRequestBuffer; 4 GiB of zeros 400 on its first bytes', async () => {
    const fx = reliabilityFx();
    const res = await rpc(fx, 'git-upload-pack', haves, { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(await res.text()).toBe('Request Entity Too Large');
    const z = await rpc(fx, 'git-upload-pack', zeros, { 'Content-Encoding': 'gzip' });
    expect(z.status).toBe(400);
    expect(await z.text()).toBe('bad pkt-line length');
    // Within the bound, a gzipped request is served.
    const small = await rpc(
      fx,
      'git-upload-pack',
      gzipSync(Buffer.concat([pkt('command=ls-refs\n'), DELIM, FLUSH])),
      {
        'Content-Encoding': 'gzip',
        'Git-Protocol': 'version=2',
      },
    );
    expect(small.status).toBe(200);
    expect(await small.text()).toContain('refs/heads/master\n');
    await expectUnharmed(fx);
  });

  it('POST git-receive-pack, Content-Encoding: gzip: past the push size limit 413; 4 GiB of zeros 400 on its first bytes', async () => {
    const fx = reliabilityFx();
    const z = await rpc(fx, 'git-receive-pack', zeros, { 'Content-Encoding': 'gzip' });
    expect(z.status).toBe(400);
    expect(await z.text()).toBe('bad pkt-line length');
    await setSetting(fx, 'receive_max_input_size=1');
    // A push whose pack stores 2 MiB undeflated (level 0): 2 MiB of pack in a few KB of gzip.
    const blob = Buffer.alloc(2 * 1024 * 1024);
    const c = commitOf([hashObject('blob', blob)]);
    const pack = packOf([
      whole('commit', c.raw(c.commit)),
      whole('tree', c.raw(c.tree)),
      whole('blob', blob, 0),
    ]);
    const body = gzipSync(pushBody('refs/heads/gz', c.commit, pack));
    expect(body.length).toBeLessThan(64 * 1024);
    const before = await branches(fx);
    const res = await rpc(fx, 'git-receive-pack', body, { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(await branches(fx)).toEqual(before);
    await expectUnharmed(fx);
  });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe.skipIf(!hasGit)('security: delta chains git makes still land', () => {
  let root: string;
  const git = (args: string[], cwd = root): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        GIT,
        args,
        {
          cwd,
          timeout: 120_000,
          maxBuffer: 64 * 1024 * 1024,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: root,
            GIT_CONFIG_NOSYSTEM: '1',
            GIT_TERMINAL_PROMPT: '0',
            GIT_AUTHOR_NAME: 'Git User',
            GIT_AUTHOR_EMAIL: 'git@example.com',
            GIT_COMMITTER_NAME: 'Git User',
            GIT_COMMITTER_EMAIL: 'git@example.com',
            GIT_AUTHOR_DATE: '1614600000 +0000',
            GIT_COMMITTER_DATE: '1614600000 +0000',
          },
          encoding: 'buffer',
        },
        (err, stdout, stderr) =>
          resolve({
            code: err ? ((err as { code?: number }).code ?? 1) : 0,
            stdout: stdout.toString('latin1'),
            stderr: stderr.toString(),
          }),
      );
    });
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'fauxlab-git-pack-'));
    // A file that changes a little in each of 60 commits, repacked with chains up to 50 deep.
    const dir = join(root, 'src');
    await git(['init', '-q', '-b', 'main', dir]);
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i} of a file that changes a little\n`);
    for (let c = 0; c < 60; c++) {
      lines[(c * 11) % lines.length] = `changed in commit ${c}\n`;
      writeFileSync(join(dir, 'big.txt'), lines.join(''));
      await git(['add', '-A'], dir);
      await git(['commit', '-q', '-m', `commit ${c}`], dir);
    }
    await git(['repack', '-a', '-d', '-f', '--depth=50', '--window=250'], dir);
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** The longest delta chain of the packs of `dir`, as verify-pack reports it. */
  async function deepestChain(dir: string): Promise<number> {
    const packDir = join(dir, '.git', 'objects', 'pack');
    const idx = readdirSync(packDir).filter((f) => f.endsWith('.idx'));
    let deepest = 0;
    for (const f of idx) {
      const out = (await git(['verify-pack', '-v', join(packDir, f)], dir)).stdout;
      for (const m of out.matchAll(/^chain length = (\d+):/gm)) deepest = Math.max(deepest, Number(m[1]));
    }
    return deepest;
  }

  it('git push of a history repacked with --depth=50 (OFS_DELTA chains), then a REF_DELTA pack base-last in chains: git clones both back and fsck passes', async () => {
    const fx = reliabilityFx();
    const base = await listen(fx.fetch);
    const dir = join(root, 'src');
    expect(await deepestChain(dir)).toBeGreaterThan(1);
    const remote = `${base.replace('http://', 'http://dev:dev-api@')}/g-public/p.git`;
    const pushed = await git(['push', '-q', remote, 'main:refs/heads/ofs'], dir);
    expect(pushed.stderr).not.toContain('error');
    expect(pushed.code).toBe(0);

    // The same history as REF_DELTA entries (no --delta-base-offset), reused from the repacked chains.
    const head = (await git(['rev-parse', 'main'], dir)).stdout.trim();
    const refPack = await new Promise<Buffer>((resolve, reject) => {
      const child = execFile(
        GIT,
        ['pack-objects', '--stdout', '--revs', '-q'],
        {
          cwd: dir,
          encoding: 'buffer',
          maxBuffer: 64 * 1024 * 1024,
          env: { PATH: '/usr/bin:/bin', HOME: root },
        },
        (e, so) => (e ? reject(e) : resolve(so)),
      );
      child.stdin!.end(`${head}\n`);
    });
    const res = await rpc(fx, 'git-receive-pack', pushBody('refs/heads/ref', head, refPack));
    expect(await res.text()).toContain('ok refs/heads/ref\n');

    // And the 7,000 deltas listed base-last, as git reads them back.
    const last = baseLastPack();
    const deltas = await rpc(fx, 'git-receive-pack', pushBody('refs/heads/deltas', last.commit, last.pack));
    expect(await deltas.text()).toContain('ok refs/heads/deltas\n');
    const lastClone = join(root, 'clone-deltas');
    expect((await git(['clone', '-q', '-b', 'deltas', remote, lastClone])).code).toBe(0);
    expect((await git(['fsck', '--strict', '--no-dangling'], lastClone)).code).toBe(0);
    const files = (await git(['ls-tree', 'HEAD'], lastClone)).stdout.trim().split('\n');
    expect(files).toHaveLength(7_002);
    for (const line of [files[0]!, files[3_501]!, files[7_001]!]) {
      const [, , id] = line.split(/\s+/);
      const blob = await git(['cat-file', 'blob', id!], lastClone);
      expect(Buffer.from(blob.stdout, 'latin1').equals(last.blobs.get(id!)!)).toBe(true);
    }

    for (const branch of ['ofs', 'ref']) {
      const clone = join(root, `clone-${branch}`);
      const cloned = await git(['clone', '-q', '-b', branch, remote, clone]);
      expect(cloned.code).toBe(0);
      expect((await git(['fsck', '--strict', '--no-dangling'], clone)).code).toBe(0);
      expect((await git(['rev-parse', 'HEAD'], clone)).stdout.trim()).toBe(head);
      const theirs = (await git(['rev-list', '--objects', 'HEAD'], clone)).stdout;
      expect(theirs).toBe((await git(['rev-list', '--objects', 'main'], dir)).stdout);
      expect((await git(['cat-file', '-p', 'HEAD:big.txt'], clone)).stdout).toBe(
        (await git(['cat-file', '-p', 'main:big.txt'], dir)).stdout,
      );
    }
    await expectUnharmed(fx);
  }, 120_000);
});
