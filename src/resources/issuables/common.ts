/** Lookups every issuable route shares: the route's project, issue and merge request, participants. */
import { state, type Ctx } from '../../core/context.js';
import { recordNotFound } from '../../core/errors.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { loadProject } from '../projects/helpers.js';
import type { Project } from '../projects/model.js';
import { findUser } from '../../core/auth.js';
import { abilities, canSeeIssue } from './access.js';
import type { FindContext } from './finder.js';
import { issueIdByIid, mergeRequestIdByIid } from './model.js';
import type { IssueRecord, MergeRequestRecord } from './store.js';
import { mentionedUsernames } from './text.js';

export { loadProject };

export function findContext(c: Ctx): FindContext {
  return {
    st: state(c),
    user: c.get('viewer').user,
    today: c.get('fx').clock.today(),
    weights: c.get('fx').tier() !== 'free',
  };
}

/** `find_project_issue`: through the finder, so a hidden confidential issue is not found (`404 Not found`). */
export function findIssue(c: Ctx, project: Project, iid: number): IssueRecord {
  const issue = issueByIid(state(c), project.id, iid);
  const a = abilities(state(c), c.get('viewer').user, project);
  if (!issue || !canSeeIssue(a, issue))
    throw recordNotFound(issue ? 'issue hidden from this viewer' : 'no such issue');
  return issue;
}

export function issueByIid(st: PlatformState, projectId: number, iid: number): IssueRecord | undefined {
  const id = issueIdByIid(st, projectId, iid);
  return id === undefined ? undefined : tget(st.issuables.issues, id);
}

export function mergeRequestByIid(
  st: PlatformState,
  projectId: number,
  iid: number,
): MergeRequestRecord | undefined {
  const id = mergeRequestIdByIid(st, projectId, iid);
  return id === undefined ? undefined : tget(st.issuables.mergeRequests, id);
}

/** `find_project_merge_request`: through the finder (`404 Not found` when missing or unreadable). */
export function findMergeRequest(c: Ctx, project: Project, iid: number): MergeRequestRecord {
  const mr = mergeRequestByIid(state(c), project.id, iid);
  const a = abilities(state(c), c.get('viewer').user, project);
  if (!mr || !a.mergeRequests)
    throw recordNotFound(mr ? 'merge requests hidden from this viewer' : 'no such merge request');
  return mr;
}

/**
 * `Issuable#participants`: the author, assignees (and reviewers), the authors of comments, and the users
 * mentioned in the description and comments, in that order, each once.
 */
export function participants(
  st: PlatformState,
  type: 'Issue' | 'MergeRequest',
  r: IssueRecord | MergeRequestRecord,
): UserRecord[] {
  const ids: number[] = [r.author_id, ...r.assignee_ids];
  if (type === 'MergeRequest') ids.push(...(r as MergeRequestRecord).reviewer_ids);
  const texts: (string | null)[] = [r.description];
  for (const nid of mget(st.issuables.idx.notes, `${type}:${r.id}`)) {
    const n = tget(st.issuables.notes, nid)!;
    if (n.system) continue;
    ids.push(n.author_id);
    texts.push(n.body);
  }
  for (const t of texts)
    for (const name of mentionedUsernames(t)) {
      const u = findUser(st, name);
      if (u && u.username.toLowerCase() === name.toLowerCase()) ids.push(u.id);
    }
  const out: UserRecord[] = [];
  const seen = new Set<number>();
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    const u = tget(st.users, id);
    if (u) out.push(u);
  }
  return out;
}

/** `subscribed?`: an explicit (un)subscription, else whether the user takes part. */
export function isSubscribed(
  st: PlatformState,
  type: 'Issue' | 'MergeRequest',
  r: IssueRecord | MergeRequestRecord,
  user: UserRecord | null,
): boolean {
  if (!user) return false;
  const sid = iget(st.issuables.idx.userTarget, `${type}:${r.id}:${user.id}`);
  if (sid !== undefined) return tget(st.issuables.subscriptions, sid)!.subscribed;
  return participants(st, type, r).some((u) => u.id === user.id);
}

/** A pending `marked` todo of the user on the target. */
export const pendingTodo = (
  st: PlatformState,
  type: 'Issue' | 'MergeRequest' | 'Epic',
  targetId: number,
  userId: number,
) => iget(st.issuables.idx.userTarget, `${type}:${targetId}:${userId}:marked`);

/** Times as the platform stores and renders them: ISO 8601 with milliseconds, UTC. */
export const isoMs = (s: string) => new Date(s).toISOString();
