import { describe, expect, it } from 'vitest';
import { APP, call, commitFiles, SITE, world } from './world.js';

const blobId = async (fx: ReturnType<typeof world>, project: string, ref: string, name: string) =>
  (await call(fx, 'GET', `${project}/repository/tree?ref=${ref}`, 'owner')).body.find(
    (e: any) => e.name === name,
  ).id as string;

const NOT_FOUND = { status: 404, body: { message: '404 Blob Not Found' } };

describe('blobs: only the project repository', () => {
  it("GET /projects/:id/repository/blobs/:sha: 404 Blob Not Found for another project's blob, /raw too", async () => {
    const fx = world();
    await commitFiles(fx, { 'secret.txt': 'only in app\n' });
    await commitFiles(fx, { 'public.txt': 'in site\n' }, { project: SITE });
    const secret = await blobId(fx, APP, 'master', 'secret.txt');
    const pub = await blobId(fx, SITE, 'master', 'public.txt');
    expect((await call(fx, 'GET', `${APP}/repository/blobs/${secret}`, 'rep')).status).toBe(200);
    expect(await call(fx, 'GET', `${SITE}/repository/blobs/${secret}`, 'outsider')).toMatchObject(NOT_FOUND);
    const raw = await fx.app.request(`/api/v4${SITE}/repository/blobs/${secret}/raw`);
    expect(raw.status).toBe(404);
    expect(await raw.json()).toEqual({ message: '404 Blob Not Found' });
    expect((await call(fx, 'GET', `${SITE}/repository/blobs/${pub}`, 'outsider')).status).toBe(200);
    expect(await call(fx, 'GET', `${APP}/repository/blobs/${pub}`, 'rep')).toMatchObject(NOT_FOUND);
  });

  it('GET /projects/:id/repository/blobs/:sha: a blob of any branch or tag is found, one no ref reaches is not', async () => {
    const fx = world();
    await commitFiles(fx, { 'a.txt': 'A\n' });
    const head = await commitFiles(fx, { 'b.txt': 'B\n' }, { branch: 'topic', start_branch: 'master' });
    const b = await blobId(fx, APP, 'topic', 'b.txt');
    expect((await call(fx, 'GET', `${APP}/repository/blobs/${b}`, 'rep')).status).toBe(200);
    // A tag keeps it after the branch goes.
    await call(fx, 'POST', `${APP}/repository/tags`, 'maint', { tag_name: 'keep', ref: head.id });
    expect((await call(fx, 'DELETE', `${APP}/repository/branches/topic`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', `${APP}/repository/blobs/${b}`, 'rep')).status).toBe(200);
    expect((await call(fx, 'DELETE', `${APP}/repository/tags/keep`, 'maint')).status).toBe(204);
    expect(await call(fx, 'GET', `${APP}/repository/blobs/${b}`, 'rep')).toMatchObject(NOT_FOUND);
  });

  it('GET /projects/:id/repository/blobs/:sha: follows fast-forwards and a branch moved back', async () => {
    const fx = world();
    const first = await commitFiles(fx, { 'a.txt': 'A\n' });
    const a = await blobId(fx, APP, 'master', 'a.txt');
    expect((await call(fx, 'GET', `${APP}/repository/blobs/${a}`, 'rep')).status).toBe(200);
    await commitFiles(fx, { 'c.txt': 'C\n' });
    const c = await blobId(fx, APP, 'master', 'c.txt');
    expect((await call(fx, 'GET', `${APP}/repository/blobs/${c}`, 'rep')).status).toBe(200);
    await call(fx, 'POST', '/__fauxlab/push', undefined, {
      project: 'acme/app',
      ref: 'master',
      sha: first.id,
    });
    expect(await call(fx, 'GET', `${APP}/repository/blobs/${c}`, 'rep')).toMatchObject(NOT_FOUND);
    expect((await call(fx, 'GET', `${APP}/repository/blobs/${a}`, 'rep')).status).toBe(200);
  });

  it("GET /projects/:id/repository/blobs/:sha: a fork has its parent's blobs of the fork time, not later ones", async () => {
    const fx = world();
    await commitFiles(fx, { 'a.txt': 'A\n' });
    const a = await blobId(fx, APP, 'master', 'a.txt');
    expect((await call(fx, 'POST', `${APP}/fork`, 'dev')).status).toBe(201);
    await commitFiles(fx, { 'later.txt': 'L\n' });
    const later = await blobId(fx, APP, 'master', 'later.txt');
    expect((await call(fx, 'GET', `/projects/dev%2Fapp/repository/blobs/${a}`, 'dev')).status).toBe(200);
    expect(await call(fx, 'GET', `/projects/dev%2Fapp/repository/blobs/${later}`, 'dev')).toMatchObject(
      NOT_FOUND,
    );
  });
});
