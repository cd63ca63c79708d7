import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bzip2, bzip2Crc, MAX_BZIP2_INPUT } from '../../../src/resources/repository/bzip2.js';
import { APP, call, commitFiles, world } from './world.js';

const BZIP2 = '/usr/bin/bzip2';
const haveBzip2 = existsSync(BZIP2);

/** Decompresses with the system's bzip2, which checks every block's CRC and the stream's. */
function bunzip(z: Buffer): Buffer {
  return execFileSync(BZIP2, ['-dc'], { input: z, maxBuffer: 64 * 1024 * 1024 });
}

/** Deterministic pseudo-random bytes (xorshift32). */
function noise(n: number): Buffer {
  const out = Buffer.alloc(n);
  let s = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = s & 0xff;
  }
  return out;
}

/** Source-like text: numbered lines of code with some repetition, `n` bytes. */
function text(n: number): Buffer {
  const lines: string[] = [];
  let len = 0;
  for (let k = 0; len < n; k++) {
    const line = `  const value${k % 997} = compute(${k}, "${(k * 7919) % 10007}"); // step ${k % 13}\n`;
    lines.push(line);
    len += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, n);
}

/** How many blocks a stream holds: each starts with the 48-bit magic 0x314159265359 at some bit offset. */
function blockCount(z: Buffer): number {
  let count = 0;
  // The 48-bit window as two 24-bit halves.
  let hi = 0;
  let lo = 0;
  for (let bit = 0; bit < z.length * 8; bit++) {
    hi = ((hi << 1) | (lo >>> 23)) & 0xffffff;
    lo = ((lo << 1) | ((z[bit >> 3]! >> (7 - (bit & 7))) & 1)) & 0xffffff;
    if (bit >= 47 && hi === 0x314159 && lo === 0x265359) count++;
  }
  return count;
}

describe('bzip2 compressor', () => {
  it('bzip2Crc: the CRC-32/BZIP2 check value of "123456789" is 0xfc891918', () => {
    expect(bzip2Crc(Buffer.from('123456789'))).toBe(0xfc891918);
    expect(bzip2Crc(Buffer.alloc(0))).toBe(0);
  });

  it('bzip2: an empty input is the stream header, the end marker and a zero CRC', () => {
    expect(bzip2(Buffer.alloc(0)).toString('hex')).toBe('425a6839177245385090' + '00000000');
  });

  it('bzip2: refuses an input past its bound', () => {
    expect(() => bzip2(new Uint8Array(MAX_BZIP2_INPUT + 1))).toThrow(RangeError);
  });

  it.skipIf(!haveBzip2)('bzip2: empty input and one byte round-trip through bzip2 -d', () => {
    expect(bunzip(bzip2(Buffer.alloc(0))).length).toBe(0);
    expect(bunzip(bzip2(Buffer.from('x'))).toString()).toBe('x');
  });

  it.skipIf(!haveBzip2)('bzip2: runs of 10k equal bytes, of 3, 4, 5, 255, 256 and 1000 round-trip', () => {
    const long = Buffer.alloc(10_000, 'a');
    const z = bzip2(long);
    expect(z.length).toBeLessThan(100);
    expect(bunzip(z).equals(long)).toBe(true);
    const mixed = Buffer.concat(
      [3, 4, 5, 255, 256, 1000, 1, 259].map((n, i) => Buffer.alloc(n, String.fromCharCode(97 + (i % 3)))),
    );
    expect(bunzip(bzip2(mixed)).equals(mixed)).toBe(true);
  });

  it.skipIf(!haveBzip2)('bzip2: 300k random bytes round-trip', () => {
    const data = noise(300_000);
    expect(bunzip(bzip2(data)).equals(data)).toBe(true);
  });

  it.skipIf(!haveBzip2)('bzip2: a periodic input (all rotations in few classes) round-trips', () => {
    const data = Buffer.from('abcdefg'.repeat(20_000));
    expect(bunzip(bzip2(data)).equals(data)).toBe(true);
  });

  it.skipIf(!haveBzip2)('bzip2: 2 MB of text is written as three 900k blocks and round-trips', () => {
    const data = text(2 * 1024 * 1024);
    const z = bzip2(data);
    expect(z.subarray(0, 4).toString()).toBe('BZh9');
    expect(blockCount(z)).toBe(3);
    expect(z.length).toBeLessThan(data.length / 4);
    expect(bunzip(z).equals(data)).toBe(true);
  });
});

/** Extracts an archive with the system's tar and reads every file under the directory. */
function extract(bytes: Buffer, flags: string): Map<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'fauxlab-bz2-'));
  try {
    const file = join(dir, 'a');
    writeFileSync(file, bytes);
    const out = join(dir, 'out');
    execFileSync('mkdir', [out]);
    execFileSync('tar', [flags, file, '-C', out]);
    const files = new Map<string, string>();
    const walk = (d: string, rel: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(join(d, e.name), r);
        else files.set(r, readFileSync(join(d, e.name), 'utf8'));
      }
    };
    walk(out, '');
    return files;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function download(fx: ReturnType<typeof world>, path: string) {
  const res = await fx.app.request(`/api/v4${APP}/repository/${path}`, {
    headers: { 'PRIVATE-TOKEN': 'rep' },
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('repository archive as tar.bz2', () => {
  it.skipIf(!haveBzip2)(
    'GET /projects/:id/repository/archive.tar.bz2: a tar.bz2 that tar -xjf extracts to the tar.gz files',
    async () => {
      const fx = world();
      const c = await commitFiles(fx, {
        'src/a.txt': 'a\n'.repeat(500),
        'b.txt': 'b\n',
        'docs/c.md': '# c\n',
      });
      const { res, bytes } = await download(fx, 'archive.tar.bz2');
      expect(res.status).toBe(200);
      const prefix = `app-master-${c.id}`;
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.tar.bz2"`);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-transfer-encoding')).toBe('binary');
      expect(bytes.subarray(0, 4).toString()).toBe('BZh9');
      const files = extract(bytes, '-xjf');
      expect([...files.keys()].sort()).toEqual(
        [`${prefix}/README.md`, `${prefix}/b.txt`, `${prefix}/docs/c.md`, `${prefix}/src/a.txt`].sort(),
      );
      expect(files.get(`${prefix}/src/a.txt`)).toBe('a\n'.repeat(500));
      const gz = await download(fx, 'archive.tar.gz');
      expect(gz.res.headers.get('content-type')).toBe('application/octet-stream');
      expect(files).toEqual(extract(gz.bytes, '-xzf'));
      // The same commit gives the same bytes.
      expect((await download(fx, 'archive.tar.bz2')).bytes.equals(bytes)).toBe(true);
    },
  );

  it.skipIf(!haveBzip2)(
    'GET /projects/:id/repository/archive: tbz, tbz2, tb2 and bz2 (suffix or ?format=) name a .tar.bz2',
    async () => {
      const fx = world();
      const c = await commitFiles(fx, { 'x.txt': 'x\n' });
      const prefix = `app-master-${c.id}`;
      for (const path of [
        'archive.tbz',
        'archive.tbz2',
        'archive.tb2',
        'archive.bz2',
        'archive?format=tbz2',
      ]) {
        const { res, bytes } = await download(fx, path);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.tar.bz2"`);
        expect(extract(bytes, '-xjf').get(`${prefix}/x.txt`)).toBe('x\n');
      }
      expect((await call(fx, 'GET', `${APP}/repository/archive.tar.xz`, 'rep')).body).toEqual({
        error: 'format does not have a valid value',
      });
    },
  );
});

describe('repository archive as tar.bz2, bounded', () => {
  it('GET /projects/:id/repository/archive.tar.bz2: 400 when the tar would pass the compressor bound', async () => {
    const fx = world();
    await commitFiles(fx, { 'big.txt': 'y'.repeat(MAX_BZIP2_INPUT) });
    const res = await call(fx, 'GET', `${APP}/repository/archive.tar.bz2`, 'rep');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'the archive would be too large' });
    // The other formats keep their own bound.
    const tarred = await download(fx, 'archive.tar');
    expect(tarred.res.status).toBe(200);
    expect(tarred.bytes.length).toBeGreaterThan(MAX_BZIP2_INPUT);
  });
});
