import { defineArea } from '../../core/area.js';
import { deleteSourceSettings } from './model.js';
import { notificationSettingsRoutes } from './routes.js';
import {
  buildNotificationSettings,
  exportNotificationSettings,
  notificationSettingFields,
  notificationSettingProblems,
} from './scenario.js';
import { emptyNotificationSettings } from './store.js';

type Listed = {
  notification_settings: Parameters<typeof buildNotificationSettings>[1];
  projects?: readonly { path: string }[];
};

export const notificationSettingsArea = defineArea({
  name: 'notification_settings',
  state: { key: 'notificationSettings', empty: emptyNotificationSettings },
  routes: notificationSettingsRoutes,
  scenario: {
    fields: notificationSettingFields,
    problems: (s: Listed, refs) =>
      notificationSettingProblems(
        s.notification_settings,
        refs,
        new Set((s.projects ?? []).map((p) => p.path.toLowerCase())),
      ),
    build: (st, s: Listed, b) => buildNotificationSettings(st, s.notification_settings, b),
    export: exportNotificationSettings,
  },
  cascade: {
    project: (st, id) => deleteSourceSettings(st, 'project', id),
    group: (st, id) => deleteSourceSettings(st, 'group', id),
  },
});
