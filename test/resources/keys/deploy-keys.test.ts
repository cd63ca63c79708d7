/**
 * `GET /keys?fingerprint=` and `GET /keys/:id` find deploy keys too (`DeployKey < Key`, one table):
 * the fingerprint search shows `Entities::DeployKeyWithUser`, with the key's project links.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { send, sshKey, world } from '../metadata/world.js';

function fingerprints(key: string) {
  const blob = Buffer.from(key.split(' ')[1]!, 'base64');
  return {
    md5: createHash('md5').update(blob).digest('hex').match(/../g)!.join(':'),
    sha: createHash('sha256').update(blob).digest('base64').replace(/=+$/, ''),
  };
}

async function withDeployKey() {
  const fx = world();
  const key = sshKey(9, 'ci@runner');
  const made = await send(fx, 'POST', '/projects/acme%2Fapp/deploy_keys', 'owner', {
    title: 'ci',
    key,
    can_push: true,
  });
  expect(made.status).toBe(201);
  return { fx, id: made.body.id as number, key, ...fingerprints(key) };
}

describe('GET /keys?fingerprint= with deploy keys', () => {
  it('finds a deploy key by MD5: the key, the user who added it, its project links', async () => {
    const { fx, id, key, md5 } = await withDeployKey();
    const project = (await send(fx, 'GET', '/projects/acme%2Fapp', 'root')).body.id;
    const r = await send(fx, 'GET', `/keys?fingerprint=${md5}`, 'root');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual([
      'id',
      'title',
      'key',
      'created_at',
      'expires_at',
      'user',
      'deploy_keys_projects',
    ]);
    expect(r.body).toMatchObject({
      id,
      title: 'ci',
      key,
      expires_at: null,
      user: expect.objectContaining({ username: 'owner' }),
    });
    expect(r.body.deploy_keys_projects).toEqual([
      {
        id: expect.any(Number),
        deploy_key_id: id,
        project_id: project,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        can_push: true,
      },
    ]);
  });

  it('finds it by SHA256, and follows the key into a second project', async () => {
    const { fx, id, sha } = await withDeployKey();
    expect((await send(fx, 'POST', `/projects/acme%2Fsite/deploy_keys/${id}/enable`, 'owner')).status).toBe(
      201,
    );
    const r = await send(fx, 'GET', `/keys?fingerprint=SHA256:${encodeURIComponent(sha)}`, 'root');
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(id);
    expect(r.body.deploy_keys_projects.map((l: { can_push: boolean }) => l.can_push)).toEqual([true, false]);
  });

  it('a user key keeps its own shape (no deploy_keys_projects)', async () => {
    const { fx } = await withDeployKey();
    const key = sshKey(10, 'dev@laptop');
    await send(fx, 'POST', '/user/keys', 'dev', { title: 'laptop', key });
    const r = await send(fx, 'GET', `/keys?fingerprint=${fingerprints(key).md5}`, 'root');
    expect(Object.keys(r.body)).toEqual(['id', 'title', 'key', 'created_at', 'expires_at', 'user']);
  });

  it('GET /keys/:id finds a deploy key by its id (SSHKeyWithUser)', async () => {
    const { fx, id } = await withDeployKey();
    const r = await send(fx, 'GET', `/keys/${id}`, 'root');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, title: 'ci', user: expect.objectContaining({ username: 'owner' }) });
    expect(r.body.deploy_keys_projects).toBeUndefined();
  });

  it('administrators only', async () => {
    const { fx, md5 } = await withDeployKey();
    expect((await send(fx, 'GET', `/keys?fingerprint=${md5}`, 'owner')).status).toBe(403);
  });
});
