/**
 * `POST /projects/remote-import` (13.12) and `POST /projects/remote-import-s3` (14.9) of
 * `lib/api/project_import.rb`: `Import::GitlabProjects::CreateProjectService` with the `RemoteFile` and
 * `RemoteFileS3` acquisition strategies. The platform asks the remote for the file's headers (or asks
 * S3 for the object) before it makes the project; fauxlab makes no request to any other host, so every
 * file is out of reach, as from an instance with no way out: the request fails as the platform fails
 * then (400, the first of the service's messages), and nothing is made.
 */
import { requireUser } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { apiError, notFound } from '../../core/errors.js';
import { featureEnabledOr } from '../../core/features.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { validateUrl } from '../../core/url-blocker.js';
import { has } from '../../core/versions.js';
import { allowlist, WEB_HOOKS } from '../settings/outbound.js';
import { setting } from '../settings/model.js';
import { findNamespace, importEnabled } from './routes.js';
import { REMOTE_IMPORT_ON, REMOTE_IMPORT_S3_GA } from './versions.js';

const common = {
  path: p.str().required(),
  name: p.str(),
  namespace: p.str(),
  overwrite: p.bool().default(false),
  override_params: p.hash(),
};

/** `namespace_from`, then `validates_presence_of :path, :namespace`: the service's own messages. */
function serviceChecks(c: Ctx, prm: { path: string; namespace?: string }): void {
  requireUser(c);
  if (prm.namespace !== undefined) findNamespace(c, prm.namespace);
  if (prm.path.trim() === '') throw apiError(400, "Path can't be blank");
}

/** `Net::HTTP`'s error for a host it could not reach, which `Gitlab::HTTP` passes on. */
const unreachable = (host: string, port: number) =>
  `Failed to open TCP connection to ${host}:${port} (getaddrinfo: Name or service not known)`;

export function remoteImportRoutes(r: ApiRouter): void {
  r.post('/projects/remote-import', { params: { url: p.str().required(), ...common } }, async (c, prm) => {
    const st = state(c);
    if (!featureEnabledOr(st, 'import_project_from_remote_file', has(c, REMOTE_IMPORT_ON))) throw notFound();
    importEnabled(c);
    serviceChecks(c, prm);
    // `RemoteFile`: `validates :file_url, addressable_url: { schemes: %w(https), allow_localhost:,
    // allow_local_network:, dns_rebind_protection: true }` (a blank URL has no scheme).
    const url = prm.url.trim();
    const local = setting(st, WEB_HOOKS) === true;
    const blocked =
      url === ''
        ? { ok: false as const, message: 'Only allowed schemes are https' }
        : await validateUrl(url, {
            schemes: ['https'],
            allowLocal: local,
            dnsRebindProtection: true,
            allowlist: allowlist(st),
            resolve: c.get('fx').resolve,
          });
    if (!blocked.ok) throw apiError(400, `File url is blocked: ${blocked.message}`);
    // Then `headers`: `Gitlab::HTTP.head(file_url, timeout: 1.second)`, which cannot reach the host.
    const u = blocked.url;
    throw apiError(
      400,
      `Failed to retrive headers: ${unreachable(u.hostname, u.port ? Number(u.port) : 443)}`,
    );
  });

  const s3 = {
    region: p.str().required(),
    bucket_name: p.str().required(),
    file_key: p.str().required(),
    access_key_id: p.str().required(),
    secret_access_key: p.str().required(),
    ...common,
  };
  r.post(
    '/projects/remote-import-s3',
    {
      params: s3,
      since: '14.9',
      source: 'doc/api/project_import_export.md (Import a file from AWS S3, 14.9); lib/api/project_import.rb',
    },
    (c, prm) => {
      const st = state(c);
      if (!has(c, REMOTE_IMPORT_S3_GA) && !featureEnabledOr(st, 'import_project_from_remote_file_s3', false))
        throw notFound();
      importEnabled(c);
      serviceChecks(c, prm);
      // `RemoteFileS3`: `validates_presence_of` the five, then the object, which S3 would have to
      // answer for (`Aws::S3::Object#exists?`).
      for (const k of ['region', 'bucket_name', 'file_key', 'access_key_id', 'secret_access_key'] as const)
        if (prm[k].trim() === '')
          throw apiError(
            400,
            `${(k.charAt(0).toUpperCase() + k.slice(1)).replace(/_/g, ' ')} can't be blank`,
          );
      throw apiError(
        400,
        `Failed to open '${prm.file_key}' in '${prm.bucket_name}': ${unreachable(`${prm.bucket_name}.s3.${prm.region}.amazonaws.com`, 443)}`,
      );
    },
  );
}
