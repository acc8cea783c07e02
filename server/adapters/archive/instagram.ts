// Instagram's export from Meta's Accounts Center ("Download your information", JSON):
// `your_instagram_activity/content/posts_1.json` (older exports: `content/posts_1.json`; newer
// ones `your_instagram_activity/media/posts_1.json`; long histories add posts_2.json …): an array
// of posts, each `{media: [{uri, creation_timestamp, title}], title?, creation_timestamp?}`: a
// single picture has its caption on the medium, a carousel on the post. `uri` names the file
// inside the export (`media/posts/202401/….jpg`). The export has no post id nor address: a post
// is known by its date and first file. `personal_information.json` says whether the account was
// private (then every post is followers-only).
//
// Meta's JSON writes text as UTF-8 bytes each escaped as a code point (`"caf\u00c3\u00a9"` for
// `café`, four `\u00XX` for an emoji): a JSON parser reads them as Latin-1 characters, mojibake.
// `unmojibake` undoes it wherever a run of characters has that shape.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { dated, dateOf, MAX_TEXT } from '../text.js';
import { DEFAULT_LIMITS, readText } from './container.js';
import { jsonArrayElements } from './json-stream.js';
import type { ArchiveItem, MediaRef, MediaType, ReadOptions, Visibility } from './types.js';

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const list = (v: unknown): Node[] => (Array.isArray(v) ? (v as unknown[]).map(obj) : []);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** One UTF-8 sequence of two to four bytes, each byte read as the Latin-1 character of its value. */
const UTF8_SEQUENCE = /[\u00c2-\u00df][\u0080-\u00bf]|[\u00e0-\u00ef][\u0080-\u00bf]{2}|[\u00f0-\u00f4][\u0080-\u00bf]{3}/g;

/**
 * Meta's escaped UTF-8 back to text. Meta writes each UTF-8 byte of a non-ASCII character as a
 * `\u00XX` escape, which a JSON parser reads as a Latin-1 character; some strings (Threads) mix
 * such runs with characters written as themselves. Each run of characters that is a valid UTF-8
 * sequence once each character is taken as a byte (a lead byte U+00C2–U+00F4 and its
 * continuation bytes U+0080–U+00BF) is decoded; everything else — characters written as
 * themselves, ASCII, a lone `é` or `ï`, bytes that are not valid UTF-8 — is kept as it is.
 */
export function unmojibake(s: string): string {
  if (!/[\u00c2-\u00f4]/.test(s)) return s;
  return s.replace(UTF8_SEQUENCE, (seq) => {
    try {
      return utf8.decode(Buffer.from(seq, 'latin1'));
    } catch {
      return seq;
    }
  });
}

const str = (v: unknown): string => (typeof v === 'string' ? unmojibake(v) : '');

export function mediaType(uri: string): MediaType {
  if (/\.(jpe?g|png|webp|heic|heif)$/i.test(uri)) return 'image';
  if (/\.gif$/i.test(uri)) return 'gif';
  if (/\.(mp4|mov|webm|m4v)$/i.test(uri)) return 'video';
  if (/\.(m4a|mp3|aac)$/i.test(uri)) return 'audio';
  return 'other';
}

export interface InstagramContext {
  visibility: Visibility;
  /** Entry names of the archive and the folder the export's paths are relative to. */
  entries: Set<string>;
  root: string;
}

/** Whether `personal_information.json` says the account is private; absent or unreadable: public. */
export async function instagramVisibility(stream: Readable | null): Promise<Visibility> {
  if (!stream) return 'public';
  try {
    const info = obj(JSON.parse(await readText(stream, DEFAULT_LIMITS.maxSideFileBytes)));
    const user = list(info.profile_user)[0];
    const value = obj(obj(obj(user).string_map_data)['Private Account']).value;
    return String(value).toLowerCase() === 'true' ? 'followers' : 'public';
  } catch {
    return 'public';
  }
}

/** A creation time as Instagram writes it (seconds since 1970, a number or a numeric string), whole seconds; null when it is none. */
const seconds = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) && n >= 1 ? Math.floor(n) : null;
};

/**
 * The date of a Meta entry: the first `creation_timestamp` written (the entry's, else its media's)
 * that reads as seconds. Seconds past the year 9999 (or none) are a date that cannot be read: the
 * post is kept, flagged (`dated`).
 */
export function metaDated(written: unknown[], opts: ReadOptions): { at: number | null; publishedAt: Date; unreadDate: string | null } {
  const at = written.map(seconds).find((t) => t !== null) ?? null;
  const raw = written.find((v) => v !== undefined && v !== null) ?? '';
  return { at, ...dated(raw, dateOf(at === null ? null : at * 1000), opts.now ?? new Date()) };
}

export function instagramItem(entry: unknown, ctx: InstagramContext, opts: ReadOptions): ArchiveItem {
  const p = obj(entry);
  const files = list(p.media);
  if (!files.length) return { skip: 'unreadable' };
  const { at, publishedAt, unreadDate } = metaDated([p.creation_timestamp, ...files.map((m) => m.creation_timestamp)], opts);
  if (ctx.visibility !== 'public' && !opts.includeNonPublic) return { skip: 'followers_only' };
  const caption = (str(p.title) || files.map((m) => str(m.title)).find(Boolean) || '')
    .replace(/\r\n?/g, '\n')
    .trim()
    .slice(0, MAX_TEXT)
    .replace(/[\uD800-\uDBFF]$/, '');
  const media: MediaRef[] = files.flatMap((m) => {
    const uri = str(m.uri);
    if (!uri) return [];
    const inside = `${ctx.root}${uri.replace(/^\.?\//, '')}`;
    const url = /^https?:\/\//.test(uri) ? uri : null;
    return [{ type: mediaType(uri), url, archive_path: ctx.entries.has(inside) ? inside : null, alt_text: null, width: null, height: null }];
  });
  if (!caption && !media.length) return { skip: 'empty' };
  const first = str(files[0]!.uri);
  return {
    post: {
      externalId: `instagram:${createHash('sha256')
        .update(`${at ?? unreadDate}\n${first}`)
        .digest('hex')
        .slice(0, 32)}`,
      url: null,
      text: caption,
      publishedAt,
      unreadDate,
      metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
      visibility: ctx.visibility,
      media,
      replyTo: null,
    },
  };
}

export async function* readInstagram(open: (name: string) => Readable, files: string[], ctx: InstagramContext, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const maxValueBytes = (opts.limits ?? DEFAULT_LIMITS).maxValueBytes;
  for (const name of files)
    for await (const entry of jsonArrayElements(open(name), { path: null, assignment: false, what: name || 'posts_1.json', maxValueBytes }))
      yield instagramItem(entry, ctx, opts);
}
