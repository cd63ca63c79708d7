/**
 * The repository storage moves APIs, one declaration per kind over one model:
 * `lib/api/project_repository_storage_moves.rb` (13.0, the bulk move 13.7),
 * `snippet_repository_storage_moves.rb` (13.8) and EE's `group_repository_storage_moves.rb` (13.9, a
 * group's wiki; premium). All behind `before { authenticated_as_admin! }`, which runs before Grape
 * validates the params: the routes validate theirs after it.
 */
import { findGroup, findProject } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { notFound, recordNotFound, validationError } from '../../core/errors.js';
import { scheduleJob } from '../../core/jobs.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { NO_SLASH_URL_PART, parse, type ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { storageMoveEntity } from './entities.js';
import {
  allMoves,
  configuredStorages,
  containerExists,
  JOB,
  moveErrors,
  movesOf,
  newestFirst,
  pickStorage,
  scheduleMove,
  storageOf,
} from './model.js';
import type { MoveKind, StorageMoveRecord } from './store.js';

interface KindRoutes {
  kind: MoveKind;
  /** The container's resource: `projects`, `snippets`, `groups`. */
  resource: string;
  tier?: 'premium';
  /** The container named by `:id`, or its 404 (`user_project`, `user_snippet`, `user_group`). */
  find(c: Ctx, id: string): number;
}

const KINDS: readonly KindRoutes[] = [
  { kind: 'project', resource: 'projects', find: (c, id) => findProject(c, id).id },
  {
    kind: 'snippet',
    resource: 'snippets',
    // `Snippet.find_by(id: params[:id])`, then `not_found!('Snippet')`.
    find: (c, id) => {
      const s = /^\d+$/.test(id) ? tget(state(c).issuables.snippets, Number(id)) : undefined;
      if (!s) throw notFound('Snippet', 'no snippet with this id');
      return s.id;
    },
  },
  { kind: 'group', resource: 'groups', tier: 'premium', find: (c, id) => findGroup(c, id).id },
];

const moveId = { repository_storage_move_id: p.int().required() };

/** `<Kind>::RepositoryStorageMove.find`: a move of a container that is gone is gone too. */
function findMove(c: Ctx, kind: MoveKind, id: number, containerId?: number): StorageMoveRecord {
  const st = state(c);
  const m = tget(st.storage_moves[kind], id);
  if (
    !m ||
    !containerExists(st, kind, m.container_id) ||
    (containerId !== undefined && m.container_id !== containerId)
  )
    throw recordNotFound('no storage move with this id');
  return m;
}

function declare(r: ApiRouter, k: KindRoutes): void {
  const { kind, tier } = k;
  const top = `/${kind}_repository_storage_moves`;
  const own = `/${k.resource}/:id/repository_storage_moves`;
  const base = { auth: 'admin' as const, ...(tier ? { tier } : {}) };
  const withId = { ...base, requirements: { id: NO_SLASH_URL_PART } };
  const render = (c: Ctx) => (m: StorageMoveRecord) => storageMoveEntity(c, m);

  r.get(top, base, (c) => {
    parse(c, paginationParams);
    return paginate(c, allMoves(state(c), kind), render(c));
  });

  r.get(`${top}/:repository_storage_move_id`, base, (c) => {
    const prm = parse(c, moveId);
    return c.json(storageMoveEntity(c, findMove(c, kind, prm.repository_storage_move_id)));
  });

  // The bulk move: `values: -> { Gitlab.config.repositories.storages.keys }` on both names, then the
  // worker (`accepted!`).
  r.post(top, base, (c) => {
    const storages = configuredStorages(state(c));
    const prm = parse(c, {
      source_storage_name: p.str().required().values(storages),
      destination_storage_name: p.str().values(storages),
    });
    const now = c.get('fx').clock.ms();
    write(c, (d) =>
      scheduleJob(d, JOB.bulk, now, {
        kind,
        source: prm.source_storage_name,
        destination: prm.destination_storage_name ?? null,
      }),
    );
    return c.json({ message: '202 Accepted' }, 202);
  });

  r.get(own, withId, (c) => {
    const id = k.find(c, c.req.param('id') ?? '');
    parse(c, paginationParams);
    return paginate(c, newestFirst(movesOf(state(c), kind, id)), render(c));
  });

  r.get(`${own}/:repository_storage_move_id`, withId, (c) => {
    const id = k.find(c, c.req.param('id') ?? '');
    const prm = parse(c, moveId);
    return c.json(storageMoveEntity(c, findMove(c, kind, prm.repository_storage_move_id, id)));
  });

  // `repository_storage_moves.build(declared_params.merge(source_storage_name: <its storage>))` and
  // `schedule`; the destination defaults to `Repository.pick_storage_shard`; the model's errors are a 400.
  r.post(own, withId, (c) => {
    const id = k.find(c, c.req.param('id') ?? '');
    const prm = parse(c, { destination_storage_name: p.str() });
    const st = state(c);
    const destination = prm.destination_storage_name ?? pickStorage(st);
    const errors = moveErrors(st, kind, id, storageOf(st, kind, id), destination);
    if (Object.keys(errors).length) throw validationError(errors);
    const clock = c.get('fx').clock;
    const now = { iso: clock.iso(), ms: clock.ms() };
    const rec = write(c, (d) => scheduleMove(d, kind, id, destination, now));
    return c.json(storageMoveEntity(c, rec), 201);
  });
}

export function storageMoveRoutes(r: ApiRouter): void {
  for (const k of KINDS) declare(r, k);
}
