/**
 * The search API (`/search`, `/groups/:id/search`, `/projects/:id/search`, each also under `-/`): every
 * route needs a user first, then `search` and a `scope` of the level's list. Results are what the viewer
 * may read, paginated. Free instances have the community edition's scope lists; paid ones accept the
 * Elasticsearch scopes at instance and group level and refuse them there, as no Elasticsearch is set up.
 */
import { findGroup, findProject, projectAccess } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, type Shape } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { IssueRecord, MergeRequestRecord } from '../issuables/store.js';
import { findContext } from '../issuables/common.js';
import { issuableRenderer } from '../issuables/entities.js';
import { canDownloadCode, featureAvailable } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import { commitDetail } from '../repository/commits.js';
import { ownerPages, projectOwner } from '../wikis/model.js';
import { searchBlobs, searchCommits, searchWikiBlobs } from './code.js';
import { projectEntity } from '../projects/entities.js';
import { snippetJson } from '../snippets/routes.js';
import { userRenderer } from '../users/entities.js';
import {
  projectIds,
  searchIssuables,
  searchMilestones,
  searchNotes,
  searchProjectsIn,
  searchSnippetTitles,
  searchUsers,
  type SearchInput,
  type Within,
} from './scopes.js';

const ELASTICSEARCH = ['wiki_blobs', 'blobs', 'commits', 'notes'] as const;
const GLOBAL = ['projects', 'issues', 'merge_requests', 'milestones', 'snippet_titles', 'users'] as const;
const GROUP = ['projects', 'issues', 'merge_requests', 'milestones', 'users'] as const;
const PROJECT = [
  'issues',
  'merge_requests',
  'milestones',
  'notes',
  'wiki_blobs',
  'commits',
  'blobs',
  'users',
] as const;
const STATES = ['all', 'opened', 'closed', 'merged'] as const;

const shapeOf = (scopes: readonly string[], project = false): Shape => ({
  search: p.str().required(),
  scope: p.str().required().values(scopes),
  ...(project ? { ref: p.str() } : {}),
  state: p.str().values(STATES),
  confidential: p.bool(),
  ...paginationParams,
});

/** The scope lists per tier: the enterprise edition puts its Elasticsearch scopes first. */
const SHAPES = {
  free: { all: shapeOf(GLOBAL), group: shapeOf(GROUP), project: shapeOf(PROJECT, true) },
  paid: {
    all: shapeOf([...ELASTICSEARCH, ...GLOBAL]),
    group: shapeOf([...ELASTICSEARCH, ...GROUP]),
    project: shapeOf(PROJECT, true),
  },
};

interface Declared {
  search: string;
  scope: string;
  /** The branch, tag or commit a project's repository is searched at. */
  ref?: string;
  state?: string;
  confidential?: boolean;
}

/** `before { authenticate! }`, then the level's params. */
function declared(c: Ctx, level: 'all' | 'group' | 'project'): Declared {
  requireUser(c);
  const paid = c.get('fx').tier() !== 'free';
  return parse(c, SHAPES[paid ? 'paid' : 'free'][level]) as unknown as Declared;
}

/** EE's `verify_search_scope!`: the Elasticsearch scopes need Elasticsearch. */
function verifyScope(scope: string): void {
  if ((ELASTICSEARCH as readonly string[]).includes(scope))
    throw apiError(400, { error: 'Scope not supported without Elasticsearch!' });
}

function run(c: Ctx, prm: Declared, w: Within): Response {
  const ctx = findContext(c);
  const raw = c.get('params');
  const input: SearchInput = {
    ctx,
    query: prm.search,
    state: prm.state,
    confidential: prm.confidential,
    ascending: raw.order_by === 'created_at' && raw.sort === 'asc',
  };
  const ids = () => projectIds(ctx.st, ctx.user, w);
  const r = () => issuableRenderer(c, w.kind === 'project' ? { project: w.project } : null);
  switch (prm.scope) {
    case 'projects':
      return paginate(c, searchProjectsIn(ctx.st, ids(), prm.search), (x) =>
        projectEntity(c, x, { shape: 'basic' }),
      );
    case 'issues': {
      const rr = r();
      return paginate(c, searchIssuables<IssueRecord>(input, ids(), 'i'), (x) =>
        rr.issue(x, { basic: true }),
      );
    }
    case 'merge_requests': {
      const rr = r();
      return paginate(c, searchIssuables<MergeRequestRecord>(input, ids(), 'm'), (x) => rr.mergeRequest(x));
    }
    case 'milestones': {
      const rr = r();
      return paginate(c, searchMilestones(input, ids()), (x) => rr.milestone(x));
    }
    case 'notes': {
      const rr = r();
      return paginate(c, searchNotes(input, (w as { project: Project }).project), (x) => rr.note(x));
    }
    case 'snippet_titles':
      return paginate(c, searchSnippetTitles(input), (x) => snippetJson(c, x));
    case 'users': {
      const u = userRenderer(c);
      return paginate(c, searchUsers(input, w), (x) => u.basic(x));
    }
    case 'blobs':
    case 'wiki_blobs':
    case 'commits':
      return searchCode(c, prm, (w as { project: Project }).project);
    default:
      return paginate(c, [], (x) => x);
  }
}

/**
 * The project's repository and wiki scopes: nothing for a viewer without `download_code` (blobs,
 * commits) or `read_wiki` (wiki blobs), as the platform's search results check.
 */
function searchCode(c: Ctx, prm: Declared, project: Project): Response {
  const st = state(c);
  const user = c.get('viewer').user;
  const access = user ? projectAccess(st, user, project) : 0;
  const admin = user?.admin === true;
  if (prm.scope === 'wiki_blobs') {
    const readable = featureAvailable(project.wiki_access_level, 'wiki', access, admin);
    const pages = readable ? ownerPages(st, projectOwner(project.id)) : [];
    return paginate(c, searchWikiBlobs(project, pages, prm.search, prm.ref), (x) => x);
  }
  if (!canDownloadCode(project, user, access)) return paginate(c, [], (x) => x);
  if (prm.scope === 'blobs') return paginate(c, searchBlobs(st, project, prm.search, prm.ref), (x) => x);
  return paginate(c, searchCommits(st, project, prm.search, prm.ref), (id) =>
    commitDetail(c, project, id, false),
  );
}

export function searchRoutes(r: ApiRouter): void {
  r.get('/search', (c) => {
    const prm = declared(c, 'all');
    verifyScope(prm.scope);
    return run(c, prm, { kind: 'all' });
  });

  for (const path of ['/groups/:id/search', '/groups/:id/-/search'])
    r.get(path, (c) => {
      const prm = declared(c, 'group');
      const group = findGroup(c, c.req.param('id') ?? '');
      verifyScope(prm.scope);
      return run(c, prm, { kind: 'group', group });
    });

  for (const path of ['/projects/:id/search', '/projects/:id/-/search'])
    r.get(path, (c) => {
      const prm = declared(c, 'project');
      const project = findProject(c, c.req.param('id') ?? '') as Project;
      return run(c, prm, { kind: 'project', project });
    });
}
