/**
 * Project and group labels (`lib/api/labels.rb`, `group_labels.rb`, the label part of `subscriptions.rb`):
 * list, get, create, update (`new_name`, colour names, priority), delete, subscribe, unsubscribe, and
 * promotion of a project label to a group label. Every route needs a user first (`before { authenticate! }`),
 * then valid params, then the project or group; writes need `admin_label` (reporters and up).
 */
import { ACCESS, findGroup, groupAccess } from '../../../core/access.js';
import { requireUser } from '../../../core/auth.js';
import { checkUnmodifiedSince } from '../../../core/conditional.js';
import { state, write, type Ctx } from '../../../core/context.js';
import { apiError, conflict, forbidden, notModified, validationError } from '../../../core/errors.js';
import { paginate, paginationParams } from '../../../core/pagination.js';
import { atLeastOneOf, exactlyOneOf, p } from '../../../core/params.js';
import { parse, type ApiRouter } from '../../../core/router.js';
import { tget } from '../../../core/table.js';
import type { Project } from '../../projects/model.js';
import { abilities } from '../access.js';
import { loadProject } from '../common.js';
import { createLabel } from '../model.js';
import {
  availableLabels,
  availableTitleTaken,
  findLabel,
  presentLabel,
  projectGroup,
  type LabelParent,
  type LabelQuery,
} from './finder.js';
import {
  deleteLabel,
  labelColor,
  labelErrors,
  labelSubscribed,
  ownerOf,
  promoteLabel,
  setLabelPriority,
  setLabelSubscription,
  updateLabel,
  type LabelChanges,
} from './model.js';

type Kind = 'project' | 'group';

/** `user_project` / `user_group`. */
function loadParent(c: Ctx, kind: Kind): LabelParent {
  return kind === 'project'
    ? { kind, project: loadProject(c) }
    : { kind, group: findGroup(c, c.req.param('id') ?? '') };
}

/** `authorize! :admin_label`: reporters and up of the project or group, and admins. */
function authorizeAdmin(c: Ctx, parent: LabelParent): void {
  const st = state(c);
  const user = c.get('viewer').user;
  const ok =
    parent.kind === 'project'
      ? abilities(st, user, parent.project).adminIssue
      : !!user && (user.admin || groupAccess(st, user, parent.group) >= ACCESS.REPORTER);
  if (!ok) throw forbidden();
}

const parentOwner = (parent: LabelParent) =>
  parent.kind === 'project' ? { project_id: parent.project.id } : { group_id: parent.group.id };

const bool = (dflt: boolean) => p.bool().default(dflt);

const listShapes = {
  project: {
    with_counts: bool(false),
    include_ancestor_groups: bool(true),
    search: p.str(),
    ...paginationParams,
  },
  group: {
    with_counts: bool(false),
    include_ancestor_groups: bool(true),
    include_descendant_groups: bool(false),
    only_group_labels: bool(true),
    search: p.str(),
    ...paginationParams,
  },
};

function list(kind: Kind) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, listShapes[kind]) as LabelQuery & { with_counts: boolean };
    const parent = loadParent(c, kind);
    return paginate(c, availableLabels(c, parent, prm), (l) => presentLabel(c, parent, l, prm.with_counts));
  };
}

const showShapes = {
  project: { name: p.str().required(), include_ancestor_groups: bool(true) },
  group: {
    name: p.str().required(),
    include_ancestor_groups: bool(true),
    include_descendant_groups: bool(false),
    only_group_labels: bool(true),
  },
};

function show(kind: Kind) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, showShapes[kind]);
    const parent = loadParent(c, kind);
    return c.json(presentLabel(c, parent, findLabel(c, parent, prm.name, prm)));
  };
}

const createShapes = {
  project: { name: p.str().required(), color: p.str().required(), description: p.str(), priority: p.int() },
  group: { name: p.str().required(), color: p.str().required(), description: p.str() },
};

function create(kind: Kind) {
  return (c: Ctx): Response => {
    const prm = parse(c, createShapes[kind]) as {
      name: string;
      color: string;
      description?: string;
      priority?: number;
    };
    const parent = loadParent(c, kind);
    authorizeAdmin(c, parent);
    const st = state(c);
    if (availableTitleTaken(c, parent, prm.name)) throw conflict('Label already exists');
    const fields = {
      title: prm.name.trim(),
      color: labelColor(prm.color)!,
      description: prm.description ?? null,
    };
    const errors = labelErrors(st, parentOwner(parent), fields);
    if (Object.keys(errors).length) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => {
      const id = createLabel(d, parentOwner(parent), fields, now);
      if (parent.kind === 'project' && prm.priority !== undefined)
        setLabelPriority(d, parent.project.id, id, prm.priority);
      return id;
    });
    return c.json(presentLabel(c, parent, tget(state(c).issuables.labels, id)!), 201);
  };
}

const changeShape = { new_name: p.str(), color: p.str(), description: p.str() };
const changeNames = {
  project: ['new_name', 'color', 'description', 'priority'],
  group: ['new_name', 'color', 'description'],
};

/** The update and delete routes name the label by path (`:name`), or by `label_id` / `name` (deprecated). */
function labelRef(c: Ctx, byPath: boolean, nameOnly = false): string {
  if (byPath || nameOnly) return parse(c, { name: p.str().required() }).name;
  const prm = parse(c, { label_id: p.int(), name: p.str() });
  exactlyOneOf(c.get('params'), 'label_id', 'name');
  return prm.label_id !== undefined ? String(prm.label_id) : prm.name!;
}

function update(kind: Kind, byPath: boolean) {
  return (c: Ctx): Response => {
    const raw = c.get('params');
    const prm = parse(c, kind === 'project' ? { ...changeShape, priority: p.int() } : changeShape) as {
      new_name?: string;
      color?: string;
      description?: string;
      priority?: number;
    };
    atLeastOneOf(raw, ...changeNames[kind]);
    const ref = labelRef(c, byPath);
    const parent = loadParent(c, kind);
    authorizeAdmin(c, parent);
    const st = state(c);
    const label = findLabel(c, parent, ref, {});
    const ch: LabelChanges = {};
    if (prm.new_name !== undefined) ch.title = prm.new_name.trim();
    if (prm.color !== undefined) ch.color = labelColor(prm.color);
    if (Object.hasOwn(raw, 'description')) ch.description = prm.description ?? null;
    const title = ch.title ?? label.title;
    // `title_must_not_exist_at_group_level`: a renamed project label may not take its group's label title.
    const own =
      label.project_id !== null && title !== label.title ? tget(st.projects, label.project_id) : undefined;
    const group = own ? projectGroup(st, own as Project) : undefined;
    const fields = { title, color: ch.color ?? label.color };
    const errors = labelErrors(st, ownerOf(label), fields, label.id, group ? [group] : []);
    if (Object.keys(errors).length) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      updateLabel(d, label.id, ch, now);
      if (parent.kind === 'project' && Object.hasOwn(raw, 'priority'))
        setLabelPriority(d, parent.project.id, label.id, prm.priority ?? null);
    });
    return c.json(presentLabel(c, parent, tget(state(c).issuables.labels, label.id)!));
  };
}

function remove(kind: Kind, byPath: boolean) {
  return (c: Ctx): Response => {
    // The group's deprecated delete takes `name` only.
    const ref = labelRef(c, byPath, kind === 'group');
    const parent = loadParent(c, kind);
    authorizeAdmin(c, parent);
    const label = findLabel(c, parent, ref, {});
    checkUnmodifiedSince(c, label.updated_at ?? label.created_at);
    write(c, (d) => deleteLabel(d, label.id));
    return c.body(null, 204);
  };
}

function subscription(kind: Kind, subscribe: boolean) {
  return (c: Ctx): Response => {
    const user = requireUser(c);
    const prm = parse(c, { subscribable_id: p.str().required() });
    const parent = loadParent(c, kind);
    const label = findLabel(c, parent, prm.subscribable_id, {});
    // `parent_resource`: the project for project routes, none for group routes.
    const projectId = parent.kind === 'project' ? parent.project.id : null;
    if (labelSubscribed(state(c), label.id, user.id, projectId) === subscribe) throw notModified();
    write(c, (d) => setLabelSubscription(d, label.id, user.id, projectId, subscribe));
    return c.json(presentLabel(c, parent, tget(state(c).issuables.labels, label.id)!), 201);
  };
}

function promote(c: Ctx): Response {
  const prm = parse(c, { name: p.str().required() });
  const parent: LabelParent = { kind: 'project', project: loadProject(c) };
  authorizeAdmin(c, parent);
  const label = findLabel(c, parent, prm.name, {});
  const group = projectGroup(state(c), parent.project);
  if (!group || label.project_id === null)
    throw apiError(400, 'Failed to promote project label to group label');
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => promoteLabel(d, label, group, now));
  return c.json(presentLabel(c, { kind: 'group', group }, tget(state(c).issuables.labels, id)!));
}

export function labelsRoutes(r: ApiRouter): void {
  // The deprecated promote route comes first, as in the platform: `labels/promote` is not a label's name.
  r.put('/projects/:id/labels/promote', promote);
  for (const kind of ['project', 'group'] as const) {
    const base = kind === 'project' ? '/projects/:id/labels' : '/groups/:id/labels';
    r.get(base, list(kind));
    r.get(`${base}/:name`, show(kind));
    r.post(base, create(kind));
    r.put(base, update(kind, false));
    r.put(`${base}/:name`, update(kind, true));
    r.delete(base, remove(kind, false));
    r.delete(`${base}/:name`, remove(kind, true));
    r.post(`${base}/:subscribable_id/subscribe`, subscription(kind, true));
    r.post(`${base}/:subscribable_id/unsubscribe`, subscription(kind, false));
  }
  r.put('/projects/:id/labels/:name/promote', promote);
}
