/**
 * The dashboard's views, rendered on the server from the instance (so that reading needs no script),
 * every value escaped by `h`. Writes are buttons and forms that name a control-plane endpoint in
 * `data-endpoint`: the page's script sends them as JSON.
 */
import type { Binding, Fauxlab } from '../../host/instance.js';
import type { Fx } from '../../core/context.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { iget, mget, tget, tvalues } from '../../core/table.js';
import { livePipeline } from '../../resources/ci/model.js';
import { deliveries } from '../../resources/integrations/delivery.js';
import { chunkIds } from '../../resources/issuables/store.js';
import type { Fault } from '../../testing/faults.js';
import { FILTERED, isSecretKey, redact, type JournalEntry } from '../../testing/journal.js';
import { curlCommand, pathWithQuery } from './curl.js';
import { h, type Html, type Part } from './html.js';
import { renderAs, type Rendered } from './render.js';

/** Rows a table shows at most; the API and the JSON endpoints give the rest. */
export const PAGE_ROWS = 100;

const pretty = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

const statusClass = (s: number) => `s${Math.floor(s / 100)}xx`;

function headerTable(caption: string, headers: Readonly<Record<string, string>>): Html {
  const rows = Object.entries(headers);
  if (rows.length === 0) return h`<p>${caption}: none.</p>`;
  return h`<table class="kv"><caption>${caption}</caption><thead><tr><th scope="col">Name</th><th scope="col">Value</th></tr></thead><tbody>${rows.map(
    ([k, v]) => h`<tr><th scope="row">${k}</th><td>${v}</td></tr>`,
  )}</tbody></table>`;
}

// ----- requests -------------------------------------------------------------------------------------

export const REQUEST_COLUMNS = 8;

/** Characters of a path and query a row shows; a longer one is cut, whole in its tooltip and details. */
export const PATH_SHOWN = 120;

export function requestRows(entries: readonly JournalEntry[], origin: string): Html {
  return h`${entries.map((e) => {
    const curlId = `curl-${e.id}`;
    const path = pathWithQuery(e);
    const shown = [...path].length > PATH_SHOWN ? `${[...path].slice(0, PATH_SHOWN - 1).join('')}…` : path;
    return h`<tbody class="entry" data-id="${e.id}">
<tr class="summary ${statusClass(e.status)}">
<td>${e.id}</td><td><time datetime="${e.at}">${e.at.slice(11, 23)}</time></td><td class="method">${e.method}</td>
<td class="path" title="${path}">${shown}</td><td class="status">${e.status}</td><td class="user">${e.user ?? ''}${
      e.sudoFrom ? h` <small>(sudo by ${e.sudoFrom})</small>` : ''
    }</td><td class="route">${e.route ?? ''}</td><td class="num">${e.durationMs}</td>
</tr>
<tr class="detail"><td colspan="${REQUEST_COLUMNS}"><details>
<summary>Details of request ${e.id}: ${e.method} ${path}</summary>
${e.explain !== undefined ? h`<p class="explain"><strong>Why ${e.status}:</strong> ${e.explain}</p>` : ''}
${e.faults?.length ? h`<p>Faults applied: ${e.faults.join(', ')}</p>` : ''}
${e.truncated?.length ? h`<p>Cut at the journal's body limit: ${e.truncated.join(', ')}</p>` : ''}
<div class="pair">
<section><h3>Request</h3>
${Object.keys(e.query).length ? h`<h4>Query</h4><pre>${pretty(e.query)}</pre>` : ''}
${headerTable('Request headers', e.headers)}
${e.body !== undefined ? h`<h4>Body</h4><pre class="body">${pretty(e.body)}</pre>` : h`<p>No body.</p>`}
</section>
<section><h3>Response</h3>
${headerTable('Response headers', e.responseHeaders)}
${
  e.responseBody !== undefined
    ? h`<h4>Body</h4><pre class="body">${e.responseBody}</pre>`
    : h`<p>Body not recorded (the journal keeps error bodies unless told otherwise).</p>`
}
</section>
</div>
<h4 id="${curlId}-h">As curl</h4>
<pre id="${curlId}" aria-labelledby="${curlId}-h">${curlCommand(e, origin)}</pre>
<button type="button" data-copy="${curlId}">Copy as curl</button>
</details></td></tr>
</tbody>`;
  })}`;
}

export interface RequestFilters {
  method: string;
  path: string;
  status: string;
  user: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export function requestsView(
  entries: readonly JournalEntry[],
  f: RequestFilters,
  o: { origin: string; pollUrl: string; lastId: number; capacity: number; problem?: string },
): Html {
  return h`<form method="get" action="/__fauxlab/" class="filters" role="search" aria-label="Filter requests">
<input type="hidden" name="view" value="requests">
<label>Method <select name="method"><option value="">any</option>${METHODS.map(
    (m) => h`<option${m === f.method ? h` selected` : ''}>${m}</option>`,
  )}</select></label>
<label>Path <input name="path" value="${f.path}" maxlength="500" aria-describedby="path-hint"></label>
<label>Status <input name="status" value="${f.status}" maxlength="50" placeholder="404, 4xx" size="8"></label>
<label>User <input name="user" value="${f.user}" maxlength="255" size="12"></label>
<button type="submit">Filter</button>
<a href="/__fauxlab/?view=requests">Clear filters</a>
</form>
<p id="path-hint" class="hint">Path: a pattern such as <code>/api/v4/projects/:id/**</code>, or any text the path contains.</p>
${o.problem ? h`<p class="error">${o.problem}</p>` : ''}
<p><button type="button" data-endpoint="/__fauxlab/requests" data-method="DELETE">Empty the journal</button></p>
<table id="requests" class="requests" data-poll="${o.pollUrl}" data-since="${o.lastId}">
<caption>Newest first; new requests appear as they arrive (the journal keeps the last ${o.capacity}).</caption>
<thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">User</th><th scope="col">Route</th><th scope="col">ms</th></tr></thead>
${requestRows(entries, o.origin)}
</table>
${entries.length === 0 ? h`<p class="empty">No requests ${f.method || f.path || f.status || f.user ? 'match' : 'yet'}.</p>` : ''}`;
}

// ----- world ------------------------------------------------------------------------------------------

export function worldCounts(st: PlatformState): [string, number][] {
  const i = st.issuables;
  return [
    ['Users', st.users.size],
    ['Groups', st.groups.size],
    ['Projects', st.projects.size],
    ['Memberships', st.members.size],
    ['Issues', i.issues.size],
    ['Merge requests', i.mergeRequests.size],
    ['Notes', i.notes.size],
    ['Milestones', i.milestones.size],
    ['Labels', i.labels.size],
    ['Epics', i.epics.size],
    ['Snippets', i.snippets.size],
    ['Pipelines', st.pipelines.size],
    ['CI/CD variables', st.variables.size],
    ['Uploads', st.uploads.size],
    ['Access tokens', st.tokens.size],
    ['Background jobs due', st.jobs.length],
  ];
}

export interface WorldQuery {
  list: 'users' | 'groups' | 'projects';
  page: number;
  project?: number;
  api?: string;
  /** Username to render as; '' is anonymous; undefined picks the first admin. */
  as?: string;
}

const worldLink = (q: Partial<WorldQuery>) => {
  const p = new URLSearchParams({ view: 'world' });
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
  return `/__fauxlab/?${p}`;
};

function paged<T>(rows: readonly T[], page: number): { rows: readonly T[]; pages: number } {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_ROWS));
  const p = Math.min(Math.max(page, 1), pages);
  return { rows: rows.slice((p - 1) * PAGE_ROWS, p * PAGE_ROWS), pages };
}

function pager(q: WorldQuery, pages: number): Html {
  if (pages <= 1) return h``;
  return h`<nav aria-label="Pages" class="pager">${
    q.page > 1 ? h`<a href="${worldLink({ list: q.list, page: q.page - 1 })}" rel="prev">Previous</a>` : ''
  } Page ${q.page} of ${pages} ${
    q.page < pages ? h`<a href="${worldLink({ list: q.list, page: q.page + 1 })}" rel="next">Next</a>` : ''
  }</nav>`;
}

function table(caption: string, cols: readonly string[], rows: readonly Part[][], empty: string): Html {
  if (rows.length === 0) return h`<p class="empty">${empty}</p>`;
  return h`<table><caption>${caption}</caption><thead><tr>${cols.map(
    (c) => h`<th scope="col">${c}</th>`,
  )}</tr></thead><tbody>${rows.map(
    (r) =>
      h`<tr>${r.map((cell, n) => (n === 0 ? h`<th scope="row">${cell}</th>` : h`<td>${cell}</td>`))}</tr>`,
  )}</tbody></table>`;
}

/** One page of a list of records, with the links to the others. */
function pagedTable<T>(
  q: WorldQuery,
  caption: string,
  cols: readonly string[],
  records: readonly T[],
  row: (r: T) => Part[],
): Html {
  const { rows, pages } = paged(records, q.page);
  return h`${table(caption, cols, rows.map(row), `No ${caption.toLowerCase()}.`)}${pager(q, pages)}`;
}

function listing(st: PlatformState, q: WorldQuery, as: string | undefined): Html {
  const asParam = as === undefined ? {} : { as };
  const link = (api: string, text: string, project?: number) =>
    h`<a href="${worldLink(project === undefined ? { list: q.list, page: q.page, api, ...asParam } : { project, api, ...asParam })}">${text}</a>`;
  if (q.list === 'users')
    return pagedTable(q, 'Users', ['Username', 'Id', 'Name', 'State', 'Admin'], tvalues(st.users), (u) => [
      link(`/users/${u.id}`, u.username),
      u.id,
      u.name,
      u.state,
      u.admin ? 'yes' : '',
    ]);
  if (q.list === 'groups')
    return pagedTable(q, 'Groups', ['Full path', 'Id', 'Name', 'Visibility'], tvalues(st.groups), (g) => [
      link(`/groups/${g.id}`, g.full_path),
      g.id,
      g.name,
      g.visibility,
    ]);
  return pagedTable(q, 'Projects', ['Path', 'Id', 'Visibility', 'Archived'], tvalues(st.projects), (p) => [
    link(`/projects/${p.id}`, p.path_with_namespace, p.id),
    p.id,
    p.visibility,
    p.archived ? 'yes' : '',
  ]);
}

/** Newest first, at most a page of them. */
const newest = <T>(rows: T[]) => rows.reverse().slice(0, PAGE_ROWS);

function projectPage(fx: Fx, st: PlatformState, pid: number, as: string | undefined): Html {
  const p = tget(st.projects, pid);
  if (!p) return h`<p class="error">No project ${pid}.</p>`;
  const asParam = as === undefined ? {} : { as };
  const api = (path: string) => worldLink({ project: pid, api: path, ...asParam });
  const meta = tget(st.issuables.projectMeta, pid);
  const issues = meta
    ? newest(
        chunkIds(st.issuables.idx.byProject, 'i', pid, meta.issue_iid).map((id) =>
          tget(st.issuables.issues, id)!,
        ),
      )
    : [];
  const mrs = meta
    ? newest(
        chunkIds(st.issuables.idx.byProject, 'm', pid, meta.mr_iid).map((id) =>
          tget(st.issuables.mergeRequests, id)!,
        ),
      )
    : [];
  const now = fx.clock.ms();
  const pipelines = newest(
    mget(st.idx.pipelinesBy, String(pid))
      .sort((a, b) => a - b)
      .map((id) => tget(st.pipelines, id)!),
  );
  return h`<section aria-labelledby="project-h"><h2 id="project-h">Project ${p.path_with_namespace}</h2>
<p><a href="${api(`/projects/${pid}`)}">The project as the API renders it</a> \u00B7 <a href="${worldLink({ list: 'projects' })}">All projects</a></p>
${table(
  'Issues (newest first)',
  ['Iid', 'Title', 'State'],
  issues
    .filter((i) => i)
    .map((i) => [h`<a href="${api(`/projects/${pid}/issues/${i.iid}`)}">#${i.iid}</a>`, i.title, i.state]),
  'No issues.',
)}
${table(
  'Merge requests (newest first)',
  ['Iid', 'Title', 'State'],
  mrs
    .filter((m) => m)
    .map((m) => [
      h`<a href="${api(`/projects/${pid}/merge_requests/${m.iid}`)}">!${m.iid}</a>`,
      m.title,
      m.state,
    ]),
  'No merge requests.',
)}
${table(
  'Pipelines (newest first)',
  ['Id', 'Ref', 'Status', 'Created'],
  pipelines.map((pl) => [
    h`<a href="${api(`/projects/${pid}/pipelines/${pl.id}`)}">${pl.id}</a>`,
    pl.ref,
    h`<span class="pipeline-status" data-pipeline="${pl.id}">${livePipeline(pl, now).status}</span>`,
    pl.created_at,
  ]),
  'No pipelines.',
)}
</section>`;
}

/** The user a record is rendered for: the one asked for, else the first admin, else nobody. */
export function viewerFor(st: PlatformState, as: string | undefined): UserRecord | null | undefined {
  if (as === '') return null;
  if (as === undefined) return tvalues(st.users).find((u) => u.admin) ?? null;
  const id = iget(st.idx.usernames, as.toLowerCase());
  return id === undefined ? undefined : tget(st.users, id);
}

function renderPanel(
  q: WorldQuery,
  st: PlatformState,
  rendered: Rendered | string | undefined,
  viewer: UserRecord | null | undefined,
): Html {
  const users = tvalues(st.users).slice(0, 500);
  const form = h`<form method="get" action="/__fauxlab/" class="render-form" aria-label="Render a record">
<input type="hidden" name="view" value="world">
${q.project !== undefined ? h`<input type="hidden" name="project" value="${q.project}">` : ''}
<label>API path <input name="api" value="${q.api ?? ''}" maxlength="2000" placeholder="/projects/1" size="40"></label>
<label>As <select name="as"><option value=""${viewer === null ? h` selected` : ''}>(anonymous)</option>${users.map(
    (u) =>
      h`<option value="${u.username}"${viewer?.id === u.id ? h` selected` : ''}>${u.username}${u.admin ? ' (admin)' : ''}</option>`,
  )}</select></label>
<button type="submit">Render</button>
</form>`;
  if (q.api === undefined)
    return h`<section aria-labelledby="render-h"><h2 id="render-h">A record as the API renders it</h2>${form}</section>`;
  const who = viewer === null ? 'anonymously' : viewer ? `as ${viewer.username}` : '';
  return h`<section aria-labelledby="render-h" class="render"><h2 id="render-h">GET /api/v4${q.api} ${who}</h2>
${form}
${
  typeof rendered === 'string' || rendered === undefined
    ? h`<p class="error">${rendered ?? 'No such user.'}</p>`
    : h`<p>Status <strong class="render-status">${rendered.status}</strong>${rendered.truncated ? ' (cut: the body is long)' : ''}</p><pre class="body" id="rendered">${rendered.body}</pre>`
}
</section>`;
}

export async function worldView(
  instance: Fauxlab,
  fx: Fx,
  spawn: Binding['spawn'],
  q: WorldQuery,
  origin: string,
): Promise<Html> {
  const st = instance.state;
  const viewer = viewerFor(st, q.as);
  let rendered: Rendered | string | undefined;
  if (q.api !== undefined && viewer !== undefined) {
    try {
      rendered = await renderAs(fx, spawn, st, origin, q.api, viewer?.id ?? null);
    } catch (e) {
      rendered = (e as Error).message;
    }
  }
  const tabs = (['users', 'groups', 'projects'] as const).map(
    (l) =>
      h`<li><a href="${worldLink({ list: l })}"${q.project === undefined && q.list === l ? h` aria-current="true"` : ''}>${l[0]!.toUpperCase() + l.slice(1)}</a></li>`,
  );
  return h`<section aria-labelledby="counts-h"><h2 id="counts-h">Counts <small>(GitLab ${st.version}, tier ${st.tier})</small></h2>
<dl class="counts">${worldCounts(st).map(([k, v]) => h`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl></section>
<div class="columns">
<section aria-labelledby="browse-h"><h2 id="browse-h">Browse</h2>
<nav aria-label="Browse the world"><ul class="tabs">${tabs}</ul></nav>
${q.project !== undefined ? projectPage(fx, st, q.project, q.as) : listing(st, q, q.as)}
</section>
${renderPanel(q, st, rendered, viewer)}
</div>`;
}

// ----- clock ------------------------------------------------------------------------------------------

export function clockView(instance: Fauxlab): Html {
  const now = instance.clock.iso();
  return h`<p class="clock">Instance time: <time id="now" datetime="${now}">${now}</time> (${
    instance.clock.realtime ? 'running in real time' : 'frozen: only moved from here or the control plane'
  })</p>
<form class="action" data-endpoint="/__fauxlab/clock" data-method="POST" aria-labelledby="advance-h">
<h2 id="advance-h">Advance</h2>
<label>By <input name="advance" required maxlength="20" placeholder="5m" aria-describedby="advance-hint"></label>
<button type="submit">Advance</button>
<p id="advance-hint" class="hint">A duration: a number and a unit among ms, s, m, h, d, w (<code>90s</code>, <code>2h</code>, <code>1d</code>).</p>
</form>
<form class="action" data-endpoint="/__fauxlab/clock" data-method="POST" aria-labelledby="set-h">
<h2 id="set-h">Set</h2>
<label>To <input name="set" required maxlength="40" value="${now}" size="28"></label>
<button type="submit">Set</button>
</form>`;
}

// ----- faults -----------------------------------------------------------------------------------------

function faultCells(f: Fault): Part[] {
  return [
    f.id,
    f.method?.join(', ') ?? 'any',
    f.path,
    f.drop ? 'drops the connection' : (f.status ?? ''),
    f.latency ? `${f.latency[0]}–${f.latency[1]} ms` : '',
    f.remaining === null ? 'every time' : `${f.remaining} left`,
    f.probability ?? '',
    h`<button type="button" data-endpoint="/__fauxlab/faults/${f.id}" data-method="DELETE">Remove fault ${f.id}</button>`,
  ];
}

export function faultsView(instance: Fauxlab): Html {
  const faults = instance.faults.list();
  return h`${table(
    'Faults, in the order they apply',
    ['Id', 'Methods', 'Path', 'Answer', 'Latency', 'Times', 'Probability', 'Remove'],
    faults.map(faultCells),
    'No faults.',
  )}
${faults.length ? h`<p><button type="button" data-endpoint="/__fauxlab/faults" data-method="DELETE">Remove every fault</button></p>` : ''}
<form class="action" data-endpoint="/__fauxlab/faults" data-method="POST" aria-labelledby="add-fault-h">
<h2 id="add-fault-h">Add a fault</h2>
<label>Method <select name="method"><option value="">any</option>${METHODS.map((m) => h`<option>${m}</option>`)}</select></label>
<label>Path <input name="path" maxlength="500" placeholder="/api/v4/projects/**"></label>
<label>Status <input name="status" type="number" min="400" max="599" data-json="number" placeholder="503"></label>
<label>Latency <input name="latency" maxlength="40" placeholder="250ms or 100-500"></label>
<label>Times <input name="times" type="number" min="1" data-json="number" placeholder="every time"></label>
<label><input name="drop" type="checkbox" data-json="boolean"> Drop the connection</label>
<button type="submit">Add fault</button>
<p class="hint">Give a status, a latency or drop. Path: a pattern (<code>:id</code> one segment, <code>**</code> anything); empty for every request.</p>
</form>`;
}

// ----- snapshots --------------------------------------------------------------------------------------

export function snapshotsView(instance: Fauxlab): Html {
  const names = instance.snapshots();
  return h`${table(
    'Named snapshots',
    ['Name', 'Restore'],
    names.map((n) => [
      n,
      h`<button type="button" data-endpoint="/__fauxlab/snapshots/${encodeURIComponent(n)}/restore" data-method="POST">Restore ${n}</button>`,
    ]),
    'No snapshots yet.',
  )}
<form class="action" data-endpoint="/__fauxlab/snapshots" data-method="POST" aria-labelledby="take-h">
<h2 id="take-h">Take a snapshot</h2>
<label>Name <input name="name" required maxlength="100" pattern="[A-Za-z0-9_.\\-]{1,100}" placeholder="before-import"></label>
<button type="submit">Take snapshot</button>
<p class="hint">Keeps the world and the clock; restoring one brings both back.</p>
</form>
<section aria-labelledby="reset-h"><h2 id="reset-h">Reset</h2>
<p>Back to the loaded scenario: its world and clock, an empty journal, the initial faults, no snapshots.</p>
<button type="button" data-endpoint="/__fauxlab/reset" data-method="POST">Reset to the scenario</button>
</section>`;
}

// ----- deliveries -------------------------------------------------------------------------------------

/** Delivery headers with credentials filtered, as the journal filters request headers. */
function filteredHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(headers))
    out[k] = isSecretKey(k.replace(/-/g, '_')) || /^(authorization|cookie)$/i.test(k) ? FILTERED : v;
  return out;
}

export function deliveriesView(fx: Fx): Html {
  const list = deliveries(fx.clock).list().reverse().slice(0, PAGE_ROWS);
  if (list.length === 0)
    return h`<p class="empty">No deliveries yet: webhooks and integrations post here when their events happen.</p>`;
  return h`<p><button type="button" data-endpoint="/__fauxlab/deliveries" data-method="DELETE">Clear the delivery log</button></p>
<table class="requests"><caption>Webhook and integration deliveries, newest first</caption>
<thead><tr><th scope="col">#</th><th scope="col">At</th><th scope="col">Integration</th><th scope="col">Event</th><th scope="col">Project</th><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Response</th></tr></thead>
${list.map(
  (d) => h`<tbody class="entry" data-id="${d.id}"><tr class="summary">
<td>${d.id}</td><td><time datetime="${d.at}">${d.at}</time></td><td>${d.integration}</td><td>${d.event}${d.action ? ` (${d.action})` : ''}</td><td>${d.project}</td><td class="path">${d.url}</td><td>${d.status}</td><td>${d.response_status ?? ''}</td>
</tr><tr class="detail"><td colspan="8"><details><summary>Payload of delivery ${d.id}</summary>
${headerTable('Headers', filteredHeaders(d.request.headers))}
<h4>Body</h4><pre class="body">${pretty(redact(d.request.body))}</pre>
${table(
  'Attempts',
  ['At', 'Status', 'Error'],
  d.attempts.map((a) => [a.at, a.status ?? '', a.error ?? '']),
  'Not attempted yet.',
)}
</details></td></tr></tbody>`,
)}
</table>`;
}
