/**
 * The Terraform http backend of 13.12 (`lib/api/terraform/state.rb`, `state_version.rb`, through
 * `Terraform::RemoteStateHandler`). What Terraform sends: `POST .../lock` with its lock info as JSON,
 * `GET` the state, `POST` the new state with `?ID=<lock id>`, `DELETE .../lock` with the lock info
 * again. The platform's answers, exactly:
 * - The state file goes back as it came, with no Content-Type (`env['api.format'] = :binary`, a format
 *   the API declares no content type for); the lock info likewise.
 * - `POST` and `DELETE` of the state end in `body false; status :ok`: 200 with the JSON empty string.
 *   `DELETE .../lock` answers its last expression, `status :ok` (or `:conflict`): the JSON numbers 200
 *   and 409.
 * - A lock ID that is not the state's (or one given for an unlocked state) raises `StateLockedError`,
 *   which only the unlock route rescues (409): the state routes answer it with the API's 500, as they
 *   do a serial the state already has (the versions' unique index) or a body without one.
 * - A write, a lock and an unlock create the state when it does not exist (`create_or_find_by`); a read
 *   of a missing state is `ActiveRecord::RecordNotFound` (`404 Not found`).
 */
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, grapeError, internalError, notFound, recordNotFound } from '../../core/errors.js';
import { parseJsonBody, type RawParams } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { authorizeState, stateProject } from './access.js';
import {
  addStateVersion,
  createOrFindState,
  deleteState,
  deleteStateVersion,
  findState,
  latestVersion,
  stateVersions,
} from './model.js';
import type { TerraformStateRecord } from './store.js';

const STATE = '/projects/:id/terraform/state/:name';

/** States together, when the instance sets no upload total. */
const DEFAULT_STATES_TOTAL = 512 * 1024 * 1024;

/**
 * The state's name: the path segment up to its first dot. Grape's `:name` takes no dot and the rest is
 * the route's optional format, so `prod.tfstate` is the state `prod` (13.12 has no
 * `allow_dots_on_tf_state_names`).
 */
function stateName(c: Ctx): string {
  const raw = c.req.param('name') ?? '';
  const dot = raw.indexOf('.');
  return dot < 0 ? raw : raw.slice(0, dot);
}

/** A body of bytes with no Content-Type, as Grape sends the `:binary` format. */
const binary = (bytes: Uint8Array, status: 200 | 409 = 200) =>
  new Response(bytes as Uint8Array<ArrayBuffer>, { status });

/** `optional :ID, type: String, limit: 255` (and `requires` on the lock), as Grape words its errors. */
function lockId(raw: RawParams, required: boolean, problems: string[]): string | null {
  const v = raw.ID;
  if (v === undefined || v === null) {
    if (required) problems.push('ID is missing');
    return null;
  }
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
    problems.push('ID is invalid');
    return null;
  }
  const s = String(v);
  // `API::Validations::Validators::Limit`'s message, after Grape's `%{attributes} %{message}`.
  if (s.length > 255) problems.push('ID ID must be less than 255 characters');
  return s;
}

const failIf = (problems: string[]) => {
  if (problems.length) throw grapeError(400, problems.join(', '));
};

/** `lock_matches?`: both unlocked and no ID, or the IDs equal. */
const lockMatches = (s: TerraformStateRecord, id: string | null) =>
  (s.lock_xid === null && id === null) || (s.lock_xid ?? '') === (id ?? '');

/** `find_state!`: the state must exist. */
function existingState(c: Ctx, projectId: number, name: string): TerraformStateRecord {
  const s = findState(state(c), projectId, name);
  if (!s) throw recordNotFound('no Terraform state of this name');
  return s;
}

/** The serial a posted state gives its version (`params[:serial]`, cast as an integer column does). */
function serialOf(raw: RawParams): number | null {
  const v = raw.serial;
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\s*[-+]?\d+/.test(v)) return Number.parseInt(v, 10);
  return null;
}

export function terraformStateRoutes(r: ApiRouter): void {
  r.get(STATE, { auth: 'optional' }, (c) => {
    const { project } = stateProject(c);
    const problems: string[] = [];
    lockId(c.get('params'), false, problems);
    failIf(problems);
    const s = existingState(c, project.id, stateName(c));
    const latest = latestVersion(state(c), s.id);
    if (!latest) return c.body(null, 204);
    return binary(new Uint8Array(Buffer.from(latest.data, 'base64')));
  });

  r.post(STATE, { auth: 'optional', rawBody: true }, async (c) => {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const type = (c.req.header('content-type') ?? '').toLowerCase();
    // Grape reads a JSON body into the params before anything else (an unreadable one is its 400).
    const raw: RawParams = { ...c.get('params') };
    if (type.startsWith('application/json'))
      Object.assign(raw, parseJsonBody(Buffer.from(bytes).toString('utf8')));
    const { actor, project } = stateProject(c);
    const problems: string[] = [];
    const id = lockId(raw, false, problems);
    failIf(problems);
    authorizeState(c, actor.user, project, 'admin_terraform_state');
    if (bytes.byteLength === 0) return c.body(null, 204);
    const total = c.get('fx').maxUploadsTotal ?? DEFAULT_STATES_TOTAL;
    if (state(c).terraform.bytes + bytes.byteLength > total)
      throw apiError(413, '413 Request Entity Too Large');
    const name = stateName(c);
    const serial = serialOf(raw);
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      const s = createOrFindState(d, project.id, name, now);
      if (!lockMatches(s, id)) throw internalError();
      // `version` is NOT NULL and unique per state.
      if (serial === null || stateVersions(d, s.id).some((v) => v.version === serial)) throw internalError();
      addStateVersion(d, s, { version: serial, bytes, ci_build_id: actor.job?.build.id ?? null, now });
    });
    return c.json('', 200);
  });

  r.delete(STATE, { auth: 'optional' }, (c) => {
    const { actor, project } = stateProject(c);
    const problems: string[] = [];
    const id = lockId(c.get('params'), false, problems);
    failIf(problems);
    authorizeState(c, actor.user, project, 'admin_terraform_state');
    const name = stateName(c);
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      const s = createOrFindState(d, project.id, name, now);
      if (!lockMatches(s, id)) throw internalError();
      // `ensure_state_is_unlocked` aborts the destroy: `destroy!` raises RecordNotDestroyed.
      if (s.lock_xid !== null) throw internalError();
      deleteState(d, s.id);
    });
    return c.json('', 200);
  });

  r.post(`${STATE}/lock`, { auth: 'optional' }, (c) => {
    const { actor, project } = stateProject(c);
    const raw = c.get('params');
    const problems: string[] = [];
    const id = lockId(raw, true, problems);
    const info: Record<string, string> = {};
    for (const k of ['Operation', 'Info', 'Who', 'Version', 'Created', 'Path']) {
      const v = raw[k];
      if (v === undefined || v === null) problems.push(`${k} is missing`);
      else if (typeof v === 'object') problems.push(`${k} is invalid`);
      else info[k] = String(v);
    }
    failIf(problems);
    authorizeState(c, actor.user, project, 'admin_terraform_state');
    // `lock!` raises ArgumentError on a blank ID: the API's 500.
    if (id === null || id.trim() === '') throw internalError();
    const name = stateName(c);
    const now = c.get('fx').clock.iso();
    const locked = write(c, (d) => {
      const s = createOrFindState(d, project.id, name, now);
      if (s.lock_xid !== null) return false;
      s.lock_xid = id;
      s.locked_by_user_id = actor.user.id;
      s.locked_at = now;
      s.updated_at = now;
      return true;
    });
    const s = findState(state(c), project.id, name)!;
    const holder = s.locked_by_user_id === null ? undefined : tget(state(c).users, s.locked_by_user_id);
    // The request's Operation, Info, Version and Path; the lock's own ID, holder and time.
    const body = {
      Operation: info.Operation,
      Info: info.Info,
      Version: info.Version,
      Path: info.Path,
      ID: s.lock_xid,
      Who: holder?.username ?? null,
      Created: s.locked_at,
    };
    return binary(new TextEncoder().encode(JSON.stringify(body)), locked ? 200 : 409);
  });

  r.delete(`${STATE}/lock`, { auth: 'optional' }, (c) => {
    const { actor, project } = stateProject(c);
    const problems: string[] = [];
    const id = lockId(c.get('params'), false, problems);
    failIf(problems);
    authorizeState(c, actor.user, project, 'admin_terraform_state');
    const name = stateName(c);
    const now = c.get('fx').clock.iso();
    // force-unlock sends no ID: any lock goes. A lock ID that is not the state's (a state not yet made
    // holds none) is the 409 before any write, so the refused unlock changes nothing.
    const held = findState(state(c), project.id, name);
    if (id !== null && !(held ? lockMatches(held, id) : id === '')) return c.json(409, 409);
    const unlocked = write(c, (d) => {
      const s = createOrFindState(d, project.id, name, now);
      if (id !== null && !lockMatches(s, id)) return false;
      s.lock_xid = null;
      s.locked_by_user_id = null;
      s.locked_at = null;
      s.updated_at = now;
      return true;
    });
    return unlocked ? c.json(200, 200) : c.json(409, 409);
  });

  // ---- Versions (`state_version.rb`)
  const VERSION = `${STATE}/versions/:serial`;

  /** `requires :serial, type: Integer`, then the state (404 Not found) and its version (404 Not Found). */
  function findVersion(c: Ctx, projectId: number) {
    const raw = c.req.param('serial') ?? '';
    if (!/^\s*[-+]?\d+\s*$/.test(raw)) throw grapeError(400, 'serial is invalid');
    const serial = Number.parseInt(raw, 10);
    const s = existingState(c, projectId, stateName(c));
    const v = stateVersions(state(c), s.id).find((x) => x.version === serial);
    if (!v) throw notFound();
    return v;
  }

  r.get(VERSION, { auth: 'optional' }, (c) => {
    const { project } = stateProject(c);
    const v = findVersion(c, project.id);
    return binary(new Uint8Array(Buffer.from(v.data, 'base64')));
  });

  r.delete(VERSION, { auth: 'optional' }, (c) => {
    const { actor, project } = stateProject(c);
    authorizeState(c, actor.user, project, 'admin_terraform_state');
    const v = findVersion(c, project.id);
    write(c, (d) => deleteStateVersion(d, v.id));
    return c.body(null, 204);
  });
}
