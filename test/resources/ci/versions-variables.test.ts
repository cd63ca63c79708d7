/**
 * The CI variables' shapes by release (src/resources/ci/versions.ts): the whole `Entities::Ci::Variable`
 * on every project variables route from 14.0, `raw` from 15.7 (project, group and instance variables).
 */
import { describe, expect, it } from 'vitest';
import type { Minor } from '../../../src/core/versions.js';
import { APP, body, call, world } from './world.js';

const VARS = `${APP}/variables`;
const at = (version: Minor) => world({ version });
const ENTITY = ['variable_type', 'key', 'value', 'protected', 'masked', 'environment_scope'];
const WITH_RAW = ['variable_type', 'key', 'value', 'protected', 'masked', 'raw', 'environment_scope'];

describe('project variables by release', () => {
  it('13.12: the seed shapes (list: key, variable_type, value; the single variable without its scope)', async () => {
    const fx = at('13.12');
    const list = await body(await call(fx, 'GET', VARS, 'maint'));
    expect(Object.keys(list[0])).toEqual(['key', 'variable_type', 'value']);
    const one = await body(await call(fx, 'GET', `${VARS}/DEPLOY_TOKEN`, 'maint'));
    expect(Object.keys(one)).toEqual(['key', 'variable_type', 'value', 'protected', 'masked']);
  });

  it('14.0: list, show, create and update answer the whole entity, in its order', async () => {
    const fx = at('14.0');
    const list = await body(await call(fx, 'GET', VARS, 'maint'));
    expect(list[0]).toEqual({
      variable_type: 'env_var',
      key: 'DEPLOY_TOKEN',
      value: 'sekret-value',
      protected: expect.any(Boolean),
      masked: expect.any(Boolean),
      environment_scope: expect.any(String),
    });
    for (const v of list) expect(Object.keys(v)).toEqual(ENTITY);
    const one = await body(await call(fx, 'GET', `${VARS}/DEPLOY_TOKEN`, 'maint'));
    expect(Object.keys(one)).toEqual(ENTITY);
    const made = await call(fx, 'POST', VARS, 'maint', { key: 'NEW', value: 'v', protected: true });
    expect(made.status).toBe(201);
    expect(await body(made)).toEqual({
      variable_type: 'env_var',
      key: 'NEW',
      value: 'v',
      protected: true,
      masked: false,
      environment_scope: '*',
    });
    const put = await body(await call(fx, 'PUT', `${VARS}/NEW`, 'maint', { value: 'w', raw: true }));
    expect(Object.keys(put)).toEqual(ENTITY);
  });

  it('raw: unknown (ignored) at 15.6; from 15.7 after masked, default false, set by create and update', async () => {
    const old = at('15.6');
    const ignored = await call(old, 'POST', VARS, 'maint', { key: 'R', value: '$X', raw: 'maybe' });
    expect(ignored.status).toBe(201);
    expect(Object.keys(await body(ignored))).toEqual(ENTITY);

    const fx = at('15.7');
    const list = await body(await call(fx, 'GET', VARS, 'maint'));
    expect(list[0].raw).toBe(false);
    expect(Object.keys(list[0])).toEqual(WITH_RAW);
    const made = await call(fx, 'POST', VARS, 'maint', { key: 'R', value: '$X', raw: true });
    expect([made.status, (await body(made)).raw]).toEqual([201, true]);
    const shown = await body(await call(fx, 'GET', `${VARS}/R`, 'maint'));
    expect(shown.raw).toBe(true);
    // An update without raw keeps it; with raw=false clears it.
    expect((await body(await call(fx, 'PUT', `${VARS}/R`, 'maint', { value: '$Y' }))).raw).toBe(true);
    expect((await body(await call(fx, 'PUT', `${VARS}/R`, 'maint', { value: '$Y', raw: false }))).raw).toBe(
      false,
    );
    const bad = await call(fx, 'POST', VARS, 'maint', { key: 'S', value: 'v', raw: 'maybe' });
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'raw is invalid' }]);
  });

  it('raw on group and instance variables: absent at 15.6, from 15.7 after masked', async () => {
    for (const [version, want] of [
      ['15.6', undefined],
      ['15.7', true],
    ] as const) {
      const fx = at(version);
      const inst = await body(
        await call(fx, 'POST', '/admin/ci/variables', 'root', { key: 'I', value: 'v', raw: 'true' }),
      );
      expect(inst.raw).toBe(want);
      const shown = await body(await call(fx, 'GET', '/admin/ci/variables/I', 'root'));
      expect(shown.raw).toBe(want);
      const grp = await body(
        await call(fx, 'POST', '/groups/acme/variables', 'root', { key: 'G', value: 'v', raw: true }),
      );
      expect(grp.raw).toBe(want);
      if (want) {
        expect(Object.keys(inst)).toEqual(['variable_type', 'key', 'value', 'protected', 'masked', 'raw']);
        const cleared = await body(await call(fx, 'PUT', '/groups/acme/variables/G', 'root', { raw: false }));
        expect(cleared.raw).toBe(false);
        const kept = await body(await call(fx, 'PUT', '/admin/ci/variables/I', 'root', { value: 'w' }));
        expect(kept.raw).toBe(true);
      }
    }
  });
});
