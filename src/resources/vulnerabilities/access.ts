/**
 * Who may see and change vulnerabilities (EE `ProjectPolicy`, 13.12, with the `security_dashboard`
 * feature of the ultimate tier): developers and up, and admins, have `read_vulnerability`,
 * `admin_vulnerability`, `admin_vulnerability_issue_link` and `create_vulnerability_export`.
 */
import { ACCESS, groupAccess, projectAccess } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden, recordNotFound } from '../../core/errors.js';
import type { GroupRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { VulnerabilityRecord } from './store.js';

/** `read_vulnerability` and the abilities that go with it on a project. */
export function canReadVulnerabilities(
  st: PlatformState,
  user: UserRecord | null,
  p: ProjectRecord,
): boolean {
  if (!user) return false;
  return user.admin || projectAccess(st, user, p) >= ACCESS.DEVELOPER;
}

/** The same on a group (`GroupPolicy`: developers of the group). */
export function canReadGroupVulnerabilities(
  st: PlatformState,
  user: UserRecord | null,
  g: GroupRecord,
): boolean {
  if (!user) return false;
  return user.admin || groupAccess(st, user, g) >= ACCESS.DEVELOPER;
}

/** `authorize!` on the route's project, once it is found. */
export function authorizeProject(c: Ctx, p: ProjectRecord): void {
  if (!canReadVulnerabilities(state(c), c.get('viewer').user, p)) throw forbidden();
}

/**
 * `find_and_authorize_vulnerability!`: `Vulnerability.find(params[:id])` (its 404 with a lowercase
 * "f"; the id is read as Rails reads a string id, its leading digits), then `authorize!` on its project:
 * a 403, even where the project itself is hidden from the caller.
 */
export function findVulnerability(c: Ctx, raw: string | number): VulnerabilityRecord {
  requireUser(c);
  const st = state(c);
  const id = typeof raw === 'number' ? raw : Number(/^\s*\d+/.exec(raw)?.[0] ?? 0);
  const v = Number.isSafeInteger(id) ? tget(st.vulnerabilities.records, id) : undefined;
  if (!v) throw recordNotFound('no vulnerability with this id');
  authorizeProject(c, tget(st.projects, v.project_id)!);
  return v;
}
