/** Broadcast message writes and the model's validations. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { tdelete, tget, tset } from '../../core/table.js';
import type { BroadcastMessageRecord } from './store.js';

type S = Draft<PlatformState>;

export type MessageFields = Omit<BroadcastMessageRecord, 'id' | 'created_at' | 'updated_at'>;

/** `default_value_for`: the platform's orange banner with white text. */
export const DEFAULT_COLOR = '#E75E40';
export const DEFAULT_FONT = '#FFFFFF';

/** `ColorValidator`: `#` and three or six hex digits. */
const COLOR = /^#(?:[0-9A-Fa-f]{3}){1,2}$/;

/** The model's validations in its order: the errors hash, empty when valid. */
export function messageErrors(m: MessageFields): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (m.message.trim() === '') errors.message = ["can't be blank"];
  if (m.color !== '' && !COLOR.test(m.color)) errors.color = ['must be a valid color code'];
  if (m.font !== '' && !COLOR.test(m.font)) errors.font = ['must be a valid color code'];
  return errors;
}

export function createMessage(st: S, f: MessageFields, now: string): number {
  const id = nextId(st, 'broadcast_messages');
  tset(st.broadcastMessages.records, id, { id, ...f, created_at: now, updated_at: now });
  return id;
}

export function updateMessage(st: S, id: number, f: Partial<MessageFields>, now: string): void {
  Object.assign(tget(st.broadcastMessages.records, id)!, f, { updated_at: now });
}

export function deleteMessage(st: S, id: number): void {
  tdelete(st.broadcastMessages.records, id);
}

/** `active?`: started and not yet ended, on the instance clock. */
export const isActive = (m: BroadcastMessageRecord, nowMs: number) =>
  Date.parse(m.starts_at) <= nowMs && Date.parse(m.ends_at) >= nowMs;
