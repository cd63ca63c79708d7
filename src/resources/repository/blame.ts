/**
 * `GET .../repository/files/:file_path/blame`: each line of a file at a ref with the commit that last
 * changed it, in runs of consecutive lines (`Entities::BlameRange`). Lines are followed back along the
 * first parents through each commit's diff of the file; bounded by the history walk's limit.
 */
import { state, type Ctx } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { Project } from '../projects/model.js';
import { readableRepo } from './access.js';
import { findCommit } from './commits.js';
import { editScript } from './diff.js';
import { gitTime } from './entities.js';
import { WALK_LIMIT } from './history.js';
import { TREE_MODE, type ObjectStore } from './objects.js';
import { objectsOf } from './store.js';
import { entryAt } from './tree.js';

const linesOf = (store: ObjectStore, blob: string): string[] => {
  const text = (store.raw(blob, 'blob') ?? Buffer.alloc(0)).toString('utf8');
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
};

/** The commit each line of the file at `head` comes from. */
function blame(store: ObjectStore, head: string, path: string): { lines: string[]; owners: string[] } {
  const blobAt = (commit: string) => {
    const e = entryAt(store, store.commit(commit)!.tree, path);
    return e && e.mode !== TREE_MODE ? e.id : undefined;
  };
  const lines = linesOf(store, blobAt(head)!);
  const owners: string[] = new Array<string>(lines.length);
  // Where each line of the current version sits in the file as `commit` has it.
  let tracked = lines.map((_, i) => [i, i] as [line: number, at: number]);
  let commit = head;
  let blob = blobAt(head)!;
  for (let steps = 0; tracked.length > 0 && steps < WALK_LIMIT; steps++) {
    const parent = store.commit(commit)!.parents[0];
    const parentBlob = parent ? blobAt(parent) : undefined;
    if (parentBlob === blob && parent) {
      commit = parent;
      continue;
    }
    if (!parent || parentBlob === undefined) {
      for (const [line] of tracked) owners[line] = commit;
      break;
    }
    // Map this version's lines to the parent's: kept lines move on, added ones belong to `commit`.
    const toParent = new Map<number, number>();
    let a = 0;
    let b = 0;
    for (const [kind] of editScript(linesOf(store, parentBlob), linesOf(store, blob))) {
      if (kind === ' ') toParent.set(b++, a++);
      else if (kind === '-') a++;
      else b++;
    }
    const next: [number, number][] = [];
    for (const [line, at] of tracked) {
      const up = toParent.get(at);
      if (up === undefined) owners[line] = commit;
      else next.push([line, up]);
    }
    tracked = next;
    commit = parent;
    blob = parentBlob;
  }
  for (const [line] of tracked) owners[line] ??= commit;
  return { lines, owners };
}

/** `Entities::BlameRangeCommit`. */
function blameCommit(store: ObjectStore, id: string) {
  const c = store.commit(id)!;
  return {
    id,
    parent_ids: [...c.parents],
    message: c.message,
    authored_date: gitTime(c.author.time, c.author.offset),
    author_name: c.author.name,
    author_email: c.author.email,
    committed_date: gitTime(c.committer.time, c.committer.offset),
    committer_name: c.committer.name,
    committer_email: c.committer.email,
  };
}

function blameRanges(c: Ctx, proj: Project, ref: string, path: string) {
  const store = objectsOf(state(c));
  const head = findCommit(c, proj, ref);
  const e = entryAt(store, store.commit(head)!.tree, path);
  if (!e || e.mode === TREE_MODE) throw notFound('File', 'no file at this path');
  const { lines, owners } = blame(store, head, path);
  const out: { commit: ReturnType<typeof blameCommit>; lines: string[] }[] = [];
  lines.forEach((line, i) => {
    const last = out[out.length - 1];
    if (last && owners[i - 1] === owners[i]) last.lines.push(line);
    else out.push({ commit: blameCommit(store, owners[i]!), lines: [line] });
  });
  return out;
}

export function blameRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/repository/files/:file_path/blame',
    {
      params: {
        id: p.str().required(),
        file_path: p.str().required(),
        ref: p.str().required(),
        ...paginationParams,
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      // 13.12 sends every range unpaginated; the spec's "every array answer is paginated" wins.
      return paginate(c, blameRanges(c, proj, prm.ref, prm.file_path), (r) => r);
    },
  );
}
