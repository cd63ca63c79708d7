/**
 * `POST /markdown`: renders with the plain or the GFM pipeline. No authentication is needed (13.x); a
 * `project` (full path) gives references their context and must be readable by the caller, else 404.
 * References link only what the caller may read, as the platform's redactor leaves the rest as text.
 */
import { canReadProject } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { grapeError, internalError, notFound } from '../../core/errors.js';
import { requestBase } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { abilities, canSeeIssue } from '../issuables/access.js';
import { issueByIid, mergeRequestByIid } from '../issuables/common.js';
import type { MilestoneRecord } from '../issuables/store.js';
import type { Project } from '../projects/model.js';
import { resolveReferences } from './references.js';
import type { ReferenceResolver, ResolvedReference } from './render.js';
import { loadPool } from './lazy.js';

/** The platform's limit on a note's body; a longer text is refused before anything is parsed. */
export const MARKDOWN_LIMIT = 1_000_000;

const shape = { text: p.str().required(), gfm: p.bool().default(false), project: p.str() };

/** The project's milestones, then those of its groups (nearest first), as milestone references see them. */
function milestonesOf(st: PlatformState, project: ProjectRecord): MilestoneRecord[] {
  const out = mget(st.issuables.idx.owned, `p${project.id}`).map((id) => tget(st.issuables.milestones, id)!);
  if (project.namespace_kind === 'group')
    for (
      let g: GroupRecord | undefined = tget(st.groups, project.namespace_id);
      g;
      g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
    )
      for (const id of mget(st.issuables.idx.owned, `g${g.id}`)) out.push(tget(st.issuables.milestones, id)!);
  return out;
}

function resolver(
  st: PlatformState,
  base: string,
  user: UserRecord | null,
  project?: Project,
): ReferenceResolver {
  const a = project && abilities(st, user, project);
  const link = [
    ['dataLink', false],
    ['dataLinkReference', false],
  ] as Array<[string, string | number | boolean]>;
  return {
    issue(iid) {
      if (!project || !a) return undefined;
      const issue = issueByIid(st, project.id, iid);
      if (!issue || !canSeeIssue(a, issue)) return undefined;
      return {
        url: `${base}/${project.path_with_namespace}/-/issues/${iid}`,
        data: [...link, ['dataProject', project.id], ['dataIssue', issue.id]],
        referenceType: 'issue',
        title: issue.title,
        className: 'gfm gfm-issue has-tooltip',
        text: `#${iid}`,
      };
    },
    mergeRequest(iid) {
      if (!project || !a?.mergeRequests) return undefined;
      const mr = mergeRequestByIid(st, project.id, iid);
      if (!mr) return undefined;
      return {
        url: `${base}/${project.path_with_namespace}/-/merge_requests/${iid}`,
        data: [...link, ['dataProject', project.id], ['dataMergeRequest', mr.id]],
        referenceType: 'merge_request',
        title: mr.title,
        className: 'gfm gfm-merge_request has-tooltip',
        text: `!${iid}`,
      };
    },
    milestone(ref) {
      if (!project || !a || !(a.issues || a.mergeRequests)) return undefined;
      const all = milestonesOf(st, project);
      const m =
        ref.iid !== undefined
          ? all.find((x) => x.project_id === project.id && x.iid === ref.iid)
          : all.find((x) => x.title === ref.name);
      if (!m) return undefined;
      const group = m.group_id === null ? undefined : tget(st.groups, m.group_id);
      return {
        url: group
          ? `${base}/groups/${group.full_path}/-/milestones/${m.iid}`
          : `${base}/${project.path_with_namespace}/-/milestones/${m.iid}`,
        data: [...link, ['dataProject', project.id], ['dataMilestone', m.id]],
        referenceType: 'milestone',
        title: '',
        className: 'gfm gfm-milestone has-tooltip',
        text: `%${m.title}`,
        placement: 'bottom',
      };
    },
    mention(name) {
      const key = name.toLowerCase();
      const uid = iget(st.idx.usernames, key);
      const u = uid === undefined ? undefined : tget(st.users, uid);
      if (u)
        return {
          url: `${base}/${u.username}`,
          data: [['dataUser', u.id]],
          referenceType: 'user',
          title: u.name,
          className: 'gfm gfm-project_member js-user-link',
          text: `@${name}`,
          original: false,
          classFirst: true,
        } satisfies ResolvedReference;
      const gid = iget(st.idx.namespaces, key);
      const g = gid === undefined || gid < 0 ? undefined : tget(st.groups, gid);
      if (!g || !canReadGroupRef(st, user, g)) return undefined;
      return {
        url: `${base}/${g.full_path}`,
        data: [['dataGroup', g.id]],
        referenceType: 'user',
        title: String(g.full_name ?? g.name),
        className: 'gfm gfm-project_member js-user-link',
        text: `@${name}`,
        original: false,
        classFirst: true,
      };
    },
  };
}

/** Group mentions link only groups the viewer may read. */
function canReadGroupRef(st: PlatformState, user: UserRecord | null, g: GroupRecord): boolean {
  return g.visibility === 'public' || !!user?.admin || (g.visibility === 'internal' && !!user);
}

export function markdownRoutes(r: ApiRouter): void {
  r.post('/markdown', { auth: 'optional', params: shape }, async (c: Ctx, prm) => {
    const st = state(c);
    const user = c.get('viewer').user;
    let project: Project | undefined;
    if (prm.project !== undefined) {
      const id = iget(st.idx.projects, prm.project.toLowerCase());
      const found = id === undefined ? undefined : tget(st.projects, id);
      if (!found || !canReadProject(st, user, found))
        throw notFound('Project', 'no project with this full path for this viewer');
      project = found as Project;
    }
    if (prm.text.length > MARKDOWN_LIMIT)
      throw grapeError(400, `text is too long (maximum is ${MARKDOWN_LIMIT} characters)`);
    const base = requestBase(c);
    const { render } = await loadPool();
    const html = await render({
      text: prm.text,
      gfm: prm.gfm,
      host: new URL(base).host,
      refs: prm.gfm ? resolveReferences(prm.text, resolver(st, base, user, project)) : undefined,
    }).catch(() => {
      // Only a render past RENDER_TIMEOUT_MS or a worker out of memory: the platform's 500.
      throw internalError();
    });
    return c.json({ html }, 201);
  });
}
