/**
 * One project's git objects stay its own. The instance's object store holds every project's objects;
 * a push to (or a fetch from) one project may use only what that project's repository has: what its
 * refs reach, a pool's objects for a fork of a public project, and what the push itself carries. A
 * declined push leaves nothing behind. Each refusal reads as the refusal of an id nobody has.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Fauxlab } from '../../src/index.js';
import { DELIM, FLUSH, pkt } from '../../src/resources/git_http/pktline.js';
import { ObjectStore, hashObject, type TreeEntry } from '../../src/resources/repository/objects.js';
import { writePack } from '../../src/resources/repository/pack.js';
import { objectsOf } from '../../src/resources/repository/store.js';
import { localServers } from '../helpers.js';
import { reliabilityFx } from '../reliability/world.js';
import { hasGit, runGit } from '../resources/git_http/run-git.js';
import { expectUnharmed } from './canary.js';

const ZERO = '0'.repeat(40);
/** An id no object has (its content is not a git object's). */
const NOBODY = 'f00d'.repeat(10);
const WHO = { name: 'Mallory', email: 'mallory@example.com', time: 1614600000 };
const SECRET = 'the private project only\n';

const basic = (user: string, token: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`,
});

async function api(fx: Fauxlab, method: string, path: string, token: string, body?: unknown) {
  const res = await fx.app.request(`/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function commit(fx: Fauxlab, project: string, files: Record<string, string>, token = 'root-api') {
  const res = await api(fx, 'POST', `/projects/${encodeURIComponent(project)}/repository/commits`, token, {
    branch: 'master',
    commit_message: 'Add files\n',
    actions: Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content })),
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** The blob id of `path` at the head of `project`'s master. */
async function blobOf(fx: Fauxlab, project: string, path: string): Promise<string> {
  const tree = await api(fx, 'GET', `/projects/${encodeURIComponent(project)}/repository/tree`, 'root-api');
  return tree.body.find((e: any) => e.path === path).id;
}

/**
 * The world of these tests: `g-private/p` holds two commits nobody else has (the second adds a blob of
 * its own); `outsider`, a member of no group, owns the empty `outsider/loot`.
 */
async function victim() {
  const fx = reliabilityFx();
  const parent = await commit(fx, 'g-private/p', { 'first.txt': 'first\n' });
  const head = await commit(fx, 'g-private/p', { 'secret.txt': SECRET });
  const blob = await blobOf(fx, 'g-private/p', 'secret.txt');
  const created = await api(fx, 'POST', '/projects', 'outsider-api', { name: 'loot' });
  expect(created.status).toBe(201);
  return { fx, parent, head, blob };
}

async function receive(
  fx: Fauxlab,
  project: string,
  commands: string[],
  pack: Buffer,
  caps = 'report-status',
) {
  const body = Buffer.concat([
    ...commands.map((c, i) => pkt(i === 0 ? `${c}\0${caps}\n` : `${c}\n`)),
    FLUSH,
    pack,
  ]);
  const res = await fx.app.request(`/${project}.git/git-receive-pack`, {
    method: 'POST',
    headers: basic('outsider', 'outsider-api'),
    body: new Uint8Array(body),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer()).toString('latin1');
}

async function upload(fx: Fauxlab, project: string, body: Buffer, v2: boolean) {
  const res = await fx.app.request(`/${project}.git/git-upload-pack`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-git-upload-pack-request',
      ...(v2 ? { 'Git-Protocol': 'version=2' } : {}),
    },
    body: new Uint8Array(body),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer()).toString('latin1');
}

const report = (...lines: string[]) =>
  Buffer.concat([pkt('unpack ok\n'), ...lines.map((l) => pkt(`${l}\n`)), FLUSH]).toString('latin1');

/** A pack of objects made here: a tree of `entries` and a commit of it on `parents`. */
function treeCommitPack(entries: TreeEntry[], parents: string[] = []) {
  const objects = new ObjectStore();
  const tree = objects.putTree(entries);
  const id = objects.putCommit({ tree, parents, author: WHO, committer: WHO, message: 'Mine\n' });
  return {
    id,
    pack: writePack(objects, [id, tree, ...entries.map((e) => e.id).filter((x) => objects.has(x))]),
  };
}

/** A pack entry's header: the type in bits 4-6 of the first byte, the size in 4 then 7-bit groups. */
function entryHeader(type: number, size: number): Buffer {
  const out = [(type << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    out[out.length - 1]! |= 0x80;
    out.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(out);
}

const varint = (n: number) => {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>= 7;
  } while (n > 0);
  return Buffer.from(out);
};

/** A pack of one REF_DELTA blob: all of the base (`baseSize` bytes, at most 255) and then `extra`. */
function refDeltaPack(base: string, baseSize: number, extra: string): { pack: Buffer; id: string } {
  const delta = Buffer.concat([
    varint(baseSize),
    varint(baseSize + extra.length),
    Buffer.from([0x90, baseSize]),
    Buffer.from([extra.length]),
    Buffer.from(extra),
  ]);
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(1, 8);
  const body = Buffer.concat([
    head,
    entryHeader(7, delta.length),
    Buffer.from(base, 'hex'),
    deflateSync(delta),
  ]);
  const trailer = createHash('sha1').update(body).digest();
  return { pack: Buffer.concat([body, trailer]), id: hashObject('blob', Buffer.from(SECRET + extra)) };
}

const EMPTY_PACK = writePack(new ObjectStore(), []);

const branchOf = (fx: Fauxlab, project: string, branch: string) =>
  api(fx, 'GET', `/projects/${encodeURIComponent(project)}/repository/branches/${branch}`, 'root-api');

describe('security: a push builds only on its own repository', () => {
  test("POST git-receive-pack naming another project's commit with an empty pack: missing necessary objects, as for an id nobody has", async () => {
    const { fx, head } = await victim();
    const store = objectsOf(fx.state);
    const [count, bytes] = [store.count, store.bytes];
    const theirs = await receive(fx, 'outsider/loot', [`${ZERO} ${head} refs/heads/stolen`], EMPTY_PACK);
    expect(theirs).toBe(report('ng refs/heads/stolen missing necessary objects'));
    const nobody = await receive(fx, 'outsider/loot', [`${ZERO} ${NOBODY} refs/heads/stolen`], EMPTY_PACK);
    expect(nobody).toBe(theirs);
    expect((await branchOf(fx, 'outsider/loot', 'stolen')).status).toBe(404);
    const read = await api(fx, 'GET', `/projects/outsider%2Floot/repository/commits/${head}`, 'outsider-api');
    expect(read).toEqual({ status: 404, body: { message: '404 Commit Not Found' } });
    expect([objectsOf(fx.state).count, objectsOf(fx.state).bytes]).toEqual([count, bytes]);
    await expectUnharmed(fx);
  });

  test("POST git-receive-pack: a pushed tree naming another project's blob, a commit on another project's commit, an annotated tag of it: refused, nothing readable", async () => {
    const { fx, head, blob } = await victim();
    const withBlob = (id: string) => treeCommitPack([{ mode: '100644', name: 'loot.txt', id }]);
    const own = hashObject('blob', Buffer.from('mine\n'));
    const onParent = (id: string) => {
      const objects = new ObjectStore();
      objects.putBlob(Buffer.from('mine\n'));
      const tree = objects.putTree([{ mode: '100644', name: 'mine.txt', id: own }]);
      const c = objects.putCommit({ tree, parents: [id], author: WHO, committer: WHO, message: 'On top\n' });
      return { id: c, pack: writePack(objects, [c, tree, own]) };
    };
    const tagOf = (id: string) => {
      const objects = new ObjectStore();
      const t = objects.putTag({ object: id, type: 'commit', tag: 'v0', tagger: WHO, message: 'Mine\n' });
      return { id: t, pack: writePack(objects, [t]) };
    };
    for (const [ref, make] of [
      ['refs/heads/blob', withBlob],
      ['refs/heads/parent', onParent],
      ['refs/tags/v0', tagOf],
    ] as const) {
      const attack = make(ref === 'refs/heads/blob' ? blob : head);
      const theirs = await receive(fx, 'outsider/loot', [`${ZERO} ${attack.id} ${ref}`], attack.pack);
      expect(theirs).toBe(report(`ng ${ref} missing necessary objects`));
      const control = make(NOBODY);
      expect(await receive(fx, 'outsider/loot', [`${ZERO} ${control.id} ${ref}`], control.pack)).toBe(theirs);
      expect(objectsOf(fx.state).has(attack.id)).toBe(false);
    }
    const raw = await fx.app.request(
      '/api/v4/projects/outsider%2Floot/repository/files/loot.txt/raw?ref=blob',
      {
        headers: { 'PRIVATE-TOKEN': 'outsider-api' },
      },
    );
    expect(raw.status).toBe(404);
    expect(
      (await api(fx, 'GET', '/projects/outsider%2Floot/repository/branches', 'outsider-api')).body,
    ).toEqual([]);
    await expectUnharmed(fx);
  });

  test("POST git-receive-pack: a REF_DELTA on another project's blob fails as an unresolved delta does, on no base of its own", async () => {
    const { fx, blob } = await victim();
    const attack = refDeltaPack(blob, SECRET.length, 'and more\n');
    const entries = [{ mode: '100644' as const, name: 'loot.txt', id: attack.id }];
    const objects = new ObjectStore();
    const tree = objects.putTree(entries);
    const c = objects.putCommit({ tree, parents: [], author: WHO, committer: WHO, message: 'Delta\n' });
    // The delta first, then the tree and the commit that use its result.
    const rest = writePack(objects, [c, tree]);
    const pack = Buffer.concat([
      attack.pack.subarray(0, 8),
      Buffer.from([0, 0, 0, 3]),
      attack.pack.subarray(12, attack.pack.length - 20),
      rest.subarray(12, rest.length - 20),
    ]);
    const whole = Buffer.concat([pack, createHash('sha1').update(pack).digest()]);
    const text = await receive(
      fx,
      'outsider/loot',
      [`${ZERO} ${c} refs/heads/delta`],
      whole,
      'report-status side-band-64k',
    );
    expect(text).toContain(`fatal: delta base ${blob} is missing`);
    // A pack of fewer than 100 objects (`transfer.unpackLimit`) is unpack-objects' to read.
    expect(text).toContain('unpack unpack-objects abnormal exit\n');
    expect(text).toContain('ng refs/heads/delta unpacker error\n');
    expect(objectsOf(fx.state).has(attack.id)).toBe(false);
    expect((await branchOf(fx, 'outsider/loot', 'delta')).status).toBe(404);
    await expectUnharmed(fx);
  });

  test("POST git-receive-pack: a blob two projects hold independently, a public upstream's commit in its fork: accepted; a private upstream's later commit: refused", async () => {
    const { fx, head } = await victim();
    // outsider/loot holds the secret's content too, made on its own.
    await commit(fx, 'outsider/loot', { 'copy.txt': SECRET }, 'outsider-api');
    const shared = treeCommitPack([
      { mode: '100644', name: 'again.txt', id: await blobOf(fx, 'g-private/p', 'secret.txt') },
    ]);
    expect(await receive(fx, 'outsider/loot', [`${ZERO} ${shared.id} refs/heads/shared`], shared.pack)).toBe(
      report('ok refs/heads/shared'),
    );
    // A fork of the public project borrows from its pool: a commit made upstream after the fork.
    expect((await api(fx, 'POST', '/projects/g-public%2Fp/fork', 'outsider-api')).status).toBe(201);
    // (Made private: the pool is the upstream's, whatever the fork's visibility.)
    const hide = { visibility: 'private' };
    expect((await api(fx, 'PUT', '/projects/outsider%2Fp', 'outsider-api', hide)).status).toBe(200);
    const later = await commit(fx, 'g-public/p', { 'later.txt': 'upstream, after the fork\n' });
    expect(await receive(fx, 'outsider/p', [`${ZERO} ${later} refs/heads/upstream`], EMPTY_PACK)).toBe(
      report('ok refs/heads/upstream'),
    );
    expect((await branchOf(fx, 'outsider/p', 'upstream')).body.commit.id).toBe(later);
    // A private project's objects go into no pool: its fork has what it had at the fork.
    const fork = await api(fx, 'POST', '/projects/g-private%2Fp/fork', 'dev-api', { namespace_path: 'dev' });
    expect(fork.status).toBe(201);
    const hidden = await commit(fx, 'g-private/p', { 'after.txt': 'private, after the fork\n' });
    const body = Buffer.concat([
      pkt(`${ZERO} ${head} refs/heads/at-fork\0report-status\n`),
      pkt(`${ZERO} ${hidden} refs/heads/after-fork\n`),
      FLUSH,
      EMPTY_PACK,
    ]);
    const res = await fx.app.request('/dev/p.git/git-receive-pack', {
      method: 'POST',
      headers: basic('dev', 'dev-api'),
      body: new Uint8Array(body),
    });
    expect(await res.text()).toBe(
      report('ok refs/heads/at-fork', 'ng refs/heads/after-fork missing necessary objects'),
    );
    await expectUnharmed(fx);
  });

  test("GET /projects/:id/repository/commits/:sha, blobs/:sha, compare: another project's ids are 404", async () => {
    const { fx, head, blob } = await victim();
    const own = (await branchOf(fx, 'g-public/p', 'master')).body.commit.id;
    const p = '/projects/g-public%2Fp/repository';
    expect(await api(fx, 'GET', `${p}/commits/${head}`, 'dev-api')).toEqual({
      status: 404,
      body: { message: '404 Commit Not Found' },
    });
    expect(await api(fx, 'GET', `${p}/blobs/${blob}`, 'dev-api')).toEqual({
      status: 404,
      body: { message: '404 Blob Not Found' },
    });
    expect(await api(fx, 'GET', `${p}/compare?from=${own}&to=${head}`, 'dev-api')).toEqual({
      status: 404,
      body: { message: '404 Ref Not Found' },
    });
    await expectUnharmed(fx);
  });
});

describe("security: a fetch reveals no other project's ids", () => {
  const v0 = (lines: string[], tail: Buffer[]) =>
    Buffer.concat([...lines.map((l) => pkt(`${l}\n`)), FLUSH, ...tail]);
  const v2 = (lines: string[]) =>
    Buffer.concat([pkt('command=fetch\n'), DELIM, ...lines.map((l) => pkt(`${l}\n`)), FLUSH]);

  test("POST git-upload-pack: a want of another project's commit is `not our ref`, as an unknown id is (v0 and v2)", async () => {
    const { fx, head } = await victim();
    for (const id of [head, NOBODY]) {
      const refused = pkt(`ERR upload-pack: not our ref ${id}\n`).toString('latin1');
      expect(
        await upload(
          fx,
          'g-public/p',
          v0([`want ${id} multi_ack_detailed side-band-64k`], [pkt('done\n')]),
          false,
        ),
      ).toBe(refused);
      expect(await upload(fx, 'g-public/p', v2([`want ${id}`, 'done']), true)).toBe(refused);
    }
    await expectUnharmed(fx);
  });

  test("POST git-upload-pack: a have of another project's commit is not ACKed (v0 multi_ack_detailed, v2 negotiation, v0 done)", async () => {
    const { fx, head } = await victim();
    const want = (await branchOf(fx, 'g-public/p', 'master')).body.commit.id;
    const answers = async (have: string) => [
      await upload(
        fx,
        'g-public/p',
        v0([`want ${want} multi_ack_detailed no-progress`], [pkt(`have ${have}\n`), FLUSH]),
        false,
      ),
      await upload(fx, 'g-public/p', v2([`want ${want}`, `have ${have}`]), true),
      await upload(
        fx,
        'g-public/p',
        v0([`want ${want} multi_ack_detailed no-progress`], [pkt(`have ${have}\n`), pkt('done\n')]),
        false,
      ),
    ];
    const theirs = await answers(head);
    expect(theirs[0]).toBe(pkt('NAK\n').toString('latin1'));
    expect(theirs[1]).toBe(Buffer.concat([pkt('acknowledgments\n'), pkt('NAK\n'), FLUSH]).toString('latin1'));
    for (const t of theirs) expect(t).not.toContain(head);
    expect(theirs).toEqual(await answers(NOBODY));
    await expectUnharmed(fx);
  });

  test("POST git-upload-pack: `shallow` lines naming another project's commit open nothing, deepen-relative included (v2 and v0)", async () => {
    const { fx, head, parent } = await victim();
    const want = (await branchOf(fx, 'g-public/p', 'master')).body.commit.id;
    const answers = async (shallow: string) => [
      await upload(
        fx,
        'g-public/p',
        v2([`want ${want}`, `shallow ${shallow}`, 'deepen 1', 'deepen-relative', 'done']),
        true,
      ),
      await upload(fx, 'g-public/p', v2([`want ${want}`, `shallow ${shallow}`, 'deepen 3', 'done']), true),
      await upload(
        fx,
        'g-public/p',
        v0([`want ${want} deepen-relative no-progress`, `shallow ${shallow}`, 'deepen 1'], [pkt('done\n')]),
        false,
      ),
    ];
    const theirs = await answers(head);
    for (const t of theirs) {
      expect(t).toContain('PACK');
      expect(t).not.toContain(head);
      expect(t).not.toContain(parent);
    }
    expect(theirs).toEqual(await answers(NOBODY));
    await expectUnharmed(fx);
  });
});

let root: string;
let base: string;
let gfx: Fauxlab;
const listen = localServers();

const git = (args: string[], cwd = root) => runGit(root, args, cwd);

describe.skipIf(!hasGit)('security: a declined push leaves nothing behind (git)', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'fauxlab-git-objects-'));
    gfx = reliabilityFx();
    base = await listen(gfx.fetch);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('git push declined by a protected branch, then the same commit named with an empty pack: missing necessary objects; a failed API commit likewise', async () => {
    const fx = gfx;
    const protect = await api(fx, 'POST', '/projects/g-public%2Fp/protected_branches', 'root-api', {
      name: 'master',
      push_access_level: 40,
    });
    expect(protect.status).toBe(201);
    const url = `${base.replace('http://', 'http://dev:dev-api@')}/g-public/p.git`;
    const dir = join(root, 'work');
    expect((await git(['clone', '-q', url, dir])).code).toBe(0);
    writeFileSync(join(dir, 'declined.txt'), 'declined content\n');
    await git(['add', 'declined.txt'], dir);
    await git(['commit', '-q', '-m', 'Declined'], dir);
    const sha = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const store = objectsOf(fx.state);
    const [count, bytes] = [store.count, store.bytes];
    const state = fx.state;
    const pushed = await git(['push', 'origin', 'master'], dir);
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('! [remote rejected] master -> master (pre-receive hook declined)');
    // The store and the state as they were.
    expect(fx.state).toBe(state);
    expect([objectsOf(fx.state).count, objectsOf(fx.state).bytes]).toEqual([count, bytes]);
    expect(objectsOf(fx.state).has(sha)).toBe(false);
    // The same commit again, with no objects: as if never pushed.
    const again = Buffer.concat([pkt(`${ZERO} ${sha} refs/heads/again\0report-status\n`), FLUSH, EMPTY_PACK]);
    const res = await fx.app.request('/g-public/p.git/git-receive-pack', {
      method: 'POST',
      headers: basic('dev', 'dev-api'),
      body: new Uint8Array(again),
    });
    expect(await res.text()).toBe(report('ng refs/heads/again missing necessary objects'));
    // An API commit refused after making its objects (the second action fails) leaves none to name.
    const refused = await api(fx, 'POST', '/projects/g-public%2Fp/repository/commits', 'dev-api', {
      branch: 'api-branch',
      start_branch: 'feature',
      commit_message: 'Refused\n',
      actions: [
        { action: 'create', file_path: 'made.txt', content: 'made by a refused request\n' },
        { action: 'update', file_path: 'absent.txt', content: 'x\n' },
      ],
    });
    expect(refused.status).toBe(400);
    const made = hashObject('blob', Buffer.from('made by a refused request\n'));
    const orphan = treeCommitPack([{ mode: '100644', name: 'made.txt', id: made }]);
    const res2 = await fx.app.request('/g-public/p.git/git-receive-pack', {
      method: 'POST',
      headers: basic('dev', 'dev-api'),
      body: new Uint8Array(
        Buffer.concat([pkt(`${ZERO} ${orphan.id} refs/heads/orphan\0report-status\n`), FLUSH, orphan.pack]),
      ),
    });
    expect(await res2.text()).toBe(report('ng refs/heads/orphan missing necessary objects'));
    // The declined commit pushed in full to a branch the developer may push to lands, and clones clean.
    const other = await git(['push', 'origin', 'HEAD:refs/heads/again'], dir);
    expect(other.code).toBe(0);
    expect((await branchOf(fx, 'g-public/p', 'again')).body.commit.id).toBe(sha);
    const copy = join(root, 'copy');
    expect((await git(['clone', '-q', '--mirror', url, copy])).code).toBe(0);
    expect((await git(['fsck', '--strict'], copy)).code).toBe(0);
    await expectUnharmed(fx);
  });
});
