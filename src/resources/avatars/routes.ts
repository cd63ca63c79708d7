/**
 * `GET /avatar?email=` (`lib/api/avatar.rb`) and the uploaded avatars themselves, served at the path
 * their records' `avatar_url` names. User and topic avatars are public; a group's or project's is
 * served to whoever may read the group or project (`UploadsController#authorized?`).
 */
import { createHash } from 'node:crypto';
import { canReadGroup, canReadProject } from '../../core/access.js';
import { allowedScopes, resolveViewer } from '../../core/auth.js';
import { state } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { requestBase } from '../../core/pagination.js';
import { p, parseQuery } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { iget, tget, tvalues } from '../../core/table.js';
import { setting, visibilityRestricted } from '../settings/model.js';

/** Avatars, and the appearance's images (public, as the sign-in page shows them). */
const PATH =
  /^\/uploads\/-\/system\/(?:(user|group|project|projects\/topic)\/avatar|appearance\/(?:logo|header_logo|favicon))\/(\d+)\/[^/]+$/;

export function avatarsRoutes(r: ApiRouter): void {
  r.get('/avatar', (c) => {
    const prm = parse(c, { email: p.str().required(), size: p.int() });
    const st = state(c);
    // `read_users_list`: refused to anonymous callers only where public visibility is restricted.
    if (!c.get('viewer').user && visibilityRestricted(st, 'public'))
      throw apiError(403, '403 Forbidden - Unauthorized access');
    const email = prm.email.trim().toLowerCase();
    const user = tvalues(st.users).find(
      (u) =>
        typeof u.public_email === 'string' && u.public_email !== '' && u.public_email.toLowerCase() === email,
    );
    const base = requestBase(c);
    if (user?.avatar_url) {
      const url = user.avatar_url as string;
      return c.json({ avatar_url: url.startsWith('/') ? base + url : url });
    }
    if (!setting(st, 'gravatar_enabled') || prm.email.trim() === '') return c.json({ avatar_url: null });
    const host = base.startsWith('https:') ? 'https://secure.gravatar.com' : 'https://www.gravatar.com';
    const hash = createHash('md5').update(email).digest('hex');
    const size = prm.size !== undefined && prm.size > 0 ? prm.size : 40;
    return c.json({ avatar_url: `${host}/avatar/${hash}?s=${size * 2}&d=identicon` });
  });

  r.web.get('/uploads/-/system/*', (c, next) => {
    const path = decodeURI(new URL(c.req.url).pathname);
    const m = PATH.exec(path);
    const st = state(c);
    const file = m ? iget(st.avatars.files, path) : undefined;
    if (!m || !file) return next();
    const id = Number(m[2]);
    if (m[1] === 'group' || m[1] === 'project') {
      c.set('params', parseQuery(new URL(c.req.url).search));
      const viewer = resolveViewer(c, { auth: 'optional', scopes: allowedScopes('GET'), jobToken: false });
      const readable =
        m[1] === 'group'
          ? !!tget(st.groups, id) && canReadGroup(st, viewer.user, tget(st.groups, id)!)
          : !!tget(st.projects, id) && canReadProject(st, viewer.user, tget(st.projects, id)!);
      if (!readable) return next();
    }
    return c.body(new Uint8Array(Buffer.from(file.data, 'base64')), 200, {
      'Content-Type': file.content_type,
      'Content-Disposition': `inline; filename="${path.slice(path.lastIndexOf('/') + 1)}"`,
    });
  });
}
