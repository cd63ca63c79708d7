/** Scenario files' `broadcast_messages`. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { createMessage, DEFAULT_COLOR, DEFAULT_FONT, messageErrors, type MessageFields } from './model.js';

const HOUR = 3_600_000;

const messageSchema = z.strictObject({
  message: z.string(),
  starts_at: isoTime.optional(),
  ends_at: isoTime.optional(),
  color: z.string().optional(),
  font: z.string().optional(),
  target_path: z.string().nullable().optional(),
  broadcast_type: z.enum(['banner', 'notification']).optional(),
  dismissable: z.boolean().nullable().optional(),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

type MessageScenario = z.output<typeof messageSchema>;

export const broadcastMessageFields = {
  broadcast_messages: z
    .array(messageSchema)
    .max(1000)
    .default([])
    .describe('broadcast messages (banners and notifications); times default to now and an hour on'),
};

/** A listed message's fields, with the API's defaults; `now` the file's. */
function fieldsOf(m: MessageScenario, now: string): MessageFields {
  const starts = isoOf(m.starts_at) ?? now;
  return {
    message: m.message,
    starts_at: starts,
    ends_at: isoOf(m.ends_at) ?? new Date(Date.parse(now) + HOUR).toISOString(),
    color: m.color ?? DEFAULT_COLOR,
    font: m.font ?? DEFAULT_FONT,
    target_path: m.target_path ?? null,
    broadcast_type: m.broadcast_type ?? 'banner',
    dismissable: m.dismissable ?? null,
  };
}

export function broadcastMessageProblems(list: readonly MessageScenario[]): string[] {
  const problems: string[] = [];
  list.forEach((m, i) => {
    for (const [field, msgs] of Object.entries(messageErrors(fieldsOf(m, new Date(0).toISOString()))))
      for (const msg of msgs) problems.push(`broadcast_messages[${i}].${field}: ${msg}`);
  });
  return problems;
}

export function buildBroadcastMessages(
  st: Draft<PlatformState>,
  list: readonly MessageScenario[],
  b: ScenarioBuild,
): void {
  for (const m of list) {
    const created = isoOf(m.created_at) ?? b.now;
    const id = createMessage(st, fieldsOf(m, b.now), created);
    tget(st.broadcastMessages.records, id)!.updated_at = isoOf(m.updated_at) ?? created;
  }
}

/** Every message in id order, with its times written out. */
export function exportBroadcastMessages(st: PlatformState, out: ScenarioOut): void {
  const list = tvalues(st.broadcastMessages.records).map((m) => {
    const e: Record<string, unknown> = {
      message: m.message,
      starts_at: m.starts_at,
      ends_at: m.ends_at,
      color: m.color,
      font: m.font,
    };
    if (m.target_path !== null) e.target_path = m.target_path;
    e.broadcast_type = m.broadcast_type;
    if (m.dismissable !== null) e.dismissable = m.dismissable;
    e.created_at = m.created_at;
    if (m.updated_at !== m.created_at) e.updated_at = m.updated_at;
    return e;
  });
  if (list.length) out.file.broadcast_messages = list;
}
