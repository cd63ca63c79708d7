/**
 * Git's smart HTTP endpoints answered in process (no git binary): advertisements, the platform's
 * authentication and access answers, upload-pack's refusals, receive-pack's report on a bad pack, and
 * the body cap of git requests.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import { DELIM, FLUSH, pkt } from '../../../src/resources/git_http/pktline.js';
import { ObjectStore } from '../../../src/resources/repository/objects.js';
import { writePack } from '../../../src/resources/repository/pack.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';

const HOST = 'http://gitlab.test';
const ZERO = '0000000000000000000000000000000000000000';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-api', scopes: ['api'] }] },
    {
      username: 'alice',
      tokens: [
        { token: 'alice-api', scopes: ['api'] },
        { token: 'alice-user', scopes: ['read_user'] },
      ],
    },
    { username: 'mallory', state: 'blocked', tokens: [{ token: 'mallory-api', scopes: ['api'] }] },
    { username: 'carol', password: 'carol-password', email: 'carol@example.com' },
    { username: 'dave', password: 'dave-password', two_factor_enabled: true },
  ],
  projects: [
    { path: 'alice/site', visibility: 'public' },
    { path: 'alice/private', visibility: 'private' },
    { path: 'root/hidden', visibility: 'private' },
    { path: 'carol/own', visibility: 'private' },
  ],
};

const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

function get(fx: Fauxlab, path: string, headers: Record<string, string> = {}, method = 'GET') {
  return fx.fetch(new Request(`${HOST}${path}`, { method, headers }));
}

function post(fx: Fauxlab, path: string, body: Buffer, headers: Record<string, string> = {}) {
  return fx.fetch(new Request(`${HOST}${path}`, { method: 'POST', body: new Uint8Array(body), headers }));
}

async function headOf(fx: Fauxlab, project: string): Promise<string> {
  const res = await get(fx, `/api/v4/projects/${encodeURIComponent(project)}/repository/branches/master`, {
    'PRIVATE-TOKEN': 'root-api',
  });
  return ((await res.json()) as { commit: { id: string } }).commit.id;
}

describe('git smart HTTP endpoints', () => {
  it('GET /:path.git/info/refs?service=git-upload-pack: the v0 advertisement, HEAD first with its symref', async () => {
    const fx = createFauxlab({ scenario });
    const res = await get(fx, '/alice/site.git/info/refs?service=git-upload-pack');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const text = await res.text();
    const head = await headOf(fx, 'alice/site');
    expect(text.startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
    expect(text).toContain(`${head} HEAD\0`);
    expect(text).toContain('symref=HEAD:refs/heads/master');
    expect(text).toContain(`${head} refs/heads/master\n`);
    expect(text.endsWith('0000')).toBe(true);
  });

  it('GET /:path.git/info/refs: a Git-Protocol version=2 client gets the v2 capabilities without the service line', async () => {
    const fx = createFauxlab({ scenario });
    const res = await get(fx, '/alice/site.git/info/refs?service=git-upload-pack', {
      'Git-Protocol': 'version=2',
    });
    const text = await res.text();
    expect(text.startsWith('000eversion 2\n')).toBe(true);
    expect(text).toContain('ls-refs');
    expect(text).toContain('fetch=shallow');
    expect(text).not.toContain('# service=');
  });

  it("POST git-upload-pack, v2 object-info: each oid's size, an oid the project does not hold with none (another project's alike)", async () => {
    const fx = createFauxlab({ scenario });
    const head = await headOf(fx, 'alice/site');
    const wrote = await fx.fetch(
      new Request(`${HOST}/api/v4/projects/root%2Fhidden/repository/commits`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
        body: JSON.stringify({
          branch: 'master',
          commit_message: 'Secret',
          actions: [{ action: 'create', file_path: 'secret.txt', content: 'secret' }],
        }),
      }),
    );
    const hidden = ((await wrote.json()) as { id: string }).id;
    const ask = (lines: string[]) =>
      post(
        fx,
        '/alice/site.git/git-upload-pack',
        Buffer.concat([pkt('command=object-info\n'), DELIM, ...lines.map((l) => pkt(l)), FLUSH]),
        { 'Git-Protocol': 'version=2', 'Content-Type': 'application/x-git-upload-pack-request' },
      );
    const res = await ask(['size', `oid ${head}`, `oid ${hidden}`, `oid ${'1'.repeat(40)}`]);
    expect(res.status).toBe(200);
    const text = await res.text();
    const size = (await (
      await get(fx, `/api/v4/projects/alice%2Fsite/repository/commits/${head}`, {
        'PRIVATE-TOKEN': 'root-api',
      })
    ).json()) as { id: string };
    expect(size.id).toBe(head);
    const lines: string[] = [];
    for (let at = 0; at < text.length - 4;) {
      const n = parseInt(text.slice(at, at + 4), 16);
      lines.push(text.slice(at + 4, at + n));
      at += n;
    }
    expect(lines[0]).toBe('size');
    expect(lines[1]).toMatch(new RegExp(`^${head} [1-9][0-9]*$`));
    expect(lines.slice(2)).toEqual([`${hidden} `, `${'1'.repeat(40)} `]);
    expect(text.endsWith('0000')).toBe(true);
    // Without `size`, the oids alone.
    expect(await (await ask([`oid ${head}`])).text()).toBe(`${pkt(head).toString()}0000`);
  });

  it('HEAD /:path.git/info/refs: 403, as the platform denies HEAD requests there', async () => {
    const fx = createFauxlab({ scenario });
    const res = await get(fx, '/alice/site.git/info/refs?service=git-upload-pack', {}, 'HEAD');
    expect(res.status).toBe(403);
  });

  it('GET /:path.git/info/refs?service=git-receive-pack: 401 with the Basic challenge for an anonymous push', async () => {
    const fx = createFauxlab({ scenario });
    const res = await get(fx, '/alice/site.git/info/refs?service=git-receive-pack');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
    expect(await res.text()).toBe('HTTP Basic: Access denied\n');
  });

  it('GET /:path.git/info/refs: 401 for an anonymous read of a private or missing project (no existence leak)', async () => {
    const fx = createFauxlab({ scenario });
    for (const path of ['/alice/private.git', '/nobody/nothing.git']) {
      const res = await get(fx, `${path}/info/refs?service=git-upload-pack`);
      expect(res.status).toBe(401);
    }
  });

  it('GET /:path.git/info/refs: 404 with the platform message for a signed-in user who may not see the project', async () => {
    const fx = createFauxlab({ scenario });
    for (const path of ['/root/hidden.git', '/nobody/nothing.git']) {
      const res = await get(fx, `${path}/info/refs?service=git-upload-pack`, basic('alice', 'alice-api'));
      expect(res.status).toBe(404);
      expect(await res.text()).toBe('The project you were looking for could not be found.');
    }
  });

  it('GET /:path.git/info/refs: 403 for a token without repository scopes, and for a blocked user', async () => {
    const fx = createFauxlab({ scenario });
    const scoped = await get(
      fx,
      '/alice/private.git/info/refs?service=git-upload-pack',
      basic('alice', 'alice-user'),
    );
    expect(scoped.status).toBe(403);
    expect(await scoped.text()).toBe('You are not allowed to download code.');
    const blocked = await get(
      fx,
      '/alice/site.git/info/refs?service=git-upload-pack',
      basic('mallory', 'mallory-api'),
    );
    expect(blocked.status).toBe(403);
    expect(await blocked.text()).toBe('Your account has been blocked.');
  });

  it('GET /:path.git/info/refs?service=git-receive-pack: the push advertisement for a member with an api token', async () => {
    const fx = createFauxlab({ scenario });
    const res = await get(
      fx,
      '/alice/private.git/info/refs?service=git-receive-pack',
      basic('alice', 'alice-api'),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-receive-pack-advertisement');
    const text = await res.text();
    expect(text.startsWith('001f# service=git-receive-pack\n0000')).toBe(true);
    expect(text).toContain('report-status');
    expect(text).toContain('delete-refs');
  });

  it('POST /:path.git/git-upload-pack: a want the project does not have is refused with an ERR packet', async () => {
    const fx = createFauxlab({ scenario });
    const body = Buffer.concat([pkt(`want ${'1'.repeat(40)} side-band-64k\n`), FLUSH, pkt('done\n')]);
    const res = await post(fx, '/alice/site.git/git-upload-pack', body, {
      'Content-Type': 'application/x-git-upload-pack-request',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(`${pkt(`ERR upload-pack: not our ref ${'1'.repeat(40)}\n`).toString()}`);
  });

  it('POST /:path.git/git-upload-pack: a gzipped v2 ls-refs request lists the refs', async () => {
    const fx = createFauxlab({ scenario });
    const body = Buffer.concat([pkt('command=ls-refs\n'), DELIM, pkt('symrefs\n'), FLUSH]);
    const res = await post(fx, '/alice/site.git/git-upload-pack', gzipSync(body), {
      'Content-Type': 'application/x-git-upload-pack-request',
      'Content-Encoding': 'gzip',
      'Git-Protocol': 'version=2',
    });
    const head = await headOf(fx, 'alice/site');
    expect(await res.text()).toBe(
      Buffer.concat([
        pkt(`${head} HEAD symref-target:refs/heads/master\n`),
        pkt(`${head} refs/heads/master\n`),
        FLUSH,
      ]).toString(),
    );
  });

  it('POST /:path.git/git-receive-pack: a corrupt pack is reported as an unpack error and moves no ref', async () => {
    const fx = createFauxlab({ scenario });
    const head = await headOf(fx, 'alice/site');
    const body = Buffer.concat([
      pkt(`${head} ${'2'.repeat(40)} refs/heads/master\0report-status side-band-64k\n`),
      FLUSH,
      Buffer.from('PACK this is not a pack at all, not even close'),
    ]);
    const res = await post(fx, '/alice/site.git/git-receive-pack', body, basic('alice', 'alice-api'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-receive-pack-result');
    const text = await res.text();
    expect(text).toContain('fatal: unsupported pack version');
    expect(text).toContain('unpack index-pack abnormal exit\n');
    expect(text).toContain('ng refs/heads/master unpacker error\n');
    expect(await headOf(fx, 'alice/site')).toBe(head);
  });

  it('POST /:path.git/git-receive-pack: deleting the default branch is declined by the platform', async () => {
    const fx = createFauxlab({ scenario });
    const head = await headOf(fx, 'alice/site');
    const body = Buffer.concat([
      pkt(`${head} ${ZERO} refs/heads/master\0report-status side-band-64k\n`),
      FLUSH,
    ]);
    const res = await post(fx, '/alice/site.git/git-receive-pack', body, basic('alice', 'alice-api'));
    const text = await res.text();
    expect(text).toContain('GitLab: The default branch of a project cannot be deleted.\n');
    expect(text).toContain('ng refs/heads/master pre-receive hook declined\n');
    expect(await headOf(fx, 'alice/site')).toBe(head);
  });

  it('POST /:path.git/git-upload-pack: git requests take a larger body cap than the API', async () => {
    const fx = createFauxlab({ scenario, maxBodySize: 1000 });
    const big = Buffer.concat([
      pkt('command=ls-refs\n'),
      DELIM,
      ...Array.from({ length: 100 }, () => pkt(`ref-prefix refs/heads/${'x'.repeat(20)}\n`)),
      FLUSH,
    ]);
    expect(big.length).toBeGreaterThan(1000);
    const git = await post(fx, '/alice/site.git/git-upload-pack', big, { 'Git-Protocol': 'version=2' });
    expect(git.status).toBe(200);
    const api = await post(fx, '/api/v4/projects/1/issues', big, {
      'PRIVATE-TOKEN': 'alice-api',
      'Content-Type': 'application/json',
    });
    expect(api.status).toBe(413);
  });

  it('GET /:path.git/info/refs: a username or email with its password signs in; two-factor users must use a token', async () => {
    const fx = createFauxlab({ scenario });
    const path = '/carol/own.git/info/refs?service=git-upload-pack';
    expect((await get(fx, path, basic('carol', 'carol-password'))).status).toBe(200);
    expect((await get(fx, path, basic('carol@example.com', 'carol-password'))).status).toBe(200);
    expect((await get(fx, path, basic('carol', 'wrong-password'))).status).toBe(401);
    const twoFactor = await get(fx, path, basic('dave', 'dave-password'));
    expect(twoFactor.status).toBe(401);
    expect(await twoFactor.text()).toContain(
      "You must use a personal access token with 'read_repository' or 'write_repository' scope for Git over HTTP.",
    );
  });

  it('GET /:path/info/refs without .git: 301 to the .git path, keeping the service', async () => {
    const fx = createFauxlab({ scenario });
    const res = await get(fx, '/alice/site/info/refs?service=git-upload-pack');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(`${HOST}/alice/site.git/info/refs?service=git-upload-pack`);
    const other = await get(fx, '/alice/site/info/refs?service=other');
    expect(other.status).toBe(404);
  });

  it('POST /:path.git/git-receive-pack: a commit whose tree the pack leaves out is refused as git does', async () => {
    const fx = createFauxlab({ scenario });
    const objects = new ObjectStore();
    const who = { name: 'A', email: 'a@example.com', time: 1614600000 };
    const commit = objects.putCommit({
      tree: '3'.repeat(40),
      parents: [],
      author: who,
      committer: who,
      message: 'x\n',
    });
    const body = Buffer.concat([
      pkt(`${ZERO} ${commit} refs/heads/broken\0report-status\n`),
      FLUSH,
      writePack(objects, [commit]),
    ]);
    const res = await post(fx, '/alice/site.git/git-receive-pack', body, basic('alice', 'alice-api'));
    expect(await res.text()).toBe(
      Buffer.concat([
        pkt('unpack ok\n'),
        pkt('ng refs/heads/broken missing necessary objects\n'),
        FLUSH,
      ]).toString(),
    );
    const branch = await get(fx, '/api/v4/projects/alice%2Fsite/repository/branches/broken', {
      'PRIVATE-TOKEN': 'root-api',
    });
    expect(branch.status).toBe(404);
  });
});
