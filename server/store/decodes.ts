// Ingested posts and their decodes, written together: a post and its analysis commit in one
// transaction with the events about them.
import type { Db } from './database.js';
import type { Prisma } from './generated/sqlite/client.js';
import { upsertPost, type NewPost, type PostRow } from './posts.js';

export type DecodeRow = NonNullable<Awaited<ReturnType<Db['decode']['findFirst']>>>;
/** The transaction of one ingested post, for the events about it. */
export type IngestTx = Prisma.TransactionClient;

export interface DecodeData {
  hook: string;
  format: string;
  length: number;
  hashtags: string[];
  links: string[];
}

export interface SavedPost {
  post: PostRow;
  postCreated: boolean;
  decode: DecodeRow;
  /** true when the decode is new or differs from the stored one */
  decodeChanged: boolean;
}

export function listDecodes(db: Db, postIds: string[]) {
  return db.decode.findMany({ where: { postId: { in: postIds } } });
}

const sameDecode = (row: DecodeRow, d: DecodeData) =>
  row.hook === d.hook && row.format === d.format && row.length === d.length && row.hashtags === JSON.stringify(d.hashtags) && row.links === JSON.stringify(d.links);

async function saveOnce(db: Db, p: NewPost, decode: (text: string) => DecodeData, decodeId: string, also: (tx: IngestTx, saved: SavedPost) => Promise<void>) {
  return db.$transaction(async (tx) => {
    const { post, created } = await upsertPost(tx, p);
    const d = decode(post.text);
    const data = { hook: d.hook, format: d.format, length: d.length, hashtags: JSON.stringify(d.hashtags), links: JSON.stringify(d.links) };
    const existing = await tx.decode.findUnique({ where: { postId: post.id } });
    let row: DecodeRow;
    let changed = true;
    if (!existing) row = await tx.decode.create({ data: { id: decodeId, workspaceId: post.workspaceId, postId: post.id, ...data } });
    else if (sameDecode(existing, d)) [row, changed] = [existing, false];
    else row = await tx.decode.update({ where: { id: existing.id }, data });
    const saved = { post, postCreated: created, decode: row, decodeChanged: changed };
    await also(tx, saved);
    return saved;
  });
}

/**
 * Inserts the post, or updates the metrics and text of the one with the same external id, and
 * stores its decode; then `also` writes the events, in the same transaction. Two ingests of one
 * pipeline racing on a new post: the loser's insert hits the unique key and is retried as an update.
 */
export async function savePostWithDecode(db: Db, p: NewPost, decode: (text: string) => DecodeData, decodeId: string, also: (tx: IngestTx, saved: SavedPost) => Promise<void>): Promise<SavedPost> {
  try {
    return await saveOnce(db, p, decode, decodeId, also);
  } catch (err) {
    if ((err as { code?: string }).code !== 'P2002') throw err;
    return saveOnce(db, p, decode, decodeId, also);
  }
}

/** The posts of a pipeline with their decodes, for pattern detection. */
export async function postsWithDecodes(db: Db, pipelineId: string) {
  const posts = await db.sourcePost.findMany({ where: { pipelineId }, orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }], take: 5000 });
  const decodes = await listDecodes(db, posts.map((p) => p.id));
  const byPost = new Map(decodes.map((d) => [d.postId, d]));
  return posts.flatMap((post) => {
    const d = byPost.get(post.id);
    return d ? [{ post, decode: d }] : [];
  });
}
