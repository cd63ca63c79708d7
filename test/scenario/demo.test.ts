import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/app.js';
import { loadScenario } from '../../src/scenario/index.js';
import { scenarioJsonSchema, scenarioJsonSchemaText } from '../../src/scenario/json-schema.js';

const scenarios = fileURLToPath(new URL('../../scenarios/', import.meta.url));
const demoPath = join(scenarios, 'demo.yaml');
const ROOT_TOKEN = 'glpat-fauxlab-demo-root';

const user = (fx: ReturnType<typeof createFauxlab>, token: string) =>
  fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': token } });

describe('scenarios/demo.yaml', () => {
  const demo = loadScenario(demoPath);

  it('loads, cross-references included', () => {
    expect(demo.users.length).toBeGreaterThan(3);
  });

  it('its admin token answers GET /api/v4/user as root', async () => {
    const fx = createFauxlab({ scenario: demoPath });
    const res = await user(fx, ROOT_TOKEN);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { username: string }).username).toBe('root');
    const root = demo.users.find((u) => u.username === 'root')!;
    expect(root.admin).toBe(true);
    expect(root.tokens[0]).toMatchObject({ token: ROOT_TOKEN, scopes: expect.arrayContaining(['api']) });
  });

  it('has a blocked user and an external user', () => {
    expect(demo.users.some((u) => u.state === 'blocked')).toBe(true);
    expect(demo.users.some((u) => u.external === true)).toBe(true);
  });

  it('has tokens of varied scopes: a read_api one and an expired one that the API refuses', async () => {
    const tokens = demo.users.flatMap((u) => u.tokens);
    expect(tokens.some((t) => t.scopes.length === 1 && t.scopes[0] === 'read_api')).toBe(true);
    const expired = tokens.filter((t) => t.expires_at !== null && t.expires_at <= demo.now!.slice(0, 10));
    expect(expired).toHaveLength(1);
    const fx = createFauxlab({ scenario: demoPath });
    expect((await user(fx, expired[0]!.token)).status).toBe(401);
  });

  it('the blocked user is refused and the read_api token cannot write, as the header comment says', async () => {
    const fx = createFauxlab({ scenario: demoPath });
    expect((await user(fx, 'glpat-fauxlab-demo-mallory')).status).toBe(403);
    const write = await fx.app.request('/api/v4/users', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'glpat-fauxlab-demo-alice-read' },
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { error: string }).error).toBe('insufficient_scope');
  });

  it('has a subgroup, members at several levels, every visibility and a personal project', () => {
    expect(demo.groups.some((g) => g.path.includes('/'))).toBe(true);
    const levels = new Set(
      [...demo.groups, ...demo.projects].flatMap((x) => x.members.map((m) => m.access_level)),
    );
    expect(levels.size).toBeGreaterThanOrEqual(4);
    expect(new Set(demo.projects.map((p) => p.visibility))).toEqual(
      new Set(['public', 'internal', 'private']),
    );
    const users = new Set(demo.users.map((u) => u.username));
    expect(demo.projects.some((p) => users.has(p.path.split('/')[0]!))).toBe(true);
    expect(demo.now).toBeDefined();
  });
});

describe('scenarios/schema.json', () => {
  it('is current (run `npm run schema` after changing src/scenario/schema.ts)', () => {
    expect(readFileSync(join(scenarios, 'schema.json'), 'utf8')).toBe(scenarioJsonSchemaText());
  });

  it('describes the input side: role names and omitted defaults are allowed', () => {
    const schema = scenarioJsonSchema() as { properties: Record<string, unknown>; required?: string[] };
    expect(Object.keys(schema.properties)).toEqual([
      '$schema',
      'extends',
      'seed',
      'tier',
      'version',
      'now',
      'settings',
      'features',
      'users',
      'groups',
      'projects',
      'oauth_applications',
      'epics',
      'snippets',
      'topics',
      'variables',
      'runners_registration_token',
      'runners',
      'system_hooks',
      'ci',
      'broadcast_messages',
      'notification_settings',
      'container_registry',
      'repository_storage_moves',
      'snippet_repository_storages',
      'user_preferences',
      'appearance',
      'plan_limits',
      'clusters',
      'metrics_dashboard_annotations',
      'generate',
    ]);
    expect(schema.required ?? []).toEqual([]);
    expect(JSON.stringify(schema)).toContain('"maintainer"');
    expect(JSON.stringify(schema)).toContain('issues_per_project');
  });

  it('every scenario file shipped references it and validates', () => {
    const files = ['demo.yaml', ...readdirSync(join(scenarios, 'examples')).map((f) => join('examples', f))];
    expect(files.length).toBeGreaterThan(2);
    for (const f of files) {
      const path = join(scenarios, f);
      const text = readFileSync(path, 'utf8');
      const raw = (f.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as { $schema?: string };
      expect(raw.$schema, f).toBe(f.startsWith('examples') ? '../schema.json' : './schema.json');
      expect(() => loadScenario(path), f).not.toThrow();
    }
  });
});
