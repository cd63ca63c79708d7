import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP, call, commitFiles, world } from './world.js';

async function download(fx: ReturnType<typeof world>, path: string) {
  const res = await fx.app.request(`/api/v4${APP}/repository/${path}`, {
    headers: { 'PRIVATE-TOKEN': 'rep' },
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Lists an archive with the system's tar, or python's zipfile for a zip. */
function list(bytes: Buffer, kind: 'tar' | 'tar.gz' | 'zip'): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'fauxlab-archive-'));
  try {
    const file = join(dir, `a.${kind}`);
    writeFileSync(file, bytes);
    const out =
      kind === 'zip'
        ? execFileSync('python3', [
            '-c',
            'import sys,zipfile;[print(i.filename) for i in zipfile.ZipFile(sys.argv[1]).infolist()];zipfile.ZipFile(sys.argv[1]).testzip()',
            file,
          ])
        : execFileSync('tar', [kind === 'tar' ? '-tf' : '-tzf', file]);
    return out.toString().trim().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('repository archive', () => {
  it('GET /projects/:id/repository/archive: a tar.gz of the tree under <project>-<ref>-<sha>/', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'src/a.txt': 'a\n', 'b.txt': 'b\n' });
    const { res, bytes } = await download(fx, 'archive');
    expect(res.status).toBe(200);
    const prefix = `app-master-${c.id}`;
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.tar.gz"`);
    expect(list(bytes, 'tar.gz').sort()).toEqual(
      [
        `${prefix}/`,
        `${prefix}/README.md`,
        `${prefix}/b.txt`,
        `${prefix}/src/`,
        `${prefix}/src/a.txt`,
      ].sort(),
    );
    // The same commit gives the same bytes.
    expect((await download(fx, 'archive')).bytes.equals(bytes)).toBe(true);
  });

  it('GET /projects/:id/repository/archive.zip and ?format=tar&path=: other formats and one directory', async () => {
    const fx = world();
    const c = await commitFiles(fx, { 'src/a.txt': 'a\n', 'b.txt': 'b\n' });
    const zipped = await download(fx, 'archive.zip');
    expect(zipped.res.headers.get('content-type')).toBe('application/zip');
    expect(list(zipped.bytes, 'zip')).toContain(`app-master-${c.id}/src/a.txt`);
    const tarred = await download(fx, `archive?format=tar&path=src&sha=${c.id}`);
    expect(list(tarred.bytes, 'tar').sort()).toEqual([
      `app-${c.id}-${c.id}/`,
      `app-${c.id}-${c.id}/src/a.txt`,
    ]);
    expect((await call(fx, 'GET', `${APP}/repository/archive.rar`, 'rep')).body).toEqual({
      error: 'format does not have a valid value',
    });
  });
});
