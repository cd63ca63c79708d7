/**
 * Git over smart HTTP at the platform's URLs (`http_url_to_repo`: `/<namespace>/<project>.git`), as
 * 13.12's `Repositories::GitHttpController` and Workhorse answer: `info/refs` advertisements,
 * `git-upload-pack` and `git-receive-pack`. Authentication and access follow
 * `GitHttpClientController#authenticate_user` and `Gitlab::GitAccess#check`; refusals are plain text,
 * which git shows after `remote:`.
 */
import { state, write, type Ctx } from '../../core/context.js';
import type { ApiRouter } from '../../core/router.js';
import { iget, tget } from '../../core/table.js';
import { isBlocked } from '../../core/state.js';
import type { Project } from '../projects/model.js';
import { canPushCode } from '../repository/access.js';
import {
  actorCanDownload,
  actorCanRead,
  anonymousCanDownload,
  basicCredentials,
  GitAuthFailed,
  gitActor,
  type GitActor,
} from './auth.js';
import {
  BadGzip,
  GIT_MAX_INFLATED,
  GIT_MAX_REQUEST_BUFFER,
  gunzipBounded,
  InflatedTooLarge,
} from './body.js';
import { pkt } from './pktline.js';
import { advertiseReceive, pushSizeLimit, receivePack } from './receive.js';
import { recordActivity } from '../../core/activity.js';
import { countFetch } from '../project_statistics/model.js';
import {
  advertiseUpload,
  advertiseV2,
  servicePreamble,
  UploadError,
  uploadPackV0,
  uploadPackV2,
} from './upload.js';

const PATH = /^\/(.+)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

const MESSAGES = {
  denied: 'HTTP Basic: Access denied\n',
  notFound: 'The project you were looking for could not be found.',
  authDownload: 'You are not allowed to download code.',
  authUpload: 'You are not allowed to upload code.',
  download: 'You are not allowed to download code from this project.',
  upload: 'You are not allowed to upload code for this project.',
  pushCode: 'You are not allowed to push code to this project.',
  archived: 'You are not allowed to push code to an archived project.',
  blocked: 'Your account has been blocked.',
  command: "The command you're trying to execute is not allowed.",
};

const plain = (status: number, text: string, headers: Record<string, string> = {}) =>
  new Response(text, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers } });

function accessDenied(missingToken: boolean, base: string): Response {
  const text = missingToken
    ? `${MESSAGES.denied}You must use a personal access token with 'read_repository' or 'write_repository' scope for Git over HTTP.\nYou can generate one at ${base}/-/profile/personal_access_tokens`
    : MESSAGES.denied;
  return plain(401, text, { 'WWW-Authenticate': 'Basic realm="GitLab"' });
}

type Service = 'git-upload-pack' | 'git-receive-pack';

/** Who asks, and whether they may run `service` on the project: the actor, or the refusal to send. */
function authorize(c: Ctx, project: Project | undefined, service: Service): GitActor | Response {
  const st = state(c);
  const fx = c.get('fx');
  const base = fx.baseUrl ?? new URL(c.req.url).origin;
  const download = service === 'git-upload-pack';
  const creds = basicCredentials(c.req.header('authorization'));
  let actor: GitActor;
  if (creds) {
    try {
      actor = gitActor(st, fx.clock, creds.login, creds.password, project);
    } catch (e) {
      if (e instanceof GitAuthFailed) return accessDenied(e.missingToken, base);
      throw e;
    }
  } else if (download && project && anonymousCanDownload(project)) {
    actor = { user: null, deployToken: null, kind: 'none', abilities: new Set(['download_code']) };
  } else return accessDenied(false, base);

  const user = actor.user;
  if (user && isBlocked(user)) return plain(403, MESSAGES.blocked);
  if (download && !actor.abilities.has('download_code') && !actor.abilities.has('build_download_code'))
    return plain(403, MESSAGES.authDownload);
  if (!download && !actor.abilities.has('push_code')) return plain(403, MESSAGES.authUpload);
  if (!project || !actorCanRead(st, actor, project)) return plain(404, MESSAGES.notFound);
  if (download) {
    if (!actorCanDownload(st, actor, project)) return plain(403, MESSAGES.download);
  } else if (project.archived) return plain(403, MESSAGES.archived);
  else if (actor.deployToken) {
    // A deploy token with write_repository pushes to its project.
  } else if (!user) return plain(403, MESSAGES.upload);
  else if (!canPushCode(st, user, project)) return plain(403, MESSAGES.pushCode);
  return actor;
}

function findRepoProject(c: Ctx, encoded: string): Project | undefined {
  let path: string;
  try {
    path = decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
  const st = state(c);
  const id = iget(st.idx.projects, path.toLowerCase());
  return id === undefined ? undefined : (tget(st.projects, id) as Project | undefined);
}

/** A body of a generator's pieces, made as the client reads (one request never holds the others up for long). */
function streamOf(
  pieces: Iterator<Buffer>,
  onError: (e: unknown) => Buffer | undefined,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      try {
        const { done, value } = pieces.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (e) {
        const last = onError(e);
        if (last) controller.enqueue(last);
        controller.close();
      }
    },
  });
}

/**
 * The body of `service`, gunzipped if it was sent so. Once inflated, an upload-pack request is bounded
 * by `http.maxRequestBuffer`, a push by the push size limit (else the body cap of git requests).
 */
async function readGitBody(c: Ctx, service: Service): Promise<Buffer> {
  const raw = Buffer.from(await c.req.arrayBuffer());
  const encoding = (c.req.header('content-encoding') ?? '').toLowerCase();
  if (encoding !== 'gzip' && encoding !== 'x-gzip') return raw;
  const limit = pushSizeLimit(state(c));
  const max =
    service === 'git-upload-pack'
      ? GIT_MAX_REQUEST_BUFFER
      : Number.isFinite(limit)
        ? limit
        : GIT_MAX_INFLATED;
  return gunzipBounded(raw, max);
}

/** A Buffer as a response body (a view, not a copy). */
const bytes = (b: Buffer) => new Uint8Array(b.buffer as ArrayBuffer, b.byteOffset, b.length);

const noCache = {
  'Cache-Control': 'no-cache',
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
  Pragma: 'no-cache',
};

export function gitHttpRoutes(r: ApiRouter): void {
  r.web.on(['GET', 'HEAD'], '/*', (c, next) => {
    const url = new URL(c.req.url);
    const m = PATH.exec(url.pathname);
    if (!m || m[2] !== 'info/refs') {
      // `/group/project/info/refs` redirects to the `.git` path, for the handshake only (routes/git_http.rb).
      const bare = /^\/(.+\/[^/]+)\/info\/refs$/.exec(url.pathname);
      if (
        !bare ||
        bare[1]!.endsWith('.git') ||
        !/^(|service=git-(upload|receive)-pack)$/.test(url.search.slice(1))
      )
        return next();
      return c.redirect(`${url.origin}/${bare[1]!}.git/info/refs${url.search}`, 301);
    }
    // `deny_head_requests`
    if (c.req.method === 'HEAD') return c.body(null, 403);
    const project = findRepoProject(c, m[1]!);
    const service = c.req.query('service');
    if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
      const who = authorize(c, project, 'git-upload-pack');
      return who instanceof Response ? who : plain(403, MESSAGES.command);
    }
    const who = authorize(c, project, service);
    if (who instanceof Response) return who;
    const st = state(c);
    const v2 =
      service === 'git-upload-pack' && /(^|:)version=2(:|$)/.test(c.req.header('git-protocol') ?? '');
    const body =
      service === 'git-receive-pack'
        ? Buffer.concat([servicePreamble(service), advertiseReceive(st, project!)])
        : v2
          ? advertiseV2()
          : Buffer.concat([servicePreamble(service), advertiseUpload(st, project!, c.get('fx').clock.ms())]);
    return new Response(bytes(body), {
      status: 200,
      headers: { 'Content-Type': `application/x-${service}-advertisement`, ...noCache },
    });
  });

  r.web.post('/*', async (c, next) => {
    const m = PATH.exec(new URL(c.req.url).pathname);
    if (!m || m[2] === 'info/refs') return next();
    const service = m[2] as Service;
    const project = findRepoProject(c, m[1]!);
    const who = authorize(c, project, service);
    if (who instanceof Response) return who;
    let body: Buffer;
    try {
      body = await readGitBody(c, service);
    } catch (e) {
      if (e instanceof InflatedTooLarge) return plain(413, 'Request Entity Too Large');
      if (e instanceof BadGzip) return plain(400, 'Bad Request');
      throw e;
    }
    const headers = { 'Content-Type': `application/x-${service}-result`, ...noCache };
    const st = state(c);
    if (service === 'git-receive-pack') {
      try {
        return new Response(bytes(await receivePack(c, project!, who, body)), { status: 200, headers });
      } catch (e) {
        if (e instanceof Error && /^protocol error|pkt-line/.test(e.message)) return plain(400, e.message);
        throw e;
      }
    }
    // A fetch is the user's activity (`Users::ActivityService` from the git HTTP controller); a push's
    // comes with its push event (src/resources/repository/post-receive.ts).
    recordActivity(c.get('fx'), who.user);
    // `update_fetch_statistics` of the git HTTP controller: every upload-pack counts a fetch of the day.
    write(c, (d) => countFetch(d, project!.id, c.get('fx').clock.ms()));
    const v2 = /(^|:)version=2(:|$)/.test(c.req.header('git-protocol') ?? '');
    const now = c.get('fx').clock.ms();
    const pieces = v2 ? uploadPackV2(st, project!, now, body) : uploadPackV0(st, project!, now, body);
    let first: IteratorResult<Buffer>;
    try {
      // The first piece before the status line: a refused request is answered with its ERR packet.
      first = pieces.next();
    } catch (e) {
      if (e instanceof UploadError)
        return new Response(bytes(pkt(`ERR ${e.message}\n`)), { status: 200, headers });
      if (e instanceof Error && /pkt-line/.test(e.message)) return plain(400, e.message);
      throw e;
    }
    if (first.done) return new Response(new Uint8Array(0), { status: 200, headers });
    const rest: Iterator<Buffer> = {
      next: (() => {
        let sentFirst = false;
        return () => {
          if (!sentFirst) {
            sentFirst = true;
            return first;
          }
          return pieces.next();
        };
      })(),
    };
    return new Response(
      streamOf(rest, (e) => (e instanceof UploadError ? pkt(`ERR ${e.message}\n`) : undefined)),
      { status: 200, headers },
    );
  });
}
