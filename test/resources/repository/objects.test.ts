import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectStore, type TreeEntry } from '../../../src/resources/repository/objects.js';
import { applyChanges, diffTrees, entryAt } from '../../../src/resources/repository/tree.js';

let dir: string;
const git = (args: string[], input?: string | Buffer, env: Record<string, string> = {}) =>
  execFileSync('git', args, { cwd: dir, input, env: { ...process.env, ...env } })
    .toString()
    .trim();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fauxlab-git-'));
  git(['init', '-q', '--bare', '.']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BINARY = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]);

describe('repository objects', () => {
  it('blob ids are the ones git hash-object gives, for text and binary content', () => {
    const store = new ObjectStore();
    for (const content of [Buffer.from('hello\n'), Buffer.from(''), Buffer.from('é ü 日本\n'), BINARY]) {
      const id = store.putBlob(content);
      expect(git(['hash-object', '-w', '--stdin'], content)).toBe(id);
    }
  });

  it('tree ids are the ones git mktree gives, entries sorted as git sorts them (a tree as name/)', () => {
    const store = new ObjectStore();
    const blob = store.putBlob(Buffer.from('x\n'));
    git(['hash-object', '-w', '--stdin'], Buffer.from('x\n'));
    const sub = store.putTree([{ mode: '100644', name: 'inner.txt', id: blob }]);
    git(['mktree'], `100644 blob ${blob}\tinner.txt\n`);
    // `a.b` sorts before the tree `a` (`a/`), and `a-b` before both; `a0` after.
    const entries: TreeEntry[] = [
      { mode: '100644', name: 'a0', id: blob },
      { mode: '40000', name: 'a', id: sub },
      { mode: '100755', name: 'a.b', id: blob },
      { mode: '100644', name: 'a-b', id: blob },
      { mode: '120000', name: 'link', id: blob },
    ];
    const id = store.putTree(entries);
    const listing = entries
      .map(
        (e) =>
          `${e.mode === '40000' ? '040000' : e.mode} ${e.mode === '40000' ? 'tree' : 'blob'} ${e.id}\t${e.name}\n`,
      )
      .join('');
    expect(git(['mktree'], listing)).toBe(id);
    expect(store.tree(id)!.map((e) => e.name)).toEqual(['a-b', 'a.b', 'a', 'a0', 'link']);
  });

  it('commit ids are the ones git commit-tree gives for the same tree, parents, author, committer and dates', () => {
    const store = new ObjectStore();
    const blob = store.putBlob(Buffer.from('first\n'));
    git(['hash-object', '-w', '--stdin'], Buffer.from('first\n'));
    const tree = applyChanges(
      store,
      undefined,
      new Map([['docs/guide/README.md', { mode: '100644', id: blob }]]),
    );
    git(['mktree'], `100644 blob ${blob}\tREADME.md\n`);
    const guide = entryAt(store, tree, 'docs/guide')!.id;
    git(['mktree'], `040000 tree ${guide}\tguide\n`);
    const docs = entryAt(store, tree, 'docs')!.id;
    expect(git(['mktree'], `040000 tree ${docs}\tdocs\n`)).toBe(tree);
    const env = (t: number) => ({
      GIT_AUTHOR_NAME: 'Ada Lovelace',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_AUTHOR_DATE: `${t} +0000`,
      GIT_COMMITTER_NAME: 'Charles Babbage',
      GIT_COMMITTER_EMAIL: 'cb@example.com',
      GIT_COMMITTER_DATE: `${t + 60} +0000`,
    });
    const sig = (name: string, email: string, time: number) => ({ name, email, time });
    const first = store.putCommit({
      tree,
      parents: [],
      author: sig('Ada Lovelace', 'ada@example.com', 1609754400),
      committer: sig('Charles Babbage', 'cb@example.com', 1609754460),
      message: 'Add the guide\n\nWith a body.\n',
    });
    expect(git(['commit-tree', tree], 'Add the guide\n\nWith a body.\n', env(1609754400))).toBe(first);
    const second = store.putCommit({
      tree,
      parents: [first],
      author: sig('Ada Lovelace', 'ada@example.com', 1609755000),
      committer: sig('Charles Babbage', 'cb@example.com', 1609755060),
      message: 'Again\n',
    });
    expect(git(['commit-tree', tree, '-p', first], 'Again\n', env(1609755000))).toBe(second);
    expect(store.commit(second)!.parents).toEqual([first]);
  });

  it('a change rewrites the trees on its path and drops directories it empties', () => {
    const store = new ObjectStore();
    const a = store.putBlob(Buffer.from('a'));
    const b = store.putBlob(Buffer.from('b'));
    const t1 = applyChanges(
      store,
      undefined,
      new Map([
        ['x/a', { mode: '100644', id: a }],
        ['y/b', { mode: '100644', id: b }],
      ]),
    );
    const t2 = applyChanges(store, t1, new Map([['x/a', null]]));
    expect(entryAt(store, t2, 'x')).toBeUndefined();
    expect(entryAt(store, t2, 'y')).toEqual(entryAt(store, t1, 'y'));
    expect(diffTrees(store, t1, t2)).toEqual([{ path: 'x/a', old: { mode: '100644', name: 'a', id: a } }]);
  });

  it('a staged quarantine is read through the store, neither counted nor saved, and gone when unstaged; admit keeps it', () => {
    const store = new ObjectStore();
    const kept = store.putBlob(Buffer.from('kept\n'));
    const q = new ObjectStore();
    const blob = q.putBlob(Buffer.from('pushed\n'));
    const tree = q.putTree([{ mode: '100644', name: 'p.txt', id: blob }]);
    const before = { count: store.count, bytes: store.bytes, saved: store.toJSON() };
    store.stage(q);
    expect(() => store.stage(new ObjectStore())).toThrow();
    expect(store.type(tree)).toBe('tree');
    expect(store.tree(tree)).toEqual([{ mode: '100644', name: 'p.txt', id: blob }]);
    expect(store.raw(blob)!.toString()).toBe('pushed\n');
    expect({ count: store.count, bytes: store.bytes, saved: store.toJSON() }).toEqual(before);
    expect(store.withPrefix(blob.slice(0, 6))).toEqual([]);
    store.unstage();
    expect([store.has(blob), store.has(tree), store.tree(tree)]).toEqual([false, false, undefined]);
    expect(store.has(kept)).toBe(true);
    store.stage(q);
    store.admit();
    expect(store.count).toBe(3);
    expect(store.bytes).toBe(before.bytes + q.bytes);
    expect(Object.keys(store.toJSON()).sort()).toEqual([kept, blob, tree].sort());
    store.unstage();
    expect(store.tree(tree)).toEqual([{ mode: '100644', name: 'p.txt', id: blob }]);
  });
});
