/**
 * `POST /container_registry_event/events` (`lib/api/container_registry_event.rb`): the registry's
 * notifications. Its `before` compares the `Authorization` header with
 * `Gitlab.config.registry.notification_secret` (`Devise.secure_compare`; no secret configured matches
 * nothing) and answers `401 Unauthorized`; no user token counts. The body is JSON of either content type
 * the registry sends. `ContainerRegistry::Event#handle!` does nothing in 13.12 (its tracking aside), so a
 * valid notification changes no record.
 */
import { timingSafeEqual } from 'node:crypto';
import { state, type Ctx } from '../../core/context.js';
import { grapeError, unauthorized } from '../../core/errors.js';
import { parseJsonBody, type ParamValue, type RawParams } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';

const DOCKER_EVENTS = 'application/vnd.docker.distribution.events.v1+json';
const ACTIONS = new Set(['push', 'delete', 'pull']);
const TARGET_STRINGS = ['tag', 'repository', 'digest'] as const;

function secureCompare(secret: string | null, given: string | undefined): boolean {
  if (secret === null || given === undefined) return false;
  const a = Buffer.from(secret);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

const isHash = (v: unknown): v is Record<string, ParamValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof File);

/**
 * The declared params: `requires :events, type: Array` of hashes with `requires :action` among push,
 * delete and pull, and an optional `target` hash of optional strings; Grape's messages, joined.
 */
function checkEvents(raw: RawParams): void {
  const events = Object.hasOwn(raw, 'events') ? raw.events : undefined;
  if (events === undefined || events === null) throw grapeError(400, 'events is missing');
  if (!Array.isArray(events) || !events.every(isHash)) throw grapeError(400, 'events is invalid');
  const problems: string[] = [];
  events.forEach((e, i) => {
    const at = `events[${i}]`;
    const action = Object.hasOwn(e, 'action') ? e.action : undefined;
    if (action === undefined || action === null) problems.push(`${at}[action] is missing`);
    else if (typeof action !== 'string' && typeof action !== 'number')
      problems.push(`${at}[action] is invalid`);
    else if (!ACTIONS.has(String(action))) problems.push(`${at}[action] does not have a valid value`);
    const target = Object.hasOwn(e, 'target') ? e.target : undefined;
    if (target === undefined || target === null) return;
    if (!isHash(target)) {
      problems.push(`${at}[target] is invalid`);
      return;
    }
    for (const k of TARGET_STRINGS) {
      const v = Object.hasOwn(target, k) ? target[k] : undefined;
      if (v !== undefined && v !== null && typeof v === 'object')
        problems.push(`${at}[target][${k}] is invalid`);
    }
  });
  if (problems.length) throw grapeError(400, problems.join(', '));
}

async function readEvents(c: Ctx): Promise<RawParams> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (type.startsWith('application/json') || type.startsWith(DOCKER_EVENTS))
    return parseJsonBody(await c.req.text());
  return Object.create(null) as RawParams;
}

export function eventsRoute(r: ApiRouter): void {
  r.post(
    '/container_registry_event/events',
    { auth: 'optional', ownCredentials: true, rawBody: true },
    async (c) => {
      const secret = state(c).container_registry.config.notification_secret;
      if (!secureCompare(secret, c.req.header('authorization'))) throw unauthorized();
      checkEvents(await readEvents(c));
      // `status :ok`, the endpoint's value.
      return c.json(200, 200);
    },
  );
}
