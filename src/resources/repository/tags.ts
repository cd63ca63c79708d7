/**
 * The tags API (`lib/api/tags.rb`): list, get, create (lightweight, or annotated with a message) and
 * delete. Reads need `download_code`, writes `admin_tag` (developers). The release notes of a tag
 * (`POST`/`PUT .../tags/:tag_name/release`, deprecated in 11.7 and still served by 13.12) write the
 * release of the tag as the releases area keeps it.
 */
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, notFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { NO_SLASH_URL_PART, type ApiRouter } from '../../core/router.js';
import type { Project } from '../projects/model.js';
import { authorizePush, canPushCode, readableRepo } from './access.js';
import { parse } from '../../core/router.js';
import { emitEvent } from '../integrations/events.js';
import { commitEntity } from './entities.js';
import { validRefName } from './names.js';
import { pushRefs } from './post-receive.js';
import { names, peel, refTarget, resolveCommit } from './refs.js';
import { tagProtected, tagRefusal } from './protect.js';
import { objectsOf } from './store.js';
import { refuseByPushRule, signatureOf } from './write.js';
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { createRelease, deleteRelease } from '../releases/model.js';
import { releaseOfTag } from '../releases/store.js';

/** `Entities::Tag`. */
function tagEntity(c: Ctx, proj: Project, name: string) {
  const store = objectsOf(state(c));
  const target = refTarget(state(c), proj, 'tag', name)!;
  const annotated = store.tag(target);
  return {
    name,
    message: annotated ? annotated.message : '',
    target,
    commit: commitEntity(c, proj, peel(store, target)),
    // `Entities::TagRelease`.
    release: tagRelease(state(c), proj.id, name),
    protected: tagProtected(state(c), proj.id, name),
  };
}

function tagRelease(st: PlatformState, projectId: number, tag: string) {
  const rel = releaseOfTag(st, projectId, tag);
  return rel ? { tag_name: rel.tag, description: rel.description } : null;
}

function findTag(c: Ctx, proj: Project, name: string): void {
  if (refTarget(state(c), proj, 'tag', name) === undefined) throw notFound('Tag', 'no tag by this name');
}

/** `TAG_ENDPOINT_REQUIREMENTS`: a tag name keeps a `.json` suffix. */
const TAG = { id: NO_SLASH_URL_PART, tag_name: NO_SLASH_URL_PART };

export function tagRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/repository/tags',
    {
      params: {
        id: p.str().required(),
        sort: p.str().values(['asc', 'desc']).default('desc'),
        order_by: p.str().values(['name', 'updated']).default('updated'),
        search: p.str(),
        ...paginationParams,
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      const st = state(c);
      const store = objectsOf(st);
      const q = prm.search?.toLowerCase();
      let list = names(st, proj, 'tag');
      if (q) {
        const anchored = (n: string) =>
          q.startsWith('^')
            ? n.startsWith(q.slice(1))
            : q.endsWith('$')
              ? n.endsWith(q.slice(0, -1))
              : n.includes(q);
        list = list.filter((n) => anchored(n.toLowerCase()));
      }
      const time = (n: string) =>
        store.commit(peel(store, refTarget(st, proj, 'tag', n)!))?.committer.time ?? 0;
      const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      list.sort(prm.order_by === 'name' ? byName : (a, b) => time(a) - time(b) || byName(a, b));
      if (prm.sort === 'desc') list.reverse();
      return paginate(c, list, (n) => tagEntity(c, proj, n));
    },
  );

  r.get(
    '/projects/:id/repository/tags/:tag_name',
    { params: { id: p.str().required(), tag_name: p.str().required() }, requirements: TAG },
    (c, prm) => {
      const proj = readableRepo(c);
      findTag(c, proj, prm.tag_name);
      return c.json(tagEntity(c, proj, prm.tag_name));
    },
  );

  r.post(
    '/projects/:id/repository/tags',
    {
      params: {
        id: p.str().required(),
        tag_name: p.str().required(),
        ref: p.str().required(),
        message: p.str(),
        release_description: p.str(),
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      authorizePush(c, proj);
      const st = state(c);
      if (!validRefName(prm.tag_name)) throw apiError(400, 'Tag name invalid');
      const commit = resolveCommit(st, proj, prm.ref);
      if (commit === undefined) throw apiError(400, `Target ${prm.ref} is invalid`);
      // `Tags::CreateService`: the tag is written through the hooks, whose `TagCheck` refusal is the 400.
      const refusal = tagRefusal(st, c.get('viewer').user, proj, prm.tag_name, {
        creating: true,
        deleting: false,
        exists: false,
      });
      if (refusal !== undefined) throw apiError(400, refusal);
      if (refTarget(st, proj, 'tag', prm.tag_name) !== undefined)
        throw apiError(400, `Tag ${prm.tag_name} already exists`);
      let target = commit;
      if (prm.message) {
        const tagger = signatureOf(c.get('viewer').user!, Math.floor(c.get('fx').clock.ms() / 1000));
        target = objectsOf(st).putTag({
          object: commit,
          type: 'commit',
          tag: prm.tag_name,
          tagger,
          message: prm.message,
        });
      }
      const now = c.get('fx').clock.iso();
      // `Tags::CreateService` through Gitaly's `UserCreateTag`, whose hooks run the post-receive step
      // (`Git::TagPushService`): the tag push event, hooks and pipeline, as a `git push` of the tag.
      pushRefs(c, proj, [{ kind: 'tag', name: prm.tag_name, id: target }], (d) => {
        // Releases made through the tags API (deprecated in 11.7, still honoured): named after the tag.
        if (prm.release_description)
          createRelease(
            d,
            proj.id,
            {
              tag: prm.tag_name,
              name: prm.tag_name,
              description: prm.release_description,
              sha: commit,
              author_id: c.get('viewer').user!.id,
              released_at: now,
              milestone_ids: [],
              links: [],
            },
            now,
          );
      });
      return c.json(tagEntity(c, proj, prm.tag_name), 201);
    },
  );

  r.delete(
    '/projects/:id/repository/tags/:tag_name',
    { params: { id: p.str().required(), tag_name: p.str().required() }, requirements: TAG },
    (c, prm) => {
      const proj = readableRepo(c);
      authorizePush(c, proj);
      if (refTarget(state(c), proj, 'tag', prm.tag_name) === undefined) throw apiError(404, 'No such tag');
      // `Tags::DestroyService`: `rm_tag` runs the hooks; `TagCheck` refuses a protected tag (400).
      const refusal = tagRefusal(state(c), c.get('viewer').user, proj, prm.tag_name, {
        creating: false,
        deleting: true,
        exists: true,
      });
      if (refusal !== undefined) throw apiError(400, refusal);
      // `Tags::DestroyService` takes the tag's release (and its links) with it.
      refuseByPushRule(state(c), proj, 'tag', prm.tag_name, { deleting: true });
      const rel = releaseOfTag(state(c), proj.id, prm.tag_name);
      // Gitaly's `UserDeleteTag` runs the hooks too: a tag push with the blank after.
      pushRefs(c, proj, [{ kind: 'tag', name: prm.tag_name, id: null }], (d) => {
        if (rel) deleteRelease(d, rel.id);
      });
      return c.body(null, 204);
    },
  );
  tagReleaseRoutes(r);
}

const releaseShape = { tag_name: p.str().required(), description: p.str().required() };

/**
 * `POST`/`PUT /projects/:id/repository/tags/:tag_name/release` (`Entities::TagRelease`). The API's
 * `before { authorize! :download_code }` comes first, then Grape's params, then `create_release` /
 * `update_release`: the latter is asked of the tag's release, and a tag without one is a 403 for
 * everybody (the platform authorizes on a nil release). POST refuses a tag that does not exist (the
 * legacy route makes none), then `Releases::CreateService` (409 when the tag has a release; the
 * release's validations as the message); PUT `Releases::UpdateService` (the model's errors hash).
 */
function tagReleaseRoutes(r: ApiRouter): void {
  const path = '/projects/:id/repository/tags/:tag_name/release';
  const entity = (tag: string, description: string) => ({ tag_name: tag, description });

  r.post(path, { requirements: TAG }, (c) => {
    const proj = readableRepo(c);
    const prm = parse(c, releaseShape);
    const st = state(c);
    const user = c.get('viewer').user;
    if (!canPushCode(st, user, proj)) throw forbidden();
    if (refTarget(st, proj, 'tag', prm.tag_name) === undefined) throw notFound('Tag', 'no tag by this name');
    if (releaseOfTag(st, proj.id, prm.tag_name)) throw apiError(409, 'Release already exists');
    if (prm.description.trim() === '') throw apiError(400, "Validation failed: Description can't be blank");
    const now = c.get('fx').clock.iso();
    const sha = peel(objectsOf(st), refTarget(st, proj, 'tag', prm.tag_name)!);
    const id = write(c, (d) =>
      createRelease(
        d,
        proj.id,
        {
          tag: prm.tag_name,
          name: prm.tag_name,
          description: prm.description,
          sha,
          author_id: user!.id,
          released_at: now,
          milestone_ids: [],
          links: [],
        },
        now,
      ),
    );
    emitEvent(c, { kind: 'release', id, action: 'create' });
    return c.json(entity(prm.tag_name, prm.description), 201);
  });

  r.put(path, { requirements: TAG }, (c) => {
    const proj = readableRepo(c);
    const prm = parse(c, releaseShape);
    const st = state(c);
    const rel = releaseOfTag(st, proj.id, prm.tag_name);
    if (!rel || !canPushCode(st, c.get('viewer').user, proj)) throw forbidden();
    if (refTarget(st, proj, 'tag', rel.tag) === undefined) throw apiError(404, 'Tag does not exist');
    if (prm.description.trim() === '') throw apiError(400, { description: ["can't be blank"] });
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      const rec = tget(d.releases.records, rel.id)!;
      rec.description = prm.description;
      rec.updated_at = now;
    });
    emitEvent(c, { kind: 'release', id: rel.id, action: 'update' });
    return c.json(entity(rel.tag, prm.description));
  });
}
