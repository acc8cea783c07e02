// Medium: Settings → Security and apps → "Download your information" sends a ZIP with one HTML
// file per story under `posts/` (`posts/2019-03-10_Title-of-the-story-0123456789ab.html`), and
// the drafts beside them named `draft_…` (`posts/draft_Untitled-0123456789ab.html`). Each file is
// a whole page marked up as an h-entry: the title in `h1.p-name`, the story in
// `section[data-field=body]`, the date in `time.dt-published[datetime]`, the address in
// `a.p-canonical`. Drafts were never published: left out, counted.
//
// A page is read whole, bounded like one post (`maxValueBytes`), through htmlparser2 (already the
// service's HTML parser), and the story goes through the one `htmlToText` with its links kept, as
// WordPress posts do. Medium repeats the title as the story's first heading: it is kept once.
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { Parser } from 'htmlparser2';
import { dated, dateOf, htmlToText, httpUrl, plainText } from '../text.js';
import { DEFAULT_LIMITS, readText } from './container.js';
import type { ArchiveItem, ReadOptions } from './types.js';

/** Medium's draft files: `draft_` before the title. */
export const isMediumDraft = (name: string) => /^draft_/i.test(basename(name));

const classes = (attrs: Record<string, string>) => (attrs.class ?? '').split(/\s+/);

/**
 * Title, then the story, as text; the date and address as written. One pass of htmlparser2's
 * streaming parser (no document is built): the story's HTML is the slice of the page between
 * the `section[data-field=body]` tags, which then goes through `htmlToText`.
 */
export function mediumText(html: string): { text: string; date: string; url: string | null } {
  let title = '';
  let fallbackTitle = '';
  let date = '';
  let url: string | null = null;
  let inTitle: 'h1' | 'title' | null = null;
  let sections = 0;
  let bodyAt = -1;
  let body = '';
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'section') {
          sections += 1;
          if (bodyAt < 0 && !body && attrs['data-field'] === 'body') {
            bodyAt = parser.endIndex + 1;
            sections = 1;
          }
        } else if (name === 'h1' && classes(attrs).includes('p-name') && !title) inTitle = 'h1';
        else if (name === 'title' && !fallbackTitle) inTitle = 'title';
        else if (name === 'time' && classes(attrs).includes('dt-published') && !date) date = attrs.datetime ?? '';
        else if (name === 'a' && classes(attrs).includes('p-canonical') && url === null) url = httpUrl(attrs.href);
      },
      ontext(t) {
        if (inTitle === 'h1') title += t;
        else if (inTitle === 'title') fallbackTitle += t;
      },
      onclosetag(name) {
        if (name === inTitle) inTitle = null;
        if (name === 'section' && bodyAt >= 0 && --sections === 0) {
          body = html.slice(bodyAt, parser.startIndex);
          bodyAt = -1;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  const heading = plainText((title || fallbackTitle).replace(/\s+/g, ' '));
  let story = htmlToText(body, { links: true });
  // Medium repeats the title as the story's first heading: kept once.
  if (heading && story.startsWith(heading) && (story.length === heading.length || story[heading.length] === '\n')) story = story.slice(heading.length).trim();
  return { text: [heading, story].filter(Boolean).join('\n\n'), date, url };
}

export async function mediumItem(open: (name: string) => Readable, name: string, opts: ReadOptions): Promise<ArchiveItem> {
  if (isMediumDraft(name)) return { skip: 'draft' };
  const maxValueBytes = (opts.limits ?? DEFAULT_LIMITS).maxValueBytes;
  const { text, date, url } = mediumText(await readText(open(name), maxValueBytes, name));
  if (!text) return { skip: 'empty' };
  const { publishedAt, unreadDate } = dated(date, dateOf(date || null), opts.now ?? new Date());
  return {
    post: {
      externalId: url ?? `medium:${basename(name)}`,
      url,
      text,
      publishedAt,
      unreadDate,
      metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
      visibility: 'public',
      media: [],
      replyTo: null,
    },
  };
}

export async function* readMedium(open: (name: string) => Readable, files: string[], opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  for (const name of files) yield await mediumItem(open, name, opts);
}
