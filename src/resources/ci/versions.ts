/** What changes in the CI variables between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/**
 * Every project variables route presents `Entities::Ci::Variable` whole: variable_type, key, value,
 * protected, masked, environment_scope (the entity exposes each attribute the record answers to, and a
 * project variable answers to all). The seed's 13.12 keeps the short shapes of its own contract (the
 * list {key, variable_type, value}, the single variable without its scope), the shapes of 13.12's
 * doc/api/project_level_variables.md examples; from 14.0, the first release after the seed, fauxlab
 * answers as the entity does, so that configuration tools reading the list back (to compare protected,
 * masked and scope with what they declared) see no drift that is not there.
 */
export const PROJECT_VARIABLE_ENTITY = versioned({
  kind: 'field',
  name: 'project_variable.protected, masked, environment_scope',
  what: "every project variables route answers `Entities::Ci::Variable` whole, in its order: `variable_type`, `key`, `value`, `protected`, `masked`, `environment_scope` (before: the seed's shapes, the list only `key`, `variable_type`, `value`, the single variable without `environment_scope`)",
  since: '14.0',
  source:
    'lib/api/entities/ci/variable.rb (`Entities::Ci::Variable`, presented by lib/api/ci/variables.rb for list, show, create and update); doc/api/project_level_variables.md',
});

/**
 * `raw` (`Ci::HasVariable#raw?`): a variable whose value is not expanded. The entity exposes it after
 * `masked` for project, group and instance variables, and the create and update routes take it.
 */
export const VARIABLE_RAW = versioned({
  kind: 'field',
  name: 'variable.raw',
  what: '`raw` after `masked` on project, group and instance variables (default `false`)',
  since: '15.7',
  source:
    'doc/api/project_level_variables.md, group_level_variables.md, instance_level_ci_variables.md (`raw` introduced in GitLab 15.7, gitlab#361934); lib/api/entities/ci/variable.rb',
});

export const VARIABLE_RAW_PARAM = versioned({
  kind: 'param',
  name: 'POST, PUT /projects/:id/variables, /groups/:id/variables, /admin/ci/variables raw',
  what: '`raw` (boolean) sets whether the value is expanded; unknown (ignored) before',
  since: '15.7',
  source:
    'doc/api/project_level_variables.md, group_level_variables.md, instance_level_ci_variables.md (`raw` introduced in GitLab 15.7, gitlab#361934); lib/api/ci/variables.rb',
});
