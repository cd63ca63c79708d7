/**
 * What a push does to issuables (`Git::BranchPushService`): merge requests from or into the branch are
 * refreshed (`MergeRequests::RefreshService`), and on the default branch each new commit's closing
 * references close issues (`ProcessCommitWorker`).
 */
import type { Draft } from 'immer';
import type { BranchMove } from '../../../core/push.js';
import type { PlatformState, UserRecord } from '../../../core/state.js';
import { iget, tget } from '../../../core/table.js';
import type { Project } from '../../projects/model.js';
import { mergeBase } from '../../repository/history.js';
import { objectsOf } from '../../repository/store.js';
import { abilities, canUpdateIssue } from '../access.js';
import { closingIssueIids } from '../text.js';
import { commitsBetween } from './git.js';
import { closeIssue, issueIdByIid } from './issues.js';
import { mergeRequestsAfterPush } from './merge-requests.js';
import { projectMeta } from './meta.js';

type S = Draft<PlatformState>;

/** `PROCESS_COMMIT_LIMIT`: the most new commits of one push whose messages are read. */
export const PROCESS_COMMIT_LIMIT = 100;

/**
 * `ProcessCommitWorker#close_issues`: the issues a commit new to the default branch closes, those the
 * pusher may update, closed by the commit's author (the user with its email, else the pusher).
 */
export function issuesAfterPush(st: S, move: BranchMove): void {
  if (move.after === undefined) return;
  const project = tget(st.projects, move.projectId) as Project | undefined;
  if (!project || project.default_branch !== move.branch || !project.autoclose_referenced_issues) return;
  if (project.issues_access_level === 'disabled') return;
  const store = objectsOf(st as PlatformState);
  let ids: string[];
  if (move.before === undefined) ids = [move.after];
  else {
    const base = mergeBase(store, move.after, move.before) ?? move.before;
    ids = commitsBetween(store, { head: move.after, start: move.before, base });
  }
  const pusher = (tget(st.users, move.userId) as UserRecord | undefined) ?? null;
  const a = abilities(st as PlatformState, pusher, project);
  // Oldest first, as the commits were made.
  for (const id of ids.slice(0, PROCESS_COMMIT_LIMIT).reverse()) {
    const c = store.commit(id);
    if (!c) continue;
    const byEmail = iget(st.idx.emails, c.author.email.toLowerCase());
    const author = byEmail !== undefined && tget(st.users, byEmail) ? byEmail : move.userId;
    for (const iid of closingIssueIids(c.message)) {
      const issueId = issueIdByIid(st, project.id, iid);
      const issue = issueId === undefined ? undefined : tget(st.issuables.issues, issueId);
      if (!issue || issue.state !== 'opened' || !canUpdateIssue(a, issue)) continue;
      closeIssue(st, issue, author, move.now);
      issue.updated_at = move.now;
      projectMeta(st, issue.project_id);
    }
  }
}

/** The issuables area's push hook. */
export function issuablesAfterPush(st: S, move: BranchMove): void {
  mergeRequestsAfterPush(st, move);
  issuesAfterPush(st, move);
}
