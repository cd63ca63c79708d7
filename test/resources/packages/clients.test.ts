/**
 * A real client through MSW: gitbeaker's Packages, PackageRegistry (generic packages) and Lint resources
 * against the registry and CI lint.
 */
import { Gitlab } from '@gitbeaker/rest';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fauxlabHandlers } from '../../../src/msw/index.js';
import { packagesFx } from './world.js';

const HOST = 'http://gitlab.packages.test';
const fx = packagesFx();
const server = setupServer(...fauxlabHandlers(fx, { baseUrl: HOST }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fx.reset());
afterAll(() => server.close());

const api = (token: string) => new Gitlab({ host: HOST, token });

describe('gitbeaker through MSW: packages and lint', () => {
  it('Packages.all, show, allFiles, removeFile and remove', async () => {
    const gl = api('maint');
    const all = await gl.Packages.all({ projectId: 'acme/pkgs' });
    expect(all.map((x) => [x.name, x.version])).toEqual([
      ['tool', '1.0.0'],
      ['tool', '2.0.0'],
    ]);
    const one = await gl.Packages.show('acme/pkgs', all[0]!.id);
    expect(one).toMatchObject({ name: 'tool', package_type: 'generic' });
    const files = await gl.Packages.allFiles('acme/pkgs', all[0]!.id);
    expect(files.map((f) => f.file_name)).toEqual(['tool.txt', 'tool.bin']);
    await gl.Packages.removeFile('acme/pkgs', all[0]!.id, files[1]!.id);
    expect(await gl.Packages.allFiles('acme/pkgs', all[0]!.id)).toHaveLength(1);
    await gl.Packages.remove('acme/pkgs', all[0]!.id);
    expect((await gl.Packages.all({ projectId: 'acme/pkgs' })).map((x) => x.version)).toEqual(['2.0.0']);
    const group = await gl.Packages.all({ groupId: 'acme' });
    expect(group.map((x) => x.name)).toContain('lib');
  });

  it('PackageRegistry.publish stores the request body it sends (a multipart form), as Workhorse would', async () => {
    const gl = api('dev');
    const res = await gl.PackageRegistry.publish('acme/pkgs', 'gb', '1.0.0', {
      content: new Blob(['payload']),
      filename: 'gb.txt',
    });
    expect(res).toEqual({ message: '201 Created' });
    const [pkg] = await gl.Packages.all({ projectId: 'acme/pkgs', packageName: 'gb' });
    const [file] = await gl.Packages.allFiles('acme/pkgs', pkg!.id);
    expect(file!.size).toBeGreaterThan('payload'.length);
  });

  it('Lint.lint and Lint.check', async () => {
    const gl = api('dev');
    const ok = await gl.Lint.lint('acme/pkgs', 'build:\n  script: make\n');
    expect(ok).toMatchObject({ valid: true, errors: [], warnings: [] });
    const bad = await gl.Lint.lint('acme/pkgs', 'build:\n  stage: build\n');
    expect(bad).toMatchObject({
      valid: false,
      errors: [
        'jobs build config should implement a script: or a trigger: keyword',
        'jobs config should contain at least one visible job',
      ],
    });
    // acme/pkgs has no CI file on its default branch.
    expect(await gl.Lint.check('acme/pkgs', {})).toMatchObject({
      valid: false,
      errors: ['Please provide content of .gitlab-ci.yml'],
    });
  });
});
