/**
 * Notification settings (`/notification_settings`, `/groups/:id/notification_settings`,
 * `/projects/:id/notification_settings`): the caller's own, after `authenticate!`. A level outside the
 * enum is the model's `ArgumentError` message; the `events` appear with the `custom` level.
 */
import { findGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, validationError } from '../../core/errors.js';
import { p, type Shape } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { loadProject } from '../projects/helpers.js';
import {
  eventValue,
  notificationEmail,
  ownsEmail,
  setNotificationEmail,
  settingFor,
  writeSetting,
  type SettingChanges,
} from './model.js';
import {
  EMAIL_EVENTS,
  LEVELS,
  type EmailEvent,
  type Level,
  type NotificationSettingRecord,
  type SourceKind,
} from './store.js';

const eventShape = (extra: readonly string[] = []): Shape =>
  Object.fromEntries([...EMAIL_EVENTS, ...extra].map((e) => [e, p.bool()]));

const GLOBAL_SHAPE: Shape = { level: p.str(), notification_email: p.str(), ...eventShape() };
const SOURCE_SHAPE: Shape = { level: p.str(), ...eventShape() };
/** Paid tiers notify of new epics in groups. */
const PAID_GROUP_SHAPE: Shape = { level: p.str(), ...eventShape(['new_epic']) };

/** `Entities::NotificationSetting`. */
function entity(s: NotificationSettingRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { level: s.level };
  if (s.level === 'custom') out.events = Object.fromEntries(EMAIL_EVENTS.map((e) => [e, eventValue(s, e)]));
  return out;
}

/** The declared level and event switches; a level the enum lacks is a 400 with the enum's message. */
function changesOf(prm: Record<string, unknown>): SettingChanges {
  const ch: SettingChanges = { events: {} };
  const level = prm.level as string | undefined;
  if (level !== undefined) {
    if (!(LEVELS as readonly string[]).includes(level))
      throw apiError(400, `'${level}' is not a valid level`);
    ch.level = level as Level;
  }
  for (const [k, v] of Object.entries(prm))
    if (k !== 'level' && k !== 'notification_email' && typeof v === 'boolean') ch.events[k as EmailEvent] = v;
  return ch;
}

type SourceFinder = (c: Ctx) => { kind: SourceKind; id: number };

const SOURCES: Record<'group' | 'project', SourceFinder> = {
  group: (c) => ({ kind: 'group', id: findGroup(c, c.req.param('id') ?? '').id }),
  project: (c) => ({ kind: 'project', id: loadProject(c).id }),
};

export function notificationSettingsRoutes(r: ApiRouter): void {
  const globalEntity = (c: Ctx, userId: number) => ({
    ...entity(settingFor(state(c), userId, 'global', null)),
    notification_email: notificationEmail(state(c), userId),
  });

  r.get('/notification_settings', (c) => c.json(globalEntity(c, requireUser(c).id)));

  r.put('/notification_settings', (c) => {
    const user = requireUser(c);
    const prm = parse(c, GLOBAL_SHAPE);
    const ch = changesOf(prm);
    const email = prm.notification_email as string | undefined;
    if (email !== undefined && email !== '' && !ownsEmail(state(c), user.id, email))
      throw validationError({ notification_email: ['is not an email you own'] });
    write(c, (d) => {
      writeSetting(d, user.id, 'global', null, ch);
      if (email !== undefined) setNotificationEmail(d, user.id, email.trim());
    });
    return c.json(globalEntity(c, user.id));
  });

  for (const kind of ['group', 'project'] as const) {
    const path = `/${kind}s/:id/notification_settings`;
    r.get(path, (c) => {
      const user = requireUser(c);
      const src = SOURCES[kind](c);
      return c.json(entity(settingFor(state(c), user.id, src.kind, src.id)));
    });

    r.put(path, (c) => {
      const user = requireUser(c);
      const paidGroup = kind === 'group' && c.get('fx').tier() !== 'free';
      const prm = parse(c, paidGroup ? PAID_GROUP_SHAPE : SOURCE_SHAPE);
      const src = SOURCES[kind](c);
      const ch = changesOf(prm);
      write(c, (d) => writeSetting(d, user.id, src.kind, src.id, ch));
      return c.json(entity(settingFor(state(c), user.id, src.kind, src.id)));
    });
  }
}
