import { describe, expect, test } from 'vitest';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const load = (fx: ReturnType<typeof reliabilityFx>, body: unknown) =>
  fx.app.request('/__fauxlab/scenario', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('security: scenario generate counts', () => {
  test('POST /__fauxlab/scenario {"generate":{"users":10000000}}: a 400 naming the limit, nothing generated, the world stays', async () => {
    const fx = reliabilityFx();
    const before = fx.state;
    const res = await load(fx, {
      generate: { users: 10_000_000, projects: 10, issues_per_project: 1_000_000 },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      message: {
        scenario: [
          'generate.users: at most 100000 users can be generated (asked for 10000000)',
          'generate.issues_per_project: at most 1000000 issues in all can be generated (asked for 10000000)',
        ],
      },
    });
    expect(fx.state).toBe(before);
    await expectUnharmed(fx);
  });

  test('createFauxlab({ scenario: { generate: { projects: 200000 } } }): refused in process too', () => {
    expect(() => reliabilityFx().load({ generate: { projects: 200_000 } })).toThrow(
      /generate\.projects: at most 100000 projects/,
    );
  });
});
