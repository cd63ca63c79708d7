/**
 * Generated repositories (`generate.repository_files_per_project`, `repository_commits_per_project`):
 * every project with a default branch and no declared repository gets files in a few directories and a
 * chain of commits that each change one file. Deterministic for a seed; only what is asked for is
 * stored, so a world that asks for none stays as small as before.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { PlatformState } from '../../core/state.js';
import { tget, tkeys } from '../../core/table.js';
import { signatureAt } from './objects.js';
import { refTarget, setRef } from './refs.js';
import { objectsFor } from './store.js';
import { applyChanges, type Change } from './tree.js';

type S = Draft<PlatformState>;

export interface RepositoryGenerateSpec {
  repository_files_per_project?: number;
  repository_commits_per_project?: number;
}

export const generateRepositoryFields = {
  repository_files_per_project: z
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(0)
    .describe('files on the default branch of every project without a declared repository'),
  repository_commits_per_project: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(0)
    .describe('commits on the default branch, each changing one file (with repository_files_per_project)'),
};

/** Files per directory: a commit rewrites a directory of at most this many entries. */
const PER_DIR = 100;

export const generatedPath = (i: number) => `src/dir-${Math.floor(i / PER_DIR)}/file-${i % PER_DIR}.txt`;

export function generateRepositories(st: S, spec: RepositoryGenerateSpec, seed: number, now: Date): void {
  const files = spec.repository_files_per_project ?? 0;
  if (files === 0) return;
  const commits = Math.max(1, spec.repository_commits_per_project ?? 1);
  const store = objectsFor(st);
  const end = Math.floor(now.getTime() / 1000);
  const ids = tkeys(st.projects);
  for (const pid of ids) {
    const p = tget(st.projects, pid)!;
    if (p.default_branch === null || tget(st.refs, pid)?.materialized) continue;
    const creator = tget(st.users, p.creator_id);
    const who = { name: creator?.name ?? 'Administrator', email: creator?.email ?? 'admin@example.com' };
    const content = (i: number, v: number) =>
      Buffer.from(`seed ${seed} project ${pid} file ${i} version ${v}\n`);
    const first = new Map<string, Change>();
    for (let i = 0; i < files; i++)
      first.set(generatedPath(i), { mode: '100644', id: store.putBlob(content(i, 0)) });
    let parent = refTarget(st, p, 'branch', p.default_branch)!;
    let tree = applyChanges(store, store.commit(parent)?.tree, first);
    for (let n = 0; n < commits; n++) {
      if (n > 0) {
        const i = (n * 7919 + seed) % files;
        const change = new Map<string, Change>([
          [generatedPath(i), { mode: '100644', id: store.putBlob(content(i, n)) }],
        ]);
        tree = applyChanges(store, tree, change);
      }
      const time = end - (commits - n) * 3600;
      const sig = signatureAt(who, time);
      const message =
        n === 0 ? `Add ${files} files\n` : `Update ${generatedPath((n * 7919 + seed) % files)}\n`;
      parent = store.putCommit({ tree, parents: [parent], author: sig, committer: sig, message });
    }
    setRef(st, p, 'branch', p.default_branch, parent);
  }
}
