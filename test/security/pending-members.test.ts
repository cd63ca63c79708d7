/**
 * The pending members' attack surface: `GET /:source/:id/invitations?query=` takes an `ILIKE` term from
 * the client, which a regular expression would turn into nested runs (`%a%a...%b` against long addresses
 * backtracks through every placement: six `%a` runs are 200^6 of them here, where three already take
 * JavaScript's engine 2.9 s); the matcher walks it in at most (term x address) steps. Invitation and
 * access request bodies carrying `__proto__` keys reach no prototype.
 */
import { describe, expect, test } from 'vitest';
import type { Fauxlab } from '../../src/index.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const G = '/api/v4/groups/g-public';

function call(fx: Fauxlab, method: string, path: string, token: string, body?: string) {
  return fx.app.request(path, {
    method,
    headers: {
      'PRIVATE-TOKEN': token,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });
}

describe('security: pending members', () => {
  test('an ILIKE term of six `%a` and a final `%b` against 200-`a` addresses is answered, with the others', async () => {
    const fx = reliabilityFx();
    const long = (n: number) => `${'a'.repeat(200)}${n}@example.org`;
    const made = await call(
      fx,
      'POST',
      `${G}/invitations`,
      'owner-api',
      JSON.stringify({ email: [long(1), long(2), long(3)].join(','), access_level: 30 }),
    );
    expect(await made.json()).toEqual({ status: 'success' });
    const term = encodeURIComponent(`${'%a'.repeat(6)}%b`);
    const matching = encodeURIComponent(`${'%a'.repeat(6)}%2@example.org`);
    const [attack, canary, hit] = await Promise.all([
      call(fx, 'GET', `${G}/invitations?query=${term}`, 'dev-api'),
      call(fx, 'GET', '/api/v4/user', 'rep-api'),
      call(fx, 'GET', `${G}/invitations?query=${matching}`, 'dev-api'),
    ]);
    expect(attack.status).toBe(200);
    expect(await attack.json()).toEqual([]);
    expect(((await canary.json()) as { username: string }).username).toBe('rep');
    expect(((await hit.json()) as { invite_email: string }[]).map((i) => i.invite_email)).toEqual([long(2)]);
    await expectUnharmed(fx);
  });

  test('__proto__ keys in invitation and access request bodies change no prototype', async () => {
    const fx = reliabilityFx();
    const poisoned = (more: string) => `{"__proto__":{"admin":true,"polluted":1},${more}}`;
    const invited = await call(
      fx,
      'POST',
      `${G}/invitations`,
      'owner-api',
      poisoned('"email":"__proto__@example.org,constructor@example.org","access_level":30'),
    );
    expect(await invited.json()).toEqual({ status: 'success' });
    const again = await call(
      fx,
      'POST',
      `${G}/invitations`,
      'owner-api',
      poisoned('"email":"__proto__@example.org","access_level":30'),
    );
    expect(await again.json()).toEqual({
      message: { '__proto__@example.org': 'Member already invited to g-public' },
      status: 'error',
    });
    const asked = await call(fx, 'POST', `${G}/access_requests`, 'outsider-api', poisoned('"x":1'));
    expect(asked.status).toBe(201);
    expect(((await asked.json()) as { admin?: unknown }).admin).toBeUndefined();
    const list = await call(fx, 'GET', `${G}/invitations?query=__proto__%25`, 'dev-api');
    expect(((await list.json()) as { invite_email: string }[]).map((i) => i.invite_email)).toEqual([
      '__proto__@example.org',
    ]);
    await expectUnharmed(fx);
  });
});
