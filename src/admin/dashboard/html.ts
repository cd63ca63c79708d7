/**
 * HTML built from tagged templates that escape every interpolated value unless it is already `Html`:
 * whatever reaches the page from the world or the journal (usernames, paths, bodies) can hold markup,
 * so escaping is the default and only this module's `raw` opts out.
 */
import { escapeHtml } from '../../core/html.js';
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Part = Html | string | number | boolean | null | undefined | readonly Part[];

export { escapeHtml };

function part(v: Part): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return (v as readonly Part[]).map(part).join('');
  return escapeHtml(String(v));
}

/** `h\`<td>${name}</td>\``: the template's own text is trusted, every value is escaped. */
export function h(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Markup this module's callers wrote themselves (the page's stylesheet and script tags). */
export const raw = (text: string): Html => new Html(text);
