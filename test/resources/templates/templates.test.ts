import { describe, expect, it } from 'vitest';
import { findCiTemplate, listCiTemplates, type CiTemplate } from '../../../src/resources/templates/ci.js';
import { APP, body, call, world } from '../settings/world.js';

describe('project templates', () => {
  it('GET /projects/:id/templates/licenses: {key, name} pairs by key, paginated', async () => {
    const fx = world();
    const res = await call(fx, 'GET', `${APP}/templates/licenses`, 'dev');
    expect(res.status).toBe(200);
    expect(res.headers.get('X-Total')).toBe('39');
    const list = await body(res);
    expect(list).toHaveLength(20);
    expect(list[0]).toEqual({ key: '0bsd', name: 'BSD Zero Clause License' });
    expect(list.map((l: any) => l.key)).toContain('apache-2.0');
    const all = await body(await call(fx, 'GET', `${APP}/templates/licenses?per_page=100`, 'dev'));
    expect(all.find((l: any) => l.key === 'mit')).toEqual({ key: 'mit', name: 'MIT License' });
  });

  it('GET /projects/:id/templates/licenses/:key: project and fullname fill the placeholders, the year is the clock’s', async () => {
    const fx = world();
    const res = await call(
      fx,
      'GET',
      `${APP}/templates/licenses/bsd-4-clause?project=Rocket%20Launcher&fullname=Jane%20Doe`,
      'dev',
    );
    expect(res.status).toBe(200);
    const lic = await body(res);
    expect(Object.keys(lic)).toEqual([
      'key',
      'name',
      'nickname',
      'popular',
      'html_url',
      'source_url',
      'description',
      'conditions',
      'permissions',
      'limitations',
      'content',
    ]);
    expect(lic).toMatchObject({
      key: 'bsd-4-clause',
      name: 'BSD 4-Clause "Original" or "Old" License',
      nickname: null,
      popular: false,
      html_url: 'http://choosealicense.com/licenses/bsd-4-clause/',
    });
    expect(lic.content).toContain('Copyright (c) 2021, Jane Doe');
    expect(lic.content).toContain('This product includes software developed by Rocket Launcher.');
    expect(lic.content).not.toMatch(/\[(year|fullname|project)\]/);
  });

  it('GET /projects/:id/templates/licenses/mit: the caller’s name is the default full name', async () => {
    const fx = world();
    const lic = await body(await call(fx, 'GET', `${APP}/templates/licenses/mit`, 'dev'));
    expect(lic).toMatchObject({
      key: 'mit',
      name: 'MIT License',
      popular: true,
      conditions: ['include-copyright'],
      permissions: ['commercial-use', 'modifications', 'distribution', 'private-use'],
      limitations: ['liability', 'warranty'],
    });
    expect(lic.content.startsWith('MIT License\n\nCopyright (c) 2021 Dev User\n')).toBe(true);
  });

  it('GET /projects/:id/templates/licenses/:key: GPL placeholders use the platform’s patterns', async () => {
    const fx = world();
    const lic = await body(
      await call(fx, 'GET', `${APP}/templates/licenses/gpl-3.0?project=Widget&fullname=ACME%20Corp`, 'dev'),
    );
    expect(lic.nickname).toBe('GNU GPLv3');
    expect(lic.content).toContain('    Widget\n    Copyright (C) 2021  ACME Corp');
  });

  it('GET /projects/:id/templates/dockerfiles: the Dockerfile templates, with real content', async () => {
    const fx = world();
    const list = await body(await call(fx, 'GET', `${APP}/templates/dockerfiles`, 'dev'));
    expect(list.slice(0, 3)).toEqual([
      { key: 'Binary', name: 'Binary' },
      { key: 'Binary-alpine', name: 'Binary-alpine' },
      { key: 'Binary-scratch', name: 'Binary-scratch' },
    ]);
    const t = await body(await call(fx, 'GET', `${APP}/templates/dockerfiles/Binary`, 'dev'));
    expect(Object.keys(t)).toEqual(['name', 'content']);
    expect(t.content).toContain('FROM buildpack-deps:buster');
    expect(t.content.startsWith('# This file is a template')).toBe(true);
  });

  it('GET /projects/:id/templates/gitignores/:key: an encoded key such as C%2B%2B', async () => {
    const fx = world();
    const t = await body(await call(fx, 'GET', `${APP}/templates/gitignores/C%2B%2B`, 'dev'));
    expect(t.name).toBe('C++');
    expect(t.content).toContain('*.o');
  });

  it('templates: an unknown key is 404 Template Not Found; an unknown or capitalised type reaches no route', async () => {
    const fx = world();
    expect(await body(await call(fx, 'GET', `${APP}/templates/licenses/nope`, 'dev'))).toEqual({
      message: '404 Template Not Found',
    });
    expect(await body(await call(fx, 'GET', `${APP}/templates/Licenses`, 'dev'))).toEqual({
      error: '404 Not Found',
    });
    expect((await call(fx, 'GET', `${APP}/templates/Licenses/mit`, 'dev')).status).toBe(404);
  });

  it('templates: the project must be readable (404), public projects need no token', async () => {
    const fx = world();
    expect(await body(await call(fx, 'GET', `${APP}/templates/licenses`, 'outsider'))).toEqual({
      message: '404 Project Not Found',
    });
    expect((await call(fx, 'GET', '/projects/acme%2Fsite/templates/dockerfiles')).status).toBe(200);
    const anon = await body(await call(fx, 'GET', '/projects/acme%2Fsite/templates/licenses/mit'));
    expect(anon.content).toContain('Copyright (c) 2021 [fullname]');
  });
});

describe('instance templates', () => {
  it('GET /templates/licenses: whole license entities, paginated; popular=true keeps the featured ones', async () => {
    const fx = world();
    const res = await call(fx, 'GET', '/templates/licenses?per_page=2');
    expect(res.status).toBe(200);
    expect(res.headers.get('X-Total')).toBe('39');
    const list = await body(res);
    expect(list[0]).toMatchObject({ key: '0bsd', name: 'BSD Zero Clause License', popular: false });
    expect(list[0].content).toContain('Permission to use, copy, modify');
    const popular = await body(await call(fx, 'GET', '/templates/licenses?popular=true'));
    expect(popular.map((l: any) => l.key)).toEqual(['apache-2.0', 'gpl-3.0', 'mit']);
  });

  it('GET /templates/licenses/:name: placeholders filled; an unknown one is 404 License Not Found', async () => {
    const fx = world();
    const lic = await body(await call(fx, 'GET', '/templates/licenses/MIT?fullname=Jane%20Doe', 'dev'));
    expect(lic.key).toBe('mit');
    expect(lic.content).toContain('Copyright (c) 2021 Jane Doe');
    const res = await call(fx, 'GET', '/templates/licenses/nope');
    expect([res.status, await body(res)]).toEqual([404, { message: '404 License Not Found' }]);
  });

  it('GET /templates/gitignores and /templates/dockerfiles: {key, name} lists and {name, content}', async () => {
    const fx = world();
    const list = await body(await call(fx, 'GET', '/templates/gitignores?per_page=1'));
    expect(list).toEqual([{ key: 'Actionscript', name: 'Actionscript' }]);
    const node = await body(await call(fx, 'GET', '/templates/gitignores/Node'));
    expect(Object.keys(node)).toEqual(['name', 'content']);
    expect(node.content).toContain('node_modules/');
    const docker = await call(fx, 'GET', '/templates/dockerfiles/Nope');
    expect([docker.status, await body(docker)]).toEqual([404, { message: '404 dockerfile Not Found' }]);
    const gi = await call(fx, 'GET', '/templates/gitignores/Nope');
    expect(await body(gi)).toEqual({ message: '404 gitignore Not Found' });
  });

  it('GET /templates/gitignores/: a trailing slash is the same route, as clients send it', async () => {
    const fx = world();
    const res = await call(fx, 'GET', '/templates/gitignores/?per_page=1');
    expect([res.status, await body(res)]).toEqual([200, [{ key: 'Actionscript', name: 'Actionscript' }]]);
  });
});

describe('CI templates (gitlab_ci_ymls)', () => {
  it('GET /templates/gitlab_ci_ymls: {key, name} pairs, General then Pages then Verify, names by bytes, paginated', async () => {
    const fx = world();
    const res = await call(fx, 'GET', '/templates/gitlab_ci_ymls?per_page=3');
    expect(res.status).toBe(200);
    expect(res.headers.get('X-Total')).toBe('57');
    expect(await body(res)).toEqual([
      { key: '5-Minute-Production-App', name: '5-Minute-Production-App' },
      { key: 'Android', name: 'Android' },
      { key: 'Android-Fastlane', name: 'Android-Fastlane' },
    ]);
    const all = (await body(await call(fx, 'GET', '/templates/gitlab_ci_ymls?per_page=100'))).map(
      (t: any) => t.key,
    );
    expect(all.slice(32, 38)).toEqual(['Swift', 'dotNET', 'iOS-Fastlane', 'npm', 'Brunch', 'Doxygen']);
    expect(all.slice(-4)).toEqual(['SwaggerUI', 'Accessibility', 'FailFast', 'Load-Performance-Testing']);
    expect(all).not.toContain('DAST-On-Demand-Scan');
  });

  it('GET /templates/gitlab_ci_ymls/:key: {name, content}, the content headed by the template disclaimer', async () => {
    const fx = world();
    const res = await call(fx, 'GET', '/templates/gitlab_ci_ymls/Ruby');
    expect(res.status).toBe(200);
    const t = await body(res);
    expect(Object.keys(t)).toEqual(['name', 'content']);
    expect(t.name).toBe('Ruby');
    expect(
      t.content.startsWith(
        '# This file is a template, and might need editing before it works on your project.\n# Please contribute',
      ),
    ).toBe(true);
    expect(t.content).toContain('image: ruby:latest\n');
    const hugo = await body(await call(fx, 'GET', '/templates/gitlab_ci_ymls/Hugo'));
    expect([hugo.name, hugo.content.includes('image: registry.gitlab.com/pages/hugo:latest')]).toEqual([
      'Hugo',
      true,
    ]);
  });

  it('GET /templates/gitlab_ci_ymls/:key: an unknown, differently cased or Security key is 404 gitlab_ci_yml Not Found', async () => {
    const fx = world();
    for (const key of ['Nope', 'ruby', 'DAST-On-Demand-Scan']) {
      const res = await call(fx, 'GET', `/templates/gitlab_ci_ymls/${key}`);
      expect([res.status, await body(res)]).toEqual([404, { message: '404 gitlab_ci_yml Not Found' }]);
    }
  });

  it('GET /templates/gitlab_ci_ymls/: a trailing slash is the same route, as clients send it', async () => {
    const fx = world();
    const res = await call(fx, 'GET', '/templates/gitlab_ci_ymls/?per_page=1');
    expect([res.status, await body(res)]).toEqual([
      200,
      [{ key: '5-Minute-Production-App', name: '5-Minute-Production-App' }],
    ]);
  });

  it('GET /templates/gitlab_ci_ymls: the paid tiers add the Security category last, and find its templates', async () => {
    const fx = world({}, { tier: 'premium' });
    const res = await call(fx, 'GET', '/templates/gitlab_ci_ymls?per_page=100');
    expect(res.headers.get('X-Total')).toBe('58');
    expect((await body(res)).at(-1)).toEqual({ key: 'DAST-On-Demand-Scan', name: 'DAST-On-Demand-Scan' });
    const dast = await call(fx, 'GET', '/templates/gitlab_ci_ymls/DAST-On-Demand-Scan');
    expect(dast.status).toBe(200);
    expect((await body(dast)).content).toContain('DAST_VERSION: 1');
  });

  it('GET /projects/:id/templates/gitlab_ci_ymls: the instance’s CI templates, the Template entity and 404', async () => {
    const fx = world();
    const list = await call(fx, 'GET', `${APP}/templates/gitlab_ci_ymls?per_page=2&page=2`, 'dev');
    expect([list.status, list.headers.get('X-Total'), await body(list)]).toEqual([
      200,
      '57',
      [
        { key: 'Android-Fastlane', name: 'Android-Fastlane' },
        { key: 'Bash', name: 'Bash' },
      ],
    ]);
    const go = await body(await call(fx, 'GET', `${APP}/templates/gitlab_ci_ymls/Go`, 'dev'));
    expect(Object.keys(go)).toEqual(['name', 'content']);
    expect(go.content).toContain('image: golang:latest');
    const missing = await call(fx, 'GET', `${APP}/templates/gitlab_ci_ymls/Nope`, 'dev');
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Template Not Found' }]);
    expect(await body(await call(fx, 'GET', `${APP}/templates/gitlab_ci_ymls`, 'outsider'))).toEqual({
      message: '404 Project Not Found',
    });
  });
});

const tpl = (category: string, key: string): CiTemplate => ({
  key,
  name: key,
  category,
  content: `# ${key}`,
});
const FILES = [
  tpl('Pages', 'Hugo'),
  tpl('General', 'dotNET'),
  tpl('General', 'Ruby'),
  tpl('General', 'Terraform.latest'),
  tpl('General', '5-Minute-Production-App'),
  tpl('Verify', 'Browser-Performance'),
  tpl('Verify', 'Accessibility'),
  tpl('Security', 'SAST'),
  tpl('Security', 'DAST'),
];
const keys = (list: CiTemplate[]) => list.map((t) => t.key);

describe('CI template finder (GitlabCiYmlTemplate)', () => {
  it('GitlabCiYmlTemplate.all: category by category, names by bytes, .latest and CE exclusions left out', () => {
    expect(keys(listCiTemplates(FILES, 'free'))).toEqual([
      '5-Minute-Production-App',
      'Ruby',
      'dotNET',
      'Hugo',
      'Accessibility',
    ]);
  });

  it('GitlabCiYmlTemplate.all: the enterprise edition adds Security last and lists Browser-Performance', () => {
    expect(keys(listCiTemplates(FILES, 'ultimate'))).toEqual([
      '5-Minute-Production-App',
      'Ruby',
      'dotNET',
      'Hugo',
      'Accessibility',
      'Browser-Performance',
      'DAST',
      'SAST',
    ]);
  });

  it('GitlabCiYmlTemplate.find: excluded files are still found by key; Security only SAST on CE', () => {
    expect(findCiTemplate(FILES, 'Terraform.latest', 'free')?.category).toBe('General');
    expect(findCiTemplate(FILES, 'Browser-Performance', 'free')?.category).toBe('Verify');
    expect(findCiTemplate(FILES, 'SAST', 'free')?.category).toBe('Security');
    expect(findCiTemplate(FILES, 'DAST', 'free')).toBeUndefined();
    expect(findCiTemplate(FILES, 'DAST', 'premium')?.category).toBe('Security');
    expect(findCiTemplate(FILES, 'Hugo.latest.x', 'premium')).toBeUndefined();
  });

  it('GitlabCiYmlTemplate.find: a key in two categories resolves to the first category in order', () => {
    const both = [tpl('Pages', 'Shared'), tpl('General', 'Shared')];
    expect(findCiTemplate(both, 'Shared', 'free')?.category).toBe('General');
  });
});
