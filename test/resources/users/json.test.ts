import { describe, expect, it } from 'vitest';
import { Renderings } from '../../../src/core/render-cache.js';
import type { UserRecord } from '../../../src/core/state.js';
import { tvalues } from '../../../src/core/table.js';
import { createFauxlab } from '../../../src/index.js';
import { UserRenderer, type RenderOptions } from '../../../src/resources/users/entities.js';
import { usersWorld } from './world.js';

/** Every record of the world, then variants of one with the values a record may hold at its edges. */
function variants(users: readonly UserRecord[]): UserRecord[] {
  const u = users.find((x) => x.username === 'bob')!;
  const odd = 'Zoë "quoted" \\ back\u2028line\u0007bell\ud83d\ude00 \ud800 lone </script>';
  const out: UserRecord[] = [...users];
  const add = (patch: Partial<UserRecord>) => out.push({ ...u, id: 900 + out.length, ...patch });
  add({ name: odd, username: 'zoë', email: 'ZOË@Example.com ', bio: odd, location: odd });
  add({ bio: `<b>"bold" & 'quoted'</b>`, organization: null, job_title: 'Chief' });
  add({ organization: 'Acme', job_title: '' });
  add({ organization: 'Acme', job_title: 'Chief "of" staff' });
  add({
    created_at: '2020-03-01T00:00:00Z',
    last_sign_in_at: '2021-01-02T03:04:05+02:00',
    current_sign_in_at: 'not a time',
    confirmed_at: null,
    last_activity_on: null,
  });
  add({ last_sign_in_at: '2021-01-02T03:04:05.123Z', current_sign_in_at: '2021-01-02T03:04:05.1Z' });
  add({ commit_email: null, note: null, current_sign_in_ip: null, last_sign_in_ip: null });
  add({
    commit_email: 'c@example.com',
    note: 'a "note"',
    current_sign_in_ip: '10.0.0.1',
    last_sign_in_ip: '::1',
  });
  add({
    identities: [
      { provider: 'ldapmain', extern_uid: 'uid=bob,"ou"=people', saml_provider_id: null },
      { provider: 'group_saml', extern_uid: 'Bob@SAML', saml_provider_id: 7 },
      { provider: 'group_saml', extern_uid: 'x', saml_provider_id: null },
    ],
  });
  add({ custom_attributes: { b: 'x', '2': 'two', 'a"\n': 'z\u2028', '10': '' } });
  add({ custom_attributes: Object.assign(Object.create(null) as Record<string, string>, { team: 'red' }) });
  add({ private_profile: true });
  add({ state: 'blocked' });
  add({ state: 'ldap_blocked', private_profile: true });
  add({ state: 'deactivated' });
  add({ admin: true, bot: true, external: true, two_factor_enabled: true, can_create_group: false });
  add({ avatar_url: '/uploads/-/system/user/avatar/9/a b.png' });
  add({ avatar_url: 'https://cdn.example.com/a.png?x="1"' });
  add({ email: '  ', username: ' ' });
  add({ email: '', username: 'solo' });
  add({ username: 'quo"te\\back' });
  add({ username: 'pair\ud83d\ude00' });
  add({ username: 'lone\ud800' });
  add({ shared_runners_minutes_limit: 400, extra_shared_runners_minutes_limit: 0, projects_limit: 0 });
  add({
    shared_runners_minutes_limit: null,
    extra_shared_runners_minutes_limit: null,
    projects_limit: 100000,
  });
  add({ theme_id: 11, color_scheme_id: 6, sign_in_count: 123456789 });
  // Values outside the record types (an older state, a hand-written record): the object path decides.
  add({ bio: undefined as unknown as string });
  add({ location: undefined as unknown as null });
  add({ sign_in_count: Number.NaN });
  add({ identities: [{ provider: 'group_saml', extern_uid: 'y' } as UserRecord['identities'][number]] });
  add({ custom_attributes: { n: 5 as unknown as string } });
  return out;
}

const shapes = ['basic', 'user', 'public', 'withAdmin', 'details'] as const;

function expectSame(r: UserRenderer, users: readonly UserRecord[]): number {
  let compared = 0;
  for (const u of users)
    for (const customAttributes of [false, true]) {
      const o: RenderOptions = { customAttributes };
      expect(r.basicJson(u, o)).toBe(JSON.stringify(r.basic(u, o)));
      expect(r.userJson(u, o)).toBe(JSON.stringify(r.user(u, o)));
      expect(r.publicJson(u, o)).toBe(JSON.stringify(r.public(u, o)));
      expect(r.withAdminJson(u, o)).toBe(JSON.stringify(r.withAdmin(u, o)));
      expect(r.detailsJson(u, o)).toBe(JSON.stringify(r.details(u, o)));
      compared += shapes.length;
    }
  return compared;
}

describe('user JSON builders', () => {
  it('UserRenderer: the five shapes written directly equal JSON.stringify of the objects, for every viewer, tier, base URL and Gravatar setting', () => {
    let compared = 0;
    for (const gravatar of [true, false]) {
      const fx = createFauxlab({
        scenario: { ...usersWorld, settings: { ...usersWorld.settings, gravatar_enabled: gravatar } },
      });
      const st = fx.state;
      const users = variants([...tvalues(st.users)]);
      const root = users.find((x) => x.username === 'root')!;
      const bob = users.find((x) => x.username === 'bob')!;
      const alice = users.find((x) => x.username === 'alice')!;
      for (const base of ['http://localhost', 'https://gitlab.example.com:8443/sub', 'http://x/"q\\'])
        for (const paid of [false, true])
          for (const viewer of [null, root, bob, alice]) {
            const r = new UserRenderer({ base, st, viewer, paid, renderings: new Renderings() });
            compared += expectSame(r, users);
          }
    }
    expect(compared).toBeGreaterThan(2000);
  });

  it('UserRenderer: a record with an avatar of its own, a Gravatar or none renders its avatar_url as the object path does', () => {
    const fx = createFauxlab({ scenario: usersWorld });
    const bob = [...tvalues(fx.state.users)].find((x) => x.username === 'bob')!;
    const r = new UserRenderer({
      base: 'https://gl.example.com',
      st: fx.state,
      viewer: null,
      paid: false,
      renderings: new Renderings(),
    });
    const avatars = [
      { ...bob, avatar_url: '/uploads/a.png' },
      { ...bob, avatar_url: null },
      { ...bob, avatar_url: null, email: '', username: '' },
    ].map((u) => (JSON.parse(r.basicJson(u)) as { avatar_url: string | null }).avatar_url);
    expect(avatars).toEqual([
      'https://gl.example.com/uploads/a.png',
      expect.stringMatching(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?s=80&d=identicon$/),
      null,
    ]);
  });
});
