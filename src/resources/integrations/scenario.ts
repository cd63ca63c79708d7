/**
 * Scenario files: a project's `integrations` (set up and active, as after a `PUT`).
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import { withId, type PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { EVENT_FLAG, INTEGRATIONS } from './catalog.js';
import { ensureIntegration, EVENT_FLAGS, setActive, type EventFlag } from './store.js';

export const integrationScenario = z
  .looseObject({
    slug: z.string().refine((s) => INTEGRATIONS.has(s), {
      message: 'is not an integration fauxlab knows (see the README)',
    }),
    active: z.boolean().default(true),
    id: z.number().int().min(1).max(0x7fffffff).optional().describe('the id it was exported with'),
    created_at: isoTime.optional(),
    updated_at: isoTime.optional(),
  })
  .describe('an integration: its slug, and the params `PUT /projects/:id/services/:slug` takes');

/** Fields a project entry may carry for this area. */
export const integrationFields = {
  integrations: z.array(integrationScenario).optional().describe('integrations (services), set up as by PUT'),
};

type IntegrationEntry = z.output<typeof integrationScenario>;

/** What this area reads of a project entry. */
export type IntegrationsProject = z.output<z.ZodObject<typeof integrationFields>>;

/** Problems the schema cannot see: a required field missing. */
export function integrationProblems(list: readonly IntegrationEntry[] | undefined, at: string): string[] {
  const out: string[] = [];
  (list ?? []).forEach((e, i) => {
    const spec = INTEGRATIONS.get(e.slug);
    if (!spec || e.active === false) return;
    for (const f of spec.fields)
      if (f.required && (typeof e[f.name] !== 'string' || e[f.name] === ''))
        out.push(`${at}.integrations[${i}].${f.name}: required by ${e.slug}`);
  });
  return out;
}

export function buildProjectIntegrations(
  st: Draft<PlatformState>,
  projectId: number,
  list: readonly IntegrationEntry[] | undefined,
  now: string,
): void {
  for (const e of list ?? []) {
    const spec = INTEGRATIONS.get(e.slug)!;
    const created = isoOf(e.created_at) ?? now;
    const id = withId(
      st as PlatformState,
      'integrations',
      e.id,
      (n) => tget(st.integrations.records, n) !== undefined,
      () => ensureIntegration(st, projectId, e.slug, created),
    );
    const rec = tget(st.integrations.records, id)!;
    rec.updated_at = isoOf(e.updated_at) ?? created;
    const props: Record<string, unknown> = { ...(spec.initial ?? {}) };
    for (const f of [...spec.fields, ...(spec.hiddenParams ?? [])])
      if (e[f.name] !== undefined) props[f.name] = e[f.name];
    rec.properties = props;
    for (const ev of spec.events) {
      const flag: EventFlag = EVENT_FLAG[ev]!;
      if (typeof e[flag] === 'boolean') rec[flag] = e[flag] as boolean;
    }
    setActive(st, id, e.active);
  }
}

/**
 * Each project's integrations: slug, whether active, the stored settings and the event flags that differ
 * from a new record's, with its id and times. `comment_on_event_enabled` is kept where the API keeps
 * it, in the settings of the integrations that take it.
 */
export function exportIntegrations(st: PlatformState, out: ScenarioOut): void {
  for (const rec of tvalues(st.integrations.records)) {
    const e = out.project(rec.project_id);
    const spec = INTEGRATIONS.get(rec.slug);
    if (!e || !spec) continue;
    const entry: Record<string, unknown> = { id: rec.id, slug: rec.slug };
    if (!rec.active) entry.active = false;
    entry.created_at = rec.created_at;
    if (rec.updated_at !== rec.created_at) entry.updated_at = rec.updated_at;
    for (const [k, v] of Object.entries(rec.properties)) if (v !== null && v !== undefined) entry[k] = v;
    for (const ev of spec.events) {
      const flag: EventFlag = EVENT_FLAG[ev]!;
      if (rec[flag] !== EVENT_FLAGS[flag]) entry[flag] = rec[flag];
    }
    ((e.integrations ??= []) as unknown[]).push(entry);
  }
}
