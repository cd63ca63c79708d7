/**
 * A record as the API renders it for a chosen user: the request goes through fauxlab's own API, on a
 * private instance holding the same world plus one throwaway personal token of that user, so that every
 * rule of visibility and every entity field is the API's own. The instance the dashboard shows is not
 * touched: no token appears in its world, nothing enters its journal or response cache, and no fault
 * applies.
 */
import { randomBytes } from 'node:crypto';
import { produce } from 'immer';
import type { Binding } from '../../host/instance.js';
import type { Fx } from '../../core/context.js';
import type { PlatformState } from '../../core/state.js';
import { addToken } from '../../resources/users/model.js';
import { redact } from '../../testing/journal.js';

export interface Rendered {
  status: number;
  /** The body, secrets filtered as the journal filters them, JSON pretty-printed. */
  body: string;
  truncated: boolean;
}

/** The longest body shown: a page of a large list would otherwise make the page itself huge. */
const MAX_BODY = 200_000;
/**
 * An API path to render: `/projects/3/issues/1`, a query allowed, bounded. No dot segment (the URL
 * parser resolves `..` and `%2e%2e` alike), so the path cannot leave `/api/v4`.
 */
export function renderablePath(path: string): boolean {
  if (!path.startsWith('/') || path.length > 2000 || /[\s\\#]/.test(path)) return false;
  const segments = path.split('?')[0]!.replace(/%2e/gi, '.').split('/');
  return !segments.some((s) => s === '.' || s === '..');
}

/** GET `/api/v4${path}` as `userId` (null: anonymously) against `state` at the instance's clock time. */
export async function renderAs(
  fx: Fx,
  spawn: Binding['spawn'],
  state: PlatformState,
  origin: string,
  path: string,
  userId: number | null,
): Promise<Rendered> {
  if (!renderablePath(path)) throw new Error('give an API path such as /projects/1');
  const shadow = spawn({
    journal: false,
    responseCache: false,
    controlPlane: false,
    impersonation: fx.impersonationEnabled,
    ...(fx.baseUrl !== undefined && { baseUrl: fx.baseUrl }),
    ...(fx.version !== undefined && { version: fx.version }),
  });
  const headers = new Headers({ Accept: 'application/json' });
  let world = state;
  if (userId !== null) {
    const secret = randomBytes(24).toString('hex');
    const now = fx.clock.iso();
    world = produce(state, (d) => {
      addToken(d, { user_id: userId, token: secret, name: 'fauxlab dashboard', scopes: ['api'] }, now);
    });
    headers.set('PRIVATE-TOKEN', secret);
  }
  shadow.restore({ state: world, clock: fx.clock.ms() });
  const res = await shadow.fetch(new Request(`${origin}/api/v4${path}`, { headers }));
  const text = await res.text();
  let body = text;
  try {
    body = JSON.stringify(redact(JSON.parse(text)), null, 2);
  } catch {
    // Not JSON (a raw file, a CSV): shown as it came.
  }
  const truncated = body.length > MAX_BODY;
  return { status: res.status, body: truncated ? body.slice(0, MAX_BODY) : body, truncated };
}
