/**
 * The Unleash client API (`lib/api/unleash.rb`, 13.12): the project's feature flags client token as the
 * instance id (header or param), the app name as the environment, the v1 features format of
 * `Entities::UnleashFeature` (a gitlabUserList strategy shown as userWithId, legacy flags by their most
 * relevant scope first), and register/metrics answered 200; read by the real Node Unleash client.
 */
import type { AddressInfo } from 'node:net';
import { InMemStorageProvider, Unleash } from 'unleash-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNode } from '../../../src/host/node-server.js';
import { apiPath, json, request } from '../helpers.js';
import { scopeMatches } from '../../../src/resources/feature_flags/unleash-match.js';
import { INSTANCE_ID, flagsFx } from './world.js';

const fx = flagsFx();
let projectId = 0;
let server: ReturnType<typeof serveNode> | undefined;
let base = '';

async function unleash(path: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await request(fx, method, apiPath(`/feature_flags/unleash/${projectId}${path}`), { headers });
  return { status: res.status, body: await json(res) };
}

const as = (env: string) => ({ 'UNLEASH-INSTANCEID': INSTANCE_ID, 'UNLEASH-APPNAME': env });

beforeAll(async () => {
  const res = await request(fx, 'GET', apiPath('/projects/acme%2Fapp'), { token: 'owner' });
  projectId = ((await res.json()) as { id: number }).id;
  base = await new Promise<string>((resolve) => {
    server = serveNode({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
  });
});

afterAll(() => {
  server?.close();
});

/** The Node Unleash client of an environment, synchronised once (no backup file, no metrics timer). */
async function client(
  appName: string,
  instanceId = INSTANCE_ID,
): Promise<{ unleash: Unleash; error?: Error }> {
  const unleash = new Unleash({
    url: `${base}/api/v4/feature_flags/unleash/${projectId}/`,
    appName,
    instanceId,
    // One fetch at start; the next would be a minute later, after the test has destroyed the client.
    refreshInterval: 60_000,
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
  });
  const error = await new Promise<Error | undefined>((resolve) => {
    unleash.on('synchronized', () => resolve(undefined));
    unleash.on('error', (e: Error) => resolve(e));
  });
  return { unleash, error };
}

describe('Unleash client API', () => {
  it('401 without the instance id, with a wrong one, or for an unknown project; the id as a param too', async () => {
    expect(await unleash('/client/features')).toEqual({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await unleash('/client/features', { 'UNLEASH-INSTANCEID': 'nope' })).status).toBe(401);
    expect((await unleash(`/client/features?instance_id=${INSTANCE_ID}&app_name=production`)).status).toBe(
      200,
    );
    const other = await request(fx, 'GET', apiPath('/feature_flags/unleash/acme%2Fsite/client/features'), {
      headers: as('production'),
    });
    expect(other.status).toBe(401);
    const unknown = await request(fx, 'GET', apiPath('/feature_flags/unleash/999999/features'), {
      headers: as('x'),
    });
    expect(unknown.status).toBe(401);
  });

  it('features of an environment: v1 format, strategies whose scopes match, legacy flags first', async () => {
    expect((await unleash('/client/features', as('production'))).body).toEqual({
      version: 1,
      features: [
        {
          name: 'old_banner',
          enabled: true,
          strategies: [{ name: 'userWithId', parameters: { userIds: 'carol' } }],
        },
        {
          name: 'new_checkout',
          description: 'The new checkout page',
          enabled: true,
          strategies: [{ name: 'userWithId', parameters: { userIds: 'alice,bob' } }],
        },
        { name: 'dark_mode', enabled: false, strategies: [{ name: 'default', parameters: {} }] },
      ],
    });
    const review = (await unleash('/features', as('review/app-1'))).body;
    expect(review.features.map((f: { name: string; enabled: boolean }) => [f.name, f.enabled])).toEqual([
      ['old_banner', false],
      ['new_checkout', true],
      ['dark_mode', false],
    ]);
    expect(review.features[0].strategies).toEqual([{ name: 'default', parameters: {} }]);
    expect(review.features[1].strategies).toEqual([
      { name: 'flexibleRollout', parameters: { groupId: 'default', rollout: '25', stickiness: 'DEFAULT' } },
    ]);
    // No app name: no flags (`return [] unless unleash_app_name.present?`).
    expect((await unleash('/client/features', { 'UNLEASH-INSTANCEID': INSTANCE_ID })).body).toEqual({
      version: 1,
      features: [],
    });
  });

  it('GET, register and metrics answer 200 with the status as the body', async () => {
    expect(await unleash('', as('production'))).toEqual({ status: 200, body: 200 });
    expect(await unleash('/client/register', as('production'), 'POST')).toEqual({ status: 200, body: 200 });
    expect(await unleash('/client/metrics', as('production'), 'POST')).toEqual({ status: 200, body: 200 });
    expect((await unleash('/client/metrics', {}, 'POST')).status).toBe(401);
  });

  it('the Node Unleash client registers, reads the flags of its environment and evaluates them', async () => {
    const prod = await client('production');
    expect(prod.error).toBeUndefined();
    // gitlabUserList, served as userWithId: the list's users only.
    expect(prod.unleash.isEnabled('new_checkout', { userId: 'alice' })).toBe(true);
    expect(prod.unleash.isEnabled('new_checkout', { userId: 'mallory' })).toBe(false);
    // The legacy flag's production scope (userWithId carol).
    expect(prod.unleash.isEnabled('old_banner', { userId: 'carol' })).toBe(true);
    expect(prod.unleash.isEnabled('old_banner', { userId: 'dave' })).toBe(false);
    // An inactive flag is off whatever its strategies.
    expect(prod.unleash.isEnabled('dark_mode')).toBe(false);
    expect(prod.unleash.getFeatureToggleDefinitions().map((t) => t.name)).toEqual([
      'old_banner',
      'new_checkout',
      'dark_mode',
    ]);
    prod.unleash.destroy();
    const staging = await client('staging');
    // No strategy of new_checkout has a scope matching staging: the client does not know the flag.
    expect(staging.unleash.getFeatureToggleDefinition('new_checkout')).toBeUndefined();
    expect(staging.unleash.isEnabled('old_banner', { userId: 'carol' })).toBe(false);
    staging.unleash.destroy();
    const refused = await client('production', 'wrong');
    expect(refused.error?.message).toMatch(/401/);
    refused.unleash.destroy();
  });

  it("scopes match as Gitlab::SQL::Glob.to_like: '*' any run, % and _ literal", () => {
    expect(scopeMatches('review/*', 'review/app')).toBe(true);
    expect(scopeMatches('review/*', 'review')).toBe(false);
    expect(scopeMatches('*-prod', 'eu-prod')).toBe(true);
    expect(scopeMatches('a_c', 'abc')).toBe(false);
    expect(scopeMatches('a%', 'abc')).toBe(false);
    expect(scopeMatches('*a*b*', 'xxaxxbxx')).toBe(true);
  });
});
