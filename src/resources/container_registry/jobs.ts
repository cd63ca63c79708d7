/**
 * The registry's workers as background jobs (src/core/jobs.ts): `DeleteContainerRepositoryWorker`
 * (the repository's tags and record) and `CleanupContainerRepositoryWorker` (the tags
 * `CleanupTagsService` picks, dated at the job's due time). A job whose repository is gone does nothing.
 */
import type { ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { deleteRepository, deleteTags, tagsToClean, type CleanupParams } from './model.js';
import { JOB } from './routes.js';

export function containerRegistryJobs(r: ApiRouter): void {
  r.job(JOB.deleteRepository, (d, job) => {
    deleteRepository(d, job.payload.repository_id as number);
  });

  r.job(JOB.cleanupTags, (d, job) => {
    const id = job.payload.repository_id as number;
    const repo = tget(d.container_registry.repositories, id);
    if (!repo) return;
    const names = tagsToClean(repo.tags, job.payload.params as CleanupParams, job.due_ms);
    if (names && names.length) deleteTags(d, id, new Set(names));
  });
}
