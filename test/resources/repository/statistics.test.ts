import { describe, expect, it } from 'vitest';
import { APP, call, commitFiles, SITE, world } from './world.js';

const stats = async (fx: ReturnType<typeof world>, project: string) =>
  (await call(fx, 'GET', `${project}?statistics=true`, 'root')).body.statistics;

const BIG = 'x'.repeat(10_000);

describe('project statistics: repository size', () => {
  it("GET /projects/:id?statistics=true: repository_size is the repository's objects; storage_size adds it up", async () => {
    const fx = world();
    const unwritten = await stats(fx, APP);
    // The initial commit: a README blob, its tree and the commit.
    expect(unwritten.repository_size).toBeGreaterThan(200);
    expect(unwritten.repository_size).toBeLessThan(400);
    // A lightweight tag adds no object (and stores the lazy default branch): the same size.
    expect(
      (await call(fx, 'POST', `${APP}/repository/tags`, 'maint', { tag_name: 't', ref: 'master' })).status,
    ).toBe(201);
    expect((await stats(fx, APP)).repository_size).toBe(unwritten.repository_size);
    await commitFiles(fx, { 'big.txt': BIG }, { branch: 'topic', start_branch: 'master' });
    const grown = await stats(fx, APP);
    expect(grown.repository_size).toBeGreaterThan(unwritten.repository_size + BIG.length);
    expect(grown.repository_size).toBeLessThan(unwritten.repository_size + BIG.length + 500);
    expect(grown.storage_size - grown.repository_size).toBe(
      unwritten.storage_size - unwritten.repository_size,
    );
    // The branch gone, its objects are no longer the repository's.
    expect((await call(fx, 'DELETE', `${APP}/repository/branches/topic`, 'maint')).status).toBe(204);
    expect((await stats(fx, APP)).repository_size).toBe(unwritten.repository_size);
  });

  it('GET /projects: order_by=repository_size follows a commit made after an earlier sort', async () => {
    const fx = world();
    const order = async () =>
      (
        await call(fx, 'GET', '/projects?order_by=repository_size&sort=desc&statistics=true', 'root')
      ).body.map((p: any) => [p.path_with_namespace, p.statistics.repository_size]);
    const before = await order();
    await commitFiles(fx, { 'big.txt': BIG }, { project: SITE });
    const after = await order();
    expect(after[0][0]).toBe('acme/site');
    expect(after[0][1]).toBeGreaterThan(BIG.length);
    const sizes = after.map((x: [string, number]) => x[1]);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(after).not.toEqual(before);
  });

  it('GET /groups?statistics=true: sums the repositories of its projects', async () => {
    const fx = world();
    const group = async () =>
      (await call(fx, 'GET', '/groups?statistics=true&search=acme', 'root')).body[0].statistics;
    const before = await group();
    const site = (await stats(fx, SITE)).repository_size;
    await commitFiles(fx, { 'big.txt': BIG }, { project: SITE });
    const grown = (await stats(fx, SITE)).repository_size - site;
    expect((await group()).repository_size).toBe(before.repository_size + grown);
  });
});
