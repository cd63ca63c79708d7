/**
 * Vulnerabilities (EE, ultimate: `Vulnerability`, `Vulnerabilities::Finding`, `Vulnerabilities::IssueLink`,
 * `Vulnerabilities::Export`): a project's vulnerabilities with their state, the findings that report
 * them, their links to issues, and the CSV exports of a project's, group's or the instance dashboard's.
 */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

/** `Vulnerability.states` (13.12). */
export const STATES = ['detected', 'confirmed', 'resolved', 'dismissed'] as const;
export type VulnerabilityState = (typeof STATES)[number];
/** `Vulnerabilities::Finding::SEVERITY_LEVELS`, lowest first. */
export const SEVERITIES = ['info', 'unknown', 'low', 'medium', 'high', 'critical'] as const;
/** `Vulnerabilities::Finding::CONFIDENCE_LEVELS`, lowest first. */
export const CONFIDENCES = [
  'undefined',
  'ignore',
  'unknown',
  'experimental',
  'low',
  'medium',
  'high',
  'confirmed',
] as const;
/** `Vulnerabilities::Finding.report_types` (13.12). */
export const REPORT_TYPES = [
  'sast',
  'dependency_scanning',
  'container_scanning',
  'dast',
  'secret_detection',
  'coverage_fuzzing',
  'api_fuzzing',
] as const;
export type Severity = (typeof SEVERITIES)[number];
export type Confidence = (typeof CONFIDENCES)[number];
export type ReportType = (typeof REPORT_TYPES)[number];

export interface VulnerabilityRecord {
  id: number;
  project_id: number;
  title: string;
  description: string | null;
  state: VulnerabilityState;
  severity: Severity;
  confidence: Confidence;
  report_type: ReportType;
  author_id: number;
  updated_by_id: number | null;
  last_edited_by_id: number | null;
  resolved_by_id: number | null;
  dismissed_by_id: number | null;
  confirmed_by_id: number | null;
  start_date: string | null;
  due_date: string | null;
  created_at: string;
  updated_at: string;
  last_edited_at: string | null;
  resolved_at: string | null;
  dismissed_at: string | null;
  confirmed_at: string | null;
}

/** A scanner's identifier of a finding (`Vulnerabilities::Identifier`: CVE, CWE, the scanner's own). */
export interface FindingIdentifier {
  external_type: string;
  external_id: string;
  name: string;
  url: string | null;
}

/** `Vulnerabilities::Finding` (the `vulnerability_occurrences` row) of a vulnerability. */
export interface FindingRecord {
  id: number;
  project_id: number;
  vulnerability_id: number;
  name: string;
  severity: Severity;
  confidence: Confidence;
  report_type: ReportType;
  uuid: string;
  /** SHA-1 hex digests (`ShaAttribute` columns). */
  project_fingerprint: string;
  location_fingerprint: string;
  scanner: { external_id: string; name: string };
  identifiers: FindingIdentifier[];
  description: string | null;
  solution: string | null;
  /** The report's `location` (file and lines, a dependency, an image...). */
  location: Record<string, unknown>;
  /** The pipeline whose security report found it (`vulnerability_occurrence_pipelines`), or null. */
  pipeline_id: number | null;
  created_at: string;
  updated_at: string;
}

export type LinkType = 'related' | 'created';

/** `Vulnerabilities::IssueLink`. */
export interface IssueLinkRecord {
  id: number;
  vulnerability_id: number;
  issue_id: number;
  link_type: LinkType;
  created_at: string;
  updated_at: string;
}

export type ExportStatus = 'created' | 'running' | 'finished' | 'failed';

/**
 * `Vulnerabilities::Export`: a CSV of a project's, a group's or (neither set) the author's instance
 * security dashboard's vulnerabilities. The file is written when the job finishes.
 */
export interface ExportRecord {
  id: number;
  project_id: number | null;
  group_id: number | null;
  author_id: number;
  format: 'csv';
  status: ExportStatus;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
  /** The CSV, once finished, and its file name. */
  file: string | null;
  filename: string | null;
}

export interface VulnerabilitiesState {
  records: Table<VulnerabilityRecord>;
  findings: Table<FindingRecord>;
  links: Table<IssueLinkRecord>;
  exports: Table<ExportRecord>;
  idx: {
    /** project id -> vulnerability ids, in creation order */
    byProject: MultiIndex;
    /** vulnerability id -> finding ids */
    findings: MultiIndex;
    /** vulnerability id -> issue link ids */
    links: MultiIndex;
    /** issue id -> issue link ids (an issue that goes takes its links with it) */
    linksByIssue: MultiIndex;
  };
}

export const emptyVulnerabilities = (): VulnerabilitiesState => ({
  records: emptyTable(),
  findings: emptyTable(),
  links: emptyTable(),
  exports: emptyTable(),
  idx: { byProject: emptyIndex(), findings: emptyIndex(), links: emptyIndex(), linksByIssue: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    vulnerabilities: VulnerabilitiesState;
  }
}
