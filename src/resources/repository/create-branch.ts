/**
 * `POST /projects/:id/repository/branches` as `Branches::CreateService#execute` runs it: in an empty
 * repository the default branch first (`create_default_branch`, `create_master_branch` before 14.0),
 * then the new branch's checks (`Branches::ValidateNewService`), the ref and the push rule
 * (`UserCreateBranch`'s pre-receive hook).
 */
import type { Draft } from 'immer';
import { state, write, type Ctx } from '../../core/context.js';
import { ApiError, apiError } from '../../core/errors.js';
import { requestBase } from '../../core/pagination.js';
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { has } from '../../core/versions.js';
import type { Project } from '../projects/model.js';
import { DEFAULT_BRANCH_MAIN } from '../projects/versions.js';
import { setting } from '../settings/model.js';
import { validRefName } from './names.js';
import { announceReceived, receiveMoves, type Received } from './post-receive.js';
import { refTarget, resolveCommit } from './refs.js';
import { buildCommit, pusherOf, refuseByPushRule, signatureOf } from './write.js';

const isEmpty = (st: PlatformState, p: Project) =>
  p.default_branch === null && Object.keys(tget(st.refs, p.id)?.branches ?? {}).length === 0;

/**
 * The commit `create_default_branch` makes: an empty `README.md`, "Add README.md", by the user, on
 * `default_branch_or_main` (the instance's `default_branch_name`, else `main`; `master` before 14.0).
 * A push rule refusing it is the request's 400 (its `PreReceiveError`), with nothing written.
 */
function readmeCommit(c: Ctx, p: Project): { branch: string; id: string } {
  const st = state(c);
  const branch = setting(st, 'default_branch_name') || (has(c, DEFAULT_BRANCH_MAIN) ? 'main' : 'master');
  const { id } = buildCommit(
    st,
    p,
    {
      branch,
      message: 'Add README.md',
      actions: [{ action: 'create', file_path: 'README.md', content: '' }],
    },
    signatureOf(c.get('viewer').user!, Math.floor(c.get('fx').clock.ms() / 1000)),
  );
  refuseByPushRule(st, p, 'branch', branch, { id });
  return { branch, id };
}

/** The new branch's checks on the repository as the README left it; the commit it starts from. */
function branchTarget(st: PlatformState, p: Project, branch: string, ref: string): string {
  if (!validRefName(branch)) throw apiError(400, 'Branch name is invalid');
  if (refTarget(st, p, 'branch', branch) !== undefined) throw apiError(400, 'Branch already exists');
  const target = resolveCommit(st, p, ref);
  if (target === undefined) throw apiError(400, `Invalid reference name: ${ref}`);
  refuseByPushRule(st, p, 'branch', branch);
  return target;
}

/**
 * Creates `branch` at `ref` in one write. The README of an empty repository is its own
 * `UserCommitFiles` on the platform, done before the branch is checked: it stays when the branch is
 * then refused, so the refusal is returned from the write (which commits the README) and thrown after.
 */
export function createBranch(c: Ctx, proj: Project, branch: string, ref: string): void {
  const readme = isEmpty(state(c), proj) ? readmeCommit(c, proj) : undefined;
  const by = pusherOf(c);
  const userId = c.get('viewer').user?.id ?? null;
  const base = requestBase(c);
  const o = { userId, base };
  const done = write(c, (d: Draft<PlatformState>) => {
    const received: Received[] = [];
    if (readme)
      received.push(receiveMoves(d, proj, [{ kind: 'branch', name: readme.branch, id: readme.id }], by, o));
    const p = tget(d.projects, proj.id) as Project;
    let target: string;
    try {
      target = branchTarget(d as PlatformState, p, branch, ref);
    } catch (e) {
      // Without a README written, a refusal may as well undo the (empty) write.
      if (!(e instanceof ApiError) || !readme) throw e;
      return { received, refusal: e };
    }
    received.push(receiveMoves(d, p, [{ kind: 'branch', name: branch, id: target }], by, o));
    return { received, refusal: undefined };
  });
  for (const r of done.received) announceReceived(c.get('fx'), base, r);
  if (done.refusal) throw done.refusal;
}
