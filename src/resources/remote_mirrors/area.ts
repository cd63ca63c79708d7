import { defineArea } from '../../core/area.js';
import { deleteProjectMirrors } from './model.js';
import { remoteMirrorsRoutes } from './routes.js';
import {
  buildMirrors,
  exportMirrors,
  mirrorProblems,
  mirrorProjectFields,
  type MirrorProject,
} from './scenario.js';
import { emptyRemoteMirrors } from './store.js';

export const remoteMirrorsArea = defineArea({
  name: 'remote_mirrors',
  state: { key: 'remoteMirrors', empty: emptyRemoteMirrors },
  routes: remoteMirrorsRoutes,
  scenario: {
    projectFields: mirrorProjectFields,
    projectProblems: (p: MirrorProject, at) => mirrorProblems(p, at),
    buildProject: (st, id, p: MirrorProject, b) => buildMirrors(st, id, p, b),
    export: exportMirrors,
  },
  cascade: { project: deleteProjectMirrors },
});
