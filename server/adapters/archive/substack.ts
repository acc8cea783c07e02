// Substack: Settings → Exports → "Create new export" sends a ZIP with `posts.csv` (one record per
// post: `post_id` — `123456.the-slug` —, `post_date`, `is_published`, `email_sent_at`, `type`,
// `audience`, `title`, `subtitle`, `podcast_url`) and the body of each post in
// `posts/<post_id>.html`. `audience` says who could read it: `everyone`, or only paying
// subscribers (`only_paid`, `founding`) or only subscribers (`only_free`): a post for
// subscribers is not public, so it is kept out unless asked (then as `followers`), like other
// non-public posts. A post not published (`is_published` false: a draft) is left out. The export
// does not name the publication's address: a post is known by its `post_id`.
//
// `posts.csv` is read by csv-parse (already the service's CSV parser, `csv.ts`), a record bounded
// like one post; each body file is read whole, bounded the same way, and goes through `htmlToText` with
// its links kept, as WordPress posts do.
import type { Readable } from 'node:stream';
import { dated, dateOf, htmlToText, plainText } from '../text.js';
import { DEFAULT_LIMITS, readText } from './container.js';
import { csvRecords } from './csv.js';
import type { ArchiveItem, ReadOptions, Visibility } from './types.js';

export const substackVisibility = (audience: string | undefined): Visibility => {
  const a = (audience ?? '').trim().toLowerCase();
  return a === '' || a === 'everyone' ? 'public' : 'followers';
};

const published = (v: string | undefined) => /^(true|t|1|yes)$/i.test((v ?? '').trim());

export interface SubstackContext {
  entries: Set<string>;
  /** The folder holding posts.csv and posts/. */
  root: string;
}

export async function substackItem(
  r: Record<string, string | undefined>,
  open: (name: string) => Readable,
  ctx: SubstackContext,
  opts: ReadOptions,
): Promise<ArchiveItem> {
  const id = (r.post_id ?? '').trim();
  if (!id) return { skip: 'unreadable' };
  if (!published(r.is_published)) return { skip: 'draft' };
  const visibility = substackVisibility(r.audience);
  if (visibility !== 'public' && !opts.includeNonPublic) return { skip: 'followers_only' };
  const bodyFile = `${ctx.root}posts/${id}.html`;
  const maxValueBytes = (opts.limits ?? DEFAULT_LIMITS).maxValueBytes;
  const body = ctx.entries.has(bodyFile) ? htmlToText(await readText(open(bodyFile), maxValueBytes, bodyFile), { links: true }) : '';
  const text = [plainText(r.title ?? ''), plainText(r.subtitle ?? ''), body].filter(Boolean).join('\n\n');
  if (!text) return { skip: 'empty' };
  const date = (r.post_date ?? '').trim();
  const { publishedAt, unreadDate } = dated(date, dateOf(date || null), opts.now ?? new Date());
  return {
    post: {
      externalId: `substack:${id}`,
      url: null,
      text,
      publishedAt,
      unreadDate,
      metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
      visibility,
      media: [],
      replyTo: null,
    },
  };
}

export async function* readSubstack(open: (name: string) => Readable, file: string, ctx: SubstackContext, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const maxValueBytes = (opts.limits ?? DEFAULT_LIMITS).maxValueBytes;
  for await (const record of csvRecords(open(file), file || 'posts.csv', maxValueBytes)) yield await substackItem(record, open, ctx, opts);
}
