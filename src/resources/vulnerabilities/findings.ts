/**
 * `GET /projects/:id/vulnerability_findings` (EE `vulnerability_findings.rb`, ultimate): the findings of
 * a pipeline's security reports (`Security::PipelineVulnerabilitiesFinder`): the pipeline named, or the
 * latest one with reports, filtered by report type, severity, confidence and scanner, the dismissed ones
 * left out unless `scope=all`, most severe first (then most confident).
 */
import { requireUser } from '../../core/auth.js';
import { state } from '../../core/context.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, Param } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PipelineRecord, PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { loadProject } from '../projects/helpers.js';
import { authorizeProject } from './access.js';
import { findingEntity } from './entities.js';
import { findingsOf, vulnerabilitiesOf } from './model.js';
import { CONFIDENCES, REPORT_TYPES, SEVERITIES, type FindingRecord } from './store.js';

/** A project's findings, of every vulnerability. */
function projectFindings(st: PlatformState, projectId: number): FindingRecord[] {
  return vulnerabilitiesOf(st, projectId).flatMap((v) => findingsOf(st, v.id));
}

/** `all_pipelines.for_id(id).first`: a string that is not a whole number names no pipeline. */
function pipelineOf(st: PlatformState, projectId: number, raw: string): PipelineRecord | undefined {
  if (!/^\d+$/.test(raw.trim())) return undefined;
  const pl = tget(st.pipelines, Number(raw.trim()));
  return pl && pl.project_id === projectId ? pl : undefined;
}

/** `latest_pipeline_with_security_reports`: the newest of the project's pipelines that has findings. */
function latestWithReports(st: PlatformState, all: FindingRecord[], projectId: number) {
  let best: PipelineRecord | undefined;
  for (const f of all) {
    if (f.pipeline_id === null || (best && f.pipeline_id <= best.id)) continue;
    const pl = tget(st.pipelines, f.pipeline_id);
    if (pl && pl.project_id === projectId) best = pl;
  }
  return best;
}

/** `type: Array[String], values:` with the comma-separated coercion: each item must be one of them. */
const eachOf = (values: readonly string[]) =>
  new Param<string[] | undefined>({ ...p.strArray({ commaSeparated: true }).spec, values });

const rank = <T>(list: readonly T[], v: T) => list.indexOf(v);

export function findingRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/vulnerability_findings',
    {
      tier: 'ultimate',
      params: {
        id: p.str().required(),
        report_type: eachOf(REPORT_TYPES),
        scope: p.str().values(['all', 'dismissed']).default('dismissed'),
        severity: eachOf(SEVERITIES),
        confidence: eachOf(CONFIDENCES),
        scanner: p.strArray({ commaSeparated: true }),
        pipeline_id: p.str(),
        ...paginationParams,
      },
    },
    (c, prm) => {
      requireUser(c);
      const project = loadProject(c);
      authorizeProject(c, project);
      const st = state(c);
      const all = projectFindings(st, project.id);
      const pipeline =
        prm.pipeline_id !== undefined
          ? pipelineOf(st, project.id, prm.pipeline_id)
          : latestWithReports(st, all, project.id);
      const types = new Set<string>(prm.report_type ?? REPORT_TYPES);
      const severities = new Set<string>(prm.severity ?? SEVERITIES);
      const confidences = new Set<string>(prm.confidence ?? CONFIDENCES);
      const scanners = prm.scanner === undefined ? null : new Set(prm.scanner);
      const found = pipeline
        ? all.filter(
            (f) =>
              f.pipeline_id === pipeline.id &&
              types.has(f.report_type) &&
              severities.has(f.severity) &&
              confidences.has(f.confidence) &&
              (scanners === null || scanners.has(f.scanner.external_id)) &&
              (prm.scope === 'all' ||
                tget(st.vulnerabilities.records, f.vulnerability_id)?.state !== 'dismissed'),
          )
        : [];
      found.sort(
        (a, b) =>
          rank(SEVERITIES, b.severity) - rank(SEVERITIES, a.severity) ||
          rank(CONFIDENCES, b.confidence) - rank(CONFIDENCES, a.confidence) ||
          a.id - b.id,
      );
      const sha = pipeline?.sha ?? null;
      return paginate(c, found, (f) => findingEntity(st, f, sha));
    },
  );
}
