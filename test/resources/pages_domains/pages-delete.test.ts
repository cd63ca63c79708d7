/** `DELETE /projects/:id/pages`: admins only; the project's Pages domains go with its Pages. */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request, tok } from '../helpers.js';

const world: ScenarioFile = {
  now: '2027-01-01T00:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    { username: 'alice', tokens: tok('alice-api') },
  ],
  groups: [{ path: 'acme', visibility: 'public', members: [{ username: 'alice', access_level: 'owner' }] }],
  projects: [
    { path: 'acme/site', visibility: 'public', pages_domains: [{ domain: 'site.example.com' }] },
    { path: 'acme/other', visibility: 'public', pages_domains: [{ domain: 'other.example.com' }] },
  ],
};

async function send(fx: ReturnType<typeof createFauxlab>, method: string, path: string, token?: string) {
  const res = await request(fx, method, `/api/v4${path}`, { token });
  return { status: res.status, body: await json(res) };
}

describe('DELETE /projects/:id/pages', () => {
  it('DELETE /projects/:id/pages: 204 for an admin; the domains of that project only are gone', async () => {
    const fx = createFauxlab({ scenario: world });
    expect((await send(fx, 'DELETE', '/projects/acme%2Fsite/pages', 'root-api')).status).toBe(204);
    expect((await send(fx, 'GET', '/projects/acme%2Fsite/pages/domains', 'root-api')).body).toEqual([]);
    const all = await send(fx, 'GET', '/pages/domains', 'root-api');
    expect((all.body as { domain: string }[]).map((d) => d.domain)).toEqual(['other.example.com']);
  });

  it('DELETE /projects/:id/pages: 401 anonymous, 403 for the owner (can_read_all_resources), 404 for no project', async () => {
    const fx = createFauxlab({ scenario: world });
    expect((await send(fx, 'DELETE', '/projects/acme%2Fsite/pages')).status).toBe(401);
    expect(await send(fx, 'DELETE', '/projects/acme%2Fsite/pages', 'alice-api')).toEqual({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect(await send(fx, 'DELETE', '/projects/acme%2Fnope/pages', 'root-api')).toEqual({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect((await send(fx, 'GET', '/projects/acme%2Fsite/pages/domains', 'alice-api')).body).toHaveLength(1);
  });
});
