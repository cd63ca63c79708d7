/** What changes in the import/export area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/**
 * `import_project_from_remote_file`, the flag in front of `POST /projects/remote-import`: off unless
 * enabled when the route came (13.12's doc: "behind a feature flag that is disabled by default"), on
 * by default later (the doc of later releases: "by default this feature is available").
 */
export const REMOTE_IMPORT_ON = versioned({
  kind: 'behaviour',
  name: 'projects: remote-import on by default',
  what: '`POST /projects/remote-import` answers without `import_project_from_remote_file` being enabled (disabling the flag still hides it, 404)',
  since: '15.4',
  source:
    'doc/api/project_import_export.md (13.12: "behind a feature flag that is disabled by default"; later: "by default this feature is available"); python-gitlab 3.12 (written for 15.4) calls it without the flag',
});

/**
 * `import_project_from_remote_file_s3`, the flag in front of `POST /projects/remote-import-s3` (14.9),
 * off by default until 15.11 made it generally available and removed the flag.
 */
export const REMOTE_IMPORT_S3_GA = versioned({
  kind: 'behaviour',
  name: 'projects: remote-import-s3 generally available',
  what: '`POST /projects/remote-import-s3` answers without `import_project_from_remote_file_s3` being enabled (the flag is gone)',
  since: '15.11',
  source:
    'doc/api/project_import_export.md ("Generally available in GitLab 15.11. Feature flag `import_project_from_remote_file_s3` removed", gitlab#350571)',
});
