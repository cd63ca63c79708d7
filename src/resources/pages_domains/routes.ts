/**
 * Pages domains: the admins' `GET /pages/domains` and a project's domains (list, get, create, update,
 * delete) for its maintainers (`read_pages`, `update_pages`). Every route authenticates first; Pages is
 * enabled on every fauxlab instance, so `require_pages_enabled!` never refuses.
 *
 * `certificate` and `key` are strings or uploaded files (multipart), read as text; a certificate given
 * without a key on update keeps the stored key.
 */
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, grapeError, notFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import { allOrNoneOf, p } from '../../core/params.js';
import { NO_SLASH_URL_PART, pathParam, parse, type ApiRouter } from '../../core/router.js';
import { mget, tget, tvalues } from '../../core/table.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import type { Project } from '../projects/model.js';
import { certificateText, notAfter, notBefore, parseCertificates, subjectLine } from './cert.js';
import {
  createDomain,
  deleteDomain,
  domainErrors,
  MAX_PEM,
  updateDomain,
  type DomainFields,
} from './model.js';
import type { PagesDomainRecord } from './store.js';

type Json = Record<string, unknown>;

function certificateInfo(c: Ctx, d: PagesDomainRecord) {
  const x = d.certificate ? parseCertificates(d.certificate)?.[0] : undefined;
  if (!x) return null;
  const now = c.get('fx').clock.iso();
  const expired = now < notBefore(x) || notAfter(x) < now;
  return { x, expired };
}

/** `Entities::PagesDomain` (project routes) or `PagesDomainBasic` (the admins' list). */
function entity(c: Ctx, d: PagesDomainRecord, basic: boolean): Json {
  const out: Json = {
    domain: d.domain,
    url: `${d.certificate ? 'https' : 'http'}://${d.domain}`,
  };
  if (basic) out.project_id = d.project_id;
  out.verified = d.verified_at !== null;
  out.verification_code = d.verification_code;
  out.enabled_until = d.enabled_until;
  out.auto_ssl_enabled = d.auto_ssl_enabled;
  if (d.certificate) {
    const info = certificateInfo(c, d);
    if (basic)
      out.certificate_expiration = {
        expired: info?.expired ?? false,
        expiration: info ? notAfter(info.x) : null,
      };
    else
      out.certificate = {
        subject: info ? subjectLine(info.x) : null,
        expired: info?.expired ?? false,
        certificate: d.certificate,
        certificate_text: info ? certificateText(info.x) : null,
      };
  }
  return out;
}

/** The Pages root domain: the instance's own host, whose subdomains projects' sites live on. */
const pagesHost = (c: Ctx) => new URL(requestBase(c)).hostname;

/** `read_pages` / `update_pages`: maintainers and admins, after `authenticate!` and the project. */
function pagesProject(c: Ctx): Project {
  requireUser(c);
  const project = loadProject(c);
  if (!canAdminProject(c, project)) throw forbidden();
  return project;
}

/** `PAGES_DOMAINS_ENDPOINT_REQUIREMENTS`: a domain keeps its `.json`. */
const DOMAIN = { id: NO_SLASH_URL_PART, domain: NO_SLASH_URL_PART };

function findDomain(c: Ctx, project: Project): PagesDomainRecord {
  const name = pathParam(c, 'domain');
  for (const id of mget(state(c).pagesDomains.idx.byProject, String(project.id))) {
    const d = tget(state(c).pagesDomains.records, id)!;
    if (d.domain === name) return d;
  }
  throw notFound('PagesDomain');
}

/** A `[File, String]` param as text (`normalize_params_file_to_string`), bounded. */
async function pemParam(c: Ctx, name: string): Promise<string | undefined> {
  const v = c.get('params')[name];
  if (v === undefined || v === null) return undefined;
  const text =
    v instanceof File ? (v.size > MAX_PEM ? null : await v.text()) : typeof v === 'string' ? v : null;
  if (text === null || text.length > MAX_PEM) throw grapeError(400, `${name} is invalid`);
  return text;
}

function send(c: Ctx, id: number, status: 200 | 201): Response {
  return c.json(entity(c, tget(state(c).pagesDomains.records, id)!, false), status);
}

async function createRoute(c: Ctx): Promise<Response> {
  const prm = parse(c, { domain: p.str().required(), auto_ssl_enabled: p.bool().notBlank().default(false) });
  const certificate = await pemParam(c, 'certificate');
  const key = await pemParam(c, 'key');
  // `as: :user_provided_*` renames the params before `all_or_none_of` looks at them.
  const given: Record<string, string> = {};
  if (certificate !== undefined) given.user_provided_certificate = certificate;
  if (key !== undefined) given.user_provided_key = key;
  allOrNoneOf(given, 'user_provided_certificate', 'user_provided_key');
  const project = pagesProject(c);
  const f: DomainFields = {
    domain: prm.domain,
    certificate: certificate || null,
    key: key || null,
    auto_ssl_enabled: prm.auto_ssl_enabled,
  };
  const errors = domainErrors(state(c), f, pagesHost(c), null, true);
  if (Object.keys(errors).length > 0) throw validationError(errors);
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => createDomain(d, project.id, f, now));
  return send(c, id, 201);
}

async function updateRoute(c: Ctx): Promise<Response> {
  const prm = parse(c, { domain: p.str().required(), auto_ssl_enabled: p.bool() });
  const certificate = await pemParam(c, 'certificate');
  let key = await pemParam(c, 'key');
  const project = pagesProject(c);
  const domain = findDomain(c, project);
  // "Remove empty private key if certificate is not empty."
  if (certificate && !key) key = undefined;
  const f: DomainFields = {
    domain: domain.domain,
    certificate: certificate === undefined ? domain.certificate : certificate || null,
    key: key === undefined ? domain.key : key || null,
    auto_ssl_enabled: prm.auto_ssl_enabled ?? domain.auto_ssl_enabled,
  };
  const changed = f.certificate !== domain.certificate;
  const errors = domainErrors(state(c), f, pagesHost(c), domain, changed);
  if (Object.keys(errors).length > 0) throw validationError(errors);
  const now = c.get('fx').clock.iso();
  write(c, (d) => updateDomain(d, domain.id, f, now));
  return send(c, domain.id, 200);
}

export function pagesDomainsRoutes(r: ApiRouter): void {
  r.get('/pages/domains', { auth: 'admin' }, (c) => {
    parse(c, paginationParams);
    const list = tvalues(state(c).pagesDomains.records);
    return paginate(c, list, (d) => entity(c, d, true));
  });
  r.get('/projects/:id/pages/domains', (c) => {
    parse(c, paginationParams);
    const project = pagesProject(c);
    const st = state(c);
    const list = mget(st.pagesDomains.idx.byProject, String(project.id))
      .map((id) => tget(st.pagesDomains.records, id)!)
      .sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : a.id - b.id));
    return paginate(c, list, (d) => entity(c, d, false));
  });
  r.get('/projects/:id/pages/domains/:domain', { requirements: DOMAIN }, (c) => {
    const project = pagesProject(c);
    return send(c, findDomain(c, project).id, 200);
  });
  r.post('/projects/:id/pages/domains', createRoute);
  r.put('/projects/:id/pages/domains/:domain', { requirements: DOMAIN }, updateRoute);
  r.delete('/projects/:id/pages/domains/:domain', { requirements: DOMAIN }, (c) => {
    const project = pagesProject(c);
    const domain = findDomain(c, project);
    checkUnmodifiedSince(c, domain.updated_at);
    write(c, (d) => deleteDomain(d, domain.id));
    return c.body(null, 204);
  });
}
