// Plain text out of the HTML that feeds and Mastodon carry (once, where it is read: what a post
// stores is plain text), text that is plain already, and small coercions shared by adapters.
import { Parser } from 'htmlparser2';
import { representable } from '../lib/instants.js';
import type { Poll } from './types.js';

export const MAX_TEXT = 100_000;

const BLOCKS = new Set(['p', 'div', 'ul', 'ol', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre']);
const HIDDEN = new Set(['script', 'style']);

/**
 * Paragraphs and line breaks become newlines; list items `- `; tags go; entities are decoded.
 * A streaming parser (htmlparser2) rather than a DOM: an archive of 100,000 Mastodon posts goes
 * through here once per post, and building a document each time cost ~3 ms a post.
 * `links`: keep each link's address (WordPress posts link words; Mastodon shows the address).
 */
export function htmlToText(html: string, opts: { links?: boolean } = {}): string {
  if (!/[<&]/.test(html)) return tidy(html);
  let out = '';
  let hidden = 0;
  // With `links`: where an anchor's words are not its address, the address follows them, `words (https://…)`.
  const anchors: Array<{ href: string | null; from: number }> = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (HIDDEN.has(name)) hidden += 1;
        else if (name === 'br') out += '\n';
        else if (name === 'li') out += '- ';
        else if (name === 'a' && opts.links) anchors.push({ href: httpUrl(attrs.href), from: out.length });
      },
      ontext(text) {
        if (!hidden) out += text;
      },
      onclosetag(name) {
        if (HIDDEN.has(name)) hidden = Math.max(0, hidden - 1);
        else if (BLOCKS.has(name)) out += '\n\n';
        else if (name === 'li') out += '\n';
        else if (name === 'a' && opts.links) {
          const a = anchors.pop();
          if (!a?.href) return;
          const words = out.slice(a.from).trim();
          if (!words) out += a.href;
          else if (!isShownAddress(words, a.href)) out += ` (${a.href})`;
          else if (words !== a.href) out = out.slice(0, a.from) + out.slice(a.from).replace(words, a.href);
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return tidy(out);
}

/**
 * Whether a link's words are its address as shown: the address itself, or shortened the way
 * Mastodon, Bluesky and WordPress show one (`example.com/articles/12…`: no scheme, cut, an
 * ellipsis). Words that are not address-like (`the notes`, `ex`) are not, even as a prefix.
 */
export function isShownAddress(words: string, href: string): boolean {
  const bare = (u: string) => u.replace(/^https?:\/\//, '').replace(/\/$/, '');
  const shown = bare(words.trim().replace(/(\.\.\.|…)$/u, ''));
  return /^[^\s/.]+(\.[^\s/.]+)+/.test(shown) && bare(href).startsWith(shown);
}

/**
 * Text a source gives as plain text (a Mastodon content warning, a JSON Feed title or
 * `content_text`, an Atom construct of type `text`): kept as written, never parsed as markup (a
 * `<` or `&amp;` in it is the author's); only line ends are made `\n`, the ends trimmed and the
 * length capped like any post text. Which fields are HTML and which are text is decided per
 * source, where it is read (docs/drafting.md lists them), never guessed from the content.
 */
export function plainText(text: string): string {
  const t = text.replace(/\r\n?/g, '\n').trim();
  return t.length > MAX_TEXT ? t.slice(0, MAX_TEXT).replace(/[\uD800-\uDBFF]$/, '') : t;
}

/** Trims each line, collapses runs of blank lines and caps the length. */
export function tidy(text: string): string {
  const t = text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  // Cut at the cap, never between the two halves of a character outside the BMP.
  return t.length > MAX_TEXT ? t.slice(0, MAX_TEXT).replace(/[\uD800-\uDBFF]$/, '') : t;
}

/** A count as a non-negative 32-bit integer (platforms send numbers or numeric strings). */
export function count(v: unknown): number {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : 0;
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), 2_147_483_647) : 0;
}

/** A date, or null when the value is not one or is outside the years 0001–9999 (`representable`). */
export function dateOf(v: unknown): Date | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  return representable(new Date(v));
}

/** The longest date as written that a post keeps in `unreadDate`. */
const UNREAD_DATE_MAX = 200;

/**
 * A post's date: `read` (the source's date, parsed and representable), or — when it is missing,
 * cannot be read, or is outside the years 0001–9999 — `now` (the time of the fetch or import),
 * with the date as written in `unreadDate` ('' when there was none), so that nobody takes it for
 * the publication date. The post itself is kept: its words matter more than its date. Ingest keeps
 * the first ingest's time: a re-ingest does not move the post.
 */
export function dated(raw: unknown, read: Date | null, now: Date): { publishedAt: Date; unreadDate: string | null } {
  if (read) return { publishedAt: read, unreadDate: null };
  const written = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
  // Never between the two halves of a character outside the BMP.
  return { publishedAt: now, unreadDate: written.slice(0, UNREAD_DATE_MAX).replace(/[\uD800-\uDBFF]$/, '') };
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

/** A question followed by its poll's options, one `○ option` line each (`☐` when several could be chosen). */
export function withPoll(text: string, poll: Poll | null): string {
  if (!poll) return text;
  const mark = poll.multiple ? '☐' : '○';
  return [text, poll.options.map((o) => `${mark} ${o.title}`).join('\n')].filter(Boolean).join('\n\n');
}
