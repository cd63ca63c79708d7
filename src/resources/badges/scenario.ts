/** Scenario files' `badges` of a group or project entry. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { badgeErrors, createBadge } from './model.js';
import type { BadgeRecord } from './store.js';

const badgeSchema = z.strictObject({
  link_url: z.string(),
  image_url: z.string(),
  name: z.string().nullable().optional(),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

const fields = { badges: z.array(badgeSchema).max(1000).optional() };
export const badgeGroupFields = fields;
export const badgeProjectFields = fields;

export interface BadgeEntry {
  badges?: z.output<typeof badgeSchema>[];
}

/** The model's URL validations for each listed badge, as `<at>.badges[j].field: message` lines. */
export function badgeProblems(e: BadgeEntry, at: string): string[] {
  const problems: string[] = [];
  (e.badges ?? []).forEach((b, j) => {
    for (const [field, msgs] of Object.entries(badgeErrors({ ...b, name: b.name ?? null })))
      for (const m of msgs) problems.push(`${at}.badges[${j}].${field}: ${m}`);
  });
  return problems;
}

export function buildBadges(
  st: Draft<PlatformState>,
  kind: BadgeRecord['kind'],
  sourceId: number,
  e: BadgeEntry,
  b: ScenarioBuild,
): void {
  for (const x of e.badges ?? []) {
    const created = isoOf(x.created_at) ?? b.now;
    const id = createBadge(
      st,
      kind,
      sourceId,
      { link_url: x.link_url, image_url: x.image_url, name: x.name ?? null },
      created,
    );
    tget(st.badges.records, id)!.updated_at = isoOf(x.updated_at) ?? created;
  }
}

/** Every badge under its group or project entry, oldest first. */
export function exportBadges(st: PlatformState, out: ScenarioOut): void {
  for (const b of tvalues(st.badges.records)) {
    const entry = b.kind === 'project' ? out.project(b.source_id) : out.group(b.source_id);
    if (!entry) continue;
    const x: Record<string, unknown> = { link_url: b.link_url, image_url: b.image_url };
    if (b.name !== null) x.name = b.name;
    x.created_at = b.created_at;
    if (b.updated_at !== b.created_at) x.updated_at = b.updated_at;
    ((entry.badges ??= []) as unknown[]).push(x);
  }
}
