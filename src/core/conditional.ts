import type { Ctx } from './context.js';
import { preconditionFailed } from './errors.js';

/**
 * `check_unmodified_since!`: a DELETE whose `If-Unmodified-Since` is older than the resource's last
 * change answers 412 and deletes nothing. Call it before the write on every delete of a resource with
 * an `updated_at`.
 */
export function checkUnmodifiedSince(c: Ctx, updatedAt: string): void {
  const header = c.req.header('if-unmodified-since');
  if (!header) return;
  const since = Date.parse(header);
  if (!Number.isNaN(since) && Date.parse(updatedAt) > since) throw preconditionFailed();
}
