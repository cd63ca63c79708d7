/**
 * The dashboard in a real browser: headless Chromium opens `/__fauxlab/` on a served instance while a
 * client makes requests, and drives the clock, faults and snapshots from the page. With
 * `FAUXLAB_SCREENSHOTS=1` the tests save a screenshot of each view to docs/images/ (the README shows
 * one); otherwise they go to a temporary directory, so that a test run leaves the tree as it was.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../src/index.js';
import { deliveries } from '../../src/resources/integrations/delivery.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import { localServers } from '../helpers.js';
import { CHROMIUM, haveChromium, launchChromium } from './chromium.js';

const listen = localServers();
const ROOT = { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' };
const TOKEN = 'dashboard-admin-token';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  settings: { allow_local_requests_from_web_hooks_and_services: true },
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [{ token: 'root-api', scopes: ['api'] }],
    },
    { username: 'alice', name: 'Alice Liddell', tokens: [{ token: 'alice-api', scopes: ['api'] }] },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [{ username: 'alice', access_level: 'maintainer' }],
    },
  ],
  projects: [
    {
      path: 'acme/app',
      visibility: 'private',
      issues: [{ title: 'Crash on save', author: 'alice' }],
    },
  ],
};

const shots =
  process.env.FAUXLAB_SCREENSHOTS === '1' ? 'docs/images' : mkdtempSync(join(tmpdir(), 'fauxlab-shots-'));

async function screenshot(page: Page, view: string): Promise<void> {
  mkdirSync(shots, { recursive: true });
  const path = join(shots, `dashboard-${view}.png`);
  await page.screenshot({ path });
  expect(statSync(path).size).toBeGreaterThan(1000);
}

describe.skipIf(!haveChromium)(`browser: the dashboard in headless Chromium (${CHROMIUM})`, () => {
  let fx: Fauxlab;
  let base: string;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  const api = (path: string, init: RequestInit = {}) => fetch(`${base}/api/v4${path}`, init);

  beforeAll(async () => {
    fx = createFauxlab({ scenario });
    base = await listen(fx.fetch);
    ({ context, close: closeBrowser } = await launchChromium({ width: 1280, height: 800 }));
  }, 60_000);

  afterAll(async () => {
    await closeBrowser?.();
    if (!shots.startsWith('docs')) rmSync(shots, { recursive: true, force: true });
  });

  async function open(query: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${base}/__fauxlab/${query}`);
    return page;
  }

  it('browser: requests a client makes appear in the requests view, newest first, with their status', async () => {
    fx.reset();
    const page = await open('');
    expect(await page.textContent('h1')).toBe('Requests');
    // The keyboard's first stop skips to the content; the views follow in order.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement!.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement!.getAttribute('aria-current'))).toBe('page');
    expect((await api('/projects', { headers: { 'PRIVATE-TOKEN': 'alice-api' } })).status).toBe(200);
    expect((await api('/projects/acme%2Fapp', { headers: { 'PRIVATE-TOKEN': 'nope' } })).status).toBe(401);
    expect((await api('/projects/4242')).status).toBe(404);
    // Polled in: no reload.
    await page.waitForSelector('tbody.entry[data-id="3"]');
    const rows = await page
      .locator('tbody.entry')
      .evaluateAll((els) =>
        els.map((e) => [
          e.getAttribute('data-id'),
          e.querySelector('.status')!.textContent,
          e.querySelector('.path')!.textContent,
        ]),
      );
    expect(rows).toEqual([
      ['3', '404', '/api/v4/projects/4242'],
      ['2', '401', '/api/v4/projects/acme%2Fapp'],
      ['1', '200', '/api/v4/projects'],
    ]);
    expect(await page.textContent('tbody.entry[data-id="1"] .user')).toBe('alice');
    await screenshot(page, 'requests');
    await page.close();
  }, 60_000);

  it('browser: an entry expands from the keyboard to its headers, bodies, the reason of its 404 and a curl command', async () => {
    fx.reset();
    await api('/projects/4242', { headers: { 'PRIVATE-TOKEN': 'alice-api' } });
    const page = await open('?view=requests');
    const summary = page.locator('tbody.entry[data-id="1"] summary');
    expect(await page.isVisible('tbody.entry[data-id="1"] .explain')).toBe(false);
    await summary.focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('tbody.entry[data-id="1"] .explain', { state: 'visible' });
    expect(await page.textContent('tbody.entry[data-id="1"] .explain')).toContain('Why 404:');
    const headers = await page.locator('tbody.entry[data-id="1"] table.kv th[scope="row"]').allTextContents();
    expect(headers).toContain('private-token');
    const curl = await page.textContent('#curl-1');
    expect(curl).toMatch(new RegExp(`^curl '${base}/api/v4/projects/4242' \\\\\n`));
    expect(curl).toContain("-H 'private-token: [FILTERED]'");
    expect(curl).not.toContain('alice-api');
    await page.click('button[data-copy="curl-1"]');
    await page.waitForFunction(() =>
      /Copied|Selected/.test(document.getElementById('flash')!.textContent ?? ''),
    );
    await page.close();
  }, 60_000);

  it('browser: advancing the clock from the clock view moves a pipeline from pending to running to success', async () => {
    fx.reset();
    const created = await api('/projects/acme%2Fapp/pipeline?ref=master', { method: 'POST', headers: ROOT });
    expect(created.status).toBe(201);
    const pipeline = ((await created.json()) as { id: number }).id;
    const pid = ((await (await api('/projects/acme%2Fapp', { headers: ROOT })).json()) as { id: number }).id;
    const status = `.pipeline-status[data-pipeline="${pipeline}"]`;
    const world = await open(
      `?view=world&project=${pid}&api=/projects/${pid}/pipelines/${pipeline}&as=alice`,
    );
    expect(await world.textContent(status)).toBe('pending');
    expect(await world.textContent('.render-status')).toBe('200');

    const clock = await open('?view=clock');
    await clock.fill('input[name="advance"]', '30s');
    await clock.click('button:has-text("Advance")');
    await clock.waitForFunction(
      () => document.getElementById('now')!.textContent === '2021-03-01T12:00:30.000Z',
    );
    expect(await clock.textContent('#flash')).toBe('Advance: done');
    await screenshot(clock, 'clock');
    await world.reload();
    expect(await world.textContent(status)).toBe('running');
    expect(await world.textContent('#rendered')).toContain('"status": "running"');

    await clock.fill('input[name="advance"]', '1m');
    await clock.press('input[name="advance"]', 'Enter');
    await clock.waitForFunction(
      () => document.getElementById('now')!.textContent === '2021-03-01T12:01:30.000Z',
    );
    await world.reload();
    expect(await world.textContent(status)).toBe('success');
    await screenshot(world, 'world');
    // A wrong duration: the control plane's message, and the clock stays.
    await clock.fill('input[name="advance"]', 'soon');
    await clock.click('button:has-text("Advance")');
    await clock.waitForFunction(() =>
      (document.getElementById('problem')!.textContent ?? '').includes('400'),
    );
    expect(fx.clock.iso()).toBe('2021-03-01T12:01:30.000Z');
    await clock.fill('input[name="set"]', '2021-06-01T00:00:00Z');
    await clock.click('button:has-text("Set")');
    await clock.waitForFunction(
      () => document.getElementById('now')!.textContent === '2021-06-01T00:00:00.000Z',
    );
    expect(fx.clock.iso()).toBe('2021-06-01T00:00:00.000Z');
    await world.close();
    await clock.close();
  }, 60_000);

  it('browser: a fault added from the form fails the next request, then goes; the faults view lists and removes faults', async () => {
    fx.reset();
    const page = await open('?view=faults');
    await page.selectOption('select[name="method"]', 'GET');
    await page.fill('input[name="path"]', '/api/v4/version');
    await page.fill('input[name="status"]', '503');
    await page.fill('input[name="times"]', '1');
    await page.click('button:has-text("Add fault")');
    await page.waitForSelector('button:has-text("Remove fault 1")');
    expect(fx.faults.list()).toMatchObject([
      { id: 1, method: ['GET'], path: '/api/v4/version', status: 503, times: 1 },
    ]);
    await screenshot(page, 'faults');
    expect((await api('/version', { headers: ROOT })).status).toBe(503);
    expect((await api('/version', { headers: ROOT })).status).toBe(200);
    await page.fill('input[name="path"]', '/api/v4/projects/**');
    await page.fill('input[name="latency"]', '5ms');
    await page.fill('input[name="status"]', '');
    await page.fill('input[name="times"]', '');
    await page.click('button:has-text("Add fault")');
    await page.waitForSelector('button:has-text("Remove fault 2")');
    await page.click('button:has-text("Remove fault 2")');
    await page.waitForSelector('button:has-text("Remove fault 2")', { state: 'detached' });
    expect(fx.faults.list().map((f) => f.id)).toEqual([1]);
    await page.close();
  }, 60_000);

  it('browser: a snapshot taken from the page is restored from the page; reset goes back to the scenario', async () => {
    fx.reset();
    const page = await open('?view=snapshots');
    await page.fill('input[name="name"]', 'before-zed');
    await page.click('button:has-text("Take snapshot")');
    await page.waitForSelector('button:has-text("Restore before-zed")');
    const zed = await api('/users', {
      method: 'POST',
      headers: ROOT,
      body: JSON.stringify({
        username: 'zed',
        name: 'Zed',
        email: 'zed@example.com',
        password: 'password123',
      }),
    });
    expect(zed.status).toBe(201);
    expect(
      (await api('/users?username=zed', { headers: ROOT }).then((r) => r.json())) as unknown[],
    ).toHaveLength(1);
    await screenshot(page, 'snapshots');
    await page.click('button:has-text("Restore before-zed")');
    await page.waitForFunction(() => (document.getElementById('flash')!.textContent ?? '').includes('done'));
    expect(
      (await api('/users?username=zed', { headers: ROOT }).then((r) => r.json())) as unknown[],
    ).toHaveLength(0);
    await page.click('button:has-text("Reset to the scenario")');
    await page.waitForSelector('button:has-text("Restore before-zed")', { state: 'detached' });
    expect(fx.snapshots()).toEqual([]);
    await page.close();
  }, 60_000);

  it('browser: the deliveries view shows a webhook delivery with its payload', async () => {
    fx.reset();
    const hook = await listen(() => new Response('ok'));
    const slack = await api('/projects/acme%2Fapp/services/slack', {
      method: 'PUT',
      headers: ROOT,
      body: JSON.stringify({ webhook: `${hook}/hook` }),
    });
    expect(slack.status).toBe(200);
    const issue = await api('/projects/acme%2Fapp/issues', {
      method: 'POST',
      headers: { ...ROOT, 'PRIVATE-TOKEN': 'alice-api' },
      body: JSON.stringify({ title: 'Build is red' }),
    });
    expect(issue.status).toBe(201);
    await deliveries(fx.clock).settled();
    const page = await open('?view=deliveries');
    expect(await page.textContent('tbody.entry td:nth-child(3)')).toBe('slack');
    await page.click('tbody.entry summary');
    expect(await page.textContent('tbody.entry pre.body')).toContain('Build is red');
    await screenshot(page, 'deliveries');
    await page.close();
  }, 60_000);
});

describe.skipIf(!haveChromium)('browser: the dashboard of an instance with an admin token', () => {
  let fx: Fauxlab;
  let base: string;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    fx = createFauxlab({ scenario, controlPlaneToken: TOKEN });
    base = await listen(fx.fetch);
    ({ context, close: closeBrowser } = await launchChromium({ width: 1280, height: 800 }));
  }, 60_000);

  afterAll(async () => {
    await closeBrowser?.();
  });

  it('browser: without the token the page refuses and asks for it; a wrong one is refused; the right one opens the dashboard', async () => {
    const page = await context.newPage();
    const first = await page.goto(`${base}/__fauxlab/?view=world`);
    expect(first!.status()).toBe(401);
    expect(await page.textContent('h1')).toBe('Sign in');
    expect(await page.content()).not.toContain('acme/app');
    await page.fill('#token', 'not-the-token');
    await page.click('button:has-text("Sign in")');
    // The page's script signs in with JSON, as the control plane takes writes.
    await page.waitForFunction(() => (document.getElementById('problem')!.textContent ?? '').includes('401'));
    expect((await context.cookies()).filter((c) => c.name === 'fauxlab_session')).toEqual([]);
    await screenshot(page, 'login');
    await page.fill('#token', TOKEN);
    await page.click('button:has-text("Sign in")');
    // Signed in on the view it asked for.
    await page.waitForSelector('h1:has-text("World")');
    expect(await page.content()).toContain('acme/app');
    const [cookie] = (await context.cookies()).filter((c) => c.name === 'fauxlab_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/__fauxlab' });
    // The page's script cannot read the session cookie, yet its writes go through with it.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await page.goto(`${base}/__fauxlab/?view=clock`);
    await page.fill('input[name="advance"]', '1h');
    await page.click('button:has-text("Advance")');
    await page.waitForFunction(
      () => document.getElementById('now')!.textContent === '2021-03-01T13:00:00.000Z',
    );
    expect(fx.clock.iso()).toBe('2021-03-01T13:00:00.000Z');
    await page.click('button:has-text("Sign out")');
    await page.waitForSelector('h1:has-text("Sign in")');
    expect((await fetch(`${base}/__fauxlab/clock`)).status).toBe(401);
    await page.close();
  }, 60_000);
});
