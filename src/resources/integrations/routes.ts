/**
 * Project integrations at `/projects/:id/services/:slug` and (as newer clients call them)
 * `/projects/:id/integrations/:slug`. Every route needs a user, then the project, then maintainer
 * rights (the platform's `before` filters run before its param checks); a `PUT` whose params pass
 * Grape but fail the model answers 400 `400 Bad Request`, as the platform's endpoint does.
 */
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, grapeError, notFound } from '../../core/errors.js';
import { p, parseParams, type Param, type Shape } from '../../core/params.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import type { Project } from '../projects/model.js';
import { apiFieldNames, EVENT_FLAG, INTEGRATIONS, type FieldSpec, type IntegrationSpec } from './catalog.js';
import {
  ensureIntegration,
  integrationId,
  projectIntegrations,
  setActive,
  type EventFlag,
  type IntegrationRecord,
} from './store.js';
import { explainBlocked, publicUrlProblem } from '../settings/outbound.js';

const FLAGS: readonly EventFlag[] = [
  'commit_events',
  'push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'note_events',
  'confidential_note_events',
  'pipeline_events',
  'wiki_page_events',
  'job_events',
];

/** `ProjectServiceBasic`, plus `properties` for the single shape (`ProjectService`). */
export function integrationJson(rec: IntegrationRecord, withProperties: boolean): Record<string, unknown> {
  const spec = INTEGRATIONS.get(rec.slug);
  const customTitle = rec.slug === 'custom-issue-tracker' ? rec.properties.title : undefined;
  const out: Record<string, unknown> = {
    id: rec.id,
    title: typeof customTitle === 'string' && customTitle !== '' ? customTitle : (spec?.title ?? rec.slug),
    slug: rec.slug,
    created_at: rec.created_at,
    updated_at: rec.updated_at,
    active: rec.active,
  };
  for (const f of FLAGS) out[f] = rec[f];
  out.comment_on_event_enabled = rec.comment_on_event_enabled;
  if (withProperties && spec) {
    const props: Record<string, unknown> = {};
    for (const name of apiFieldNames(spec)) if (name in rec.properties) props[name] = rec.properties[name];
    out.properties = props;
  }
  return out;
}

/** `before { authenticate! }; before { authorize_admin_project }`. */
function adminProject(c: Ctx): Project {
  requireUser(c);
  const project = loadProject(c);
  if (!canAdminProject(c, project)) throw forbidden();
  return project;
}

function paramOf(f: FieldSpec): Param<unknown> {
  const base = f.type === 'checkbox' ? p.bool() : f.type === 'number' ? p.int() : p.str();
  return f.required ? base.required() : base;
}

const shapes = new Map<string, Shape>();

/** The declared params of one slug's `PUT`: its fields, hidden params and event flags (Strings). */
function putShape(spec: IntegrationSpec): Shape {
  let shape = shapes.get(spec.slug);
  if (!shape) {
    shape = {};
    for (const f of spec.fields) shape[f.name] = paramOf(f);
    for (const f of spec.hiddenParams ?? []) shape[f.name] ??= paramOf(f);
    for (const e of spec.events) shape[EVENT_FLAG[e]!] ??= p.str();
    shapes.set(spec.slug, shape);
  }
  return shape;
}

/** ActiveRecord's boolean cast of a String param: `""` is nil, the false words false, anything else true. */
function castFlag(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  const s = String(v).trim().toLowerCase();
  if (s === '') return undefined;
  return !['0', 'f', 'false', 'off', 'no', 'n'].includes(s);
}

/** `public_url: true`, through the URL blocker (`allow_local_requests_from_web_hooks_and_services`). */
async function urlProblem(c: Ctx, value: unknown): Promise<string | undefined> {
  if (typeof value !== 'string' || value.trim() === '') return 'is blank';
  return (await publicUrlProblem(c.get('fx'), value.trim())) ?? undefined;
}

async function putIntegration(c: Ctx, spec: IntegrationSpec): Promise<Response> {
  const project = adminProject(c);
  const st = state(c);
  const prm = parseParams(putShape(spec), c.var.params);
  const given = Object.fromEntries(Object.entries(prm).filter(([, v]) => v !== undefined));

  // The model's validations, on the record as it would be after the update.
  const existing = integrationId(st, project.id, spec.slug);
  const current =
    existing === undefined ? (spec.initial ?? {}) : tget(st.integrations.records, existing)!.properties;
  const props: Record<string, unknown> = { ...current };
  for (const f of [...spec.fields, ...(spec.hiddenParams ?? [])])
    if (f.name in given && f.name !== 'notify_only_default_branch') props[f.name] = given[f.name];
  if (given.notify_only_default_branch !== undefined && given.branches_to_be_notified === undefined)
    props.branches_to_be_notified = given.notify_only_default_branch ? 'default' : 'all';
  for (const f of spec.fields)
    if (f.required && (typeof props[f.name] !== 'string' || (props[f.name] as string).trim() === ''))
      throw apiError(400, '400 Bad Request', `${f.name} can't be blank`);
  for (const name of spec.urls ?? []) {
    const problem = await urlProblem(c, props[name]);
    if (problem) throw apiError(400, '400 Bad Request', explainBlocked(`${name} ${problem}`));
  }
  // The names were resolved meanwhile: the project may have gone.
  adminProject(c);

  const flags: Partial<Record<EventFlag, boolean>> = {};
  for (const e of spec.events) {
    const flag = EVENT_FLAG[e]!;
    if (flag in given) {
      const v = castFlag(given[flag]);
      if (v !== undefined) flags[flag] = v;
    }
  }
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => {
    const rid = ensureIntegration(d, project.id, spec.slug, now);
    const rec = tget(d.integrations.records, rid)!;
    rec.properties = props;
    Object.assign(rec, flags);
    rec.updated_at = now;
    setActive(d, rid, true);
    return rid;
  });
  return c.json(integrationJson(tget(state(c).integrations.records, id)!, true));
}

/** GET and DELETE declare `slug` with `values:` (after the `before` filters). */
function slugSpec(c: Ctx): IntegrationSpec {
  const slug = c.req.param('slug') ?? '';
  const spec = INTEGRATIONS.get(slug);
  if (!spec) throw grapeError(400, 'slug does not have a valid value');
  return spec;
}

function getIntegration(c: Ctx): Response {
  const project = adminProject(c);
  const spec = slugSpec(c);
  const id = integrationId(state(c), project.id, spec.slug);
  if (id === undefined) throw notFound('Service', 'the integration was never set up in this project');
  return c.json(integrationJson(tget(state(c).integrations.records, id)!, true));
}

/** Clears the integration's fields and deactivates it; the record stays, as on the platform. */
function deleteIntegration(c: Ctx): Response {
  const project = adminProject(c);
  const spec = slugSpec(c);
  const st = state(c);
  const existing = integrationId(st, project.id, spec.slug);
  if (existing !== undefined) checkUnmodifiedSince(c, tget(st.integrations.records, existing)!.updated_at);
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const id = ensureIntegration(d, project.id, spec.slug, now);
    const rec = tget(d.integrations.records, id)!;
    const props = { ...(existing === undefined ? (spec.initial ?? {}) : rec.properties) };
    for (const f of spec.fields) props[f.name] = null;
    rec.properties = props;
    rec.updated_at = now;
    setActive(d, id, false);
  });
  return c.body(null, 204);
}

export function integrationsRoutes(r: ApiRouter): void {
  const slugs = new RegExp(`^(${[...INTEGRATIONS.keys()].map((s) => s.replace(/-/g, '\\-')).join('|')})$`);
  for (const base of ['/projects/:id/services', '/projects/:id/integrations']) {
    r.get(base, { auth: 'required' }, (c) => {
      const project = adminProject(c);
      // Unpaginated on the platform; the spec gives every array answer its pagination headers.
      parse(c, paginationParams);
      return paginate(c, projectIntegrations(state(c), project.id, true), (x) => integrationJson(x, false));
    });
    r.put(`${base}/:slug`, { requirements: { slug: slugs } }, (c) =>
      putIntegration(c, INTEGRATIONS.get(c.req.param('slug')!)!),
    );
    r.get(`${base}/:slug`, { auth: 'required' }, getIntegration);
    r.delete(`${base}/:slug`, deleteIntegration);
  }
}
