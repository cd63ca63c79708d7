/**
 * External approval rules (EE `external_approval_rules.rb`, 13.10-13.12; ultimate's
 * `compliance_approval_gates`, behind the `ff_compliance_approval_gates` flag, off as shipped): records
 * of the outside services a project's merge requests wait on. fauxlab keeps the rules; it sends no
 * payloads to their URLs (`ExternalApprovalRules::DispatchService`).
 */
import type { Draft } from 'immer';
import { findProject } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, recordNotFound, unauthorized } from '../../core/errors.js';
import { featureEnabled } from '../../core/features.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { nextId, type PlatformState } from '../../core/state.js';
import { madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { validateLiteralUrl } from '../../core/url-blocker.js';
import { abilities } from '../issuables/access.js';
import type { Project } from '../projects/model.js';
import { protectedEntity } from '../repository/branches.js';
import type { ExternalRuleRecord } from './store.js';

type S = Draft<PlatformState>;

export type ExternalRuleFields = Pick<ExternalRuleRecord, 'name' | 'external_url' | 'protected_branch_ids'>;

export function externalRules(st: PlatformState, projectId: number): ExternalRuleRecord[] {
  return mget(st.approvals.idx.externalByProject, String(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.approvals.external, id)!);
}

export function createExternalRule(st: S, projectId: number, f: ExternalRuleFields, now: string): number {
  const id = nextId(st, 'external_approval_rules');
  tset<ExternalRuleRecord>(st.approvals.external, id, {
    id,
    project_id: projectId,
    name: f.name,
    external_url: f.external_url,
    protected_branch_ids: f.protected_branch_ids,
    created_at: now,
    updated_at: now,
  });
  madd(st.approvals.idx.externalByProject, String(projectId), id);
  return id;
}

export function updateExternalRule(st: S, id: number, ch: Partial<ExternalRuleFields>, now: string): void {
  const rec = tget(st.approvals.external, id)!;
  let changed = false;
  for (const k of ['name', 'external_url'] as const) {
    const v = ch[k];
    if (v !== undefined && v !== rec[k]) {
      rec[k] = v;
      changed = true;
    }
  }
  // The join rows are replaced; the rule's own row (and `updated_at`) stays.
  if (ch.protected_branch_ids !== undefined) rec.protected_branch_ids = ch.protected_branch_ids;
  if (changed) rec.updated_at = now;
}

export function deleteExternalRule(st: S, id: number): void {
  const rec = tget(st.approvals.external, id);
  if (!rec) return;
  mremove(st.approvals.idx.externalByProject, String(rec.project_id), id);
  tdelete(st.approvals.external, id);
}

/**
 * The model's validations in their order, as `errors.full_messages`: `external_url` presence,
 * uniqueness in the project and `addressable_url` (http and https, local addresses allowed, names not
 * resolved); then `name` uniqueness and presence.
 */
export function externalRuleProblems(
  st: PlatformState,
  projectId: number,
  f: ExternalRuleFields,
  self: number | null,
): string[] {
  const others = externalRules(st, projectId).filter((r) => r.id !== self);
  const out: string[] = [];
  if (f.external_url.trim() === '') out.push("External url can't be blank");
  if (others.some((r) => r.external_url === f.external_url)) out.push('External url has already been taken');
  const url = validateLiteralUrl(f.external_url, {
    schemes: ['http', 'https'],
    allowLocal: true,
    dnsRebindProtection: false,
    allowlist: [],
  });
  if (!url.ok) out.push(`External url is blocked: ${url.message}`);
  if (others.some((r) => r.name === f.name)) out.push('Name has already been taken');
  if (f.name.trim() === '') out.push("Name can't be blank");
  return out;
}

/** `API::Entities::ExternalApprovalRule`; a protected branch since removed has left the rule. */
function externalEntity(st: PlatformState, r: ExternalRuleRecord) {
  return {
    id: r.id,
    name: r.name,
    project_id: r.project_id,
    external_url: r.external_url,
    protected_branches: r.protected_branch_ids.flatMap((id) => {
      const b = tget(st.repository.protected, id);
      return b ? [protectedEntity(b)] : [];
    }),
  };
}

/**
 * The `before` blocks: `authenticate!`, `user_project` (404), then `check_feature_enabled!`, which is
 * `unauthorized!` (401) without the licensed feature (ultimate) or the flag (`Project:<id>` actor).
 */
function gated(c: Ctx): { project: Project; maintainer: boolean } {
  requireUser(c);
  const project = findProject(c, c.req.param('id') ?? '') as Project;
  const st = state(c);
  if (st.tier !== 'ultimate' || !featureEnabled(st, 'ff_compliance_approval_gates', `Project:${project.id}`))
    throw unauthorized();
  return { project, maintainer: abilities(st, c.get('viewer').user, project).maintainer };
}

/** The services' refusal without `admin_project`: `render_api_error!(['Not allowed'], 401)`. */
const notAllowed = () => apiError(401, ['Not allowed']);

/** `protected_branch_ids=` of a has-and-belongs-to-many: every id must name a protected branch (404). */
function protectedBranchIds(st: PlatformState, ids: number[] | undefined): number[] | undefined {
  if (ids === undefined) return undefined;
  const unique = [...new Set(ids)];
  if (unique.some((id) => !tget(st.repository.protected, id)))
    throw recordNotFound('no such protected branch');
  return unique;
}

const branchIds = () => p.intArray({ commaSeparated: true });

export function externalRuleRoutes(r: ApiRouter): void {
  const base = '/projects/:id/external_approval_rules';

  r.post(
    base,
    {
      tier: 'premium',
      params: {
        name: p.str().required(),
        external_url: p.str().required(),
        protected_branch_ids: branchIds(),
      },
    },
    (c, prm) => {
      const { project, maintainer } = gated(c);
      if (!maintainer) throw notAllowed();
      const st = state(c);
      const f: ExternalRuleFields = {
        name: prm.name,
        external_url: prm.external_url,
        protected_branch_ids: protectedBranchIds(st, prm.protected_branch_ids) ?? [],
      };
      const problems = externalRuleProblems(st, project.id, f, null);
      if (problems.length) throw apiError(422, problems);
      const now = c.get('fx').clock.iso();
      const id = write(c, (d) => createExternalRule(d, project.id, f, now));
      return c.json(externalEntity(state(c), tget(state(c).approvals.external, id)!), 201);
    },
  );

  r.get(base, { tier: 'premium', params: paginationParams }, (c) => {
    const { project, maintainer } = gated(c);
    if (!maintainer) throw unauthorized();
    const st = state(c);
    return paginate(c, externalRules(st, project.id), (rule) => externalEntity(st, rule));
  });

  r.put(
    `${base}/:rule_id`,
    {
      tier: 'premium',
      params: {
        rule_id: p.int().required(),
        name: p.str(),
        external_url: p.str(),
        protected_branch_ids: branchIds(),
      },
    },
    (c, prm) => {
      const { project, maintainer } = gated(c);
      // The service asks `admin_project` before it finds the rule.
      if (!maintainer) throw notAllowed();
      const rule = ruleOf(c, project.id, prm.rule_id);
      const st = state(c);
      const ch: Partial<ExternalRuleFields> = {};
      if (prm.name !== undefined) ch.name = prm.name;
      if (prm.external_url !== undefined) ch.external_url = prm.external_url;
      const ids = protectedBranchIds(st, prm.protected_branch_ids);
      if (ids !== undefined) ch.protected_branch_ids = ids;
      const problems = externalRuleProblems(st, project.id, { ...rule, ...ch }, rule.id);
      if (problems.length) throw apiError(422, problems);
      const now = c.get('fx').clock.iso();
      write(c, (d) => updateExternalRule(d, rule.id, ch, now));
      return c.json(externalEntity(state(c), tget(state(c).approvals.external, rule.id)!));
    },
  );

  r.delete(`${base}/:rule_id`, { tier: 'premium', params: { rule_id: p.int().required() } }, (c, prm) => {
    const { project, maintainer } = gated(c);
    const rule = ruleOf(c, project.id, prm.rule_id);
    checkUnmodifiedSince(c, rule.updated_at);
    // `destroy_conditionally!` has set 204 before its block runs, and ignores the block's answer: the
    // service's refusal without `admin_project` still answers 204, and the rule stays.
    if (maintainer) write(c, (d) => deleteExternalRule(d, rule.id));
    return c.body(null, 204);
  });
}

/** `user_project.external_approval_rules.find(id)`. */
function ruleOf(c: Ctx, projectId: number, id: number): ExternalRuleRecord {
  const rule = tget(state(c).approvals.external, id);
  if (!rule || rule.project_id !== projectId)
    throw recordNotFound('no external approval rule with this id here');
  return rule;
}
