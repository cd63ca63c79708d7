import { defineArea } from '../../core/area.js';
import { idelete, mget, tdelete, tget } from '../../core/table.js';
import { emptyRepository } from './store.js';
import { repositoryRoutes } from './routes.js';
import { generateRepositories, generateRepositoryFields } from './generate.js';
import {
  buildCommitNotes,
  commitNotesFields,
  commitNotesProblems,
  exportCommitNotes,
  type CommitNotesProject,
} from './notes-scenario.js';
import {
  buildRepository,
  exportRepositories,
  repositoryProblems,
  repositoryProjectFields,
  type RepositoryProject,
} from './scenario.js';

export const repositoryArea = defineArea({
  name: 'repository',
  state: { key: 'repository', empty: emptyRepository },
  routes: repositoryRoutes,
  scenario: {
    projectFields: { ...repositoryProjectFields, ...commitNotesFields },
    projectProblems: (p: RepositoryProject & CommitNotesProject, at, refs) => [
      ...repositoryProblems(p, at, refs),
      ...commitNotesProblems(p, at, refs),
    ],
    // After the CI area's refs, so that a declared repository has the last word on its branches; the
    // notes on commits after the repository, whose branches and tags may name their commits.
    buildProject: (st, id, p: RepositoryProject & CommitNotesProject, b) => {
      buildRepository(st, tget(st.projects, id)!, p, b);
      buildCommitNotes(st, tget(st.projects, id)!, p, b);
    },
    generateFields: generateRepositoryFields,
    generate: generateRepositories,
    export: (st, out) => {
      exportRepositories(st, out);
      exportCommitNotes(st, out);
    },
  },
  cascade: {
    // Objects stay (a fork may share them, and the store is append-only); protections and statuses go
    // (comments on commits are notes: the issuables area removes them).
    project: (st, id) => {
      const r = st.repository;
      for (const pb of mget(r.idx.protectedBy, String(id))) tdelete(r.protected, pb);
      idelete(r.idx.protectedBy, String(id));
      for (const s of mget(r.idx.statusesBy, String(id))) tdelete(r.statuses, s);
      idelete(r.idx.statusesBy, String(id));
    },
  },
});
