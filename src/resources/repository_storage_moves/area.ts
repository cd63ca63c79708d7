import { defineArea } from '../../core/area.js';
import { storageMoveJobs } from './jobs.js';
import { deleteMovesOf } from './model.js';
import { storageMoveRoutes } from './routes.js';
import {
  buildGroupStorage,
  buildProjectStorage,
  buildStorageMoves,
  exportStorageMoves,
  storageMoveFields,
  storageMoveGroupFields,
  storageMoveProjectFields,
  type StorageMovesTop,
} from './scenario.js';
import { emptyStorageMoves } from './store.js';

export const repositoryStorageMovesArea = defineArea({
  name: 'repository_storage_moves',
  state: { key: 'storage_moves', empty: emptyStorageMoves },
  routes: storageMoveRoutes,
  jobs: storageMoveJobs,
  scenario: {
    fields: storageMoveFields,
    projectFields: storageMoveProjectFields,
    groupFields: storageMoveGroupFields,
    buildProject: (st, id, p: { repository_storage?: string }) => buildProjectStorage(st, id, p),
    buildGroup: (st, id, g: { wiki_repository_storage?: string }) => buildGroupStorage(st, id, g),
    build: (st, s: StorageMovesTop, b) => buildStorageMoves(st, s, b),
    export: exportStorageMoves,
  },
  cascade: {
    project: (st, id) => deleteMovesOf(st, 'project', id),
    group: (st, id) => deleteMovesOf(st, 'group', id),
  },
});
