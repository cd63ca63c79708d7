/** Scenario files' `notification_settings`: a user's global setting, or theirs for a group or project. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import { iget, tget, tvalues } from '../../core/table.js';
import type { PlatformState } from '../../core/state.js';
import { setNotificationEmail, writeSetting } from './model.js';
import { EMAIL_EVENTS, LEVELS, type EmailEvent } from './store.js';

const eventsSchema = z
  .strictObject(Object.fromEntries([...EMAIL_EVENTS, 'new_epic'].map((e) => [e, z.boolean().optional()])))
  .optional();

const settingSchema = z.strictObject({
  user: z.string(),
  group: z.string().optional(),
  project: z.string().optional(),
  level: z.enum(LEVELS).optional(),
  events: eventsSchema,
  notification_email: z.string().optional(),
});

type SettingScenario = z.output<typeof settingSchema>;

export const notificationSettingFields = {
  notification_settings: z
    .array(settingSchema)
    .max(100_000)
    .default([])
    .describe("users' notification settings: global (no group or project), or for one group or project"),
};

export function notificationSettingProblems(
  list: readonly SettingScenario[],
  refs: ScenarioRefs,
  projects: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  list.forEach((s, i) => {
    const at = `notification_settings[${i}]`;
    if (!refs.users.has(s.user.toLowerCase()))
      problems.push(`${at}.user: no user "${s.user}" in the scenario`);
    if (s.group !== undefined && s.project !== undefined)
      problems.push(`${at}: give a group or a project, not both`);
    if (s.group !== undefined && !refs.groups.has(s.group.toLowerCase()))
      problems.push(`${at}.group: no group "${s.group}" in the scenario`);
    if (s.project !== undefined && !projects.has(s.project.toLowerCase()))
      problems.push(`${at}.project: no project "${s.project}" in the scenario`);
    if (s.notification_email !== undefined && (s.group !== undefined || s.project !== undefined))
      problems.push(`${at}.notification_email: only the global setting has one`);
  });
  return problems;
}

export function buildNotificationSettings(
  st: Draft<PlatformState>,
  list: readonly SettingScenario[],
  b: ScenarioBuild,
): void {
  for (const s of list) {
    const uid = b.uid(s.user);
    let source: 'global' | 'group' | 'project' = 'global';
    let sourceId: number | null = null;
    if (s.group !== undefined) {
      source = 'group';
      sourceId = iget(st.idx.namespaces, s.group.toLowerCase()) ?? null;
    } else if (s.project !== undefined) {
      source = 'project';
      sourceId = iget(st.idx.projects, s.project.toLowerCase()) ?? null;
    }
    writeSetting(st, uid, source, sourceId, {
      level: s.level,
      events: (s.events ?? {}) as Partial<Record<EmailEvent, boolean>>,
    });
    if (s.notification_email !== undefined) setNotificationEmail(st, uid, s.notification_email);
  }
}

/** Every stored setting in id order; a chosen notification e-mail goes with the user's global setting. */
export function exportNotificationSettings(st: PlatformState, out: ScenarioOut): void {
  const list: Record<string, unknown>[] = [];
  const emailed = new Set<number>();
  for (const s of tvalues(st.notificationSettings.records)) {
    const user = out.username(s.user_id);
    if (user === undefined) continue;
    const e: Record<string, unknown> = { user };
    if (s.source === 'group') {
      const g = tget(st.groups, s.source_id!);
      if (!g || !out.group(g.id)) continue;
      e.group = g.full_path;
    } else if (s.source === 'project') {
      const p = tget(st.projects, s.source_id!);
      if (!p || !out.project(p.id)) continue;
      e.project = p.path_with_namespace;
    }
    e.level = s.level;
    const events = Object.fromEntries(
      Object.entries(s.events).filter(([, v]) => v !== null && v !== undefined),
    );
    if (Object.keys(events).length) e.events = events;
    if (s.source === 'global') {
      const email = iget(st.notificationSettings.idx.emails, String(s.user_id));
      if (email !== undefined) e.notification_email = email;
      emailed.add(s.user_id);
    }
    list.push(e);
  }
  for (const u of tvalues(st.users)) {
    const email = iget(st.notificationSettings.idx.emails, String(u.id));
    const user = out.username(u.id);
    if (email !== undefined && !emailed.has(u.id) && user !== undefined)
      list.push({ user, notification_email: email });
  }
  if (list.length) out.file.notification_settings = list;
}
