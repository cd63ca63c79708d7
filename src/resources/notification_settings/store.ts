/**
 * Notification settings: one per user for the instance (`global`), and one per user and group or
 * project they changed. A setting that was never written is not stored: its defaults are shown.
 */
import { emptyIndex, emptyTable, type Index, type Table } from '../../core/table.js';

export const LEVELS = ['global', 'watch', 'participating', 'mention', 'disabled', 'custom'] as const;
export type Level = (typeof LEVELS)[number];

/** `NotificationSetting::EMAIL_EVENTS` in the platform's order. */
export const EMAIL_EVENTS = [
  'new_release',
  'new_note',
  'new_issue',
  'reopen_issue',
  'close_issue',
  'reassign_issue',
  'issue_due',
  'new_merge_request',
  'push_to_merge_request',
  'reopen_merge_request',
  'close_merge_request',
  'reassign_merge_request',
  'change_reviewer_merge_request',
  'merge_merge_request',
  'failed_pipeline',
  'fixed_pipeline',
  'success_pipeline',
  'moved_project',
  'merge_when_pipeline_succeeds',
] as const;
export type EmailEvent = (typeof EMAIL_EVENTS)[number];

export type SourceKind = 'global' | 'group' | 'project';

export interface NotificationSettingRecord {
  id: number;
  user_id: number;
  source: SourceKind;
  /** The group or project id; null for the global setting. */
  source_id: number | null;
  level: Level;
  /** The event switches as stored; unset ones (null) take the column defaults. */
  events: Partial<Record<EmailEvent | 'new_epic', boolean | null>>;
}

export interface NotificationSettingsState {
  records: Table<NotificationSettingRecord>;
  idx: {
    /** `<user>:global` / `<user>:group:<id>` / `<user>:project:<id>` -> setting id */
    bySource: Index;
    /** user id -> the notification e-mail they chose (their primary e-mail when absent) */
    emails: Index<string>;
  };
}

export const emptyNotificationSettings = (): NotificationSettingsState => ({
  records: emptyTable(),
  idx: { bySource: emptyIndex(), emails: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    notificationSettings: NotificationSettingsState;
  }
}
