/**
 * Custom domains of GitLab Pages sites (`PagesDomain`): one record per domain, owned by a project. The
 * certificate and key are kept as given (PEM text); what the API shows of them is computed from the PEM.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export interface PagesDomainRecord {
  id: number;
  project_id: number;
  domain: string;
  certificate: string | null;
  key: string | null;
  auto_ssl_enabled: boolean;
  /** 32 hex digits (`SecureRandom.hex(16)` there; derived from the record here). */
  verification_code: string;
  verified_at: string | null;
  enabled_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface PagesDomainsState {
  records: Table<PagesDomainRecord>;
  idx: {
    /** lower-cased domain -> id (domains are unique whatever their case) */
    domains: Index;
    /** project id -> domain ids */
    byProject: MultiIndex;
  };
}

export const emptyPagesDomains = (): PagesDomainsState => ({
  records: emptyTable(),
  idx: { domains: emptyIndex(), byProject: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    pagesDomains: PagesDomainsState;
  }
}
