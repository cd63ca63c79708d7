import { describe, expect, it } from 'vitest';
import { body, call, world } from '../settings/world.js';

const md = async (fx: ReturnType<typeof world>, params: Record<string, unknown>, token?: string) => {
  const res = await call(fx, 'POST', '/markdown', token, params);
  return { status: res.status, body: await body(res) };
};

describe('POST /markdown', () => {
  it('POST /markdown: 201 {html} without authentication; CommonMark with data-sourcepos and dir="auto"', async () => {
    const fx = world();
    expect(await md(fx, { text: 'Hello world!' })).toEqual({
      status: 201,
      body: { html: '<p data-sourcepos="1:1-1:12" dir="auto">Hello world!</p>' },
    });
  });

  it('POST /markdown: text is required', async () => {
    const fx = world();
    expect(await md(fx, {})).toEqual({ status: 400, body: { error: 'text is missing' } });
    expect((await md(fx, { text: 'x', gfm: 'maybe' })).body).toEqual({ error: 'gfm is invalid' });
  });

  it('POST /markdown: See #1 and @alice in a project links the issue and the user', async () => {
    const fx = world();
    const res = await md(fx, { text: 'See #1 and @alice', gfm: true, project: 'acme/app' }, 'dev');
    expect(res.status).toBe(201);
    expect(res.body.html).toBe(
      '<p data-sourcepos="1:1-1:17" dir="auto">See ' +
        '<a href="http://localhost/acme/app/-/issues/1" data-original="#1" data-link="false" ' +
        'data-link-reference="false" data-project="1" data-issue="1" data-reference-type="issue" ' +
        'data-container="body" data-placement="top" title="First bug" class="gfm gfm-issue has-tooltip">#1</a>' +
        ' and ' +
        '<a href="http://localhost/alice" data-user="2" data-reference-type="user" data-container="body" ' +
        'data-placement="top" class="gfm gfm-project_member js-user-link" title="Alice Owner">@alice</a></p>',
    );
  });

  it('POST /markdown: references to missing objects, and issue references without a project, stay text', async () => {
    const fx = world();
    const { body: b } = await md(
      fx,
      { text: 'See #99, !99, %"Nope" and @nobody', gfm: true, project: 'acme/app' },
      'dev',
    );
    expect(b.html).toBe('<p data-sourcepos="1:1-1:33" dir="auto">See #99, !99, %"Nope" and @nobody</p>');
    const noProject = await md(fx, { text: 'See #1', gfm: true }, 'dev');
    expect(noProject.body.html).toBe('<p data-sourcepos="1:1-1:6" dir="auto">See #1</p>');
  });

  it('POST /markdown: merge request and milestone references', async () => {
    const fx = world();
    const { body: b } = await md(fx, { text: '!1 in %"Sprint 1"', gfm: true, project: 'acme/app' }, 'dev');
    expect(b.html).toContain(
      '<a href="http://localhost/acme/app/-/merge_requests/1" data-original="!1" data-link="false" ' +
        'data-link-reference="false" data-project="1" data-merge-request="1" data-reference-type="merge_request"',
    );
    expect(b.html).toContain('class="gfm gfm-merge_request has-tooltip">!1</a>');
    expect(b.html).toContain(
      '<a href="http://localhost/acme/app/-/milestones/1" data-original="%&quot;Sprint 1&quot;"',
    );
    expect(b.html).toContain('class="gfm gfm-milestone has-tooltip">%Sprint 1</a>');
  });

  it('POST /markdown: a project the caller cannot read is 404 Project Not Found', async () => {
    const fx = world();
    expect(await md(fx, { text: 'x', project: 'acme/app' })).toEqual({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect((await md(fx, { text: 'x', project: 'acme/app' }, 'outsider')).status).toBe(404);
    expect((await md(fx, { text: 'x', project: 'acme/nope' }, 'root')).status).toBe(404);
    expect((await md(fx, { text: 'x', project: 'acme/site' })).status).toBe(201);
  });

  it('POST /markdown: a reference the caller cannot see is not linked', async () => {
    const fx = world();
    await call(fx, 'POST', '/projects/acme%2Fsite/issues', 'alice', { title: 'Secret', confidential: true });
    const anon = await md(fx, { text: '#1', gfm: true, project: 'acme/site' });
    expect(anon.body.html).toBe('<p data-sourcepos="1:1-1:2" dir="auto">#1</p>');
    const owner = await md(fx, { text: '#1', gfm: true, project: 'acme/site' }, 'alice');
    expect(owner.body.html).toContain('class="gfm gfm-issue has-tooltip">#1</a>');
  });

  it('POST /markdown: gfm renders task lists and emoji; the plain pipeline leaves them as text', async () => {
    const fx = world();
    const text = '- [ ] todo\n- [x] done :tada:';
    expect((await md(fx, { text })).body.html).toBe(
      '<ul data-sourcepos="1:1-2:17" dir="auto">\n' +
        '<li data-sourcepos="1:1-1:10">[ ] todo</li>\n' +
        '<li data-sourcepos="2:1-2:17">[x] done :tada:</li>\n' +
        '</ul>',
    );
    expect((await md(fx, { text, gfm: true })).body.html).toBe(
      '<ul data-sourcepos="1:1-2:17" class="task-list" dir="auto">\n' +
        '<li data-sourcepos="1:1-1:10" class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled> todo</li>\n' +
        '<li data-sourcepos="2:1-2:17" class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" checked disabled> done ' +
        '<gl-emoji title="party popper" data-name="tada" data-unicode-version="6.0">🎉</gl-emoji></li>\n' +
        '</ul>',
    );
  });

  it('POST /markdown: autolinks, tables and strikethrough in both pipelines; raw HTML sanitized only with gfm', async () => {
    const fx = world();
    const text = '~~old~~ https://example.com <script>alert(1)</script><b>ok</b>';
    expect((await md(fx, { text })).body.html).toBe(
      '<p data-sourcepos="1:1-1:62" dir="auto"><del>old</del> <a href="https://example.com">https://example.com</a> ' +
        '<script>alert(1)</script><b>ok</b></p>',
    );
    expect((await md(fx, { text, gfm: true })).body.html).toBe(
      '<p data-sourcepos="1:1-1:62" dir="auto"><del>old</del> <a href="https://example.com" rel="nofollow noreferrer noopener" ' +
        'target="_blank">https://example.com</a> <b>ok</b></p>',
    );
    const table = await md(fx, { text: '| a |\n|---|\n| 1 |' });
    expect(table.body.html).toContain(
      '<table data-sourcepos="1:1-3:5" dir="auto">\n<thead>\n<tr data-sourcepos="1:1-1:5">',
    );
  });

  it('POST /markdown: code blocks keep their language; sourcepos columns count bytes as cmark does', async () => {
    const fx = world();
    expect((await md(fx, { text: '```ruby\nputs "<a>"\n```' })).body.html).toBe(
      '<pre data-sourcepos="1:1-3:3"><code lang="ruby">puts "&lt;a&gt;"\n</code></pre>',
    );
    expect((await md(fx, { text: 'héllo' })).body.html).toBe(
      '<p data-sourcepos="1:1-1:6" dir="auto">héllo</p>',
    );
    const gfm = await md(fx, { text: '# Title\n\n```ruby\nx = 1\n```', gfm: true });
    expect(gfm.body.html).toBe(
      '<h1 data-sourcepos="1:1-1:7" dir="auto">\n<a id="user-content-title" class="anchor" href="#title" aria-hidden="true"></a>Title</h1>\n' +
        '<pre class="code highlight js-syntax-highlight ruby" lang="ruby" v-pre="true"><code>' +
        '<span id="LC1" class="line" lang="ruby">x = 1</span></code></pre>',
    );
  });
});
