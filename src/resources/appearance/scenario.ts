/** Scenario files' `appearance`: the instance's appearance row's texts (images are uploads, not kept). */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { defaultAppearance } from './store.js';

const text = (max: number) => z.string().max(max).optional();

export const appearanceScenario = z.strictObject({
  title: text(255),
  description: text(65_535),
  new_project_guidelines: text(65_535),
  profile_image_guidelines: text(65_535),
  header_message: text(65_535),
  footer_message: text(65_535),
  message_background_color: z
    .string()
    .regex(/^#(?:[0-9A-Fa-f]{3}){1,2}$/)
    .optional(),
  message_font_color: z
    .string()
    .regex(/^#(?:[0-9A-Fa-f]{3}){1,2}$/)
    .optional(),
  email_header_and_footer_enabled: z.boolean().optional(),
});

export type AppearanceScenario = z.output<typeof appearanceScenario>;

export const appearanceFields = {
  appearance: appearanceScenario
    .optional()
    .describe('the instance appearance (PUT /application/appearance); images are not kept'),
};

export function buildAppearance(st: Draft<PlatformState>, a: AppearanceScenario | undefined): void {
  if (!a) return;
  const rec = defaultAppearance(1);
  for (const [k, v] of Object.entries(a))
    if (v !== undefined) (rec as unknown as Record<string, unknown>)[k] = v;
  st.appearance.current = rec;
}

/** The row's fields that differ from the defaults (an unchanged row is written as `{}`). */
export function exportAppearance(st: PlatformState, out: ScenarioOut): void {
  const a = st.appearance.current;
  if (!a) return;
  const d = defaultAppearance(a.id);
  const e: Record<string, unknown> = {};
  for (const k of Object.keys(appearanceScenario.shape) as (keyof AppearanceScenario)[])
    if (a[k] !== d[k]) e[k] = a[k];
  out.file.appearance = e;
}
