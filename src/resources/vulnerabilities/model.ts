/** The vulnerabilities' reads and writes (`Vulnerabilities::*Service`, `VulnerabilityIssueLinks::*Service`). */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, madd, mget, mremove, tdelete, tget, tset, tvalues } from '../../core/table.js';
import type {
  FindingRecord,
  IssueLinkRecord,
  LinkType,
  VulnerabilityRecord,
  VulnerabilityState,
} from './store.js';

type S = Draft<PlatformState>;

/** `Security::VulnerabilitiesFinder#execute`: a project's vulnerabilities, by id. */
export function vulnerabilitiesOf(st: PlatformState, projectId: number): VulnerabilityRecord[] {
  return mget(st.vulnerabilities.idx.byProject, String(projectId)).map((id) =>
    tget(st.vulnerabilities.records, id)!,
  );
}

/** `Vulnerability#findings`, in creation order; `#finding` is the first. */
export function findingsOf(st: PlatformState, vulnerabilityId: number): FindingRecord[] {
  return mget(st.vulnerabilities.idx.findings, String(vulnerabilityId)).map((id) =>
    tget(st.vulnerabilities.findings, id)!,
  );
}

export function issueLinksOf(st: PlatformState, vulnerabilityId: number): IssueLinkRecord[] {
  return mget(st.vulnerabilities.idx.links, String(vulnerabilityId)).map((id) =>
    tget(st.vulnerabilities.links, id)!,
  );
}

export type NewVulnerability = Omit<VulnerabilityRecord, 'id' | 'project_id'>;

export function createVulnerability(d: S, projectId: number, f: NewVulnerability): VulnerabilityRecord {
  const id = nextId(d, 'vulnerabilities');
  const rec: VulnerabilityRecord = {
    id,
    project_id: projectId,
    title: f.title,
    description: f.description,
    state: f.state,
    severity: f.severity,
    confidence: f.confidence,
    report_type: f.report_type,
    author_id: f.author_id,
    updated_by_id: f.updated_by_id,
    last_edited_by_id: f.last_edited_by_id,
    resolved_by_id: f.resolved_by_id,
    dismissed_by_id: f.dismissed_by_id,
    confirmed_by_id: f.confirmed_by_id,
    start_date: f.start_date,
    due_date: f.due_date,
    created_at: f.created_at,
    updated_at: f.updated_at,
    last_edited_at: f.last_edited_at,
    resolved_at: f.resolved_at,
    dismissed_at: f.dismissed_at,
    confirmed_at: f.confirmed_at,
  };
  tset(d.vulnerabilities.records, id, rec);
  madd(d.vulnerabilities.idx.byProject, String(projectId), id);
  return rec;
}

export type NewFinding = Omit<FindingRecord, 'id' | 'project_id' | 'vulnerability_id'>;

export function addFinding(d: S, v: VulnerabilityRecord, f: NewFinding): FindingRecord {
  const id = nextId(d, 'vulnerability_findings');
  const rec: FindingRecord = {
    id,
    project_id: v.project_id,
    vulnerability_id: v.id,
    name: f.name,
    severity: f.severity,
    confidence: f.confidence,
    report_type: f.report_type,
    uuid: f.uuid,
    project_fingerprint: f.project_fingerprint,
    location_fingerprint: f.location_fingerprint,
    scanner: f.scanner,
    identifiers: f.identifiers,
    description: f.description,
    solution: f.solution,
    location: f.location,
    pipeline_id: f.pipeline_id,
    created_at: f.created_at,
    updated_at: f.updated_at,
  };
  tset(d.vulnerabilities.findings, id, rec);
  madd(d.vulnerabilities.idx.findings, String(v.id), id);
  return rec;
}

/**
 * The state services (13.12): `ResolveService`, `DismissService` and `ConfirmService` set the state with
 * who and when; `RevertToDetectedService` clears all three pairs.
 */
export function changeState(
  d: S,
  id: number,
  to: VulnerabilityState,
  userId: number,
  now: string,
): VulnerabilityRecord {
  const v = tget(d.vulnerabilities.records, id)!;
  v.state = to;
  v.updated_at = now;
  if (to === 'resolved') {
    v.resolved_by_id = userId;
    v.resolved_at = now;
  } else if (to === 'dismissed') {
    v.dismissed_by_id = userId;
    v.dismissed_at = now;
  } else if (to === 'confirmed') {
    v.confirmed_by_id = userId;
    v.confirmed_at = now;
  } else {
    v.resolved_by_id = v.dismissed_by_id = v.confirmed_by_id = null;
    v.resolved_at = v.dismissed_at = v.confirmed_at = null;
  }
  return v;
}

export function addIssueLink(
  d: S,
  vulnerabilityId: number,
  issueId: number,
  linkType: LinkType,
  now: string,
): IssueLinkRecord {
  const id = nextId(d, 'vulnerability_issue_links');
  const rec: IssueLinkRecord = {
    id,
    vulnerability_id: vulnerabilityId,
    issue_id: issueId,
    link_type: linkType,
    created_at: now,
    updated_at: now,
  };
  tset(d.vulnerabilities.links, id, rec);
  madd(d.vulnerabilities.idx.links, String(vulnerabilityId), id);
  madd(d.vulnerabilities.idx.linksByIssue, String(issueId), id);
  return rec;
}

export function deleteIssueLink(d: S, link: IssueLinkRecord): void {
  tdelete(d.vulnerabilities.links, link.id);
  mremove(d.vulnerabilities.idx.links, String(link.vulnerability_id), link.id);
  mremove(d.vulnerabilities.idx.linksByIssue, String(link.issue_id), link.id);
}

/** A project's vulnerabilities, findings, links and exports go with it; so do links to its issues. */
export function deleteProjectVulnerabilities(d: S, projectId: number): void {
  const ix = d.vulnerabilities.idx;
  for (const vid of mget(ix.byProject, String(projectId))) {
    for (const fid of mget(ix.findings, String(vid))) tdelete(d.vulnerabilities.findings, fid);
    idelete(ix.findings, String(vid));
    for (const lid of mget(ix.links, String(vid))) deleteIssueLink(d, tget(d.vulnerabilities.links, lid)!);
    idelete(ix.links, String(vid));
    tdelete(d.vulnerabilities.records, vid);
  }
  idelete(ix.byProject, String(projectId));
  // Links of other projects' vulnerabilities to this project's issues (an issue already gone counts too).
  for (const link of tvalues(d.vulnerabilities.links)) {
    const issue = tget(d.issuables.issues, link.issue_id);
    if (!issue || issue.project_id === projectId) deleteIssueLink(d, link);
  }
  for (const e of tvalues(d.vulnerabilities.exports))
    if (e.project_id === projectId) tdelete(d.vulnerabilities.exports, e.id);
}

/** A group's exports go with it. */
export function deleteGroupExports(d: S, groupId: number): void {
  for (const e of tvalues(d.vulnerabilities.exports))
    if (e.group_id === groupId) tdelete(d.vulnerabilities.exports, e.id);
}
