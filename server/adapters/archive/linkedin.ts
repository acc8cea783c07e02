// LinkedIn data export: `Shares.csv` (Date, ShareLink, ShareCommentary, SharedUrl, MediaUrl,
// Visibility). LinkedIn writes a multi-line post with each line wrapped in quotes (the quotes
// inside a line doubled), the lines joined by newlines, and that whole inside the quoted CSV
// field; the wrapping quotes of the first and last lines fall together with the CSV field's own,
// so once the CSV quoting is undone the text reads `First line."\n""\n"Second line."\n"Last line`:
// the first line has no opening quote, the last no closing one, the lines between are wrapped and
// an empty line is `""`. Some exports (and older versions of this importer's samples) wrap every
// line, `"First line."\n""\n"Last line"`. Both second layers are undone here.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { dated, dateOf, httpUrl } from '../text.js';
import { DEFAULT_LIMITS } from './container.js';
import { ArchiveError } from './errors.js';
import { turns } from './turns.js';
import type { ArchiveItem, MediaRef, ReadOptions, Visibility } from './types.js';

const hashId = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);

/** Whether the inside of a wrapped line has its quotes doubled, as LinkedIn writes them (every run of `"` even). */
const doubled = (inner: string) => !/(^|[^"])("")*"(?!")/.test(inner);

/**
 * Undoes LinkedIn's per-line quoting of a multi-line text, in either shape:
 * - the real export's: the first line ends with `"`, the last starts with `"`, every line between
 *   is wrapped in `"…"` (an empty line is `""`);
 * - every line wrapped in `"…"`.
 * Each line then loses its wrapping quotes and its doubled quotes become single. The evidence must
 * be complete: every line in its place in the shape, and every quote inside a line doubled. A text
 * that is not so (a post that merely starts or ends a line with a quotation, `He said "hi"`) is
 * returned as it is, so legitimate quotes are never eaten.
 */
export function unwrapLinkedInText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.length < 2) return text;
  const wrapped = (l: string) => l.length >= 2 && l.startsWith('"') && l.endsWith('"');
  const middle = lines.slice(1, -1);
  if (!middle.every(wrapped)) return text;
  const first = lines[0]!;
  const last = lines[lines.length - 1]!;
  let inner: string[] | null = null;
  if (wrapped(first) && wrapped(last)) inner = lines.map((l) => l.slice(1, -1));
  if (inner === null || !inner.every(doubled)) {
    // The real shape: the first line's opening quote and the last line's closing quote were the CSV field's.
    if (!first.endsWith('"') || !last.startsWith('"')) return text;
    inner = [first.slice(0, -1), ...middle.map((l) => l.slice(1, -1)), last.slice(1)];
  }
  if (!inner.every(doubled)) return text;
  return inner.map((l) => l.replace(/""/g, '"')).join('\n');
}

/** LinkedIn's audience names: anyone (public) or connections only. Unknown values are treated as not public. */
export function linkedInVisibility(v: string | undefined): Visibility {
  const s = (v ?? '').trim().toUpperCase();
  if (s === '' || s === 'PUBLIC' || s === 'ANYONE' || s === 'MEMBER_NETWORK' || s === 'LOGGED_IN') return 'public';
  return 'connections';
}

const MEDIA_EXT: Array<[RegExp, MediaRef['type']]> = [
  [/\.(jpe?g|png|webp|heic)(\?|$)/i, 'image'],
  [/\.gif(\?|$)/i, 'gif'],
  [/\.(mp4|mov|webm)(\?|$)/i, 'video'],
];

export function linkedInItem(r: Record<string, string | undefined>, opts: ReadOptions): ArchiveItem {
  const raw = (r.ShareCommentary ?? '').trim();
  const date = r.Date ?? '';
  // LinkedIn writes "YYYY-MM-DD HH:MM:SS" in UTC.
  const read = dateOf(/^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?$/.test(date) ? `${date.replace(' ', 'T')}Z` : date);
  const { publishedAt, unreadDate } = dated(date, read, opts.now ?? new Date());
  const mediaUrl = httpUrl(r.MediaUrl?.trim());
  if (!raw) return { skip: r.SharedUrl?.trim() || mediaUrl ? 'repost' : 'empty' };
  const visibility = linkedInVisibility(r.Visibility);
  if (visibility !== 'public' && !opts.includeNonPublic) return { skip: 'followers_only' };
  const text = unwrapLinkedInText(raw).trim();
  const media: MediaRef[] = mediaUrl
    ? [{ type: MEDIA_EXT.find(([re]) => re.test(mediaUrl))?.[1] ?? 'other', url: mediaUrl, archive_path: null, alt_text: null, width: null, height: null }]
    : [];
  const link = httpUrl(r.ShareLink?.trim());
  return {
    post: {
      externalId: link ?? hashId(date, text),
      url: link,
      text,
      publishedAt,
      metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
      visibility,
      media,
      replyTo: null,
      unreadDate,
    },
  };
}

export async function* readLinkedIn(input: Readable, what: string, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const file = what || 'Shares.csv';
  // One record (a share with all its fields) is bounded as its bytes arrive: csv-parse stops at
  // `max_record_size` characters instead of growing a 200 MB field in memory.
  const maxValueBytes = (opts.limits ?? DEFAULT_LIMITS).maxValueBytes;
  const rows = input.pipe(
    parseCsv({
      columns: true,
      bom: true,
      skip_empty_lines: true,
      relax_quotes: true,
      relax_column_count: true,
      trim: false,
      max_record_size: maxValueBytes,
    }),
  );
  input.on('error', (e) => rows.destroy(e));
  const turn = turns();
  try {
    for await (const r of rows) {
      yield linkedInItem(r as Record<string, string>, opts);
      await turn();
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    if ((err as { code?: string }).code === 'CSV_MAX_RECORD_SIZE')
      throw new ArchiveError(
        'too_large',
        `${file} holds a record larger than ${maxValueBytes} characters; at most ${maxValueBytes} are accepted for one post.`,
      );
    throw new ArchiveError('unreadable', `${file} is not a readable CSV (${(err as Error).message.split('\n')[0]}).`);
  } finally {
    input.destroy();
    rows.destroy();
  }
}
