/**
 * The OAuth authorization code flow in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) signs in on fauxlab's sign-in page, approves or denies on the consent page, and lands on
 * a local redirect URI. `.ci/run` installs Chromium; without it these tests are skipped, saying why.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../src/index.js';
import { CHROMIUM, haveChromium, launchChromium } from './chromium.js';

interface Listening {
  server: Server;
  base: string;
}

function listen(server: Server): Promise<Listening> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

const close = (s: Server) =>
  new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });

describe.skipIf(!haveChromium)(`browser: OAuth consent in headless Chromium (${CHROMIUM})`, () => {
  let fx: Fauxlab;
  let app: Listening;
  let callback: Listening;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    fx = createFauxlab({
      scenario: {
        now: '2021-03-01T12:00:00.000Z',
        users: [{ username: 'alice', name: 'Alice Liddell', password: 'alicepass123' }],
        oauth_applications: [
          {
            name: 'Browser Test App',
            uid: 'browser-app',
            secret: 'browser-secret',
            // A loopback redirect URI matches on any port (RFC 8252), so the callback server may pick one.
            redirect_uri: 'http://127.0.0.1/callback',
            scopes: 'api read_user',
          },
        ],
      },
    });
    const s = serve({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 });
    app = await new Promise((resolve) => {
      const server = s as Server;
      const ready = () =>
        resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      if (server.listening) ready();
      else server.once('listening', ready);
    });
    // The client application's side: it only shows that the browser arrived.
    callback = await listen(
      createServer((req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(`<!DOCTYPE html><title>callback</title><p id="arrived">${req.url}</p>`);
      }),
    );
    ({ context, close: closeBrowser } = await launchChromium());
  }, 60_000);

  afterAll(async () => {
    await closeBrowser?.();
    if (app) await close(app.server);
    if (callback) await close(callback.server);
  });

  const authorizeUrl = (state: string) =>
    `${app.base}/oauth/authorize?${new URLSearchParams({
      client_id: 'browser-app',
      redirect_uri: `${callback.base}/callback`,
      response_type: 'code',
      state,
      scope: 'api read_user',
    })}`;

  it('browser: signs in, approves, lands on the redirect URI with a code that buys a working token', async () => {
    fx.reset();
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(authorizeUrl('state-approve'));
    expect(new URL(page.url()).pathname).toBe('/users/sign_in');
    await page.fill('#user_login', 'alice');
    await page.fill('#user_password', 'alicepass123');
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(/\/oauth\/authorize\?/);
    expect(await page.textContent('h1')).toBe('Authorize Browser Test App to use your account?');
    expect(
      await page.locator('li[data-scope]').evaluateAll((els) => els.map((e) => e.getAttribute('data-scope'))),
    ).toEqual(['api', 'read_user']);
    await page.click('button:has-text("Authorize")');
    await page.waitForURL(`${callback.base}/callback?**`);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).toBe('state-approve');
    const code = landed.searchParams.get('code');
    expect(code).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.textContent('#arrived')).toContain('code=');
    await page.close();

    const tokenRes = await fetch(`${app.base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        client_id: 'browser-app',
        client_secret: 'browser-secret',
        redirect_uri: `${callback.base}/callback`,
      }),
    });
    expect(tokenRes.status).toBe(200);
    const token = (await tokenRes.json()) as { access_token: string; scope: string; token_type: string };
    expect(token.token_type).toBe('Bearer');
    expect(token.scope).toBe('api read_user');
    const me = await fetch(`${app.base}/api/v4/user`, {
      headers: { Authorization: `Bearer ${token.access_token}` },
    });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe('alice');
  }, 60_000);

  it('browser: Deny sends the browser back with error=access_denied and the state', async () => {
    // A fresh world: consent given earlier would let the authorize page skip straight to the client.
    fx.reset();
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(authorizeUrl('state-deny'));
    await page.fill('#user_login', 'alice');
    await page.fill('#user_password', 'alicepass123');
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(/\/oauth\/authorize\?/);
    await page.click('button:has-text("Deny")');
    await page.waitForURL(`${callback.base}/callback?**`);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('error_description')).toBe(
      'The resource owner or authorization server denied the request.',
    );
    expect(landed.searchParams.get('state')).toBe('state-deny');
    expect(landed.searchParams.has('code')).toBe(false);
    await page.close();
  }, 60_000);
});
