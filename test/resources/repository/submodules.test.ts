/**
 * `PUT /projects/:id/repository/submodules/:submodule`: a commit that moves a gitlink, with
 * `Submodules::UpdateService`'s refusals. The submodule is pushed over smart HTTP (the API cannot write
 * a gitlink), as a `160000` entry at `libs/six` naming a commit of another repository.
 */
import { describe, expect, it } from 'vitest';
import { FLUSH, pkt } from '../../../src/resources/git_http/pktline.js';
import { ObjectStore, type TreeEntry } from '../../../src/resources/repository/objects.js';
import { writePack } from '../../../src/resources/repository/pack.js';
import { APP, call, commitFiles, world, type World } from './world.js';

const SIX = 'e25eda1fece24ac7a03624ed1320f82396f35bd8';
const OTHER = '409f37c4f05865e4fb208c771485f211a22c4c2d';
const WHO = { name: 'Olive Owner', email: 'owner@example.com', time: 1614600000 };
const path = (sub: string) => `${APP}/repository/submodules/${encodeURIComponent(sub)}`;

/** master with `libs/six` a submodule at SIX, pushed by the owner; returns the pushed commit. */
async function withSubmodule(fx: World): Promise<string> {
  await commitFiles(fx, { 'lib.txt': 'hi\n', VERSION: '1\n' });
  const branch = await call(fx, 'GET', `${APP}/repository/branches/master`, 'owner');
  const parent = branch.body.commit.id as string;
  const top = await call(fx, 'GET', `${APP}/repository/tree?ref=master`, 'owner');
  const objects = new ObjectStore();
  const libs = objects.putTree([{ mode: '160000', name: 'six', id: SIX }]);
  const entries: TreeEntry[] = [
    ...(top.body as { mode: TreeEntry['mode']; name: string; id: string }[]).map((e) => ({
      mode: e.mode,
      name: e.name,
      id: e.id,
    })),
    { mode: '40000', name: 'libs', id: libs },
  ];
  const tree = objects.putTree(entries);
  const id = objects.putCommit({
    tree,
    parents: [parent],
    author: WHO,
    committer: WHO,
    message: 'Add six\n',
  });
  const body = Buffer.concat([
    pkt(`${parent} ${id} refs/heads/master\0report-status\n`),
    FLUSH,
    writePack(objects, [id, tree, libs]),
  ]);
  const res = await fx.app.request('/acme/app.git/git-receive-pack', {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from('owner:owner').toString('base64')}` },
    body: new Uint8Array(body),
  });
  expect(Buffer.from(await res.arrayBuffer()).toString('latin1')).toContain('ok refs/heads/master');
  return id;
}

describe('PUT /projects/:id/repository/submodules/:submodule', () => {
  it('PUT .../submodules/:submodule: 200 with the commit (CommitDetail), the gitlink moved on the branch', async () => {
    const fx = world();
    const before = await withSubmodule(fx);
    const r = await call(fx, 'PUT', path('libs/six'), 'dev', { branch: 'master', commit_sha: OTHER });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      message: `Update submodule libs/six with oid ${OTHER}`,
      author_name: 'Dev User',
      committer_name: 'Dev User',
      parent_ids: [before],
      status: null,
      project_id: expect.any(Number),
    });
    expect(r.body.stats).toBeUndefined();
    const head = await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev');
    expect(head.body.commit.id).toBe(r.body.id);
    const libs = await call(fx, 'GET', `${APP}/repository/tree?path=libs&ref=master`, 'dev');
    expect(libs.body).toEqual([
      expect.objectContaining({ name: 'six', type: 'commit', id: OTHER, mode: '160000' }),
    ]);
    const again = await call(fx, 'PUT', path('libs/six'), 'dev', {
      branch: 'master',
      commit_sha: SIX,
      commit_message: 'whatever',
    });
    expect(again.body.message).toBe('whatever');
  });

  it("PUT .../submodules/:submodule: the service's refusals", async () => {
    const fx = world();
    await withSubmodule(fx);
    const put = (sub: string, body: Record<string, unknown>, token = 'dev') =>
      call(fx, 'PUT', path(sub), token, { branch: 'master', commit_sha: OTHER, ...body });
    const msg = async (sub: string, body: Record<string, unknown>) => {
      const r = await put(sub, body);
      expect(r.status).toBe(400);
      return r.body.message;
    };
    expect(await msg('libs/six', { commit_sha: SIX })).toBe(`The submodule libs/six is already at ${SIX}`);
    expect(await msg('VERSION', {})).toBe('Invalid submodule path');
    expect(await msg('libs/nope', {})).toBe('Invalid submodule path');
    expect(await msg('../six', {})).toBe('Invalid submodule path');
    expect(await msg('__proto__', {})).toBe('Invalid submodule path');
    expect(await msg('libs/six', { commit_sha: '1' })).toBe('Invalid parameters');
    expect(await msg('libs/six', { commit_sha: '' })).toBe('Invalid parameters');
    expect(await msg('libs/six', { branch: 'nope' })).toBe(
      'You can only create or edit files when you are on a branch',
    );
    const missing = await call(fx, 'PUT', path('libs/six'), 'dev', { branch: 'master' });
    expect(missing).toMatchObject({ status: 400, body: { error: 'commit_sha is missing' } });
    expect((await put('libs/six', {}, 'rep')).status).toBe(403);
    expect((await put('libs/six', {}, 'outsider')).status).toBe(404);
    expect(
      (await call(fx, 'PUT', path('libs/six'), undefined, { branch: 'master', commit_sha: OTHER })).status,
    ).toBe(401);
    // A protected branch only maintainers push to: the developer's is the service's 400.
    await call(fx, 'POST', `${APP}/protected_branches`, 'owner', { name: 'master', push_access_level: 40 });
    expect(await msg('libs/six', {})).toBe('You are not allowed to push into this branch');
    expect((await put('libs/six', {}, 'maint')).status).toBe(200);
  });
});
