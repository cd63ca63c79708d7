/**
 * The topics API (`/topics`): anyone lists and reads topics; administrators create, update and delete
 * them. The platform added it after the 13.x era; its first shape is served, with `title` from 15.0
 * (topics/versions.ts).
 */
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import {
  createTopic,
  deleteTopic,
  mergeTopics,
  topicErrors,
  updateTopic,
  type TopicChanges,
} from './model.js';
import type { TopicRecord } from './store.js';
import { has } from '../../core/versions.js';
import { TOPIC_TITLE, TOPICS_API, TOPICS_DELETE, TOPICS_MERGE_SOURCE } from './versions.js';

/** `Entities::Projects::Topic`. */
export function topicEntity(c: Ctx, t: TopicRecord) {
  return {
    id: t.id,
    name: t.name,
    ...(has(c, TOPIC_TITLE) && { title: t.title ?? t.name }),
    description: t.description,
    total_projects_count: t.total_projects_count,
    avatar_url: t.avatar_url === null ? null : `${requestBase(c)}${t.avatar_url}`,
  };
}

/** `Gitlab::SQL::Pattern`: three characters or more match anywhere in the name; fewer match it whole. */
function searchTopics(all: TopicRecord[], search: string): TopicRecord[] {
  const q = search.toLowerCase();
  const rank = (t: TopicRecord) => {
    const n = t.name.toLowerCase();
    return n === q ? 0 : n.startsWith(q) ? 1 : 2;
  };
  const hits = all.filter((t) =>
    q.length >= 3 ? t.name.toLowerCase().includes(q) : t.name.toLowerCase() === q,
  );
  // `reorder_by_similarity`: the closest names first, then the usual order.
  return hits.sort((a, b) => rank(a) - rank(b) || byCount(a, b));
}

/** `order_by_total_projects_count`. */
const byCount = (a: TopicRecord, b: TopicRecord) =>
  b.total_projects_count - a.total_projects_count || a.id - b.id;

const avatarPath = (id: number, file: File) =>
  `/uploads/-/system/projects/topic/avatar/${id}/${(file.name || 'avatar.png').replace(/[^A-Za-z0-9._-]/g, '_')}`;

function findTopic(st: PlatformState, id: number): TopicRecord {
  const t = tget(st.topics.records, id);
  if (!t) throw recordNotFound(`no topic ${id}`);
  return t;
}

const idShape = { id: p.int().required() };

export function topicsRoutes(r: ApiRouter): void {
  r.get('/topics', { params: { search: p.str(), ...paginationParams }, ...TOPICS_API }, (c, prm) => {
    const all = tvalues(state(c).topics.records);
    const list = prm.search ? searchTopics(all, prm.search) : all.sort(byCount);
    return paginate(c, list, (t) => topicEntity(c, t));
  });

  r.get('/topics/:id', { params: idShape, ...TOPICS_API }, (c, prm) =>
    c.json(topicEntity(c, findTopic(state(c), prm.id))),
  );

  // Two routes for one path: the title param and its requirement came with 15.0.
  const create = (c: Ctx, prm: { name: string; title?: string; description?: string; avatar?: File }) => {
    const name = prm.name.trim();
    const description = prm.description ?? null;
    const errors = topicErrors(state(c), { name, description });
    if (prm.title !== undefined && prm.title.trim() === '') errors.title = ["can't be blank"];
    if (Object.keys(errors).length) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => {
      const id = createTopic(d, { name, description }, now);
      const rec = tget(d.topics.records, id)!;
      if (prm.title !== undefined) rec.title = prm.title.trim();
      if (prm.avatar) rec.avatar_url = avatarPath(id, prm.avatar);
      return id;
    });
    return c.json(topicEntity(c, tget(state(c).topics.records, id)!), 201);
  };
  const createParams = { name: p.str().required(), description: p.str(), avatar: p.file() };
  r.post(
    '/topics',
    {
      auth: 'admin',
      params: createParams,
      since: TOPICS_API.since,
      until: '15.0',
      source: TOPICS_API.source,
    },
    create,
  );
  r.post(
    '/topics',
    {
      auth: 'admin',
      params: { ...createParams, title: p.str().required() },
      since: '15.0',
      source: TOPIC_TITLE.source,
    },
    create,
  );

  r.post(
    '/topics/merge',
    {
      auth: 'admin',
      params: { source_topic_id: p.int().required(), target_topic_id: p.int().required() },
      since: '15.4',
      source: TOPICS_MERGE_SOURCE,
    },
    (c, prm) => {
      const st = state(c);
      findTopic(st, prm.source_topic_id);
      findTopic(st, prm.target_topic_id);
      // `Topics::MergeService#validate_parameters!`
      if (prm.source_topic_id === prm.target_topic_id)
        throw apiError(400, 'The source topic and the target topic are identical.');
      const now = c.get('fx').clock.iso();
      write(c, (d) => mergeTopics(d, prm.source_topic_id, prm.target_topic_id, now));
      return c.json(topicEntity(c, tget(state(c).topics.records, prm.target_topic_id)!), 201);
    },
  );

  r.put(
    '/topics/:id',
    {
      auth: 'admin',
      params: { ...idShape, name: p.str(), title: p.str(), description: p.str(), avatar: p.file() },
      ...TOPICS_API,
    },
    (c, prm) => {
      const t = findTopic(state(c), prm.id);
      const ch: TopicChanges = {};
      if (prm.name !== undefined) ch.name = prm.name.trim();
      // Declared at every release; before 15.0 Grape would not declare it, so it is ignored there.
      if (prm.title !== undefined && has(c, TOPIC_TITLE)) {
        if (prm.title.trim() === '') throw validationError({ title: ["can't be blank"] });
        ch.title = prm.title.trim();
      }
      if (prm.description !== undefined) ch.description = prm.description;
      if (prm.avatar) ch.avatar_url = avatarPath(t.id, prm.avatar);
      // `avatar=` with no file removes the avatar.
      else if (c.get('params').avatar === '' || c.get('params').avatar === null) ch.avatar_url = null;
      const errors = topicErrors(
        state(c),
        { name: ch.name ?? t.name, description: ch.description ?? t.description },
        t.id,
      );
      if (Object.keys(errors).length) throw validationError(errors);
      const now = c.get('fx').clock.iso();
      write(c, (d) => updateTopic(d, t.id, ch, now));
      return c.json(topicEntity(c, tget(state(c).topics.records, t.id)!));
    },
  );

  r.delete('/topics/:id', { auth: 'admin', params: idShape, ...TOPICS_DELETE }, (c, prm) => {
    const t = findTopic(state(c), prm.id);
    checkUnmodifiedSince(c, t.updated_at);
    write(c, (d) => deleteTopic(d, t.id));
    return c.body(null, 204);
  });
}
