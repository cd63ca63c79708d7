/**
 * The dashboard's one script and stylesheet, served by the app itself (no build step, no CDN). The
 * script only enhances: it sends the forms and buttons to the control plane as JSON, swaps in the
 * refreshed view, polls the journal for new requests and copies curl commands. Everything it inserts
 * comes from the server already escaped, or goes in as text.
 */
export const SCRIPT = `'use strict';
(function () {
  var ROWS_KEPT = 500;
  function say(id, text) { var el = document.getElementById(id); if (el) el.textContent = text; }

  function describe(status, data) {
    var m = data && typeof data === 'object' ? (data.message || data.error || data) : data;
    return status + ': ' + (typeof m === 'string' ? m : JSON.stringify(m));
  }

  // Every write as JSON: the control plane takes no other body, and a session cookie no other write.
  async function send(method, endpoint, body) {
    var init = { method: method, credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' } };
    if (body !== undefined) init.body = JSON.stringify(body);
    var res = await fetch(endpoint, init);
    var text = await res.text();
    var data = text;
    try { data = text ? JSON.parse(text) : undefined; } catch (e) { /* a text answer */ }
    if (!res.ok) throw new Error(describe(res.status, data));
  }

  async function refresh() {
    var res = await fetch(location.href, { headers: { Accept: 'text/html' }, credentials: 'same-origin' });
    var doc = new DOMParser().parseFromString(await res.text(), 'text/html');
    var fresh = doc.getElementById('main');
    var main = document.getElementById('main');
    if (!fresh || !main) return;
    var hadFocus = main.contains(document.activeElement);
    main.replaceChildren.apply(main, Array.prototype.slice.call(document.adoptNode(fresh).childNodes));
    if (hadFocus && !main.contains(document.activeElement)) main.focus();
    startPolling();
  }

  async function act(method, endpoint, body, label, then) {
    say('problem', '');
    try {
      await send(method, endpoint, body);
      // Signing in or out changes the whole page, not only the view.
      if (then === 'reload') return location.reload();
      await refresh();
      say('flash', label + ': done');
    } catch (e) {
      say('problem', label + ' failed: ' + e.message);
    }
  }

  document.addEventListener('submit', function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.endpoint) return;
    ev.preventDefault();
    var body = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.disabled) return;
      if (el.type === 'checkbox') { if (el.checked) body[el.name] = true; return; }
      if (el.value === '') return;
      body[el.name] = el.dataset.json === 'number' ? Number(el.value) : el.value;
    });
    var button = form.querySelector('button[type=submit]');
    act(form.dataset.method || 'POST', form.dataset.endpoint, body, button ? button.textContent : 'Send',
      form.dataset.then);
  });

  document.addEventListener('click', function (ev) {
    var button = ev.target instanceof Element ? ev.target.closest('button') : null;
    if (!button) return;
    if (button.dataset.copy) return copy(button.dataset.copy);
    if (!button.dataset.endpoint || button.form) return;
    var method = button.dataset.method || 'POST';
    act(method, button.dataset.endpoint, method === 'DELETE' ? undefined : {}, button.textContent);
  });

  async function copy(id) {
    var pre = document.getElementById(id);
    if (!pre) return;
    try {
      await navigator.clipboard.writeText(pre.textContent);
      say('flash', 'Copied the curl command');
    } catch (e) {
      var range = document.createRange();
      range.selectNodeContents(pre);
      var sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      say('flash', 'Selected the curl command: copy it with Ctrl+C');
    }
  }

  var timer;
  function startPolling() {
    clearTimeout(timer);
    var table = document.getElementById('requests');
    if (!table || !table.dataset.poll) return;
    async function tick() {
      if (!document.hidden) {
        try {
          var url = new URL(table.dataset.poll, location.href);
          url.searchParams.set('since', table.dataset.since);
          var res = await fetch(url, { headers: { Accept: 'text/html' }, credentials: 'same-origin' });
          if (res.ok) {
            var html = await res.text();
            if (html.trim()) {
              table.querySelector('thead').insertAdjacentHTML('afterend', html);
              var rows = table.querySelectorAll('tbody.entry');
              for (var i = ROWS_KEPT; i < rows.length; i++) rows[i].remove();
              var empty = document.querySelector('p.empty');
              if (empty) empty.remove();
            }
            var last = res.headers.get('X-Fauxlab-Last');
            if (last) table.dataset.since = last;
          }
        } catch (e) { /* the server may be restarting: try again later */ }
      }
      if (document.getElementById('requests') === table) timer = setTimeout(tick, 1000);
    }
    timer = setTimeout(tick, 1000);
  }
  startPolling();
})();
`;

export const STYLE = `:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --muted: #59636e; --line: #d1d9e0;
  --accent: #6b4fbb; --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --code: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d;
  --accent: #a38ff0; --ok: #3fb950; --warn: #d29922; --bad: #f85149; --code: #151b23; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 1; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 16px; padding: 8px 16px; border-bottom: 1px solid var(--line); }
.brand { margin: 0; font-weight: 700; font-size: 16px; }
.brand a { color: var(--fg); text-decoration: none; }
.brand span { color: var(--muted); font-weight: 400; }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px; }
nav a { display: inline-block; padding: 4px 10px; border-radius: 6px; text-decoration: none; }
nav a[aria-current] { background: var(--accent); color: var(--bg); }
.signout { margin-left: auto; }
main { padding: 8px 16px 32px; max-width: 1400px; }
h1 { font-size: 22px; margin: 8px 0 12px; }
h2 { font-size: 17px; margin: 20px 0 8px; }
h3 { font-size: 15px; margin: 8px 0; }
h4 { font-size: 13px; margin: 8px 0 4px; }
table { border-collapse: collapse; margin: 8px 0; width: 100%; }
caption { text-align: left; color: var(--muted); padding: 4px 0; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { border-bottom: 2px solid var(--line); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.counts { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 6px; margin: 0; }
.counts div { border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; display: flex; justify-content: space-between; gap: 8px; }
.counts dt { color: var(--muted); }
.counts dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 0 24px; align-items: start; }
h2 small { color: var(--muted); font-weight: 400; font-size: 13px; }
.path, pre, code, .route { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.path { word-break: break-all; }
pre { background: var(--code); padding: 8px; border-radius: 6px; overflow: auto; max-height: 420px; white-space: pre-wrap; word-break: break-word; }
tr.detail > td { border-bottom: 1px solid var(--line); padding-top: 0; }
tr.summary > td { border-bottom: 0; }
details > summary { cursor: pointer; color: var(--muted); }
.s2xx .status { color: var(--ok); font-weight: 600; }
.s3xx .status { color: var(--muted); font-weight: 600; }
.s4xx .status { color: var(--warn); font-weight: 600; }
.s5xx .status { color: var(--bad); font-weight: 600; }
.pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; }
table.kv { width: 100%; }
table.kv th { width: 30%; font-weight: 500; }
.explain { padding: 6px 10px; border-left: 4px solid var(--warn); background: var(--code); }
form.filters, form.action, form.render-form, form.login { display: flex; flex-wrap: wrap; align-items: end; gap: 8px 12px; margin: 8px 0; }
form.action { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
form.action h2 { flex-basis: 100%; margin: 4px 0; }
form.action .hint { flex-basis: 100%; margin: 0; }
label { display: inline-flex; flex-direction: column; gap: 2px; font-weight: 500; }
label:has(input[type=checkbox]) { flex-direction: row; align-items: center; gap: 6px; }
input, select, button { font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
button { cursor: pointer; background: var(--code); }
button:hover { border-color: var(--accent); }
.hint, .note { color: var(--muted); }
.error, #problem:not(:empty) { color: var(--bad); }
#flash:not(:empty), #problem:not(:empty) { padding: 6px 16px; }
#flash:not(:empty) { color: var(--ok); }
.tabs { margin: 4px 0; }
.empty { color: var(--muted); font-style: italic; }
.clock { font-size: 16px; }
.pager { margin: 8px 0; }
`;
