// Plain text out of the HTML that feeds and Mastodon carry, and small coercions shared by adapters.
import * as cheerio from 'cheerio';

export const MAX_TEXT = 100_000;

/** Paragraphs and line breaks become newlines; tags go; entities are decoded. */
export function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return tidy(html);
  const $ = cheerio.load(`<body>${html}</body>`);
  $('script, style').remove();
  $('br').replaceWith('\n');
  $('p, div, ul, ol, blockquote, h1, h2, h3, h4, h5, h6, pre').each((_i, el) => {
    $(el).append('\n\n');
  });
  $('li').each((_i, el) => {
    $(el).prepend('- ').append('\n');
  });
  return tidy($('body').text());
}

/** Trims each line, collapses runs of blank lines and caps the length. */
export function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .slice(0, MAX_TEXT);
}

/** A count as a non-negative 32-bit integer (platforms send numbers or numeric strings). */
export function count(v: unknown): number {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : 0;
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), 2_147_483_647) : 0;
}

/** A date, or null when the value is not one. */
export function dateOf(v: unknown): Date | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** An http(s) URL as given, or null (post URLs must be addresses a reader can open). */
export function httpUrl(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  try {
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && v.length <= 2048 ? u.href : null;
  } catch {
    return null;
  }
}
