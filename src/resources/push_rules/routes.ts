/**
 * The project push rule API (`ee/lib/api/project_push_rule.rb`, paid tiers): `authenticate!`, then
 * `authorize_admin_project` (maintainers), then the params; the community edition has no such route.
 */
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, grapeError, notFound, validationError } from '../../core/errors.js';
import { atLeastOneOf, p } from '../../core/params.js';
import { sendJson } from '../../core/respond.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { Project } from '../projects/model.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import {
  BOOL_FIELDS,
  createPushRule,
  defaultFields,
  deletePushRule,
  pushRuleErrors,
  pushRuleOf,
  REGEX_FIELDS,
  updatePushRule,
} from './model.js';
import type { PushRuleFields, PushRuleRecord } from './store.js';

/** `EE::API::Entities::ProjectPushRule`. */
export const pushRuleEntity = (r: PushRuleRecord) => ({
  id: r.id,
  project_id: r.project_id,
  created_at: r.created_at,
  commit_message_regex: r.commit_message_regex,
  commit_message_negative_regex: r.commit_message_negative_regex,
  branch_name_regex: r.branch_name_regex,
  deny_delete_tag: r.deny_delete_tag,
  member_check: r.member_check,
  prevent_secrets: r.prevent_secrets,
  author_email_regex: r.author_email_regex,
  file_name_regex: r.file_name_regex,
  max_file_size: r.max_file_size,
  commit_committer_check: r.commit_committer_check,
  reject_unsigned_commits: r.reject_unsigned_commits,
});

const ruleShape = {
  deny_delete_tag: p.bool(),
  member_check: p.bool(),
  prevent_secrets: p.bool(),
  commit_message_regex: p.str(),
  commit_message_negative_regex: p.str(),
  branch_name_regex: p.str(),
  author_email_regex: p.str(),
  file_name_regex: p.str(),
  max_file_size: p.int(),
  commit_committer_check: p.bool(),
  reject_unsigned_commits: p.bool(),
};

/** `before { authenticate! }; before { authorize_admin_project }`: before any param is looked at. */
function maintained(c: Ctx): Project {
  requireUser(c);
  const project = loadProject(c);
  if (!canAdminProject(c, project)) throw forbidden();
  return project;
}

/** `declared_params(include_missing: false)` after `at_least_one_of` every field. */
function changesOf(c: Ctx): Partial<PushRuleFields> {
  const prm = parse(c, ruleShape);
  atLeastOneOf(c.get('params'), ...Object.keys(ruleShape));
  const ch: Partial<PushRuleFields> = {};
  for (const k of BOOL_FIELDS) if (prm[k] !== undefined) ch[k] = prm[k];
  for (const k of REGEX_FIELDS) if (prm[k] !== undefined) ch[k] = prm[k];
  if (prm.max_file_size !== undefined) ch.max_file_size = prm.max_file_size;
  return ch;
}

function checked(base: PushRuleFields, ch: Partial<PushRuleFields>): void {
  const errors = pushRuleErrors({ ...base, ...ch });
  if (Object.keys(errors).length) throw validationError(errors);
}

export function pushRulesRoutes(r: ApiRouter): void {
  const path = '/projects/:id/push_rule';

  // A project without a rule presents nil: `null` with 200.
  r.get(path, { tier: 'premium' }, (c) => {
    const project = maintained(c);
    const rule = pushRuleOf(state(c), project.id);
    return sendJson(rule ? pushRuleEntity(rule) : null);
  });

  r.post(path, { tier: 'premium' }, (c) => {
    const project = maintained(c);
    const ch = changesOf(c);
    if (pushRuleOf(state(c), project.id)) throw grapeError(422, 'Project push rule exists');
    checked(defaultFields(), ch);
    const now = c.get('fx').clock.iso();
    write(c, (d) => void createPushRule(d, project.id, { ...defaultFields(), ...ch }, now));
    return sendJson(pushRuleEntity(pushRuleOf(state(c), project.id)!), 201);
  });

  r.put(path, { tier: 'premium' }, (c) => {
    const project = maintained(c);
    const ch = changesOf(c);
    const rule = pushRuleOf(state(c), project.id);
    if (!rule) throw notFound('Push Rule');
    checked(rule, ch);
    write(c, (d) => updatePushRule(d, project.id, ch));
    return sendJson(pushRuleEntity(pushRuleOf(state(c), project.id)!));
  });

  r.delete(path, { tier: 'premium' }, (c) => {
    const project = maintained(c);
    if (!pushRuleOf(state(c), project.id)) throw notFound('Push Rule');
    write(c, (d) => deletePushRule(d, project.id));
    return c.body(null, 204);
  });
}
