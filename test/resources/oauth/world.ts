import { createHash } from 'node:crypto';
import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';

/** The OAuth tests' world: users with passwords, applications of each kind, a private group project. */
export const oauthWorld: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  tier: 'premium',
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      password: 'rootpass123',
      tokens: [{ token: 'root-api', scopes: ['api'] }],
    },
    {
      username: 'alice',
      name: 'Alice Liddell',
      email: 'alice@example.com',
      password: 'alicepass123',
      tokens: [{ token: 'alice-api', scopes: ['api'] }],
    },
    { username: 'bob', name: 'Bob Builder', password: 'bobpass1234', two_factor_enabled: true },
    { username: 'mallory', name: 'Mallory', password: 'mallorypass1', state: 'blocked' },
    { username: 'carol', name: 'Carol Danvers', password: 'carolpass123' },
  ],
  groups: [{ path: 'acme', visibility: 'private', members: [{ username: 'alice', access_level: 'owner' }] }],
  projects: [{ path: 'acme/secret', visibility: 'private' }],
  oauth_applications: [
    {
      name: 'Test App',
      uid: 'app-uid',
      secret: 'app-secret',
      redirect_uri: ['http://127.0.0.1:9000/callback', 'https://example.com/cb?tenant=1'],
      scopes: 'api read_user',
    },
    {
      name: 'Trusted App',
      uid: 'trusted-uid',
      secret: 'trusted-secret',
      redirect_uri: 'https://trusted.example/cb',
      scopes: ['api'],
      trusted: true,
    },
    {
      name: 'Reader SPA',
      uid: 'spa-uid',
      secret: 'spa-secret',
      redirect_uri: 'https://spa.example/cb',
      scopes: ['read_user'],
      confidential: false,
    },
    {
      name: "Bob's Own",
      uid: 'own-uid',
      secret: 'own-secret',
      redirect_uri: 'https://own.example/cb',
      owner: 'bob',
    },
  ],
};

export const oauthFx = (options: FauxlabOptions = {}) => createFauxlab({ scenario: oauthWorld, ...options });

export type Fx = ReturnType<typeof createFauxlab>;

export async function json(res: Response): Promise<any> {
  const text = await res.text();
  return text === '' ? undefined : JSON.parse(text);
}

export const basic = (user: string, pass: string) =>
  `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** POSTs a form to `/oauth/token`. */
export function tokenRequest(fx: Fx, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fx.app.request('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** A browser's cookie jar and form handling, enough to walk the sign-in and consent pages. */
export class Browser {
  cookie = '';
  constructor(readonly fx: Fx) {}

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set('Cookie', this.cookie);
    const res = await this.fx.app.request(path, { ...init, headers });
    const set = res.headers.get('set-cookie');
    if (set) {
      const pair = set.split(';')[0]!;
      this.cookie = pair.endsWith('=') ? '' : pair;
    }
    return res;
  }

  get(path: string) {
    return this.request(path);
  }

  post(path: string, form: Record<string, string>) {
    return this.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** Signs in through the form; returns the sign-in response. */
  async signIn(login: string, password: string): Promise<Response> {
    const page = await (await this.get('/users/sign_in')).text();
    return this.post('/users/sign_in', {
      authenticity_token: csrfOf(page),
      'user[login]': login,
      'user[password]': password,
    });
  }

  /** Submits one of the consent page's forms (`Authorize` or `Deny`). */
  async decide(page: string, button: 'Authorize' | 'Deny'): Promise<Response> {
    const forms = [...page.matchAll(/<form[^>]*>([\s\S]*?)<\/form>/g)].map((m) => m[1]!);
    const form = forms.find((f) => f.includes(`value="${button}"`));
    if (!form) throw new Error(`no ${button} form`);
    const fields: Record<string, string> = {};
    for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      fields[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!);
    return this.post('/oauth/authorize', fields);
  }
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

export function csrfOf(page: string): string {
  const m = /name="authenticity_token" value="([^"]+)"/.exec(page);
  if (!m) throw new Error('no authenticity token on the page');
  return m[1]!;
}

export const authorizePath = (params: Record<string, string>) =>
  `/oauth/authorize?${new URLSearchParams(params).toString()}`;

/** Signs alice in, approves the Test App and returns the code of the redirect. */
export async function codeFor(
  fx: Fx,
  params: Record<string, string> = {},
  login: [string, string] = ['alice', 'alicepass123'],
): Promise<string> {
  const b = new Browser(fx);
  await b.signIn(...login);
  const page = await (
    await b.get(
      authorizePath({
        client_id: 'app-uid',
        redirect_uri: 'http://127.0.0.1:9000/callback',
        response_type: 'code',
        state: 'xyz',
        ...params,
      }),
    )
  ).text();
  const res = await b.decide(page, 'Authorize');
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`no redirect: ${res.status} ${await res.text()}`);
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}
