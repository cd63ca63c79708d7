import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP, call, commitFiles, world } from './world.js';

const TAGS = `${APP}/repository/tags`;

describe('tags', () => {
  it('POST /projects/:id/repository/tags: a lightweight tag names the commit, an annotated one its own tag object', async () => {
    const fx = world();
    const head = (await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev')).body.commit.id;
    const light = await call(fx, 'POST', TAGS, 'dev', { tag_name: 'v1.0', ref: 'master' });
    expect(light.status).toBe(201);
    expect(Object.keys(light.body)).toEqual(['name', 'message', 'target', 'commit', 'release', 'protected']);
    expect(light.body).toMatchObject({
      name: 'v1.0',
      message: '',
      target: head,
      release: null,
      protected: false,
    });
    const annotated = await call(fx, 'POST', TAGS, 'dev', {
      tag_name: 'v1.1',
      ref: head,
      message: 'Release 1.1\n',
    });
    expect(annotated.body.commit.id).toBe(head);
    expect(annotated.body.message).toBe('Release 1.1\n');
    expect(annotated.body.target).not.toBe(head);
    // git computes the same tag object id.
    const dir = mkdtempSync(join(tmpdir(), 'fauxlab-git-'));
    try {
      execFileSync('git', ['init', '-q', '--bare', '.'], { cwd: dir });
      const text = `object ${head}\ntype commit\ntag v1.1\ntagger Dev User <dev@example.com> ${Date.parse('2021-03-01T12:00:00Z') / 1000} +0000\n\nRelease 1.1\n`;
      const id = execFileSync('git', ['hash-object', '-t', 'tag', '--literally', '--stdin'], {
        cwd: dir,
        input: text,
      })
        .toString()
        .trim();
      expect(id).toBe(annotated.body.target);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Pipelines and refs see the tag's commit.
    const refs = await call(fx, 'GET', `${APP}/repository/commits/${head}/refs?type=tag`, 'dev');
    expect(refs.body).toEqual([
      { type: 'tag', name: 'v1.0' },
      { type: 'tag', name: 'v1.1' },
    ]);
  });

  it("POST /projects/:id/repository/tags: the platform's errors; reporters 403", async () => {
    const fx = world();
    await call(fx, 'POST', TAGS, 'dev', { tag_name: 'v1', ref: 'master' });
    const post = (body: Record<string, unknown>, token = 'dev') => call(fx, 'POST', TAGS, token, body);
    expect((await post({ tag_name: 'v1', ref: 'master' })).body).toEqual({
      message: 'Tag v1 already exists',
    });
    expect((await post({ tag_name: 'bad tag', ref: 'master' })).body).toEqual({
      message: 'Tag name invalid',
    });
    expect((await post({ tag_name: 'v2', ref: 'nope' })).body).toEqual({ message: 'Target nope is invalid' });
    expect((await post({ tag_name: 'v2', ref: 'master' }, 'rep')).status).toBe(403);
  });

  it('GET /projects/:id/repository/tags: order_by name or updated, sort, search; get one; 404 Tag Not Found', async () => {
    const fx = world();
    await call(fx, 'POST', TAGS, 'dev', { tag_name: 'b-old', ref: 'master' });
    fx.clock.advance(60_000);
    await commitFiles(fx, { 'x.txt': 'x' });
    await call(fx, 'POST', TAGS, 'dev', { tag_name: 'a-new', ref: 'master' });
    const names = async (q: string) =>
      (await call(fx, 'GET', `${TAGS}${q}`, 'rep')).body.map((t: { name: string }) => t.name);
    expect(await names('')).toEqual(['a-new', 'b-old']);
    expect(await names('?sort=asc')).toEqual(['b-old', 'a-new']);
    expect(await names('?order_by=name&sort=asc')).toEqual(['a-new', 'b-old']);
    expect(await names('?search=old')).toEqual(['b-old']);
    expect((await call(fx, 'GET', `${TAGS}/a-new`, 'rep')).body.name).toBe('a-new');
    expect((await call(fx, 'GET', `${TAGS}/nope`, 'rep')).body).toEqual({ message: '404 Tag Not Found' });
  });

  it('DELETE /projects/:id/repository/tags/:tag_name: 204, then 404 No such tag', async () => {
    const fx = world();
    await call(fx, 'POST', TAGS, 'dev', { tag_name: 'v1', ref: 'master' });
    expect((await call(fx, 'DELETE', `${TAGS}/v1`, 'dev')).status).toBe(204);
    expect(await call(fx, 'DELETE', `${TAGS}/v1`, 'dev')).toMatchObject({
      status: 404,
      body: { message: 'No such tag' },
    });
  });
});
