/**
 * Who may do what with issues, merge requests, notes and milestones: the platform's IssuePolicy,
 * MergeRequestPolicy, NotePolicy and milestone abilities, computed once per viewer and project.
 */
import { ACCESS, groupAccess, projectAccess } from '../../core/access.js';
import type { GroupRecord, PlatformState, UserRecord } from '../../core/state.js';
import { canDownloadCode, featureAvailable } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import type { IssueRecord, MergeRequestRecord, NoteRecord } from './store.js';

/** A viewer's standing in one project, as the issuable abilities need it. */
export interface ProjectAbilities {
  user: UserRecord | null;
  level: number;
  admin: boolean;
  /** `read_issue` on the project: the issues feature is available to the viewer. */
  issues: boolean;
  /** `read_merge_request`: the merge requests feature and the code are available to the viewer. */
  mergeRequests: boolean;
  /** Reporters and up see every confidential issue (`read_confidential_issues`). */
  allConfidential: boolean;
  /** `admin_issue`: labels, assignees, milestones and due dates (reporters and up). */
  adminIssue: boolean;
  /** `admin_merge_request` and pushing to branches (developers and up). */
  developer: boolean;
  /** `admin_note` on others' notes (maintainers and up). */
  maintainer: boolean;
  /** Project owners and admins: `created_at` of issues and notes, deleting issuables. */
  owner: boolean;
}

const caches = new WeakMap<PlatformState, Map<string, ProjectAbilities>>();

/** The viewer's abilities in a project, memoised per committed state. */
export function abilities(st: PlatformState, user: UserRecord | null, p: Project): ProjectAbilities {
  let byKey = caches.get(st);
  if (!byKey) {
    byKey = new Map();
    caches.set(st, byKey);
  }
  const key = `${user?.id ?? 0}:${p.id}`;
  let a = byKey.get(key);
  if (a) return a;
  const level = projectAccess(st, user, p);
  const admin = user?.admin === true;
  const issues = featureAvailable(p.issues_access_level, 'issues', level, admin);
  a = {
    user,
    level,
    admin,
    issues,
    mergeRequests:
      featureAvailable(p.merge_requests_access_level, 'merge_requests', level, admin) &&
      canDownloadCode(p, user, level),
    allConfidential: admin || level >= ACCESS.REPORTER,
    adminIssue: admin || level >= ACCESS.REPORTER,
    developer: admin || level >= ACCESS.DEVELOPER,
    maintainer: admin || level >= ACCESS.MAINTAINER,
    owner: admin || level >= ACCESS.OWNER,
  };
  byKey.set(key, a);
  return a;
}

/** Reference §4: anonymous viewers never see confidential issues; reporters see all; others their own. */
export function canSeeIssue(a: ProjectAbilities, issue: IssueRecord): boolean {
  if (!a.issues) return false;
  if (!issue.confidential || a.allConfidential) return true;
  const u = a.user;
  if (!u) return false;
  return issue.author_id === u.id || issue.assignee_ids.includes(u.id);
}

const authorOrAssignee = (a: ProjectAbilities, r: IssueRecord | MergeRequestRecord) =>
  !!a.user && (r.author_id === a.user.id || r.assignee_ids.includes(a.user.id));

/** `update_issue`: reporters and up, or the issue's author or assignees. */
export const canUpdateIssue = (a: ProjectAbilities, issue: IssueRecord) =>
  !!a.user && (a.adminIssue || authorOrAssignee(a, issue));

/** `create_issue`: any signed-in viewer who can read the project's issues. */
export const canCreateIssue = (a: ProjectAbilities) => !!a.user && a.issues;

/** `update_merge_request`: developers and up, or the author or assignees. */
export const canUpdateMergeRequest = (a: ProjectAbilities, mr: MergeRequestRecord) =>
  !!a.user && (a.developer || authorOrAssignee(a, mr));

/** `create_note`: a readable noteable; a locked discussion only takes comments from project members. */
export function canComment(a: ProjectAbilities, locked: boolean | null): boolean {
  if (!a.user) return false;
  return !locked || a.admin || a.level >= ACCESS.GUEST;
}

/** `admin_note`: the author, maintainers and admins. */
export const canAdminNote = (a: ProjectAbilities, n: NoteRecord) =>
  !!a.user && (n.author_id === a.user.id || a.maintainer);

/** Confidential comments are for reporters and up, and their author. */
export const canSeeNote = (a: ProjectAbilities, n: NoteRecord) =>
  !n.confidential || a.allConfidential || (!!a.user && n.author_id === a.user.id);

/** `admin_milestone` on a group: its developers and up, and admins. */
export const canAdminGroupMilestones = (st: PlatformState, user: UserRecord | null, g: GroupRecord) =>
  !!user && (user.admin || groupAccess(st, user, g) >= ACCESS.DEVELOPER);
