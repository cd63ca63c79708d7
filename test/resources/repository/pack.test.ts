import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectStore, type ObjectType } from '../../../src/resources/repository/objects.js';
import {
  applyDelta,
  DEFAULT_PACK_LIMITS,
  PackError,
  reachableObjects,
  readPack,
  writePack,
} from '../../../src/resources/repository/pack.js';

const GIT = '/usr/bin/git';
const hasGit = existsSync(GIT);

let root: string;
const env = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: root,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'A U Thor',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'A U Thor',
  GIT_COMMITTER_EMAIL: 'author@example.com',
  GIT_AUTHOR_DATE: '1600000000 +0000',
  GIT_COMMITTER_DATE: '1600000000 +0000',
});
const git = (cwd: string, args: string[], input?: string | Buffer): Buffer =>
  execFileSync(GIT, args, { cwd, input, env: env(), timeout: 30_000, maxBuffer: 256 * 1024 * 1024 });
const gitText = (cwd: string, args: string[], input?: string | Buffer) =>
  git(cwd, args, input).toString().trim();

/** A work tree with a history whose files change a little each commit, so that git packs deltas. */
function makeRepo(name: string, commits: number): string {
  const dir = join(root, name);
  git(root, ['init', '-q', '-b', 'main', dir]);
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i} of a file that changes a little\n`);
  for (let c = 0; c < commits; c++) {
    lines[(c * 7) % lines.length] = `changed in commit ${c}\n`;
    writeFileSync(join(dir, 'big.txt'), lines.join(''));
    writeFileSync(join(dir, `f${c % 3}.txt`), `content ${c}\n`.repeat(50));
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', `commit ${c}`]);
  }
  git(dir, ['tag', '-a', '-m', 'a tag', 'v1']);
  return dir;
}

/** Every object of a git repository, read with cat-file, into a store. */
function storeOf(dir: string, revs: string[] = ['--all']): ObjectStore {
  const store = new ObjectStore();
  const ids = gitText(dir, ['rev-list', '--objects', ...revs])
    .split('\n')
    .map((l) => l.slice(0, 40));
  for (const id of ids) {
    const type = gitText(dir, ['cat-file', '-t', id]) as ObjectType;
    expect(store.put(type, git(dir, ['cat-file', type, id]))).toBe(id);
  }
  return store;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-pack-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('repository packs', () => {
  it('a written pack is accepted by git index-pack and verify-pack, with the same object ids', () => {
    const src = makeRepo('write-src', 4);
    const store = storeOf(src);
    const head = gitText(src, ['rev-parse', 'HEAD']);
    const tag = gitText(src, ['rev-parse', 'v1']);
    const ids = reachableObjects(store, [tag]);
    expect(new Set(ids)).toEqual(new Set(reachableObjects(store, [head]).concat(tag)));
    expect(ids).toHaveLength(store.count);

    const bare = join(root, 'write-dst.git');
    git(root, ['init', '-q', '--bare', '-b', 'main', bare]);
    const out = gitText(bare, ['index-pack', '--stdin', '--strict'], writePack(store, ids));
    expect(out).toMatch(/^pack\t[0-9a-f]{40}$/);
    const packs = readdirSync(join(bare, 'objects/pack')).filter((f) => f.endsWith('.idx'));
    const listed = gitText(bare, ['verify-pack', '-v', join(bare, 'objects/pack', packs[0]!)]);
    for (const id of ids) expect(listed).toContain(id);
    // The pack is complete: the history checks out from the tag down.
    git(bare, ['update-ref', 'refs/heads/main', head]);
    git(bare, ['fsck', '--strict', '--no-dangling']);
    expect(gitText(bare, ['cat-file', '-p', `${head}:f0.txt`])).toBe(
      gitText(src, ['cat-file', '-p', `${head}:f0.txt`]),
    );
  });

  it('a pack made by git pack-objects with OFS_DELTA entries reads back to the objects git has', () => {
    const src = makeRepo('ofs-src', 12);
    const store = storeOf(src);
    const pack = git(
      src,
      ['pack-objects', '--stdout', '--revs', '--all', '--delta-base-offset', '--window=50'],
      '',
    );
    // The pack holds deltas indeed (verify-pack lists a chain length for them).
    const bare = join(root, 'ofs-check.git');
    git(root, ['init', '-q', '--bare', '-b', 'main', bare]);
    git(bare, ['index-pack', '--stdin'], pack);
    const idx = readdirSync(join(bare, 'objects/pack')).find((f) => f.endsWith('.idx'))!;
    expect(gitText(bare, ['verify-pack', '-v', join(bare, 'objects/pack', idx)])).toMatch(
      /chain length = [1-9]/,
    );

    const objects = readPack(pack);
    expect(objects).toHaveLength(store.count);
    for (const o of objects) {
      expect(store.type(o.id)).toBe(o.type);
      expect(o.data.equals(store.raw(o.id)!)).toBe(true);
    }
  });

  it('a thin pack with REF_DELTA entries resolves its bases against the store', () => {
    const src = makeRepo('thin-src', 10);
    const base = gitText(src, ['rev-parse', 'HEAD~3']);
    const head = gitText(src, ['rev-parse', 'HEAD']);
    // The store has what the receiving side has: the history up to HEAD~3.
    const store = storeOf(src, [base]);
    const pack = git(
      src,
      ['pack-objects', '--stdout', '--revs', '--thin', '--window=50'],
      `${head}\n^${base}\n`,
    );
    const objects = readPack(pack, store);
    const expected = gitText(src, ['rev-list', '--objects', head, `^${base}`])
      .split('\n')
      .map((l) => l.slice(0, 40));
    expect(new Set(objects.map((o) => o.id))).toEqual(new Set(expected));
    for (const o of objects) store.put(o.type, o.data);
    // What was read is what git has: the big file at HEAD has the content git gives.
    const tree = store.tree(store.commit(head)!.tree)!;
    const big = tree.find((e) => e.name === 'big.txt')!;
    expect(store.raw(big.id)!.toString()).toBe(gitText(src, ['show', `${head}:big.txt`]) + '\n');
    // Without the store the same pack's bases are missing.
    expect(() => readPack(pack)).toThrow(/delta base .* is missing/);
  });

  it('a pack of a fetch leaves out what the haves reach, and git accepts it on top of them', () => {
    const src = makeRepo('have-src', 6);
    const store = storeOf(src);
    const base = gitText(src, ['rev-parse', 'HEAD~2']);
    const head = gitText(src, ['rev-parse', 'HEAD']);
    const ids = reachableObjects(store, [head], [base]);
    const expected = gitText(src, ['rev-list', '--objects', head, `^${base}`])
      .split('\n')
      .map((l) => l.slice(0, 40));
    expect(new Set(ids)).toEqual(new Set(expected));
    const objects = readPack(writePack(store, ids));
    expect(objects.map((o) => o.id)).toEqual(ids);
  });

  it('a shallow boundary stops the walk at the commits it names', () => {
    const src = makeRepo('shallow-src', 5);
    const store = storeOf(src);
    const head = gitText(src, ['rev-parse', 'HEAD']);
    const ids = reachableObjects(store, [head], [], { shallow: new Set([head]) });
    const commits = ids.filter((id) => store.type(id) === 'commit');
    expect(commits).toEqual([head]);
    expect(new Set(ids)).toEqual(
      new Set(
        gitText(src, ['rev-list', '--objects', '--max-count=1', head])
          .split('\n')
          .map((l) => l.slice(0, 40)),
      ),
    );
  });
});

describe('repository pack bounds', () => {
  const store = new ObjectStore();
  const a = store.putBlob(Buffer.from('hello\n'));
  const b = store.putBlob(Buffer.from('world\n'));
  const pack = writePack(store, [a, b]);

  it('a pack reads back to its objects', () => {
    expect(readPack(pack).map((o) => o.id)).toEqual([a, b]);
  });

  it('a pack with a wrong trailer is refused', () => {
    const bad = Buffer.from(pack);
    bad[bad.length - 1]! ^= 1;
    expect(() => readPack(bad)).toThrow(PackError);
    expect(() => readPack(bad)).toThrow(/checksum/);
  });

  it('a pack that is not one is refused', () => {
    expect(() => readPack(Buffer.from('not a pack at all, really not one'))).toThrow(/not a pack/);
  });

  it('a pack with more objects than the limit is refused before reading them', () => {
    expect(() => readPack(pack, undefined, { ...DEFAULT_PACK_LIMITS, maxObjects: 1 })).toThrow(
      /more than 1 objects/,
    );
  });

  it('an object above the size limit is refused', () => {
    expect(() => readPack(pack, undefined, { ...DEFAULT_PACK_LIMITS, maxObjectBytes: 3 })).toThrow(
      /too large/,
    );
  });

  it('a pack past its deadline is refused', () => {
    expect(() => readPack(pack, undefined, { ...DEFAULT_PACK_LIMITS, deadline: 0 })).toThrow(/too long/);
  });

  it('a delta whose copy reaches past its base is refused', () => {
    // base size 3, result size 4, copy offset 0 length 4
    const delta = Buffer.from([3, 4, 0x90, 4]);
    expect(() => applyDelta(Buffer.from('abc'), delta)).toThrow(/out of bounds/);
    // base size 3, result size 5: copy 3, insert "de"
    const ok = Buffer.from([3, 5, 0x90, 3, 2, 0x64, 0x65]);
    expect(applyDelta(Buffer.from('abc'), ok).toString()).toBe('abcde');
  });

  it('a delta that makes more than the size limit is refused', () => {
    const delta = Buffer.from([3, 0x80, 0x80, 0x04, 0x90, 3]);
    expect(() => applyDelta(Buffer.from('abc'), delta, 1024)).toThrow(/too large/);
  });
});
