/** The token tests run in the OAuth tests' world; requests go to the API as root unless told otherwise. */
import { request } from '../helpers.js';
import type { Fx } from '../oauth/world.js';

export { json, oauthFx, type Fx } from '../oauth/world.js';

/** A request to an API path (under `/api/v4`) with a private token (root's by default), a JSON body when given. */
export const call = (
  fx: Fx,
  method: string,
  path: string,
  token = 'root-api',
  body?: Record<string, unknown>,
) => request(fx, method, `/api/v4${path}`, { token, body });
