/**
 * A repository exported to a scenario loads back with the same object ids whatever its commits hold:
 * time zones other than UTC, extra headers (`gpgsig`, `encoding`, `mergetag`), messages that are not
 * UTF-8. Objects that the scenario's commit list cannot write exactly travel as a git bundle
 * (`repository.bundle`), as the platform's project export carries a repository (`project.bundle`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../src/index.js';
import { exportScenario } from '../../src/scenario/export.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import { localServers } from '../helpers.js';
import { hasGit, runGit } from '../resources/git_http/run-git.js';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [{ token: 'root-api', scopes: ['api'] }],
    },
  ],
  projects: [{ path: 'root/app', visibility: 'public' }],
};

let home: string;
const listen = localServers();
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'fauxlab-repo-exact-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const remote = (base: string) => `${base.replace('http://', 'http://root:root-api@')}/root/app.git`;

async function lsRemote(base: string): Promise<string> {
  const r = await runGit(home, ['ls-remote', remote(base)]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe.skipIf(!hasGit)('repositories in scenarios: the same object ids after export and load', () => {
  let fx: Fauxlab;
  let base: string;
  beforeAll(async () => {
    fx = createFauxlab({ scenario });
    base = await listen(fx.fetch);
    const dir = join(home, 'work');
    const git = (args: string[], env: Record<string, string> = {}) => runGit(home, args, dir, env);
    await runGit(home, ['init', '-q', '-b', 'main', dir]);
    await runGit(home, ['-C', dir, 'commit', '-q', '--allow-empty', '-m', 'Zoned'], dir, {
      GIT_AUTHOR_DATE: '1614600000 +0200',
      GIT_COMMITTER_DATE: '1614603600 -0530',
    });
    await git(['-c', 'i18n.commitEncoding=ISO-8859-1', 'commit', '-q', '--allow-empty', '-m', 'Latin'], {});
    await git(['tag', '-a', '-m', 'Release', 'v1'], { GIT_COMMITTER_DATE: '1614607200 +0900' });
    await git(['notes', 'add', '-m', 'a note'], {});
    const r = await git(['push', '-q', remote(base), 'main', 'v1', 'refs/notes/commits']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('exports such a repository as a bundle, refs beyond branches and tags included', () => {
    const out = exportScenario(fx.state, { now: fx.clock.iso() }) as ScenarioFile;
    const repo = out.projects?.[0]?.repository as { bundle?: string; commits?: unknown };
    expect(repo.commits).toBeUndefined();
    const text = Buffer.from(repo.bundle!, 'base64').toString('latin1');
    expect(text.startsWith('# v2 git bundle\n')).toBe(true);
    expect(text).toMatch(/^[0-9a-f]{40} refs\/notes\/commits$/m);
    expect(text).toMatch(/^[0-9a-f]{40} refs\/tags\/v1$/m);
  });

  it('loads the export into a fresh instance with every ref at the same id, and exports the same file again', async () => {
    const before = await lsRemote(base);
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const again = createFauxlab({ scenario: out as ScenarioFile });
    // Exported before any git read: a fetch counts in the project's statistics (`ProjectDailyStatistic`).
    expect(exportScenario(again.state, { now: again.clock.iso() })).toEqual(out);
    const base2 = await listen(again.fetch);
    expect(await lsRemote(base2)).toBe(before);
    const clone = join(home, 'clone');
    expect((await runGit(home, ['clone', '-q', remote(base2), clone])).code).toBe(0);
    expect((await runGit(home, ['fsck', '--strict'], clone)).code).toBe(0);
  });

  it('the API shows a commit’s dates in its signer’s own offset, as the platform does', async () => {
    const res = await fetch(`${base}/api/v4/projects/root%2Fapp/repository/commits?ref_name=main`, {
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    const zoned = ((await res.json()) as Array<Record<string, string>>).find((c) => c.title === 'Zoned')!;
    expect([zoned.authored_date, zoned.committed_date, zoned.created_at]).toEqual([
      '2021-03-01T14:00:00.000+02:00',
      '2021-03-01T07:30:00.000-05:30',
      '2021-03-01T07:30:00.000-05:30',
    ]);
  });

  it('a commit in another offset alone sends the repository as a bundle: the commit list writes UTC', async () => {
    const one = createFauxlab({ scenario });
    const oneBase = await listen(one.fetch);
    const dir = join(home, 'zoned-only');
    await runGit(home, ['init', '-q', '-b', 'main', dir]);
    await runGit(home, ['commit', '-q', '--allow-empty', '-m', 'Zoned'], dir, {
      GIT_AUTHOR_DATE: '1614600000 +0200',
      GIT_COMMITTER_DATE: '1614600000 +0200',
    });
    expect((await runGit(home, ['push', '-q', remote(oneBase), 'main'], dir)).code).toBe(0);
    const out = exportScenario(one.state, { now: one.clock.iso() }) as ScenarioFile;
    const repo = out.projects?.[0]?.repository as { bundle?: string; commits?: unknown };
    expect(repo.commits).toBeUndefined();
    expect(typeof repo.bundle).toBe('string');
    const again = createFauxlab({ scenario: out });
    expect(await lsRemote(await listen(again.fetch))).toBe(await lsRemote(oneBase));
  });

  it('a bundle that is not one, or names a ref the platform keeps itself, is refused naming the field', async () => {
    const bad = (bundle: string) => () =>
      createFauxlab({ scenario: { ...scenario, projects: [{ path: 'root/app', repository: { bundle } }] } });
    expect(bad(Buffer.from('hello').toString('base64'))).toThrow(
      'projects[0].repository.bundle: not a git bundle',
    );
    expect(bad('not base64!')).toThrow('projects[0].repository.bundle: must be a git bundle in base64');
    const out = exportScenario(fx.state, { now: fx.clock.iso() }) as ScenarioFile;
    const text = Buffer.from(out.projects![0]!.repository!.bundle!, 'base64').toString('latin1');
    const renamed = text.replace('refs/notes/commits', 'refs/merge-requests/1/head');
    expect(bad(Buffer.from(renamed, 'latin1').toString('base64'))).toThrow(
      'projects[0].repository.bundle: names a ref fauxlab cannot load: "refs/merge-requests/1/head"',
    );
  });
});
