/**
 * The branches API (`lib/api/branches.rb`) and protected branches (`lib/api/protected_branches.rb`):
 * reads need `download_code`; creating and deleting need `push_code`; protecting needs a maintainer.
 */
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, conflict, notFound, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { NO_SLASH_URL_PART, type ApiRouter } from '../../core/router.js';
import { findProject } from '../../core/access.js';
import { nextId, type PlatformState } from '../../core/state.js';
import { madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { authorizeAdmin, authorizePush, level, protectionsOf, readableRepo } from './access.js';
import { branchEntity, branchNames, gitTime } from './entities.js';
import { isAncestor } from './history.js';
import { peel, refTarget } from './refs.js';
import { createBranch } from './create-branch.js';
import { pushBranches } from './post-receive.js';
import { objectsOf, type ProtectedBranchRecord } from './store.js';

const LEVELS = [0, 30, 40, 60] as const;
const DESCRIPTIONS: Record<number, string> = {
  0: 'No one',
  30: 'Developers + Maintainers',
  40: 'Maintainers',
  60: 'Admins',
};

const accessLevels = (l: number) => [
  {
    access_level: l,
    access_level_description: DESCRIPTIONS[l] ?? 'Maintainers',
    user_id: null,
    group_id: null,
  },
];

/** `Entities::ProtectedBranch` (with the fields the EE codebase adds on every tier). */
export const protectedEntity = (r: ProtectedBranchRecord) => ({
  id: r.id,
  name: r.name,
  push_access_levels: accessLevels(r.push_access_level),
  merge_access_levels: accessLevels(r.merge_access_level),
  allow_force_push: r.allow_force_push,
  unprotect_access_levels: r.unprotect_access_level === 40 ? [] : accessLevels(r.unprotect_access_level),
  code_owner_approval_required: r.code_owner_approval_required,
});

/** `find_branch!`. */
export function findBranch(c: Ctx, proj: Project, name: string): string {
  const id = refTarget(state(c), proj, 'branch', name);
  if (id === undefined) throw notFound('Branch', 'no branch by this name');
  return id;
}

function protectedByName(st: PlatformState, projectId: number, name: string) {
  for (const id of mget(st.repository.idx.protectedBy, String(projectId))) {
    const r = tget(st.repository.protected, id)!;
    if (r.name === name) return r;
  }
  return undefined;
}

type Rule = Omit<ProtectedBranchRecord, 'id' | 'project_id' | 'name'>;

function protect(c: Ctx, proj: Project, name: string, rule: Rule): ProtectedBranchRecord {
  return write(c, (d) => {
    const existing = protectedByName(d, proj.id, name);
    const id = existing?.id ?? nextId(d, 'protected_branches');
    tset(d.repository.protected, id, { id, project_id: proj.id, name, ...rule });
    if (!existing) madd(d.repository.idx.protectedBy, String(proj.id), id);
    return tget(d.repository.protected, id)!;
  });
}

function unprotect(c: Ctx, proj: Project, r: ProtectedBranchRecord): void {
  write(c, (d) => {
    tdelete(d.repository.protected, r.id);
    mremove(d.repository.idx.protectedBy, String(proj.id), r.id);
  });
}

const branchParam = { id: p.str().required(), branch: p.str().required().notBlank() };
/** `BRANCH_ENDPOINT_REQUIREMENTS`: a branch name keeps a `.json` suffix (`main.json` is a branch). */
const BRANCH = { id: NO_SLASH_URL_PART, branch: NO_SLASH_URL_PART };
/** The protected branches API's `BRANCH_ENDPOINT_REQUIREMENTS` (its `:name`). */
const PROTECTED = { id: NO_SLASH_URL_PART, name: NO_SLASH_URL_PART };
const levelParam = () => p.int().values(LEVELS);

export function branchRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/repository/branches',
    { params: { search: p.str(), sort: p.str(), page_token: p.str(), ...paginationParams } },
    (c, prm) => {
      const proj = readableRepo(c);
      return paginate(c, branchNames(state(c), proj, prm.search), (n) => branchEntity(c, proj, n));
    },
  );

  r.get(
    '/projects/:id/repository/branches/:branch',
    { params: branchParam, requirements: BRANCH },
    (c, prm) => {
      const proj = readableRepo(c);
      findBranch(c, proj, prm.branch);
      return c.json(branchEntity(c, proj, prm.branch));
    },
  );

  r.post(
    '/projects/:id/repository/branches',
    {
      params: {
        id: p.str().required(),
        branch: p.str().required().notBlank(),
        ref: p.str().required().notBlank(),
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      authorizePush(c, proj);
      createBranch(c, proj, prm.branch, prm.ref);
      return c.json(branchEntity(c, proj, prm.branch), 201);
    },
  );

  r.delete(
    '/projects/:id/repository/branches/:branch',
    { params: branchParam, requirements: BRANCH },
    (c, prm) => {
      const proj = readableRepo(c);
      authorizePush(c, proj);
      const st = state(c);
      const head = peel(objectsOf(st), findBranch(c, proj, prm.branch));
      const commit = objectsOf(st).commit(head);
      if (commit) checkUnmodifiedSince(c, gitTime(commit.author.time, commit.author.offset));
      if (prm.branch === proj.default_branch)
        throw apiError(400, 'The default branch of a project cannot be deleted.');
      if (
        protectionsOf(st, proj.id, prm.branch).length > 0 &&
        level(st, c.get('viewer').user, proj) < 40 &&
        !c.get('viewer').user?.admin
      )
        throw apiError(
          400,
          'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
        );
      pushBranches(c, proj, [{ branch: prm.branch, id: null }]);
      return c.body(null, 204);
    },
  );

  r.delete('/projects/:id/repository/merged_branches', { params: { id: p.str().required() } }, (c) => {
    const proj = readableRepo(c);
    authorizePush(c, proj);
    const st = state(c);
    const store = objectsOf(st);
    const d = proj.default_branch;
    const root = d === null ? undefined : refTarget(st, proj, 'branch', d);
    // `Branches::DeleteMergedService`: merged into the default branch, neither it nor protected.
    const merged = branchNames(st, proj).filter((n) => {
      if (n === d || root === undefined || protectionsOf(st, proj.id, n).length > 0) return false;
      const head = peel(store, refTarget(st, proj, 'branch', n)!);
      return head !== root && isAncestor(store, head, root);
    });
    if (merged.length > 0)
      pushBranches(
        c,
        proj,
        merged.map((n) => ({ branch: n, id: null })),
      );
    return c.json({ message: '202 Accepted' }, 202);
  });

  for (const action of ['protect', 'unprotect'] as const)
    r.put(
      `/projects/:id/repository/branches/:branch/${action}`,
      { params: { ...branchParam, developers_can_push: p.bool(), developers_can_merge: p.bool() } },
      (c, prm) => {
        const proj = readableRepo(c);
        authorizeAdmin(c, proj);
        findBranch(c, proj, prm.branch);
        const existing = protectedByName(state(c), proj.id, prm.branch);
        if (action === 'unprotect') {
          if (existing) unprotect(c, proj, existing);
        } else
          protect(c, proj, prm.branch, {
            push_access_level: prm.developers_can_push ? 30 : 40,
            merge_access_level: prm.developers_can_merge ? 30 : 40,
            unprotect_access_level: existing?.unprotect_access_level ?? 40,
            allow_force_push: existing?.allow_force_push ?? false,
            code_owner_approval_required: existing?.code_owner_approval_required ?? false,
          });
        return c.json(branchEntity(c, proj, prm.branch));
      },
    );

  protectedBranchRoutes(r);
}

/** The project for the protected branches API: `authorize_admin_project` before anything else. */
function adminProject(c: Ctx): Project {
  const proj = findProject(c, c.req.param('id') ?? '') as Project;
  authorizeAdmin(c, proj);
  return proj;
}

function findProtected(c: Ctx, proj: Project, name: string): ProtectedBranchRecord {
  const r = protectedByName(state(c), proj.id, name);
  if (!r) throw recordNotFound('no protected branch by this name');
  return r;
}

function protectedBranchRoutes(r: ApiRouter): void {
  const nameParam = { id: p.str().required(), name: p.str().required() };
  r.get(
    '/projects/:id/protected_branches',
    { params: { id: p.str().required(), search: p.str(), ...paginationParams } },
    (c, prm) => {
      const proj = adminProject(c);
      const st = state(c);
      const q = prm.search?.toLowerCase();
      const list = mget(st.repository.idx.protectedBy, String(proj.id))
        .map((id) => tget(st.repository.protected, id)!)
        .filter((x) => !q || x.name.toLowerCase().includes(q));
      return paginate(c, list, protectedEntity);
    },
  );

  r.get(
    '/projects/:id/protected_branches/:name',
    { params: nameParam, requirements: PROTECTED },
    (c, prm) => {
      const proj = adminProject(c);
      return c.json(protectedEntity(findProtected(c, proj, prm.name)));
    },
  );

  r.post(
    '/projects/:id/protected_branches',
    {
      params: {
        id: p.str().required(),
        name: p.str().required(),
        push_access_level: levelParam(),
        merge_access_level: levelParam(),
        unprotect_access_level: levelParam(),
        allow_force_push: p.bool().default(false),
        code_owner_approval_required: p.bool().default(false),
      },
    },
    (c, prm) => {
      const proj = adminProject(c);
      if (protectedByName(state(c), proj.id, prm.name))
        throw conflict(`Protected branch '${prm.name}' already exists`);
      const rec = protect(c, proj, prm.name, {
        push_access_level: prm.push_access_level ?? 40,
        merge_access_level: prm.merge_access_level ?? 40,
        unprotect_access_level: prm.unprotect_access_level ?? 40,
        allow_force_push: prm.allow_force_push,
        code_owner_approval_required: prm.code_owner_approval_required,
      });
      return c.json(protectedEntity(rec), 201);
    },
  );

  r.delete(
    '/projects/:id/protected_branches/:name',
    { params: nameParam, requirements: PROTECTED },
    (c, prm) => {
      const proj = adminProject(c);
      unprotect(c, proj, findProtected(c, proj, prm.name));
      return c.body(null, 204);
    },
  );
}
