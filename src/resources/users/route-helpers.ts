/** What the users routes share: the user by id, the public-visibility restriction, page sizes. */
import { state, type Ctx } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { featureEnabled } from '../../core/features.js';
import { COUNT_LIMIT, perPage } from '../../core/pagination.js';
import { type PlatformState, type UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { visibilityRestricted } from '../settings/model.js';

// ---------------------------------------------------------------------------------------------------
// Helpers

/** Ruby's `present?` for a string param. */
export const present = (s: string | undefined): s is string => s !== undefined && s.trim() !== '';

export function findUserById(c: Ctx, id: number): UserRecord {
  const u = tget(state(c).users, id);
  if (!u) throw notFound('User', `no user ${id}`);
  return u;
}

/** Whether anonymous visitors are shut out: the public visibility level is restricted. */
export function publicRestricted(st: PlatformState): boolean {
  return visibilityRestricted(st, 'public');
}

export const noContent = (c: Ctx) => c.body(null, 204);

/** How many matching rows a page needs: all of them while the platform still counts them. */
export function rowsNeeded(c: Ctx, st: PlatformState, page: number): number {
  if (!featureEnabled(st, 'api_kaminari_count_with_limit')) return Infinity;
  return Math.max(COUNT_LIMIT + 1, Math.max(page, 1) * perPage(c) + 1);
}
