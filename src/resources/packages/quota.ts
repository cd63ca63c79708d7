/** What the instance keeps of package files: every registry's files share its upload bound. */
import type { Ctx } from '../../core/context.js';
import { state } from '../../core/context.js';

/** Package files together, when the instance sets no upload total. */
export const DEFAULT_PACKAGES_TOTAL = 512 * 1024 * 1024;

/** Whether `size` more bytes of package files would pass the instance's bound. */
export function packageBytesTooLarge(c: Ctx, size: number): boolean {
  const total = c.get('fx').maxUploadsTotal ?? DEFAULT_PACKAGES_TOTAL;
  return state(c).packages.bytes + size > total;
}
