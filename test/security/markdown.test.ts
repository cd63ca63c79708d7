import { describe, expect, test } from 'vitest';
import { boundedMarkdown } from '../../src/resources/markdown/bounds.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const render = (fx: ReturnType<typeof reliabilityFx>, text: string, gfm = false) =>
  fx.app.request('/api/v4/markdown', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ text, gfm }),
  });

describe('security: POST /api/v4/markdown', () => {
  test('POST /api/v4/markdown: a text over 1,000,000 characters is a 400 naming the limit, and the server goes on', async () => {
    const fx = reliabilityFx();
    const res = await render(fx, 'a'.repeat(1_000_001));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'text is too long (maximum is 1000000 characters)' });
    expect((await render(fx, 'a'.repeat(1_000))).status).toBe(201);
    await expectUnharmed(fx);
  });

  test('POST /api/v4/markdown: *a x 25,000, [a]( x 20,000, nested > and lists render (201), deep nesting kept as text', async () => {
    const fx = reliabilityFx();
    for (const [text, gfm] of [
      ['*a'.repeat(25_000), false],
      ['[a]('.repeat(20_000), true],
      ['>'.repeat(3_000) + ' deep', true],
      ['- '.repeat(3_000) + 'deep', false],
      [Array.from({ length: 200 }, (_, i) => `${' '.repeat(i * 2)}- a`).join('\n'), false],
      ['*'.repeat(5_000) + 'a' + '*'.repeat(5_000), true],
    ] as const) {
      const res = await render(fx, text, gfm);
      expect(res.status).toBe(201);
      const { html } = (await res.json()) as { html: string };
      expect(html.length).toBeGreaterThan(0);
    }
    const quotes = (await (await render(fx, '>'.repeat(100) + ' deep')).json()) as { html: string };
    expect(quotes.html.split('<blockquote').length - 1).toBe(32);
    expect(quotes.html).toContain('&gt;'.repeat(68) + ' deep');
    await expectUnharmed(fx);
  });

  test('POST /api/v4/markdown: ordinary text is given to the parser unchanged (the bounds touch only the pathological)', async () => {
    const text =
      '# Title\n\n> quote\n> - item *em* and **strong** [link](http://x.test)\n\n```\n' +
      '*'.repeat(1000) +
      '\n```\n';
    expect(boundedMarkdown(text)).toEqual({ text, hidden: true });
    const fx = reliabilityFx();
    const { html } = (await (await render(fx, '*a* and _b_ ~~c~~ [d](/e)', true)).json()) as { html: string };
    expect(html).toContain('<em>a</em>');
    expect(html).toContain('<del>c</del>');
  });
});
