/**
 * `POST /projects/:id/housekeeping` (maintainers; once an hour per project, the service's lease) and
 * `GET /projects/:id/storage` (administrators: where the repository lives on disk).
 */
import { createHash } from 'node:crypto';
import { requireAdmin } from '../../core/auth.js';
import { write } from '../../core/context.js';
import { conflict, forbidden } from '../../core/errors.js';
import type { ApiRouter } from '../../core/router.js';
import { idelete, iget, iset } from '../../core/table.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';

const LEASE_MS = 3_600_000;

/** The hashed storage path of a project's repository. */
function diskPath(projectId: number): string {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return `@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`;
}

export function housekeepingRoutes(r: ApiRouter): void {
  r.post('/projects/:id/housekeeping', (c) => {
    const project = loadProject(c);
    if (!canAdminProject(c, project)) throw forbidden();
    const now = c.get('fx').clock.ms();
    const last = iget(c.get('fx').store.state.housekeeping.leases, String(project.id));
    if (last !== undefined && now - last < LEASE_MS)
      throw conflict(
        `Somebody already triggered housekeeping for this resource in the past ${LEASE_MS / 60_000} minutes`,
      );
    write(c, (d) => {
      idelete(d.housekeeping.leases, String(project.id));
      iset(d.housekeeping.leases, String(project.id), now);
    });
    // The id of the garbage collection job the service queues (stable for a project and time).
    const jid = createHash('sha1').update(`gc:${project.id}:${now}`).digest('hex').slice(0, 24);
    return c.json(jid, 201);
  });

  r.get('/projects/:id/storage', (c) => {
    requireAdmin(c);
    const project = loadProject(c);
    return c.json({
      project_id: project.id,
      disk_path: diskPath(project.id),
      created_at: project.created_at,
      repository_storage: (project.repository_storage as string | undefined) ?? 'default',
    });
  });
}
