/**
 * `lib/api/feature_flags_user_lists.rb` of 13.12: a project's lists of external user ids by iid, for
 * those with `admin_feature_flags_user_lists`; `search` matches names anywhere, case-insensitively
 * (`fuzzy_search(..., use_minimum_char_limit: false)`).
 */
import { state, write, type Ctx } from '../../core/context.js';
import { recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, parseParams } from '../../core/params.js';
import { sendJson } from '../../core/respond.js';
import type { ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { canUseFlags, listsProject } from './access.js';
import { userListEntity } from './entities.js';
import { createUserList, deleteUserList, updateUserList, userListsOf } from './model.js';
import type { UserListRecord } from './store.js';

/** `before { authorize_admin_feature_flags_user_lists! }` runs before the params are validated. */
const createShape = { name: p.str().required(), user_xids: p.str().required() };
const updateShape = { name: p.str(), user_xids: p.str() };
const searchShape = { search: p.str() };
const idShape = { id: p.str().required() };
const oneShape = { ...idShape, iid: p.str().required() };

/** `find_by_iid!`. */
function findList(c: Ctx, proj: ProjectRecord, iid: string): UserListRecord {
  const l = /^\d+$/.test(iid.trim())
    ? userListsOf(state(c), proj.id).find((x) => x.iid === Number(iid.trim()))
    : undefined;
  if (!l) throw recordNotFound(`no user list ${iid}`);
  return l;
}

export function listsRoutes(r: ApiRouter): void {
  r.get('/projects/:id/feature_flags_user_lists', { params: { ...idShape, ...paginationParams } }, (c) => {
    const proj = listsProject(c);
    const prm = parseParams(searchShape, c.get('params'));
    // FeatureFlagsUserListsFinder answers none without read_feature_flag (operations disabled).
    let all = canUseFlags(c, proj) ? userListsOf(state(c), proj.id) : [];
    const q = prm.search?.toLowerCase();
    if (q) all = all.filter((l) => l.name.toLowerCase().includes(q));
    return paginate(c, all, (l) => userListEntity(l, proj));
  });

  r.post('/projects/:id/feature_flags_user_lists', { params: idShape }, (c) => {
    const proj = listsProject(c);
    const prm = parseParams(createShape, c.get('params'));
    const now = c.get('fx').clock.iso();
    const rec = write(c, (d) => createUserList(d, proj.id, prm.name, prm.user_xids, now));
    return sendJson(userListEntity(rec, proj), 201);
  });

  r.get('/projects/:id/feature_flags_user_lists/:iid', { params: oneShape }, (c, prm) => {
    const proj = listsProject(c);
    return sendJson(userListEntity(findList(c, proj, prm.iid), proj));
  });

  r.put('/projects/:id/feature_flags_user_lists/:iid', { params: oneShape }, (c, path) => {
    const proj = listsProject(c);
    const prm = parseParams(updateShape, c.get('params'));
    const list = findList(c, proj, path.iid);
    const now = c.get('fx').clock.iso();
    const rec = write(c, (d) => updateUserList(d, list, { name: prm.name, user_xids: prm.user_xids }, now));
    return sendJson(userListEntity(rec, proj));
  });

  r.delete('/projects/:id/feature_flags_user_lists/:iid', { params: oneShape }, (c, prm) => {
    const proj = listsProject(c);
    const list = findList(c, proj, prm.iid);
    write(c, (d) => deleteUserList(d, list));
    return c.body(null, 204);
  });
}
