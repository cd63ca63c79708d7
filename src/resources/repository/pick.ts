/**
 * Cherry-picking and reverting a commit onto a branch (`Commits::CherryPickService`,
 * `Commits::RevertService`), and a commit's signature (fauxlab signs nothing: always 404).
 */
import { state, type Ctx } from '../../core/context.js';
import { apiError, notFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { Project } from '../projects/model.js';
import { authorizePushToBranch, readableRepo } from './access.js';
import { findBranch } from './branches.js';
import { findCommit } from './commits.js';
import { commitEntity } from './entities.js';
import { peel } from './refs.js';
import { pushBranches } from './post-receive.js';
import { objectsOf } from './store.js';
import { applyChanges, diffTrees, entryAt, type Change } from './tree.js';
import { signatureOf } from './write.js';

type Kind = 'cherry_pick' | 'revert';

const FAILED: Record<Kind, string> = {
  cherry_pick:
    'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.',
  revert:
    'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.',
};

const same = (a: { mode: string; id: string } | undefined, b: { mode: string; id: string } | undefined) =>
  a?.id === b?.id && a?.mode === b?.mode;

/**
 * The commit's change (or its inverse) applied to the branch head: a path the branch changed since
 * is a conflict, and a change the branch already has is no change at all.
 */
function apply(c: Ctx, proj: Project, kind: Kind, sha: string, branch: string): string {
  const st = state(c);
  const store = objectsOf(st);
  const commit = store.commit(sha)!;
  const parent = commit.parents[0];
  const before = parent ? store.commit(parent)?.tree : undefined;
  const head = peel(store, findBranch(c, proj, branch));
  const headTree = store.commit(head)!.tree;
  const changes = new Map<string, Change>();
  for (const d of diffTrees(store, before, commit.tree)) {
    const moves: [string, typeof d.old, typeof d.new][] =
      d.from === undefined
        ? [[d.path, d.old, d.new]]
        : [
            [d.from, d.old, undefined],
            [d.path, undefined, d.new],
          ];
    for (const [path, oldE, newE] of moves) {
      const [from, to] = kind === 'revert' ? [newE, oldE] : [oldE, newE];
      const current = entryAt(store, headTree, path);
      if (same(current, to)) continue;
      if (!same(current, from)) throw apiError(400, FAILED[kind]);
      changes.set(path, to ? { mode: to.mode, id: to.id } : null);
    }
  }
  if (changes.size === 0) throw apiError(400, FAILED[kind]);
  const title = commit.message.split('\n', 1)[0]!.trim();
  const message =
    kind === 'revert'
      ? `Revert "${title}"\n\nThis reverts commit ${sha}`
      : `${commit.message.replace(/\n+$/, '')}\n\n(cherry picked from commit ${sha})`;
  const committer = signatureOf(c.get('viewer').user!, Math.floor(c.get('fx').clock.ms() / 1000));
  const tree = applyChanges(store, headTree, changes);
  const author = kind === 'revert' ? committer : commit.author;
  return store.putCommit({ tree, parents: [head], author, committer, message });
}

export function pickRoutes(r: ApiRouter): void {
  for (const kind of ['cherry_pick', 'revert'] as const)
    r.post(
      `/projects/:id/repository/commits/:sha/${kind}`,
      { params: { id: p.str().required(), sha: p.str().required(), branch: p.str().required().notBlank() } },
      (c, prm) => {
        const proj = readableRepo(c);
        authorizePushToBranch(c, proj, prm.branch);
        const sha = findCommit(c, proj, prm.sha);
        const id = apply(c, proj, kind, sha, prm.branch);
        pushBranches(c, proj, [{ branch: prm.branch, id }]);
        return c.json(commitEntity(c, proj, id), 201);
      },
    );

  r.get(
    '/projects/:id/repository/commits/:sha/signature',
    { params: { id: p.str().required(), sha: p.str().required() } },
    (c, prm) => {
      const proj = readableRepo(c);
      findCommit(c, proj, prm.sha);
      throw notFound('Signature', 'fauxlab signs no commits');
    },
  );
}
