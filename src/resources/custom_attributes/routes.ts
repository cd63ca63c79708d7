/**
 * Custom attributes of users, groups and projects (`/:kind/:id/custom_attributes`): key-value pairs only
 * administrators read and write. They live on the records themselves, where the lists' `custom_attributes`
 * filters and `with_custom_attributes` read them; each write gives the record a new prototype-free map.
 */
import type { Draft } from 'immer';
import { lookupGroup, lookupProject } from '../../core/access.js';
import { findUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, notFound, recordNotFound, validationError } from '../../core/errors.js';
import { dict, own } from '../../core/own.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';

type Kind = 'users' | 'groups' | 'projects';
type Attributes = Readonly<Record<string, string>>;
interface Holder {
  id: number;
  custom_attributes?: Attributes;
}

const RESOURCE: Record<Kind, string> = { users: 'User', groups: 'Group', projects: 'Project' };

function lookup(st: PlatformState, kind: Kind, id: string): Holder | undefined {
  if (kind === 'users') return findUser(st, id);
  if (kind === 'groups') return lookupGroup(st, id);
  return lookupProject(st, id);
}

/**
 * The record (found whatever its visibility, as the endpoints' non-raising finders do), then
 * `authorize!` on the instance: only administrators, anonymous callers included in the 403.
 */
function resource(c: Ctx, kind: Kind): Holder {
  const found = lookup(state(c), kind, c.req.param('id') ?? '');
  if (!c.get('viewer').user?.admin) throw forbidden();
  // The platform's endpoints go on with no record and fail; a 404 says what is missing instead.
  if (!found) throw notFound(RESOURCE[kind], 'no such record');
  return found;
}

const entity = (key: string, value: string) => ({ key, value });

function attribute(h: Holder, key: string): string {
  const value = own(h.custom_attributes, key);
  if (value === undefined) throw recordNotFound(`no custom attribute ${key}`);
  return value;
}

/** Replaces the record's map (never edits a shared one in place). */
function setAttributes(
  st: Draft<PlatformState>,
  kind: Kind,
  id: number,
  change: (m: Record<string, string>) => void,
) {
  const table = kind === 'users' ? st.users : kind === 'groups' ? st.groups : st.projects;
  const rec = tget(table as typeof st.users, id) as unknown as Holder;
  const next = Object.assign(dict<string>(), rec.custom_attributes);
  change(next);
  rec.custom_attributes = next;
}

const keyShape = { key: p.str().required() };

export function customAttributesRoutes(r: ApiRouter): void {
  for (const kind of ['users', 'groups', 'projects'] as const) {
    const base = `/${kind}/:id/custom_attributes`;

    r.get(base, { params: paginationParams }, (c) => {
      const h = resource(c, kind);
      return paginate(c, Object.entries(h.custom_attributes ?? {}), ([k, v]) => entity(k, v));
    });

    r.get(`${base}/:key`, { params: keyShape }, (c, prm) => {
      const h = resource(c, kind);
      return c.json(entity(prm.key, attribute(h, prm.key)));
    });

    r.put(`${base}/:key`, { params: { ...keyShape, value: p.str().required() } }, (c, prm) => {
      const h = resource(c, kind);
      if (prm.value.trim() === '') throw validationError({ value: ["can't be blank"] });
      write(c, (d) => setAttributes(d, kind, h.id, (m) => (m[prm.key] = prm.value)));
      return c.json(entity(prm.key, prm.value));
    });

    r.delete(`${base}/:key`, { params: keyShape }, (c, prm) => {
      const h = resource(c, kind);
      attribute(h, prm.key);
      write(c, (d) => setAttributes(d, kind, h.id, (m) => delete m[prm.key]));
      return c.body(null, 204);
    });
  }
}
