/**
 * The vulnerabilities' JSON: `EE::API::Entities::Vulnerability`, `VulnerabilityIssueLink`,
 * `VulnerabilityRelatedIssue`, `VulnerabilityExport`, and `Vulnerabilities::FindingEntity` (the
 * findings API's serializer).
 */
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { issuableRenderer } from '../issuables/entities.js';
import type { IssueRecord } from '../issuables/store.js';
import { findingsOf } from './model.js';
import type { ExportRecord, FindingRecord, IssueLinkRecord, VulnerabilityRecord } from './store.js';
import { projectIdentity } from '../jobs/entities.js';

type Json = Record<string, unknown>;

/** The report entry a finding was stored from (`raw_metadata`, a JSON text). */
function rawMetadata(f: FindingRecord): string {
  return JSON.stringify({
    category: f.report_type,
    name: f.name,
    description: f.description,
    solution: f.solution,
    severity: f.severity,
    confidence: f.confidence,
    scanner: { id: f.scanner.external_id, name: f.scanner.name },
    location: f.location,
    identifiers: f.identifiers.map((i) => ({
      type: i.external_type,
      name: i.name,
      value: i.external_id,
      ...(i.url === null ? {} : { url: i.url }),
    })),
  });
}

/**
 * `expose :finding` with no entity: the `vulnerability_occurrences` row's attributes, in column order.
 * The scanner and primary identifier rows are not kept apart; their ids are the finding's.
 */
function findingRow(f: FindingRecord): Json {
  const cve = f.identifiers.find((i) => i.external_type.toLowerCase() === 'cve');
  return {
    id: f.id,
    created_at: f.created_at,
    updated_at: f.updated_at,
    severity: f.severity,
    confidence: f.confidence,
    report_type: f.report_type,
    project_id: f.project_id,
    scanner_id: f.id,
    primary_identifier_id: f.id,
    project_fingerprint: f.project_fingerprint,
    location_fingerprint: f.location_fingerprint,
    uuid: f.uuid,
    name: f.name,
    metadata_version: '3.0',
    raw_metadata: rawMetadata(f),
    vulnerability_id: f.vulnerability_id,
    details: {},
    description: f.description,
    message: null,
    solution: f.solution,
    cve: cve ? cve.external_id : null,
    location: f.location,
  };
}

/** `EE::API::Entities::Vulnerability` (13.12). */
export function vulnerabilityEntity(st: PlatformState, v: VulnerabilityRecord): Json {
  const first = findingsOf(st, v.id)[0];
  return {
    id: v.id,
    title: v.title,
    description: v.description,
    state: v.state,
    severity: v.severity,
    confidence: v.confidence,
    report_type: v.report_type,
    project: projectIdentity(st, tget(st.projects, v.project_id)!),
    finding: first ? findingRow(first) : null,
    author_id: v.author_id,
    updated_by_id: v.updated_by_id,
    last_edited_by_id: v.last_edited_by_id,
    resolved_by_id: v.resolved_by_id,
    dismissed_by_id: v.dismissed_by_id,
    confirmed_by_id: v.confirmed_by_id,
    start_date: v.start_date,
    due_date: v.due_date,
    created_at: v.created_at,
    updated_at: v.updated_at,
    last_edited_at: v.last_edited_at,
    resolved_at: v.resolved_at,
    dismissed_at: v.dismissed_at,
    confirmed_at: v.confirmed_at,
  };
}

/** `EE::API::Entities::VulnerabilityIssueLink`: the link with its vulnerability and `IssueBasic`. */
export function issueLinkEntity(c: Ctx, link: IssueLinkRecord): Json {
  const st = state(c);
  const issue = tget(st.issuables.issues, link.issue_id) as IssueRecord;
  return {
    id: link.id,
    vulnerability: vulnerabilityEntity(st, tget(st.vulnerabilities.records, link.vulnerability_id)!),
    issue: issuableRenderer(c).issue(issue, { basic: true }),
    link_type: link.link_type,
  };
}

/** `EE::API::Entities::VulnerabilityRelatedIssue`: `IssueBasic` and the link's id and type. */
export function relatedIssueEntity(c: Ctx, issue: IssueRecord, link: IssueLinkRecord): Json {
  return Object.assign(issuableRenderer(c).issue(issue, { basic: true }), {
    vulnerability_link_id: link.id,
    vulnerability_link_type: link.link_type,
  });
}

/** `EE::API::Entities::VulnerabilityExport`. */
export function exportEntity(c: Ctx, e: ExportRecord): Json {
  const self = `${requestBase(c)}/api/v4/security/vulnerability_exports/${e.id}`;
  return {
    id: e.id,
    created_at: e.created_at,
    project_id: e.project_id,
    group_id: e.group_id,
    format: e.format,
    status: e.status,
    started_at: e.started_at,
    finished_at: e.finished_at,
    _links: { self, download: `${self}/download` },
  };
}

/** `ProjectEntity` (the serializers' short project). */
const projectEntity = (st: PlatformState, p: ProjectRecord) => ({
  id: p.id,
  name: p.name,
  full_path: `/${p.path_with_namespace}`,
  full_name: projectIdentity(st, p).name_with_namespace,
});

/**
 * `Vulnerabilities::FindingEntity`, as the findings API presents a pipeline's findings. No feedback is
 * kept apart from the vulnerability's state, so the feedback fields are null.
 */
export function findingEntity(st: PlatformState, f: FindingRecord, sha: string | null): Json {
  const p = tget(st.projects, f.project_id)!;
  const v = tget(st.vulnerabilities.records, f.vulnerability_id);
  const feedback = `/${p.path_with_namespace}/-/vulnerability_feedback`;
  return {
    id: f.id,
    report_type: f.report_type,
    name: f.name,
    severity: f.severity,
    confidence: f.confidence,
    scanner: { external_id: f.scanner.external_id, name: f.scanner.name, vendor: 'GitLab' },
    identifiers: f.identifiers.map((i) => ({
      external_type: i.external_type,
      external_id: i.external_id,
      name: i.name,
      url: i.url,
    })),
    project_fingerprint: f.project_fingerprint,
    create_vulnerability_feedback_issue_path: feedback,
    create_vulnerability_feedback_merge_request_path: feedback,
    create_vulnerability_feedback_dismissal_path: feedback,
    project: projectEntity(st, p),
    dismissal_feedback: null,
    issue_feedback: null,
    merge_request_feedback: null,
    description: f.description,
    links: [],
    location: f.location,
    remediations: null,
    solution: f.solution,
    evidence: null,
    request: null,
    response: null,
    evidence_source: null,
    supporting_messages: null,
    assets: null,
    state: v?.state ?? 'detected',
    scan: null,
    blob_path: blobPath(p, f, sha),
  };
}

/** `FindingPresenter#blob_path`: the file at the pipeline's commit, with the lines as an anchor. */
function blobPath(p: ProjectRecord, f: FindingRecord, sha: string | null): string {
  const file = f.location.file;
  if (typeof file !== 'string' || sha === null) return '';
  const start = f.location.start_line;
  const end = f.location.end_line;
  let anchor = '';
  if (typeof start === 'number')
    anchor = typeof end === 'number' && end > start ? `#L${start}-${end}` : `#L${start}`;
  return `/${p.path_with_namespace}/-/blob/${sha}/${file}${anchor}`;
}
