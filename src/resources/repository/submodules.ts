/**
 * `PUT /projects/:id/repository/submodules/:submodule` (`lib/api/submodules.rb`,
 * `Submodules::UpdateService` < `Commits::CreateService`, Gitaly's `UserUpdateSubmodule`): a commit on the
 * branch that points the submodule's gitlink (a `160000` tree entry) at another commit. Only the entry
 * changes (not `.gitmodules`), and the commit it names is another repository's, so it is not looked up.
 * Refusals are the service's 400s, in its order: the branch push, the branch, an empty repository, then
 * Gitaly's checks of the arguments, the path and the current target.
 */
import { state } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { NO_SLASH_URL_PART, type ApiRouter } from '../../core/router.js';
import { authorizePush, canPushToBranch, readableRepo } from './access.js';
import { commitDetail } from './commits.js';
import { pushBranches } from './post-receive.js';
import { names, peel, refTarget } from './refs.js';
import { objectsOf } from './store.js';
import { applyChanges, entryAt } from './tree.js';
import { refuseByPushRule, signatureOf } from './write.js';

const fail = (message: string) => apiError(400, message);

/** Gitaly's `validateUserUpdateSubmoduleRequest`: a full lower-case sha (else `Invalid parameters`). */
const FULL_SHA = /^[0-9a-f]{40}$/;

/** A path Gitaly can find as a tree entry: relative segments, none of them `.` or `..`. */
const plainPath = (path: string) => path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');

export function submoduleRoutes(r: ApiRouter): void {
  r.put(
    '/projects/:id/repository/submodules/:submodule',
    {
      // `Files::FILE_ENDPOINT_REQUIREMENTS`: the submodule's path comes URL-encoded, `%2F` for `/`.
      requirements: { id: NO_SLASH_URL_PART, submodule: NO_SLASH_URL_PART },
      params: {
        id: p.str().required(),
        submodule: p.str().required(),
        commit_sha: p.str().required(),
        branch: p.str().required(),
        commit_message: p.str(),
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      authorizePush(c, proj);
      const st = state(c);
      const user = c.get('viewer').user!;
      // `Commits::CreateService#validate!`.
      if (!canPushToBranch(st, user, proj, prm.branch))
        throw fail('You are not allowed to push into this branch');
      const empty = names(st, proj, 'branch').length === 0;
      const target = refTarget(st, proj, 'branch', prm.branch);
      if (!empty && target === undefined)
        throw fail('You can only create or edit files when you are on a branch');
      if (empty || target === undefined) throw fail('The repository is empty');
      // `.presence`: a blank value is none, which the repository call refuses (`Invalid parameters`).
      const sha = prm.commit_sha;
      if (prm.submodule === '' || !FULL_SHA.test(sha)) throw fail('Invalid parameters');
      const store = objectsOf(st);
      const head = peel(store, target);
      const tree = store.commit(head)!.tree;
      const entry = plainPath(prm.submodule) ? entryAt(store, tree, prm.submodule) : undefined;
      if (!entry || entry.mode !== '160000') throw fail('Invalid submodule path');
      if (entry.id === sha) throw fail(`The submodule ${prm.submodule} is already at ${sha}`);
      const message = prm.commit_message || `Update submodule ${prm.submodule} with oid ${sha}`;
      const who = signatureOf(user, Math.floor(c.get('fx').clock.ms() / 1000));
      const id = store.putCommit({
        tree: applyChanges(store, tree, new Map([[prm.submodule, { mode: '160000', id: sha }]])),
        parents: [head],
        author: who,
        committer: who,
        message,
      });
      refuseByPushRule(st, proj, 'branch', prm.branch, { id });
      pushBranches(c, proj, [{ branch: prm.branch, id }]);
      // `Entities::CommitDetail` without stats (the endpoint presents it with no `stats` option).
      return c.json(commitDetail(c, proj, id, false));
    },
  );
}
