/**
 * The vulnerability tests' world (ultimate): `acme/app` (private) with three vulnerabilities, findings of
 * its first pipeline and issues to link; `secret/other` (private) with an issue only `maint` can read (its
 * group's only member) and `acme/site` (public).
 */
import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { apiPath, json, request, tok } from '../helpers.js';

export const NOW = '2021-03-01T12:00:00.000Z';

export const vulnWorld: ScenarioFile = {
  now: NOW,
  tier: 'ultimate',
  users: [
    { username: 'root', admin: true, tokens: tok('root') },
    { username: 'owner', tokens: tok('owner') },
    { username: 'maint', tokens: tok('maint') },
    { username: 'dev', tokens: tok('dev') },
    { username: 'rep', tokens: tok('rep') },
    { username: 'outsider', tokens: tok('outsider') },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [
        { username: 'owner', access_level: 'owner' },
        { username: 'dev', access_level: 'developer' },
        { username: 'rep', access_level: 'reporter' },
      ],
    },
    { path: 'secret', visibility: 'private', members: [{ username: 'maint', access_level: 'maintainer' }] },
  ],
  projects: [
    {
      path: 'acme/app',
      visibility: 'private',
      creator: 'owner',
      members: [{ username: 'maint', access_level: 'maintainer' }],
      issues: [{ title: 'Fix the RNG', author: 'dev' }, { title: 'Other' }],
      pipelines: [{ ref: 'master', status: 'success', user: 'owner', created_at: '2021-03-01T10:00:00Z' }],
      vulnerabilities: [
        {
          title: 'Predictable pseudorandom number generator',
          severity: 'medium',
          confidence: 'medium',
          report_type: 'sast',
          author: 'dev',
          created_at: '2021-02-01T10:00:00Z',
          findings: [
            {
              location: { file: 'app/rng.rb', start_line: 10, end_line: 12 },
              identifiers: [
                { external_type: 'cwe', external_id: '330', name: 'CWE-330', url: null },
                { external_type: 'cve', external_id: 'CVE-2021-1', name: 'CVE-2021-1' },
              ],
              scanner: { external_id: 'brakeman', name: 'Brakeman' },
              description: 'Weak randomness',
              pipeline_id: 1,
            },
          ],
        },
        {
          title: 'SQL injection',
          severity: 'critical',
          confidence: 'high',
          report_type: 'sast',
          state: 'dismissed',
          dismissed_by: 'dev',
          dismissed_at: '2021-02-10T10:00:00Z',
          findings: [{ location: { file: 'app/db.rb', start_line: 3 }, pipeline_id: 1 }],
        },
        {
          title: 'Old lodash',
          severity: 'low',
          report_type: 'dependency_scanning',
          state: 'confirmed',
          confirmed_by: 'owner',
          findings: [
            { location: { dependency: { package: { name: 'lodash' }, version: '4.0.0' } }, pipeline_id: 1 },
          ],
        },
      ],
    },
    {
      path: 'secret/other',
      visibility: 'private',
      creator: 'maint',
      issues: [{ title: 'Elsewhere' }],
    },
    { path: 'acme/site', visibility: 'public', issues: [{ title: 'Public issue' }] },
  ],
};

export const world = (o: FauxlabOptions = {}) => createFauxlab({ scenario: vulnWorld, ...o });
export type Fx = ReturnType<typeof world>;

export const APP = '/api/v4/projects/acme%2Fapp';

export async function call(fx: Fx, method: string, path: string, token?: string, body?: unknown) {
  return request(fx, method, apiPath(path), { token, body });
}
export { json };
