/** What changes in the packages area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/**
 * `PUT /projects/:id/packages/generic/...` takes `select` (`values: %w[package_file]`): with it the
 * upload answers the package file record it made (`present package_file`, the model's JSON with the
 * uploader's `file.url`), which semantic-release's GitLab plugin reads; without it `201 Created`.
 * Before, the param is undeclared and ignored.
 */
export const GENERIC_SELECT = versioned({
  kind: 'param',
  name: 'PUT /projects/:id/packages/generic/:package_name/:package_version/:file_name select',
  what: '`select=package_file` answers the package file record (200); any other value is 400',
  since: '14.5',
  source:
    'doc/user/packages/generic_packages/index.md "Publish a package file", the select attribute (the merge request of October 2021, GitLab 14.5)',
});
