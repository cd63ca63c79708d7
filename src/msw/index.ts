/**
 * Mock Service Worker integration: serves a fauxlab instance to code that calls `fetch` (or anything MSW
 * intercepts) in the same process, with no port and no server.
 */
import { http, type HttpHandler } from 'msw';
import type { Fauxlab } from '../app.js';

export interface FauxlabHandlersOptions {
  /**
   * The origin the code under test calls, e.g. `http://gitlab.test` or `http://127.0.0.1:4000`: the same
   * value you give your client as its host or URL. Only requests to this exact origin (scheme, host and
   * port) are answered; everything else is left to your other handlers and MSW's unhandled-request
   * strategy. A path is refused: fauxlab serves `/api/v4`, `/oauth` and `/__fauxlab` at the root.
   */
  baseUrl: string;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * MSW request handlers that send every request for `baseUrl` to a fauxlab instance, untouched: method,
 * headers, body and the raw (still percent-encoded) path arrive as the client sent them, so
 * `/api/v4/projects/group%2Fproject` stays encoded. For `setupServer` from `msw/node` (fauxlab runs on
 * Node), MSW 2 or 3.
 *
 * Each instance keeps its own state: give two instances two origins to run both in one process.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { Gitlab } from '@gitbeaker/rest';
 * import { createFauxlab } from 'fauxlab';
 * import { fauxlabHandlers } from 'fauxlab/msw';
 *
 * const fx = createFauxlab({
 *   scenario: { users: [{ username: 'root', admin: true, tokens: [{ token: 'root-token' }] }] },
 * });
 * const server = setupServer(...fauxlabHandlers(fx, { baseUrl: 'http://gitlab.test' }));
 * beforeAll(() => server.listen());
 * afterEach(() => fx.reset());
 * afterAll(() => server.close());
 *
 * test('who am I', async () => {
 *   const api = new Gitlab({ host: 'http://gitlab.test', token: 'root-token' });
 *   expect((await api.Users.showCurrentUser()).username).toBe('root');
 * });
 * ```
 */
export function fauxlabHandlers(
  instance: Pick<Fauxlab, 'fetch'>,
  options: FauxlabHandlersOptions,
): HttpHandler[] {
  const url = new URL(options.baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`fauxlabHandlers: baseUrl must be an http or https URL, got ${options.baseUrl}`);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '')
    throw new TypeError(
      `fauxlabHandlers: baseUrl must be an origin such as http://gitlab.test, without a path, got ${options.baseUrl}`,
    );
  // A RegExp without capture groups is matched against origin + raw pathname and decodes nothing, so a
  // malformed escape such as `%zz` still reaches the app (a string pattern would try to decode it).
  const sameOrigin = new RegExp(`^${escapeRegExp(url.origin)}/`);
  // MSW hands the resolver the intercepted request itself, body unread (it keeps its own clone for logs).
  return [http.all(sameOrigin, ({ request }) => instance.fetch(request))];
}
