/** Pages domain validations (`PagesDomain`'s, in their order) and writes. */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { hasValidIntermediates, parseCertificates, parseKey } from './cert.js';
import type { PagesDomainRecord } from './store.js';

type S = Draft<PlatformState>;
export type Errors = Record<string, string[]>;

/** Bounds on what a request may store: PEM texts far above any real certificate chain or key. */
export const MAX_PEM = 65_536;

/** What a create or an update sets. */
export interface DomainFields {
  domain: string;
  certificate: string | null;
  key: string | null;
  auto_ssl_enabled: boolean;
}

/** `validates :domain, hostname: { allow_numeric_hostname: true }` (the validates_hostname gem). */
export function hostnameErrors(domain: string): string[] {
  const out: string[] = [];
  if (domain.length < 1 || domain.length > 255) out.push('must be between 1 and 255 characters long');
  const labels = domain.split('.');
  if (labels.some((l) => l.length < 1 || l.length > 63)) out.push('must be between 1 and 63 characters long');
  if (labels.some((l) => l.startsWith('-') || l.endsWith('-'))) out.push('begins or ends with hyphen');
  if (labels.some((l) => !/^[a-z0-9-]+$/i.test(l)))
    out.push('contains invalid characters (valid characters: [a-z0-9\\-])');
  return out;
}

/**
 * The model's errors for a domain record as it would be saved, keys in the order the validations add
 * them. `pagesHost` is the Pages root domain, whose subdomains are reserved; `self` the record updated.
 */
export function domainErrors(
  st: PlatformState,
  f: DomainFields,
  pagesHost: string,
  self: PagesDomainRecord | null,
  certificateChanged: boolean,
): Errors {
  const errors: Errors = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  for (const m of hostnameErrors(f.domain)) add('domain', m);
  const taken = iget(st.pagesDomains.idx.domains, f.domain.toLowerCase());
  if (taken !== undefined && taken !== self?.id) add('domain', 'has already been taken');
  const certs = f.certificate ? parseCertificates(f.certificate) : undefined;
  if (f.certificate && !certs) add('certificate', 'must be a valid PEM certificate');
  const key = f.key ? parseKey(f.key) : undefined;
  if (f.key && !key) add('key', 'must be a valid PEM private key');
  if (f.domain.toLowerCase().endsWith(`.${pagesHost.toLowerCase()}`))
    add(
      'domain',
      `Subdomains of the Pages root domain ${pagesHost} are reserved and cannot be used as custom Pages domains.`,
    );
  if (f.certificate || f.key) {
    let matching = false;
    try {
      matching = !!certs && !!key && certs[0]!.checkPrivateKey(key);
    } catch {
      matching = false;
    }
    if (!matching) add('key', "doesn't match the certificate");
  }
  if (certs && certificateChanged && !hasValidIntermediates(certs))
    add('certificate', 'misses intermediates');
  return errors;
}

/** A verification code that stays the same for the same record (the platform's is random). */
const verificationCode = (id: number, domain: string) =>
  createHash('sha256').update(`pages-domain:${id}:${domain}`).digest('hex').slice(0, 32);

export function createDomain(
  st: S,
  projectId: number,
  f: DomainFields,
  now: string,
  extra: Partial<
    Pick<PagesDomainRecord, 'verification_code' | 'verified_at' | 'enabled_until' | 'updated_at'>
  > = {},
): number {
  const id = nextId(st, 'pages_domains');
  const rec: PagesDomainRecord = {
    id,
    project_id: projectId,
    domain: f.domain,
    certificate: f.certificate,
    key: f.key,
    auto_ssl_enabled: f.auto_ssl_enabled,
    verification_code: extra.verification_code ?? verificationCode(id, f.domain),
    verified_at: extra.verified_at ?? null,
    enabled_until: extra.enabled_until ?? null,
    created_at: now,
    updated_at: extra.updated_at ?? now,
  };
  tset(st.pagesDomains.records, id, rec);
  iset(st.pagesDomains.idx.domains, f.domain.toLowerCase(), id);
  madd(st.pagesDomains.idx.byProject, String(projectId), id);
  return id;
}

export function updateDomain(st: S, id: number, f: Partial<DomainFields>, now: string): void {
  const rec = tget(st.pagesDomains.records, id)!;
  let changed = false;
  for (const k of ['certificate', 'key', 'auto_ssl_enabled'] as const)
    if (f[k] !== undefined && f[k] !== rec[k]) {
      (rec as Record<string, unknown>)[k] = f[k];
      changed = true;
    }
  if (changed) rec.updated_at = now;
}

export function deleteDomain(st: S, id: number): void {
  const rec = tget(st.pagesDomains.records, id);
  if (!rec) return;
  idelete(st.pagesDomains.idx.domains, rec.domain.toLowerCase());
  mremove(st.pagesDomains.idx.byProject, String(rec.project_id), id);
  tdelete(st.pagesDomains.records, id);
}

/** The project's domains go with it. */
export function deleteProjectDomains(st: S, projectId: number): void {
  for (const id of mget(st.pagesDomains.idx.byProject, String(projectId))) deleteDomain(st, id);
  idelete(st.pagesDomains.idx.byProject, String(projectId));
}
