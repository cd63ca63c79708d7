/**
 * The vulnerabilities API (EE `vulnerabilities.rb`, ultimate): every route `authenticate!`s first
 * (`VulnerabilitiesHooks`). A project's list needs `read_vulnerability`; one vulnerability is found by id
 * and then authorized on its project. The state actions answer `304 Not Modified` when the vulnerability
 * is already in the state asked for, as the platform's `not_modified!` does.
 */
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { notModified } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { loadProject } from '../projects/helpers.js';
import { authorizeProject, findVulnerability } from './access.js';
import { vulnerabilityEntity } from './entities.js';
import { changeState, vulnerabilitiesOf } from './model.js';
import type { VulnerabilityState } from './store.js';

const ULT = { tier: 'ultimate' } as const;
const idParam = { id: p.str().required() };

/** The state actions and the state each sets (`ResolveService`, `DismissService`, ...). */
const ACTIONS: [action: string, to: VulnerabilityState][] = [
  ['resolve', 'resolved'],
  ['dismiss', 'dismissed'],
  ['confirm', 'confirmed'],
  ['revert', 'detected'],
];

/** The vulnerability as the write left it; a POST answers Grape's default 201. */
const render = (c: Ctx, id: number) =>
  c.json(vulnerabilityEntity(state(c), tget(state(c).vulnerabilities.records, id)!), 201);

export function vulnerabilityRoutes(r: ApiRouter): void {
  r.get('/projects/:id/vulnerabilities', { ...ULT, params: { ...idParam, ...paginationParams } }, (c) => {
    requireUser(c);
    const project = loadProject(c);
    authorizeProject(c, project);
    const st = state(c);
    return paginate(c, vulnerabilitiesOf(st, project.id), (v) => vulnerabilityEntity(st, v));
  });

  r.get('/vulnerabilities/:id', { ...ULT, params: idParam }, (c, prm) => {
    const v = findVulnerability(c, prm.id);
    return c.json(vulnerabilityEntity(state(c), v));
  });

  for (const [action, to] of ACTIONS)
    r.post(`/vulnerabilities/:id/${action}`, { ...ULT, params: idParam }, (c, prm) => {
      const v = findVulnerability(c, prm.id);
      if (v.state === to) throw notModified();
      const user = c.get('viewer').user!;
      const now = c.get('fx').clock.iso();
      write(c, (d) => changeState(d, v.id, to, user.id, now));
      return render(c, v.id);
    });
}
