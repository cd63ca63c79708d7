/**
 * A project's name and path are unique in its namespace (the path case-insensitively), whatever the
 * namespace holds and however its projects came and went: created, renamed, re-pathed, transferred,
 * deleted, built by a scenario, or loaded from a state file saved before the name index existed.
 */
import { describe, expect, it } from 'vitest';
import { parseStateFile, stateFileText } from '../../../src/admin/state-file.js';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request, tok } from '../helpers.js';

const world: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    { username: 'alice', tokens: tok('alice-api'), projects_limit: 200 },
  ],
  groups: [
    { path: 'acme', visibility: 'public', members: [{ username: 'alice', access_level: 'owner' }] },
    { path: 'acme/sub', visibility: 'public' },
    { path: 'lab', visibility: 'public', members: [{ username: 'alice', access_level: 'owner' }] },
  ],
  projects: [
    { path: 'acme/site', name: 'Site' },
    { path: 'acme/docs', name: 'Docs' },
    { path: 'acme/sub/x', name: 'X' },
    { path: 'alice/notes', name: 'Notes' },
  ],
};

type Fx = ReturnType<typeof createFauxlab>;

async function send(fx: Fx, method: string, path: string, body?: unknown, token = 'alice-api') {
  const res = await request(fx, method, `/api/v4${path}`, { token, body });
  return { status: res.status, body: await json(res) };
}

const taken = (keys: ('name' | 'path')[], limit = true) => ({
  status: 400,
  body: {
    message: {
      ...(keys.includes('name') ? { name: ['has already been taken'] } : {}),
      ...(keys.includes('path') ? { path: ['has already been taken'] } : {}),
      ...(limit ? { limit_reached: [] } : {}),
    },
  },
});

/** A namespace's id (not its group's). */
const nsId = async (fx: Fx, path: string): Promise<number> =>
  ((await send(fx, 'GET', `/namespaces/${path}`)).body as { id: number }).id;

describe('project name and path uniqueness', () => {
  it('POST /projects: in a namespace of a hundred projects, a taken name, a taken path in other case, or both are refused; free ones are not', async () => {
    const fx = createFauxlab({ scenario: world });
    const acmeId = await nsId(fx, 'acme');
    for (let i = 0; i < 100; i++)
      expect((await send(fx, 'POST', '/projects', { name: `P ${i}`, path: `p-${i}` })).status).toBe(201);
    expect(await send(fx, 'POST', '/projects', { name: 'P 42', path: 'free' })).toEqual(taken(['name']));
    expect(await send(fx, 'POST', '/projects', { name: 'Free', path: 'P-77' })).toEqual(taken(['path']));
    expect(await send(fx, 'POST', '/projects', { name: 'P 7' })).toEqual(taken(['name', 'path']));
    expect(await send(fx, 'POST', '/projects', { name: 'Notes', path: 'NOTES' })).toEqual(
      taken(['name', 'path']),
    );
    // Names compare exactly: another case is another name.
    expect((await send(fx, 'POST', '/projects', { name: 'p 42', path: 'other' })).status).toBe(201);
    // The same name and path in another namespace are free.
    const inGroup = await send(fx, 'POST', '/projects', { name: 'P 42', path: 'p-42', namespace_id: acmeId });
    expect(inGroup.status).toBe(201);
  });

  it('POST /projects: a path with a slash is refused for its format, not as taken by a subgroup project of that full path', async () => {
    const fx = createFauxlab({ scenario: world });
    const r = await send(fx, 'POST', '/projects', {
      name: 'Y',
      path: 'sub/x',
      namespace_id: await nsId(fx, 'acme'),
    });
    expect(r).toEqual({
      status: 400,
      body: {
        message: {
          path: [
            "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'",
          ],
          limit_reached: [],
        },
      },
    });
  });

  it("PUT /projects/:id: a sibling's name or path (in any case) is refused, the project's own name and path are not, and a rename frees the old name", async () => {
    const fx = createFauxlab({ scenario: world });
    const acmeId = await nsId(fx, 'acme');
    expect(await send(fx, 'PUT', '/projects/1', { name: 'Docs' })).toEqual(taken(['name'], false));
    expect(await send(fx, 'PUT', '/projects/1', { path: 'DOCS' })).toEqual(taken(['path'], false));
    expect((await send(fx, 'PUT', '/projects/1', { name: 'Site', path: 'site' })).status).toBe(200);
    expect((await send(fx, 'PUT', '/projects/1', { path: 'SITE' })).status).toBe(200);
    expect((await send(fx, 'PUT', '/projects/1', { name: 'Portal', path: 'portal' })).status).toBe(200);
    expect(await send(fx, 'PUT', '/projects/2', { name: 'Portal' })).toEqual(taken(['name'], false));
    expect(await send(fx, 'PUT', '/projects/2', { path: 'Portal' })).toEqual(taken(['path'], false));
    const again = await send(fx, 'POST', '/projects', { name: 'Site', path: 'site', namespace_id: acmeId });
    expect(again.status).toBe(201);
  });

  it('PUT /projects/:id/transfer: the name and path leave the old namespace and are taken in the new one', async () => {
    const fx = createFauxlab({ scenario: world });
    const [acmeId, labId] = [await nsId(fx, 'acme'), await nsId(fx, 'lab')];
    expect((await send(fx, 'PUT', '/projects/1/transfer', { namespace: 'lab' })).status).toBe(200);
    expect(await send(fx, 'POST', '/projects', { name: 'Site', path: 'other', namespace_id: labId })).toEqual(
      taken(['name']),
    );
    expect(await send(fx, 'POST', '/projects', { name: 'Other', path: 'Site', namespace_id: labId })).toEqual(
      taken(['path']),
    );
    expect(
      (await send(fx, 'POST', '/projects', { name: 'Site', path: 'site', namespace_id: acmeId })).status,
    ).toBe(201);
  });

  it('DELETE /projects/:id: a deleted project frees its name and path for a new one', async () => {
    const fx = createFauxlab({ scenario: world });
    expect(await send(fx, 'POST', '/projects', { name: 'Notes' })).toEqual(taken(['name', 'path']));
    expect((await send(fx, 'DELETE', '/projects/4')).status).toBe(202);
    expect((await send(fx, 'POST', '/projects', { name: 'Notes' })).status).toBe(201);
  });

  it('scenario: two projects of one name in a namespace keep the name taken until both are gone', async () => {
    const fx = createFauxlab({
      scenario: {
        ...world,
        projects: [
          { path: 'alice/a', name: 'Same' },
          { path: 'alice/b', name: 'Same' },
        ],
      },
    });
    expect(await send(fx, 'POST', '/projects', { name: 'Same', path: 'c' })).toEqual(taken(['name']));
    // A project keeping its name is refused while a sibling has it too.
    expect(await send(fx, 'PUT', '/projects/1', { name: 'Same' })).toEqual(taken(['name'], false));
    expect((await send(fx, 'DELETE', '/projects/1')).status).toBe(202);
    expect(await send(fx, 'POST', '/projects', { name: 'Same', path: 'c' })).toEqual(taken(['name']));
    expect((await send(fx, 'PUT', '/projects/2', { name: 'Same' })).status).toBe(200);
    expect((await send(fx, 'DELETE', '/projects/2')).status).toBe(202);
    expect((await send(fx, 'POST', '/projects', { name: 'Same', path: 'c' })).status).toBe(201);
  });

  it('state file: one saved before the name index (large id sets flat, no index) loads, serves the same, and checks names and counts as before', async () => {
    const fx = createFauxlab({ scenario: world });
    for (let i = 0; i < 80; i++) await send(fx, 'POST', '/projects', { name: `P ${i}` });
    const reads = ['/projects?owned=true&per_page=100', '/users/2/projects?per_page=100'];
    const read = async (f: Fx) => Promise.all(reads.map(async (p) => (await send(f, 'GET', p)).body));
    const want = await read(fx);
    const text = stateFileText(fx.snapshot());
    // The layout before: every id set of the core multi-indexes an object (`{"<id>":1}`), no name index.
    const file = JSON.parse(text) as { state: { idx: Record<string, { buckets: unknown }> } };
    const asObject = (v: unknown) => {
      const ids = Array.isArray(v) ? (v as number[]) : (v as { c: number[][] }).c.flat();
      return Object.fromEntries(ids.map((id) => [id, 1]));
    };
    const multi = ['tokensByUser', 'membersBySource', 'membersByUser', 'projectsByNamespace', 'subgroups'];
    let converted = 0;
    for (const name of multi) {
      const walk = (node: unknown, depth: number): void => {
        if (!Array.isArray(node)) return;
        if (depth < 4) return node.forEach((n) => walk(n, depth + 1));
        for (let i = 1; i < node.length; i += 2) {
          node[i] = asObject(node[i]);
          converted++;
        }
      };
      walk(file.state.idx[name]!.buckets, 0);
    }
    expect(converted).toBeGreaterThan(5);
    delete file.state.idx.projectNames;
    const old = JSON.stringify(file);
    expect(old).not.toContain('projectNames');
    const again = createFauxlab({});
    again.restore(parseStateFile(old));
    expect(await read(again)).toEqual(want);
    expect(await send(again, 'POST', '/projects', { name: 'P 12', path: 'x' })).toEqual(taken(['name']));
    expect(await send(again, 'POST', '/projects', { name: 'Notes', path: 'x' })).toEqual(taken(['name']));
    expect((await send(again, 'POST', '/projects', { name: 'P 80' })).status).toBe(201);
    expect(await send(again, 'POST', '/projects', { name: 'P 80' })).toEqual(taken(['name', 'path']));
  });

  it('POST /projects: the personal project limit counts the projects of a large namespace', async () => {
    const fx = createFauxlab({
      scenario: { ...world, users: [{ ...world.users![1]!, projects_limit: 70 }] },
    });
    for (let i = 0; i < 69; i++)
      expect((await send(fx, 'POST', '/projects', { name: `P ${i}` })).status).toBe(201);
    expect(await send(fx, 'POST', '/projects', { name: 'One more' })).toEqual({
      status: 403,
      body: {
        error: ['Your project limit is 70 projects! Please contact your administrator to increase it'],
      },
    });
  });
});
