/**
 * Scenario files' `vulnerabilities` of a project: each with its state and who set it, its findings (the
 * report entries that found it, optionally of a pipeline) and its links to issues (by project path and
 * iid; built once every project exists, so a link may name another project's issue).
 */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import { lookupProject } from '../../core/access.js';
import { isoDate, isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { ientries, tget } from '../../core/table.js';
import { issueByIid } from '../issuables/common.js';
import {
  addFinding,
  addIssueLink,
  createVulnerability,
  findingsOf,
  issueLinksOf,
  vulnerabilitiesOf,
} from './model.js';
import { CONFIDENCES, REPORT_TYPES, SEVERITIES, STATES } from './store.js';

const text = (max: number) => z.string().max(max);
const identifierSchema = z.strictObject({
  external_type: text(255).min(1).describe("cve, cwe, or the scanner's own type"),
  external_id: text(255).min(1),
  name: text(255).min(1),
  url: text(2048).nullable().optional(),
});

const findingSchema = z.strictObject({
  name: text(255).min(1).optional().describe("default: the vulnerability's title"),
  severity: z.enum(SEVERITIES).optional().describe("default: the vulnerability's"),
  confidence: z.enum(CONFIDENCES).optional().describe("default: the vulnerability's"),
  report_type: z.enum(REPORT_TYPES).optional().describe("default: the vulnerability's"),
  uuid: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    .optional(),
  project_fingerprint: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional(),
  location_fingerprint: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional(),
  scanner: z.strictObject({ external_id: text(255).min(1), name: text(255).min(1) }).optional(),
  identifiers: z.array(identifierSchema).max(20).optional(),
  description: text(10_000).nullable().optional(),
  solution: text(10_000).nullable().optional(),
  location: z
    .record(z.string().max(100), z.unknown())
    .optional()
    .describe("the report's location (file, start_line, end_line, class, method, dependency, image...)"),
  pipeline_id: z.number().int().min(1).nullable().optional().describe('the pipeline whose report has it'),
  created_at: isoTime.optional(),
});

const linkSchema = z.strictObject({
  project: text(255).min(1).optional().describe("the issue's project path; default: this project"),
  iid: z.number().int().min(1),
  link_type: z.enum(['related', 'created']).default('related'),
  created_at: isoTime.optional(),
});

const vulnerabilitySchema = z.strictObject({
  title: text(255).min(1),
  description: text(10_000).nullable().optional(),
  state: z.enum(STATES).default('detected'),
  severity: z.enum(SEVERITIES),
  confidence: z.enum(CONFIDENCES).default('unknown'),
  report_type: z.enum(REPORT_TYPES),
  author: z.string().min(1).optional().describe("username; default: the project's creator"),
  resolved_by: z.string().min(1).optional(),
  dismissed_by: z.string().min(1).optional(),
  confirmed_by: z.string().min(1).optional(),
  resolved_at: isoTime.optional(),
  dismissed_at: isoTime.optional(),
  confirmed_at: isoTime.optional(),
  start_date: isoDate.optional(),
  due_date: isoDate.optional(),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
  findings: z.array(findingSchema).max(100).optional(),
  issue_links: z.array(linkSchema).max(100).optional(),
});

export const vulnerabilityFields = {
  vulnerabilities: z
    .array(vulnerabilitySchema)
    .max(10_000)
    .optional()
    .describe('vulnerabilities (ultimate) with their findings and issue links, in id order'),
};

type VulnerabilityEntry = z.output<typeof vulnerabilitySchema>;
export interface VulnerabilitiesProject {
  path?: string;
  vulnerabilities?: VulnerabilityEntry[];
}

/** Unknown users; a second link to an issue, or a second `created` link. */
export function vulnerabilityProblems(p: VulnerabilitiesProject, at: string, refs: ScenarioRefs): string[] {
  const out: string[] = [];
  (p.vulnerabilities ?? []).forEach((v, i) => {
    for (const k of ['author', 'resolved_by', 'dismissed_by', 'confirmed_by'] as const) {
      const u = v[k];
      if (u !== undefined && !refs.users.has(u.toLowerCase()))
        out.push(`${at}.vulnerabilities[${i}].${k}: no user "${u}" in this scenario`);
    }
    const seen = new Set<string>();
    let created = 0;
    (v.issue_links ?? []).forEach((l, j) => {
      const key = `${(l.project ?? '').toLowerCase()}#${l.iid}`;
      if (seen.has(key))
        out.push(`${at}.vulnerabilities[${i}].issue_links[${j}]: that issue is linked twice`);
      seen.add(key);
      if (l.link_type === 'created' && ++created > 1)
        out.push(`${at}.vulnerabilities[${i}].issue_links[${j}]: a vulnerability has one "created" link`);
    });
  });
  return out;
}

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
/** A v5-shaped UUID from a seed text, so that a finding without one gets the same on every load. */
function uuidOf(seed: string): string {
  const h = sha1(seed);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function buildVulnerabilities(
  st: Draft<PlatformState>,
  projectId: number,
  p: VulnerabilitiesProject,
  b: ScenarioBuild,
): void {
  const project = tget(st.projects, projectId)!;
  (p.vulnerabilities ?? []).forEach((e, i) => {
    const created = isoOf(e.created_at) ?? b.now;
    const by = (u: string | undefined) => (u === undefined ? null : b.uid(u));
    const at = (t: string | undefined, u: string | undefined) =>
      isoOf(t) ?? (u === undefined ? null : created);
    const v = createVulnerability(st, projectId, {
      title: e.title,
      description: e.description ?? null,
      state: e.state,
      severity: e.severity,
      confidence: e.confidence,
      report_type: e.report_type,
      author_id: e.author === undefined ? project.creator_id : b.uid(e.author),
      updated_by_id: null,
      last_edited_by_id: null,
      resolved_by_id: by(e.resolved_by),
      dismissed_by_id: by(e.dismissed_by),
      confirmed_by_id: by(e.confirmed_by),
      start_date: e.start_date ?? null,
      due_date: e.due_date ?? null,
      created_at: created,
      updated_at: isoOf(e.updated_at) ?? created,
      last_edited_at: null,
      resolved_at: at(e.resolved_at, e.resolved_by),
      dismissed_at: at(e.dismissed_at, e.dismissed_by),
      confirmed_at: at(e.confirmed_at, e.confirmed_by),
    });
    (e.findings ?? []).forEach((f, j) => {
      const name = f.name ?? e.title;
      const location = f.location ?? {};
      const fat = isoOf(f.created_at) ?? created;
      addFinding(st, v, {
        name,
        severity: f.severity ?? e.severity,
        confidence: f.confidence ?? e.confidence,
        report_type: f.report_type ?? e.report_type,
        uuid: f.uuid ?? uuidOf(`${project.path_with_namespace}:${i}:${j}:${name}`),
        project_fingerprint: f.project_fingerprint ?? sha1(`${project.id}:${name}`),
        location_fingerprint: f.location_fingerprint ?? sha1(JSON.stringify(location)),
        scanner: f.scanner ?? { external_id: e.report_type, name: e.report_type },
        identifiers: (f.identifiers ?? []).map((x) => ({
          external_type: x.external_type,
          external_id: x.external_id,
          name: x.name,
          url: x.url ?? null,
        })),
        description: f.description ?? e.description ?? null,
        solution: f.solution ?? null,
        location,
        pipeline_id: f.pipeline_id ?? null,
        created_at: fat,
        updated_at: fat,
      });
    });
  });
}

/** The issue links, once every project and its issues exist. A link to an issue that is not there is left out. */
export function buildIssueLinks(
  st: Draft<PlatformState>,
  s: { projects?: VulnerabilitiesProject[] },
  b: ScenarioBuild,
): void {
  for (const p of s.projects ?? []) {
    if (!p.vulnerabilities?.some((v) => v.issue_links?.length) || p.path === undefined) continue;
    const project = lookupProject(st, p.path);
    if (!project) continue;
    const list = vulnerabilitiesOf(st, project.id);
    p.vulnerabilities.forEach((e, i) => {
      const v = list[i];
      if (!v) return;
      for (const l of e.issue_links ?? []) {
        const target = l.project === undefined ? project : lookupProject(st, l.project);
        const issue = target && issueByIid(st, target.id, l.iid);
        if (issue) addIssueLink(st, v.id, issue.id, l.link_type, isoOf(l.created_at) ?? b.now);
      }
    });
  }
}

export function exportVulnerabilities(st: PlatformState, out: ScenarioOut): void {
  for (const [key] of ientries(st.vulnerabilities.idx.byProject)) {
    const e = out.project(Number(key));
    if (!e) continue;
    const list = vulnerabilitiesOf(st, Number(key)).map((v) => {
      const project = tget(st.projects, v.project_id)!;
      const entry: Record<string, unknown> = {
        title: v.title,
        description: v.description,
        state: v.state,
        severity: v.severity,
        confidence: v.confidence,
        report_type: v.report_type,
        created_at: v.created_at,
        updated_at: v.updated_at,
      };
      const author = out.username(v.author_id);
      if (author !== undefined) entry.author = author;
      const pairs = [
        ['resolved_by', v.resolved_by_id, 'resolved_at', v.resolved_at],
        ['dismissed_by', v.dismissed_by_id, 'dismissed_at', v.dismissed_at],
        ['confirmed_by', v.confirmed_by_id, 'confirmed_at', v.confirmed_at],
      ] as const;
      for (const [bk, id, tk, t] of pairs) {
        const u = out.username(id);
        if (u !== undefined) entry[bk] = u;
        if (t !== null) entry[tk] = t;
      }
      if (v.start_date !== null) entry.start_date = v.start_date;
      if (v.due_date !== null) entry.due_date = v.due_date;
      const findings = findingsOf(st, v.id);
      if (findings.length)
        entry.findings = findings.map((f) => ({
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
        }));
      const links = issueLinksOf(st, v.id).flatMap((l) => {
        const issue = tget(st.issuables.issues, l.issue_id);
        if (!issue) return [];
        const target = tget(st.projects, issue.project_id)!;
        return [
          {
            ...(target.id === project.id ? {} : { project: target.path_with_namespace }),
            iid: issue.iid,
            link_type: l.link_type,
            created_at: l.created_at,
          },
        ];
      });
      if (links.length) entry.issue_links = links;
      return entry;
    });
    if (list.length) e.vulnerabilities = list;
  }
}
