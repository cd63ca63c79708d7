/**
 * The job token allowlist is bounded (`Ci::JobToken::ProjectScopeLink::PROJECT_LINK_DIRECTIONAL_LIMIT`,
 * 200): the next addition is refused before any write, and ids that are not integers never reach a lookup.
 */
import { describe, expect, test } from 'vitest';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' };

describe('security: job token scope allowlist', () => {
  test('the 201st project link is refused with the model message; nothing is written', async () => {
    const fx = reliabilityFx({ version: '18.9' });
    const send = (method: string, path: string, body?: unknown) =>
      fx.app.request(`/api/v4${path}`, {
        method,
        headers: ROOT,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    const source = (await (await send('POST', '/projects', { name: 'scoped' })).json()) as { id: number };
    const ids: number[] = [];
    for (let i = 0; i < 201; i++)
      ids.push(((await (await send('POST', '/projects', { name: `t${i}` })).json()) as { id: number }).id);
    for (const id of ids.slice(0, 200))
      expect(
        (await send('POST', `/projects/${source.id}/job_token_scope/allowlist`, { target_project_id: id }))
          .status,
      ).toBe(201);
    const refused = await send('POST', `/projects/${source.id}/job_token_scope/allowlist`, {
      target_project_id: ids[200],
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      message:
        '400 Bad request - Validation failed: Source project exceeds the allowable number of project links in this direction',
    });
    const list = await send('GET', `/projects/${source.id}/job_token_scope/allowlist?per_page=1`);
    // The project itself and its 200 links.
    expect(list.headers.get('X-Total')).toBe('201');

    for (const bad of ['__proto__', 'constructor', '1e3', '-1'])
      expect(
        (await send('POST', `/projects/${source.id}/job_token_scope/allowlist`, { target_project_id: bad }))
          .status,
        bad,
      ).toBe(bad === '-1' ? 404 : 400);
    await expectUnharmed(fx);
  });
});
