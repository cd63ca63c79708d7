/**
 * `POST /projects/:id/uploads` (the Markdown attachments of issues and comments) and the web route that
 * serves the uploaded bytes under the project's path, as the platform's uploads controller does.
 */
import { createHash } from 'node:crypto';
import { canReadProject } from '../../core/access.js';
import { allowedScopes, requireUser, resolveViewer } from '../../core/auth.js';
import { state, write } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { p, parseQuery } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { nextId, type UploadRecord } from '../../core/state.js';
import { iget, iset, madd, tget, tset, tvalues, type Table } from '../../core/table.js';
import { loadProject } from './helpers.js';
import { setting } from '../settings/model.js';

const IMAGE_OR_VIDEO = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'bmp',
  'tiff',
  'ico',
  'webp',
  'mp4',
  'm4v',
  'mov',
  'webm',
  'ogv',
]);
const DANGEROUS = new Set(['svg']);

const CONTENT_TYPES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    bmp: 'image/bmp',
    tiff: 'image/tiff',
    ico: 'image/vnd.microsoft.icon',
    webp: 'image/webp',
    svg: 'image/svg+xml',
    mp4: 'video/mp4',
    m4v: 'video/mp4',
    mov: 'video/quicktime',
    webm: 'video/webm',
    ogv: 'video/ogg',
    txt: 'text/plain',
    md: 'text/markdown',
    log: 'text/plain',
    csv: 'text/csv',
    json: 'application/json',
    pdf: 'application/pdf',
    zip: 'application/zip',
    gz: 'application/gzip',
  }),
);

const extOf = (name: string) => {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
};

/** CarrierWave's filename sanitising: anything but word characters, `.`, `-` and `+` becomes `_`. */
export const sanitizeFileName = (name: string) => (name || 'file').replace(/[^\p{L}\p{N}_.\-+]/gu, '_');

/** `Gitlab::FileMarkdownLinkBuilder`: the alt text (an image's name without its extension). */
function altOf(filename: string): string {
  const ext = extOf(filename);
  const media = IMAGE_OR_VIDEO.has(ext);
  return (media ? filename.slice(0, filename.length - ext.length - 1) : filename).replace(/]/g, '\\]');
}

/** The Markdown that shows a file: an image or video inline (`![alt](url)`), anything else as a link. */
export function markdownLink(filename: string, url: string): string {
  const ext = extOf(filename);
  return `${IMAGE_OR_VIDEO.has(ext) || DANGEROUS.has(ext) ? '!' : ''}[${altOf(filename)}](${url})`;
}

/** The upload entity (`ProjectUpload`): alt, url, full_path, markdown. */
function uploadJson(u: UploadRecord, pathWithNamespace: string) {
  const url = `/uploads/${u.secret}/${u.filename}`;
  return {
    alt: altOf(u.filename),
    url,
    full_path: `/${pathWithNamespace}/uploads/${u.secret}/${u.filename}`,
    markdown: markdownLink(u.filename, url),
  };
}

/** Bytes of all uploads, per uploads table (immutable, so a table's total never changes). */
const uploadTotals = new WeakMap<object, number>();

function uploadsTotal(uploads: Table<UploadRecord>): number {
  let total = uploadTotals.get(uploads);
  if (total === undefined) {
    total = 0;
    for (const u of tvalues(uploads)) total += u.size;
    uploadTotals.set(uploads, total);
  }
  return total;
}

export function projectUploadsRoutes(r: ApiRouter): void {
  r.post('/projects/:id/uploads', async (c) => {
    requireUser(c);
    const prm = parse(c, { file: p.file().required() });
    const project = loadProject(c);
    const file = prm.file;
    if (file.size > setting(state(c), 'max_attachment_size') * 1024 * 1024)
      throw apiError(413, '413 Request Entity Too Large');
    // The instance's total: uploads live in memory, so a long-running mock must not fill up without end.
    const total = uploadsTotal(state(c).uploads);
    if (total + file.size > (c.get('fx').maxUploadsTotal ?? 512 * 1024 * 1024))
      throw apiError(413, '413 Request Entity Too Large');
    const data = Buffer.from(await file.arrayBuffer()).toString('base64');
    const filename = sanitizeFileName(file.name);
    const contentType = CONTENT_TYPES.get(extOf(filename)) ?? (file.type || 'application/octet-stream');
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => {
      const uid = nextId(d, 'uploads');
      // Derived, not random: the same scenario and requests give the same URLs.
      const secret = createHash('sha256')
        .update(`${project.id}:${uid}:${filename}:${file.size}`)
        .digest('hex')
        .slice(0, 32);
      tset(d.uploads, uid, {
        id: uid,
        project_id: project.id,
        secret,
        filename,
        content_type: contentType,
        size: file.size,
        data,
        created_at: now,
      });
      iset(d.idx.uploads, `${project.id}:${secret}/${filename}`, uid);
      madd(d.idx.uploadsBy, `p${project.id}`, uid);
      return uid;
    });
    // The new table is the old one plus this file: carry the total over instead of counting again.
    uploadTotals.set(state(c).uploads, total + file.size);
    return c.json(uploadJson(tget(state(c).uploads, id)!, project.path_with_namespace), 201);
  });

  // The bytes, at `/<namespace>/<project>/uploads/<secret>/<filename>`, for whoever may read the project.
  r.web.get('/*', async (c, next) => {
    const url = new URL(c.req.url);
    const m = /^\/(.+)\/uploads\/([0-9a-f]{32})\/([^/]+)$/.exec(url.pathname);
    if (!m) return next();
    const st = state(c);
    let projectPath: string;
    let filename: string;
    try {
      projectPath = decodeURIComponent(m[1]!);
      filename = decodeURIComponent(m[3]!);
    } catch {
      return next();
    }
    const pid = iget(st.idx.projects, projectPath.toLowerCase());
    const project = pid === undefined ? undefined : tget(st.projects, pid);
    const uid = project ? iget(st.idx.uploads, `${project.id}:${m[2]}/${filename}`) : undefined;
    if (!project || uid === undefined) return next();
    c.set('params', parseQuery(url.search));
    const viewer = resolveViewer(c, { auth: 'optional', scopes: allowedScopes('GET'), jobToken: false });
    if (!canReadProject(st, viewer.user, project)) return next();
    const u = tget(st.uploads, uid)!;
    const media = IMAGE_OR_VIDEO.has(extOf(u.filename));
    return c.body(Buffer.from(u.data, 'base64'), 200, {
      'Content-Type': u.content_type,
      'Content-Disposition': `${media ? 'inline' : 'attachment'}; filename="${u.filename}"`,
    });
  });
}
