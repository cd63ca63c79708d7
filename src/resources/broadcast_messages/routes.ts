/**
 * The broadcast messages API (`/broadcast_messages`): anyone lists and reads them; administrators create,
 * update and delete them.
 */
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { tget, tvalues } from '../../core/table.js';
import {
  createMessage,
  DEFAULT_COLOR,
  DEFAULT_FONT,
  deleteMessage,
  isActive,
  messageErrors,
  updateMessage,
  type MessageFields,
} from './model.js';
import type { BroadcastMessageRecord } from './store.js';

const TYPES = ['banner', 'notification'] as const;
const HOUR = 3_600_000;

/** `Entities::BroadcastMessage`. */
const entity = (c: Ctx, m: BroadcastMessageRecord) => ({
  id: m.id,
  message: m.message,
  starts_at: m.starts_at,
  ends_at: m.ends_at,
  color: m.color,
  font: m.font,
  target_path: m.target_path,
  broadcast_type: m.broadcast_type,
  dismissable: m.dismissable,
  active: isActive(m, c.get('fx').clock.ms()),
});

function find(c: Ctx, id: number): BroadcastMessageRecord {
  const m = tget(state(c).broadcastMessages.records, id);
  if (!m) throw recordNotFound(`no broadcast message ${id}`);
  return m;
}

const idShape = { id: p.int().required() };
const optional = {
  starts_at: p.datetime(),
  ends_at: p.datetime(),
  color: p.str(),
  font: p.str(),
  target_path: p.str(),
  broadcast_type: p.str().values(TYPES),
  dismissable: p.bool(),
};

export function broadcastMessagesRoutes(r: ApiRouter): void {
  r.get('/broadcast_messages', { params: paginationParams }, (c) => {
    const all = tvalues(state(c).broadcastMessages.records).reverse();
    return paginate(c, all, (m) => entity(c, m));
  });

  r.post(
    '/broadcast_messages',
    { auth: 'admin', params: { message: p.str().required(), ...optional } },
    (c, prm) => {
      const clock = c.get('fx').clock;
      const now = clock.iso();
      const fields: MessageFields = {
        message: prm.message,
        starts_at: prm.starts_at ?? now,
        ends_at: prm.ends_at ?? new Date(clock.ms() + HOUR).toISOString(),
        color: prm.color ?? DEFAULT_COLOR,
        font: prm.font ?? DEFAULT_FONT,
        target_path: prm.target_path ?? null,
        broadcast_type: prm.broadcast_type ?? 'banner',
        dismissable: prm.dismissable ?? null,
      };
      const errors = messageErrors(fields);
      if (Object.keys(errors).length) throw validationError(errors);
      const id = write(c, (d) => createMessage(d, fields, now));
      return c.json(entity(c, tget(state(c).broadcastMessages.records, id)!), 201);
    },
  );

  r.get('/broadcast_messages/:id', { params: idShape }, (c, prm) => c.json(entity(c, find(c, prm.id))));

  r.put(
    '/broadcast_messages/:id',
    { auth: 'admin', params: { ...idShape, message: p.str(), ...optional } },
    (c, prm) => {
      const m = find(c, prm.id);
      const changes: Partial<MessageFields> = {};
      for (const k of ['message', 'starts_at', 'ends_at', 'color', 'font', 'target_path'] as const)
        if (prm[k] !== undefined) changes[k] = prm[k];
      if (prm.broadcast_type !== undefined) changes.broadcast_type = prm.broadcast_type;
      if (prm.dismissable !== undefined) changes.dismissable = prm.dismissable;
      const errors = messageErrors({ ...m, ...changes });
      if (Object.keys(errors).length) throw validationError(errors);
      const now = c.get('fx').clock.iso();
      write(c, (d) => updateMessage(d, m.id, changes, now));
      return c.json(entity(c, find(c, m.id)));
    },
  );

  r.delete('/broadcast_messages/:id', { auth: 'admin', params: idShape }, (c, prm) => {
    const m = find(c, prm.id);
    checkUnmodifiedSince(c, m.updated_at);
    write(c, (d) => deleteMessage(d, m.id));
    return c.body(null, 204);
  });
}
