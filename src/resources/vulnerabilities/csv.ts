/**
 * The CSV of a vulnerability export (`VulnerabilityExports::Exporters::CsvService`, 13.12): one row per
 * vulnerability, in id order, under the platform's headers; `CsvBuilder` guards cells a spreadsheet
 * would run as a formula.
 */
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { findingsOf } from './model.js';
import type { VulnerabilityRecord } from './store.js';

const HEADERS = [
  'Group Name',
  'Project Name',
  'Scanner Type',
  'Scanner Name',
  'Status',
  'Vulnerability',
  'Details',
  'Additional Info',
  'Severity',
  'CVE',
  'CWE',
  'Other Identifiers',
];

/** `CsvBuilder#excel_sanitize`, then Ruby's CSV quoting (quotes doubled, a field with , " or a line break quoted). */
function cell(v: string | null): string {
  const s = v ?? '';
  return quote(/^[=+\-@]/.test(s) ? `'${s}` : s, /[",\r\n]/);
}

const quote = (s: string, needs: RegExp) => (needs.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

function row(st: PlatformState, v: VulnerabilityRecord): string[] {
  const project = tget(st.projects, v.project_id)!;
  const group = project.namespace_kind === 'group' ? tget(st.groups, project.namespace_id) : undefined;
  const finding = findingsOf(st, v.id)[0];
  const ids = finding?.identifiers ?? [];
  const of = (type: string) => ids.find((i) => i.external_type.toLowerCase() === type)?.name ?? null;
  const others = ids.filter((i) => !['cve', 'cwe'].includes(i.external_type.toLowerCase()));
  return [
    group?.name ?? null,
    project.name,
    v.report_type,
    finding?.scanner.name ?? null,
    v.state,
    v.title,
    finding?.description ?? null,
    null,
    v.severity,
    of('cve'),
    of('cwe'),
    // `other_identifier_values.to_csv(col_sep: '; ')`: a CSV line of its own, then quoted as a cell.
    others.length ? others.map((i) => quote(i.name, /[";\r\n]/)).join('; ') : null,
  ].map(cell);
}

export function exportCsv(st: PlatformState, list: readonly VulnerabilityRecord[]): string {
  return [HEADERS, ...list.map((v) => row(st, v))].map((r) => `${r.join(',')}\n`).join('');
}
