/**
 * Repository archives of a large tree: a 70,000-file zip is valid ZIP64 (read back by `unzip` and by
 * Python's zipfile), archives are streamed (the first bytes arrive, and another request is answered,
 * while the archive is still being written), and the tar.gz of the same tree lists every entry.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { archivesInFlight } from '../../src/resources/repository/archive.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import { reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const has = (cmd: string, args: string[]) => {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const hasUnzip = has('unzip', ['-v']);
const hasPython = has('python3', ['--version']);

const root = mkdtempSync(join(tmpdir(), 'fauxlab-archive-security-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DIRS = 70;
const PER_DIR = 1000;
const FILES = DIRS * PER_DIR;

function bigWorld(): ScenarioFile {
  const files: Record<string, string> = {};
  for (let d = 0; d < DIRS; d++)
    for (let f = 0; f < PER_DIR; f++) files[`d${d}/f${f}.txt`] = `file ${d}/${f}\n`;
  return {
    ...reliabilityWorld,
    projects: [
      ...(reliabilityWorld.projects ?? []),
      {
        // Private: the canary counts the public projects an anonymous caller sees.
        path: 'g-private/big',
        visibility: 'private',
        creator: 'owner',
        repository: { commits: [{ branch: 'master', message: 'Many files', files }] },
      },
    ],
  };
}

/** Reads a response body to its end; `first` runs when the first chunk has come. */
async function readAll(res: Response, first: () => Promise<void>): Promise<Buffer> {
  const reader = res.body!.getReader();
  const chunks: Buffer[] = [];
  for (let n = 0; ; n++) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(Buffer.from(value));
    if (n === 0) await first();
  }
  return Buffer.concat(chunks);
}

describe('security: repository archives of large trees', () => {
  test('GET /projects/:id/repository/archive.zip of 70,000 files: a streamed ZIP64 archive that unzip and zipfile read whole; another request is answered while it is written; the .tar.gz lists the same entries', async () => {
    const fx = createFauxlab({ scenario: bigWorld() });
    // In the instance's own fetch, nothing reads the body ahead of the reader: what the reader has
    // seen is what the stream has written (and one pull ahead).
    const url = 'http://localhost/api/v4/projects/g-private%2Fbig/repository/archive';
    const fetch = (u: string, token = 'root-api') =>
      fx.fetch(new Request(u, { headers: { 'PRIVATE-TOKEN': token } }));

    const zipRes = await fetch(`${url}.zip`);
    expect(zipRes.status).toBe(200);
    expect(zipRes.headers.get('content-type')).toBe('application/zip');
    let inFlightAtFirst = -1;
    let otherStatus = 0;
    const zip = await readAll(zipRes, async () => {
      // The first bytes are out while the rest is still being written, and the instance serves others.
      inFlightAtFirst = archivesInFlight(fx.clock);
      otherStatus = (await fetch('http://localhost/api/v4/user', 'dev-api')).status;
      expect(archivesInFlight(fx.clock)).toBe(1);
    });
    expect(inFlightAtFirst).toBe(1);
    expect(otherStatus).toBe(200);
    expect(archivesInFlight(fx.clock)).toBe(0);

    // 70,000 files, their 70 directories and the top one: past the 65,535 entries of the classic end
    // record, so the ZIP64 end of central directory record (PK\x06\x06) and its locator are there.
    const entries = FILES + DIRS + 1;
    expect(zip.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
    expect(zip.includes(Buffer.from([0x50, 0x4b, 0x06, 0x07]))).toBe(true);
    const file = join(root, 'big.zip');
    writeFileSync(file, zip);
    if (hasUnzip) {
      const tested = execFileSync('unzip', ['-tq', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      expect(tested).toContain('No errors detected');
      const listed = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      expect(listed.trim().split('\n')).toHaveLength(entries);
      const one = execFileSync('unzip', ['-p', file, `big-master-*/d69/f999.txt`], { encoding: 'utf8' });
      expect(one).toBe('file 69/999\n');
    }
    if (hasPython) {
      const script = [
        'import sys, zipfile',
        'z = zipfile.ZipFile(sys.argv[1])',
        'bad = z.testzip()',
        'print(len(z.infolist()), bad)',
      ].join('\n');
      expect(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }).trim()).toBe(
        `${entries} None`,
      );
    }

    const tgz = await readAll(await fetch(`${url}.tar.gz`), async () => {
      inFlightAtFirst = archivesInFlight(fx.clock);
    });
    expect(inFlightAtFirst).toBeGreaterThan(0);
    const tarFile = join(root, 'big.tar.gz');
    writeFileSync(tarFile, tgz);
    const names = execFileSync('tar', ['-tzf', tarFile], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(names.trim().split('\n')).toHaveLength(entries);
    await expectUnharmed(fx);
  }, 240_000);
});
