import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadScenario } from '../../src/scenario/index.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

describe('security: scenario extends', () => {
  test('POST /__fauxlab/scenario {"extends":"/etc/passwd"}: 400 without reading the file, the world stays', async () => {
    const fx = reliabilityFx();
    const before = fx.state;
    for (const ext of ['/etc/passwd', '/nonexistent', ['scenarios/demo.yaml']]) {
      const res = await fx.app.request('/__fauxlab/scenario', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ extends: ext }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        message: { scenario: ['extends: not accepted over HTTP: send the whole scenario'] },
      });
    }
    expect(fx.state).toBe(before);
    await expectUnharmed(fx);
  });

  test('a scenario file extends only files in its own directory tree (or the working directory), and errors quote no content', () => {
    const outside = mkdtempSync(join(tmpdir(), 'fauxlab-outside-'));
    writeFileSync(join(outside, 'secret.json'), '{"users":[{"username":"leak"}]}');
    writeFileSync(join(outside, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    const dir = mkdtempSync(join(tmpdir(), 'fauxlab-tree-'));
    mkdirSync(join(dir, 'base'));
    writeFileSync(join(dir, 'base', 'users.json'), '{"users":[{"username":"inside"}]}');
    const file = (name: string, ext: string) => {
      writeFileSync(join(dir, name), JSON.stringify({ extends: ext }));
      return join(dir, name);
    };
    expect(loadScenario(file('ok.json', 'base/users.json')).users.map((u) => u.username)).toEqual(['inside']);
    expect(() => loadScenario(file('out.json', join(outside, 'secret.json')))).toThrow(
      /is outside the scenario's directory/,
    );
    expect(() => loadScenario(file('up.json', '../' + join(outside, 'passwd')))).toThrow(/outside/);
    writeFileSync(join(dir, 'bad.json'), 'root:x:0:0:root:/root:/bin/bash');
    let message = '';
    try {
      loadScenario(file('bad-parent.json', 'bad.json'));
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/not valid JSON/);
    expect(message).not.toContain('root:x');
  });
});
