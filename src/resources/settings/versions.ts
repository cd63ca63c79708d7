/**
 * What changes in the application settings between the GitLab releases fauxlab answers as
 * (src/core/versions.ts): settings later releases add. A setting the release lacks is neither shown by
 * `GET /application/settings` nor declared by `PUT` (which then ignores it, as Grape does any
 * undeclared param), and a scenario's value for it is ignored on load.
 */
import { versioned } from '../../core/versions.js';

export const SETTING_DELAYED_PROJECT_DELETION = versioned({
  kind: 'setting',
  name: 'delayed_project_deletion',
  what: 'paid tiers: whether new groups delay the deletion of their projects by default (boolean, default `false`)',
  since: '14.2',
  source: 'doc/api/settings.md; "Add instance setting for delayed project deletion", gitlab!67230 (14.2)',
});

export const SETTING_DELAYED_GROUP_DELETION = versioned({
  kind: 'setting',
  name: 'delayed_group_deletion',
  what: 'paid tiers: whether groups are deleted after the adjourned period (boolean, default `true`)',
  since: '15.0',
  source: 'doc/api/settings.md (introduced in 15.0, gitlab#352959)',
});

export const SETTING_CAN_CREATE_GROUP = versioned({
  kind: 'setting',
  name: 'can_create_group',
  what: 'whether users can create top-level groups (boolean, default `true`)',
  since: '15.5',
  source: 'doc/api/settings.md (introduced in 15.5, gitlab#367754)',
});

export const SETTING_DISABLE_ADMIN_OAUTH_SCOPES = versioned({
  kind: 'setting',
  name: 'disable_admin_oauth_scopes',
  what: 'stops administrators from authorizing untrusted OAuth applications with powerful scopes (boolean, default `false`)',
  since: '15.6',
  source: 'doc/api/settings.md (introduced in 15.6, gitlab#375043)',
});

export const SETTING_DISABLE_PERSONAL_ACCESS_TOKEN = versioned({
  kind: 'setting',
  name: 'disable_personal_access_token',
  what: 'paid tiers: disables personal access tokens (boolean, default `false`)',
  since: '15.7',
  source: 'doc/api/settings.md (introduced in 15.7, gitlab#384201)',
});
