/**
 * The admin Applications API (`/applications`): instance-wide OAuth applications, created with Doorkeeper's
 * validations, listed without their secret, deleted with their grants and tokens.
 */
import type { Ctx } from '../../core/context.js';
import { state, write } from '../../core/context.js';
import { notFound, validationError } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { digest } from '../../core/store.js';
import { tget, tvalues } from '../../core/table.js';
import {
  SERVER_SCOPES,
  createApplication,
  deleteApplication,
  hexSecret,
  parseScopes,
} from '../oauth/model.js';
import type { OAuthApplicationRecord } from '../oauth/store.js';

const createShape = {
  name: p.str().required(),
  redirect_uri: p.str().required(),
  scopes: p.str().required(),
  confidential: p.bool().default(true),
};

/** Characters a URI may hold; Ruby's `URI.parse` refuses anything else. */
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const FORBIDDEN_SCHEMES = ['data', 'vbscript', 'javascript'];

/** Doorkeeper's RedirectUriValidator, with the platform's forbidden schemes. */
function redirectUriErrors(value: string): string[] {
  if (value.trim() === '') return ["can't be blank"];
  const errors: string[] = [];
  for (const uri of value.split(/\s+/).filter(Boolean)) {
    if (uri === 'urn:ietf:wg:oauth:2.0:oob') continue;
    if (!URI_CHARS.test(uri) || /#.*#/.test(uri)) return ['must be a valid URI.'];
    const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(uri);
    const scheme = m?.[1]?.toLowerCase();
    const rest = m?.[2] ?? uri;
    const opaque = m !== null && !rest.startsWith('/');
    if (scheme && FORBIDDEN_SCHEMES.includes(scheme)) errors.push('is forbidden by the server.');
    if (uri.includes('#')) errors.push('cannot contain a fragment.');
    if (opaque || scheme === 'localhost') errors.push('must specify a scheme.');
    if (!m && !uri.startsWith('//')) errors.push('must be an absolute URI.');
  }
  return errors;
}

const applicationEntity = (a: OAuthApplicationRecord) => ({
  id: a.id,
  application_id: a.uid,
  application_name: a.name,
  callback_url: a.redirect_uri,
  confidential: a.confidential,
});

export function applicationsRoutes(r: ApiRouter): void {
  // Every endpoint checks for an admin before reading its params (a `before` filter).
  r.post('/applications', { auth: 'admin' }, (c: Ctx) => {
    const prm = parse(c, createShape);
    const scopes = parseScopes(prm.scopes);
    const errors: Record<string, string[]> = {};
    if (prm.name.trim() === '') errors.name = ["can't be blank"];
    const uriErrors = redirectUriErrors(prm.redirect_uri);
    if (uriErrors.length) errors.redirect_uri = uriErrors;
    if (scopes.length > 0 && (/[\n\r\t]/.test(prm.scopes) || !scopes.every((s) => SERVER_SCOPES.includes(s))))
      errors.scopes = ["doesn't match configured on the server."];
    if (Object.keys(errors).length) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    const nowMs = c.get('fx').clock.ms();
    const next = (state(c).seq.oauth_applications ?? 0) + 1;
    const secret = hexSecret('secret', next, nowMs);
    const id = write(c, (d) =>
      createApplication(
        d,
        {
          name: prm.name,
          uid: hexSecret('uid', next, nowMs),
          secret_digest: digest(secret),
          redirect_uri: prm.redirect_uri,
          scopes,
          confidential: prm.confidential,
          trusted: false,
          owner_id: null,
        },
        now,
      ),
    );
    const app = tget(state(c).identity.applications, id)!;
    return c.json({ ...applicationEntity(app), secret }, 201);
  });

  // Instance-wide applications only (ApplicationsFinder: no owner). The platform sends them unpaginated;
  // the spec gives every array answer its pagination headers, and the spec wins.
  r.get('/applications', { auth: 'admin' }, (c: Ctx) => {
    parse(c, paginationParams);
    const apps = tvalues(state(c).identity.applications).filter((a) => a.owner_id === null);
    return paginate(c, apps, applicationEntity);
  });

  r.delete('/applications/:id', { auth: 'admin' }, (c: Ctx) => {
    const { id } = parse(c, { id: p.int().required() });
    if (!tget(state(c).identity.applications, id)) throw notFound('Application');
    write(c, (d) => deleteApplication(d, id));
    return c.body(null, 204);
  });
}
