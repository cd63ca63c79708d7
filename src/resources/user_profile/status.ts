/** User status (`UserStatus`): what `GET /user/status` shows and what `PUT /user/status` sets. */
import type { Draft } from 'immer';
import type { PlatformState } from '../../core/state.js';
import { tdelete, tget, tset } from '../../core/table.js';
import {
  emojiByChar,
  emojiByName,
  emojiCharPattern,
  unicodeVersion,
  type EmojiInfo,
} from '../markdown/emoji.js';
import type { UserStatusRecord } from './store.js';

/** `UserStatus::DEFAULT_EMOJI`. */
export const DEFAULT_EMOJI = 'speech_balloon';

/** `UserStatus::CLEAR_STATUS_QUICK_OPTIONS`, in seconds. */
export const CLEAR_AFTER: Record<string, number> = {
  '30_minutes': 1800,
  '3_hours': 3 * 3600,
  '8_hours': 8 * 3600,
  '1_day': 86_400,
  '3_days': 3 * 86_400,
  '7_days': 7 * 86_400,
  '30_days': 30 * 86_400,
};

/** The user's status at `nowMs`: none once its clearing time has come. */
export function currentStatus(
  st: PlatformState,
  userId: number,
  nowMs: number,
): UserStatusRecord | undefined {
  const s = tget(st.profile.statuses, userId);
  if (!s) return undefined;
  if (s.clear_status_at !== null && Date.parse(s.clear_status_at) <= nowMs) return undefined;
  return s;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const glEmoji = (e: EmojiInfo) =>
  `<gl-emoji title="${escapeHtml(e.description)}" data-name="${e.name}" data-unicode-version="${unicodeVersion(e.char)}">${e.char}</gl-emoji>`;

/** The status message through the platform's emoji pipeline: escaped text, emoji as `<gl-emoji>`. */
export function statusMessageHtml(message: string): string {
  const parts = escapeHtml(message).split(/(:[a-z0-9_+-]+:)/);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) {
        const e = emojiByName(part.slice(1, -1));
        return e ? glEmoji(e) : part;
      }
      return part.replace(emojiCharPattern(), (ch) => {
        const e = emojiByChar(ch);
        return e ? glEmoji(e) : ch;
      });
    })
    .join('');
}

/** `Entities::UserStatus` (13.12); a user without a status shows the empty one. */
export function userStatusEntity(s: UserStatusRecord | undefined) {
  if (!s) return { emoji: null, message: null, availability: null, message_html: '', clear_status_at: null };
  return {
    emoji: s.emoji,
    message: s.message,
    availability: s.availability,
    message_html: s.message === null ? '' : statusMessageHtml(s.message),
    clear_status_at: s.clear_status_at,
  };
}

export function setStatus(st: Draft<PlatformState>, rec: UserStatusRecord | null, userId: number): void {
  if (rec) tset(st.profile.statuses, userId, rec);
  else tdelete(st.profile.statuses, userId);
}
