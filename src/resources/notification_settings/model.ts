/** Notification setting reads with their defaults, writes, and the notification e-mail's rule. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, mget, tdelete, tget, tset, tvalues } from '../../core/table.js';
import type { EmailEvent, Level, NotificationSettingRecord, SourceKind } from './store.js';

type S = Draft<PlatformState>;

export const settingKey = (userId: number, source: SourceKind, sourceId: number | null) =>
  source === 'global' ? `${userId}:global` : `${userId}:${source}:${sourceId}`;

/** The stored setting, or what `find_or_initialize` gives: `participating` globally, `global` elsewhere. */
export function settingFor(
  st: PlatformState,
  userId: number,
  source: SourceKind,
  sourceId: number | null,
): NotificationSettingRecord {
  const id = iget(st.notificationSettings.idx.bySource, settingKey(userId, source, sourceId));
  const stored = id === undefined ? undefined : tget(st.notificationSettings.records, id);
  return (
    stored ?? {
      id: 0,
      user_id: userId,
      source,
      source_id: sourceId,
      level: source === 'global' ? 'participating' : 'global',
      events: {},
    }
  );
}

/**
 * An event's value as the model reads it: the pipeline failures are on unless switched off, moving a
 * project is on and auto-merge off by their column defaults, the rest off until set.
 */
export function eventValue(s: NotificationSettingRecord, e: EmailEvent): boolean | null {
  const v = s.events[e];
  if (e === 'failed_pipeline' || e === 'fixed_pipeline') return v ?? true;
  if (e === 'moved_project') return v ?? true;
  if (e === 'merge_when_pipeline_succeeds') return v ?? false;
  return v ?? null;
}

export interface SettingChanges {
  level?: Level;
  events: Partial<Record<EmailEvent | 'new_epic', boolean>>;
}

export function writeSetting(
  st: S,
  userId: number,
  source: SourceKind,
  sourceId: number | null,
  ch: SettingChanges,
): void {
  const key = settingKey(userId, source, sourceId);
  let id = iget(st.notificationSettings.idx.bySource, key);
  if (id === undefined) {
    id = nextId(st, 'notification_settings');
    tset(st.notificationSettings.records, id, {
      ...settingFor(st, userId, source, sourceId),
      id,
      events: {},
    });
    iset(st.notificationSettings.idx.bySource, key, id);
  }
  const rec = tget(st.notificationSettings.records, id)!;
  if (ch.level !== undefined) rec.level = ch.level;
  Object.assign(rec.events, ch.events);
}

/** The user's notification e-mail: the one they chose, else their primary e-mail. */
export function notificationEmail(st: PlatformState, userId: number): string {
  return iget(st.notificationSettings.idx.emails, String(userId)) ?? tget(st.users, userId)?.email ?? '';
}

/** `owns_notification_email`: the primary e-mail or a confirmed secondary one. */
export function ownsEmail(st: PlatformState, userId: number, email: string): boolean {
  const user = tget(st.users, userId);
  if (!user) return false;
  const want = email.trim().toLowerCase();
  if (user.email.toLowerCase() === want) return true;
  return mget(st.profile.idx.by, `e${userId}`).some((id) => {
    const e = tget(st.profile.emails, id);
    return !!e && e.email === want && e.confirmed_at !== null;
  });
}

export function setNotificationEmail(st: S, userId: number, email: string): void {
  if (email === '') idelete(st.notificationSettings.idx.emails, String(userId));
  else iset(st.notificationSettings.idx.emails, String(userId), email);
}

/** Removes the settings of a group or project that is being deleted. */
export function deleteSourceSettings(st: S, source: 'group' | 'project', sourceId: number): void {
  for (const s of tvalues(st.notificationSettings.records)) {
    if (s.source !== source || s.source_id !== sourceId) continue;
    idelete(st.notificationSettings.idx.bySource, settingKey(s.user_id, source, sourceId));
    tdelete(st.notificationSettings.records, s.id);
  }
}
