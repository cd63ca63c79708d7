/**
 * `avatar=""` on the group, project and user writes: the param is a file
 * (`API::Validations::Types::WorkhorseFile`), whose coercer refuses a string, so Grape answers
 * `avatar is invalid` (a blank is "no value" only for the built-in types), and nothing is written.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, tok } from '../helpers.js';

const world: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [{ username: 'root', admin: true, tokens: tok('root-api') }, { username: 'alice' }],
  groups: [{ path: 'acme', visibility: 'public' }],
  projects: [{ path: 'acme/site', visibility: 'public' }],
};

const INVALID = { error: 'avatar is invalid' };

async function put(path: string, body: string, type: string) {
  const fx = createFauxlab({ scenario: world });
  const before = fx.state;
  const res = await fx.app.request(`/api/v4${path}`, {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': type },
    body,
  });
  return { status: res.status, body: await json(res), unchanged: fx.state === before };
}

describe('avatar=""', () => {
  for (const path of ['/projects/acme%2Fsite', '/groups/acme', '/users/2']) {
    it(`PUT ${path} as JSON: 400 avatar is invalid, nothing written`, async () => {
      expect(await put(path, JSON.stringify({ avatar: '' }), 'application/json')).toEqual({
        status: 400,
        body: INVALID,
        unchanged: true,
      });
    });

    it(`PUT ${path} as a form: the same`, async () => {
      expect(await put(path, 'avatar=', 'application/x-www-form-urlencoded')).toEqual({
        status: 400,
        body: INVALID,
        unchanged: true,
      });
    });
  }

  it('is reported with the other problems of the request, in declaration order', async () => {
    const out = await put(
      '/groups/acme',
      JSON.stringify({ avatar: '', visibility: 'nope' }),
      'application/json',
    );
    expect(out.status).toBe(400);
    expect(out.body.error).toContain('avatar is invalid');
    expect(out.body.error).toContain('visibility does not have a valid value');
  });

  it('a blank integer is still no value (only the file type refuses the blank)', async () => {
    const out = await put(
      '/projects/acme%2Fsite',
      JSON.stringify({ description: 'd', build_timeout: '' }),
      'application/json',
    );
    expect(out.status).toBe(200);
  });
});
