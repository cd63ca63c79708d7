/** Scenario files' `pages_domains` of a project. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { createDomain, MAX_PEM } from './model.js';

const domainSchema = z.strictObject({
  domain: z.string().min(1).max(255),
  certificate: z.string().max(MAX_PEM).optional().describe('PEM certificate (chain)'),
  key: z.string().max(MAX_PEM).optional().describe('PEM private key'),
  auto_ssl_enabled: z.boolean().default(false),
  verification_code: z
    .string()
    .regex(/^[0-9a-f]{32}$/)
    .optional()
    .describe('32 hex digits; default derived from the domain'),
  verified_at: isoTime.optional().describe('when the domain was verified; unverified without it'),
  enabled_until: isoTime.optional(),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

export const pagesDomainProjectFields = {
  pages_domains: z.array(domainSchema).optional().describe("custom domains of the project's Pages site"),
};

export interface PagesDomainProject {
  pages_domains?: z.output<typeof domainSchema>[];
}

/** Domains are unique on the instance whatever their case. */
export function pagesDomainProblems(s: { projects?: PagesDomainProject[] }): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  (s.projects ?? []).forEach((p, i) =>
    (p.pages_domains ?? []).forEach((d, j) => {
      const k = d.domain.toLowerCase();
      if (seen.has(k))
        problems.push(`projects[${i}].pages_domains[${j}].domain: "${d.domain}" is listed twice`);
      seen.add(k);
    }),
  );
  return problems;
}

export function buildPagesDomains(
  st: Draft<PlatformState>,
  projectId: number,
  p: PagesDomainProject,
  b: ScenarioBuild,
): void {
  for (const d of p.pages_domains ?? [])
    createDomain(
      st,
      projectId,
      {
        domain: d.domain,
        certificate: d.certificate ?? null,
        key: d.key ?? null,
        auto_ssl_enabled: d.auto_ssl_enabled,
      },
      isoOf(d.created_at) ?? b.now,
      {
        verification_code: d.verification_code,
        verified_at: isoOf(d.verified_at) ?? null,
        enabled_until: isoOf(d.enabled_until) ?? null,
        updated_at: isoOf(d.updated_at),
      },
    );
}

export function exportPagesDomains(st: PlatformState, out: ScenarioOut): void {
  for (const d of tvalues(st.pagesDomains.records)) {
    const e = out.project(d.project_id);
    if (!e || !tget(st.projects, d.project_id)) continue;
    const entry: Record<string, unknown> = { domain: d.domain };
    if (d.certificate !== null) entry.certificate = d.certificate;
    if (d.key !== null) entry.key = d.key;
    if (d.auto_ssl_enabled) entry.auto_ssl_enabled = true;
    entry.verification_code = d.verification_code;
    if (d.verified_at !== null) entry.verified_at = d.verified_at;
    if (d.enabled_until !== null) entry.enabled_until = d.enabled_until;
    entry.created_at = d.created_at;
    if (d.updated_at !== d.created_at) entry.updated_at = d.updated_at;
    ((e.pages_domains ??= []) as unknown[]).push(entry);
  }
}
