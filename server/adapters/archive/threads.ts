// Threads, from Meta's Accounts Center ("Download your information", JSON): the posts are in
// `your_instagram_activity/threads/threads_and_replies.json`, an object whose
// `text_post_app_text_posts` array holds one entry per post. An entry is written the way Meta
// writes Instagram's: the text as `post_text_app_text` (or, in some exports, `title` on the
// entry or on its first medium, or a `string_map_data` / `label_values` field of that name), the
// date as `creation_timestamp` (seconds), the pictures and videos as `media` with their `uri`
// inside the export. As for Instagram, the export has no post id nor address: a post is known by
// its date and text.
//
// The text is Meta's escaped UTF-8 (each byte of a character `\u00XX`), and Threads mixes it with
// characters written as themselves in the same string: `unmojibake` decodes only the runs that
// are UTF-8 in disguise, never a character written as itself.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { plainText } from '../text.js';
import { DEFAULT_LIMITS } from './container.js';
import { mediaType, metaDated, unmojibake } from './instagram.js';
import { jsonArrayElements } from './json-stream.js';
import type { ArchiveItem, MediaRef, ReadOptions } from './types.js';

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const list = (v: unknown): Node[] => (Array.isArray(v) ? (v as unknown[]).map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? unmojibake(v) : '');

/** The field Meta names the text of a Threads post. */
const TEXT_FIELD = 'post_text_app_text';

/** The text of an entry, wherever this export put it. */
function textOf(p: Node, files: Node[]): string {
  const direct = p[TEXT_FIELD];
  if (typeof direct === 'string') return str(direct);
  const value = obj(direct).value;
  if (typeof value === 'string') return str(value);
  const mapped = obj(obj(p.string_map_data)[TEXT_FIELD]).value;
  if (typeof mapped === 'string') return str(mapped);
  const labelled = list(p.label_values).find((l) => l.label === TEXT_FIELD || l.label === 'Text');
  if (labelled && typeof labelled.value === 'string') return str(labelled.value);
  return str(p.title) || files.map((m) => str(m.title)).find(Boolean) || '';
}

export interface ThreadsContext {
  entries: Set<string>;
  root: string;
}

export function threadsItem(entry: unknown, ctx: ThreadsContext, opts: ReadOptions): ArchiveItem {
  const p = obj(entry);
  const files = list(p.media);
  const { at, publishedAt, unreadDate } = metaDated([p.creation_timestamp, ...files.map((m) => m.creation_timestamp)], opts);
  const text = plainText(textOf(p, files));
  const media: MediaRef[] = files.flatMap((m) => {
    const uri = str(m.uri);
    if (!uri) return [];
    const inside = `${ctx.root}${uri.replace(/^\.?\//, '')}`;
    return [
      {
        type: mediaType(uri),
        url: /^https?:\/\//.test(uri) ? uri : null,
        archive_path: ctx.entries.has(inside) ? inside : ctx.entries.has(uri) ? uri : null,
        alt_text: null,
        width: null,
        height: null,
      },
    ];
  });
  if (!text && !media.length) return { skip: 'empty' };
  return {
    post: {
      externalId: `threads:${createHash('sha256')
        .update(`${at ?? unreadDate}\n${text}\n${media[0]?.archive_path ?? ''}`)
        .digest('hex')
        .slice(0, 32)}`,
      url: null,
      text,
      publishedAt,
      unreadDate,
      metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
      visibility: 'public',
      media,
      replyTo: null,
    },
  };
}

export async function* readThreads(open: (name: string) => Readable, file: string, ctx: ThreadsContext, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const maxValueBytes = (opts.limits ?? DEFAULT_LIMITS).maxValueBytes;
  for await (const entry of jsonArrayElements(open(file), {
    path: 'text_post_app_text_posts',
    assignment: false,
    what: file || 'threads_and_replies.json',
    maxValueBytes,
  }))
    yield threadsItem(entry, ctx, opts);
}
