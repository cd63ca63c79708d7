/**
 * `fauxlab scenario capture` against a second fauxlab as the source: a world written through the API
 * and `git`, captured over HTTP, loaded into a fresh instance, answers the captured views as the source
 * does; and a source that fails mid-way (a 500, a 429) is retried or ends the capture with a message.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, CaptureError } from '../../src/capture/capture.js';
import { createFauxlab, type Fauxlab, type ScenarioFile } from '../../src/index.js';
import { localServers } from '../helpers.js';
import { GIT, hasGit, runGit } from '../resources/git_http/run-git.js';

const source: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [{ token: 'root-api', scopes: ['api'] }],
    },
    { username: 'alice', name: 'Alice', tokens: [{ token: 'alice-api', scopes: ['api'] }] },
    {
      username: 'bob',
      name: 'Bob',
      email: 'bob@example.com',
      bio: 'Builds things',
      tokens: [{ token: 'bob-api', scopes: ['api'] }],
    },
    { username: 'carol', name: 'Carol', state: 'blocked' },
  ],
  groups: [
    { path: 'acme', visibility: 'public', members: [{ username: 'alice', access_level: 'owner' }] },
    { path: 'acme/sub', visibility: 'internal', members: [{ username: 'bob', access_level: 'developer' }] },
  ],
  projects: [
    {
      path: 'acme/app',
      visibility: 'public',
      description: 'The app',
      members: [{ username: 'bob', access_level: 'maintainer' }],
      merge_method: 'ff',
    },
    { path: 'acme/sub/lib', visibility: 'internal' },
    { path: 'alice/dotfiles', visibility: 'private' },
  ],
};

/** The views compared, as the administrator and as alice see them. */
const VIEWS = [
  '/projects/acme%2Fapp',
  '/projects/acme%2Fsub%2Flib',
  '/projects?order_by=id&sort=asc',
  '/groups?all_available=true',
  '/groups/acme',
  '/groups/acme%2Fsub',
  '/groups/acme/members',
  '/projects/acme%2Fapp/members',
  '/projects/acme%2Fapp/labels',
  '/projects/acme%2Fapp/milestones',
  '/projects/acme%2Fapp/issues',
  '/projects/acme%2Fapp/issues/1',
  '/projects/acme%2Fapp/issues/1/notes',
  '/projects/acme%2Fapp/issues/1/discussions',
  '/projects/acme%2Fapp/issues/1/award_emoji',
  '/projects/acme%2Fapp/merge_requests',
  '/projects/acme%2Fapp/merge_requests/1',
  '/projects/acme%2Fapp/merge_requests/1/notes',
  '/projects/acme%2Fapp/hooks',
  '/projects/acme%2Fapp/releases',
  '/projects/acme%2Fapp/repository/branches',
  '/projects/acme%2Fapp/repository/tags',
  '/projects/acme%2Fapp/repository/commits?ref_name=main',
  '/projects/acme%2Fapp/variables',
  '/users?order_by=id&sort=asc',
  '/users/3',
];

let home: string;
let fx: Fauxlab;
let base: string;
const listen = localServers();

async function must(method: string, path: string, token: string, body?: unknown) {
  const res = await fx.fetch(
    new Request(`${base}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const out = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out)}`);
  return out;
}

async function views(f: Fauxlab, url: string, token: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const v of VIEWS) {
    const res = await f.fetch(new Request(`${url}/api/v4${v}`, { headers: { 'PRIVATE-TOKEN': token } }));
    out.set(v, `${res.status} ${res.headers.get('x-total') ?? ''}\n${await res.text()}`);
  }
  return out;
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'fauxlab-capture-test-'));
  fx = createFauxlab({ scenario: source, journal: false });
  base = await listen(fx.fetch);
  const hour = () => fx.clock.advance(3_600_000);
  const P = '/projects/acme%2Fapp';
  if (hasGit) {
    const dir = join(home, 'work');
    await runGit(home, ['init', '-q', '-b', 'main', dir]);
    const git = (args: string[], env: Record<string, string> = {}) => runGit(home, args, dir, env);
    await git(['commit', '-q', '--allow-empty', '-m', 'First'], { GIT_AUTHOR_DATE: '1614600000 +0200' });
    await git(['checkout', '-q', '-b', 'feature']);
    await git(['commit', '-q', '--allow-empty', '-m', 'Feature work']);
    await git(['checkout', '-q', 'main']);
    await git(['tag', '-a', '-m', 'Release 1', 'v1']);
    const url = `${base.replace('http://', 'http://root:root-api@')}/acme/app.git`;
    const r = await git(['push', '-q', url, 'main', 'feature', 'v1']);
    if (r.code !== 0) throw new Error(r.stderr);
    await must('PUT', P, 'root-api', { default_branch: 'main' });
  }
  hour();
  await must('POST', `${P}/labels`, 'root-api', { name: 'bug', color: '#ff0000', description: 'Broken' });
  await must('POST', `${P}/milestones`, 'root-api', { title: 'v1.0', due_date: '2021-04-01' });
  hour();
  await must('POST', `${P}/issues`, 'alice-api', {
    title: 'Crash',
    labels: 'bug',
    description: 'It crashes',
  });
  await must('POST', `${P}/issues`, 'alice-api', { title: 'Second', confidential: true });
  hour();
  await must('POST', `${P}/issues/1/award_emoji`, 'alice-api', { name: 'thumbsup' });
  const note = await must('POST', `${P}/issues/1/notes`, 'alice-api', { body: 'Seen it' });
  await must('POST', `${P}/issues/1/notes/${note.id as number}/award_emoji`, 'root-api', { name: 'eyes' });
  const thread = await must('POST', `${P}/issues/1/discussions`, 'root-api', { body: 'A thread' });
  hour();
  await must('POST', `${P}/issues/1/discussions/${thread.id as string}/notes`, 'alice-api', {
    body: 'A reply',
  });
  await must('PUT', `${P}/issues/2`, 'root-api', { state_event: 'close' });
  if (hasGit) {
    await must('POST', `${P}/merge_requests`, 'alice-api', {
      title: 'Feature',
      source_branch: 'feature',
      target_branch: 'main',
    });
    await must('POST', `${P}/merge_requests/1/notes`, 'root-api', { body: 'Looks good' });
    await must('POST', `${P}/releases`, 'root-api', {
      tag_name: 'v1',
      name: 'One',
      description: 'The first',
      assets: { links: [{ name: 'bin', url: 'https://example.com/bin' }] },
    });
  }
  await must('POST', `${P}/variables`, 'root-api', { key: 'SECRET', value: 'hunter22', masked: true });
  hour();
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('fauxlab scenario capture', () => {
  it('captures a world that loads into an equal one: every compared view answers byte for byte', async () => {
    const got = await capture({
      url: base,
      token: 'root-api',
      git: hasGit ? GIT : undefined,
      withSecrets: true,
    });
    const scenario = got.scenario as ScenarioFile;
    // The API never shows tokens: the tests add their own, as a user of the captured file does.
    for (const u of scenario.users ?? []) {
      const t = source.users!.find((s) => s.username === u.username)?.tokens;
      if (t) u.tokens = t;
    }
    const copy = createFauxlab({ scenario, journal: false });
    copy.clock.set(fx.clock.now());
    const copyBase = await listen(copy.fetch);
    const norm = (m: Map<string, string>, url: string) =>
      new Map([...m].map(([k, v]) => [k, v.replaceAll(url, 'BASE')]));
    for (const token of ['root-api', 'alice-api']) {
      const before = norm(await views(fx, base, token), base);
      const after = norm(await views(copy, copyBase, token), copyBase);
      const diffs = [...before]
        .filter(([k, v]) => after.get(k) !== v)
        .map(([k, v]) => `${token} ${k}\n  ${v.slice(0, 4000)}\n  ${after.get(k)?.slice(0, 4000)}`);
      expect(diffs).toEqual([]);
      // Each view shows records (a view that failed on both sides would compare equal too).
      for (const [k, v] of before)
        expect(v.startsWith('200 '), `${token} ${k}: ${v.slice(0, 200)}`).toBe(true);
    }
    const app = (scenario.projects ?? []).find((p) => p.path === 'acme/app')!;
    expect(app.issues).toHaveLength(2);
    if (hasGit) expect(app.merge_requests).toHaveLength(1);
    expect(got.warnings.join('\n')).toContain('tokens and passwords are never readable');
  });

  it('never writes variable values unless asked, and says so', async () => {
    const got = await capture({ url: base, token: 'root-api', projects: ['acme/app'] });
    expect(JSON.stringify(got.scenario)).not.toContain('hunter22');
    expect(got.warnings).toContain(
      'project acme/app: 1 CI variables not written (--with-secrets writes them)',
    );
    expect(got.warnings).toContain('project acme/app: repository not captured (no git)');
  });

  it('says which lists the token may not read, instead of writing them as empty', async () => {
    // bob is a developer of acme/sub: hooks and CI variables need the Maintainer role.
    const got = await capture({ url: base, token: 'bob-api', projects: ['acme/sub/lib'] });
    expect(got.warnings).toContain('project acme/sub/lib: hooks not readable');
    expect(got.warnings).toContain('project acme/sub/lib: CI variables not readable');
    expect(got.warnings).not.toContain('project acme/sub/lib: releases not readable');
  });

  it('a 429 waits for Retry-After and a 500 is retried; a source that keeps failing ends with a message', async () => {
    const waits: number[] = [];
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls++;
      if (calls === 3)
        return new Response('{"message":"429 Too Many Requests"}', {
          status: 429,
          headers: { 'Retry-After': '7' },
        });
      if (calls === 5) return new Response('oops', { status: 500 });
      return fx.fetch(new Request(input as string, init));
    };
    const got = await capture({
      url: base,
      token: 'root-api',
      projects: ['acme/app'],
      fetch: flaky,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(waits).toEqual([7000, 500]);
    expect((got.scenario.projects as unknown[]).length).toBe(1);

    const broken: typeof fetch = async (input, init) =>
      String(input).includes('/issues')
        ? new Response('down', { status: 502 })
        : fx.fetch(new Request(input as string, init));
    const failed = capture({
      url: base,
      token: 'root-api',
      projects: ['acme/app'],
      fetch: broken,
      sleep: async () => undefined,
    });
    await expect(failed).rejects.toThrow(CaptureError);
    await expect(failed).rejects.toThrow(
      /GET \/api\/v4\/projects\/\d+\/issues\?.* answered 502 5 times; giving up/,
    );
  });

  it('a bad token is a clear error', async () => {
    await expect(capture({ url: base, token: 'nope' })).rejects.toThrow(
      'GET /api/v4/user answered 401: the token is not valid for',
    );
  });
});
