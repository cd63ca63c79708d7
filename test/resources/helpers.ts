/** What the resource tests' worlds share: requests in process, parsed bodies, API tokens. */
import type { createFauxlab } from '../../src/index.js';

type Fx = Pick<ReturnType<typeof createFauxlab>, 'app'>;

/** Scenario tokens: one `api` token. */
export const tok = (token: string) => [{ token, scopes: ['api'] as ['api'] }];

export interface CallOptions {
  token?: string;
  body?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
}

/** A request with a private token (or none), a JSON body or a form when given, extra headers when given. */
export async function request(fx: Fx, method: string, path: string, o: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers['PRIVATE-TOKEN'] = o.token;
  let body: BodyInit | undefined;
  if (o.form) body = o.form;
  else if (o.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(o.body);
  }
  return fx.app.request(path, { method, headers, body });
}

/** The path under `/api/v4`, unless it already names the API or an admin route (`/__...`). */
export const apiPath = (path: string) =>
  path.startsWith('/api/') || path.startsWith('/__') ? path : `/api/v4${path}`;

/** The response body parsed (undefined when empty). */
export async function json(res: Response): Promise<any> {
  const text = await res.text();
  return text === '' ? undefined : JSON.parse(text);
}
