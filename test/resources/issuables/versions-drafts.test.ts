/**
 * Draft title prefixes by release (src/resources/issuables/versions.ts WIP_TITLE_PREFIX): `WIP` and the
 * bare `Draft` forms mark a draft until 14.8; from 14.8 only `[Draft]`, `(Draft)` and `Draft:`.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { Minor } from '../../../src/core/versions.js';
import { APP, call, commitFiles, repoWorld } from '../repository/world.js';

const at = (version: Minor) => createFauxlab({ scenario: repoWorld, version });

/** One merge request per title, each from its own branch; answers `[title, draft, wip]` in order. */
async function drafts(version: Minor, titles: string[]) {
  const fx = at(version);
  const out: [string, unknown, unknown][] = [];
  for (const [i, title] of titles.entries()) {
    await commitFiles(fx, { [`f${i}.txt`]: 'f' }, { branch: `b${i}`, start_branch: 'master' });
    const res = await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
      source_branch: `b${i}`,
      target_branch: 'master',
      title,
    });
    expect(res.status).toBe(201);
    out.push([title, res.body.draft, res.body.work_in_progress]);
  }
  const listed = await call(fx, 'GET', `${APP}/merge_requests?wip=yes`, 'dev');
  const wipYes = (listed.body as { title: string }[]).map((m) => m.title).sort();
  return { fx, out, wipYes };
}

const TITLES = [
  'WIP: a',
  '[WIP] b',
  'WIP c',
  'Draft - d',
  'Draft e',
  'Draft: f',
  '[Draft] g',
  '(Draft) h',
  'i',
];

describe('draft title prefixes by release', () => {
  it('14.7: WIP and the bare Draft forms mark a draft (draft, work_in_progress, the wip filter)', async () => {
    const { out, wipYes } = await drafts('14.7', TITLES);
    expect(out).toEqual(TITLES.map((t) => [t, t !== 'i', t !== 'i']));
    expect(wipYes).toEqual(TITLES.filter((t) => t !== 'i').sort());
  });

  it('14.8: only [Draft], (Draft) and Draft: do; a WIP title merges', async () => {
    const { fx, out, wipYes } = await drafts('14.8', TITLES);
    const marked = new Set(['Draft: f', '[Draft] g', '(Draft) h']);
    expect(out).toEqual(TITLES.map((t) => [t, marked.has(t), marked.has(t)]));
    expect(wipYes).toEqual([...marked].sort());
    // The draft merge check follows: `WIP: a` (iid 1) merges, `Draft: f` (iid 6) is refused.
    const wip = await call(fx, 'PUT', `${APP}/merge_requests/1/merge`, 'maint');
    expect(wip.status).toBe(200);
    const draft = await call(fx, 'PUT', `${APP}/merge_requests/6/merge`, 'maint');
    expect(draft.status).toBe(405);
  });
});
