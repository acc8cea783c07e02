// Ingested posts and their decodes, written together: a post and its analysis commit in one
// transaction with the events about them.
import { first, isUniqueViolation, transaction, type Db, type Row } from './database.js';
import { upsertPost, type NewPost, type PostRow } from './posts.js';

export type DecodeRow = Row<'Decode'>;
/** The transaction of one ingested post, for the events about it. */
export type IngestTx = Db;

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

export async function listDecodes(db: Db, postIds: string[]): Promise<DecodeRow[]> {
  if (!postIds.length) return [];
  return db.selectFrom('Decode').selectAll().where('postId', 'in', postIds).execute();
}

const sameDecode = (row: DecodeRow, d: DecodeData) =>
  row.hook === d.hook && row.format === d.format && row.length === d.length && row.hashtags === JSON.stringify(d.hashtags) && row.links === JSON.stringify(d.links);

async function saveOnce(db: Db, p: NewPost, decode: (text: string) => DecodeData, decodeId: string, also: (tx: IngestTx, saved: SavedPost) => Promise<void>) {
  return transaction(db, async (tx) => {
    const { post, created } = await upsertPost(tx, p);
    const d = decode(post.text);
    const data = { hook: d.hook, format: d.format, length: d.length, hashtags: JSON.stringify(d.hashtags), links: JSON.stringify(d.links) };
    // A new post has no decode yet: no need to look.
    const existing = created ? null : await first(tx.selectFrom('Decode').selectAll().where('postId', '=', post.id));
    let row: DecodeRow;
    let changed = true;
    if (!existing) {
      row = await tx
        .insertInto('Decode')
        .values({ id: decodeId, workspaceId: post.workspaceId, postId: post.id, ...data, createdAt: new Date() })
        .returningAll()
        .executeTakeFirstOrThrow();
    } else if (sameDecode(existing, d)) [row, changed] = [existing, false];
    else row = await tx.updateTable('Decode').set(data).where('id', '=', existing.id).returningAll().executeTakeFirstOrThrow();
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
    if (!isUniqueViolation(err) || db.isTransaction) throw err;
    return saveOnce(db, p, decode, decodeId, also);
  }
}

/** The posts of a pipeline with their decodes, for pattern detection. */
export async function postsWithDecodes(db: Db, pipelineId: string) {
  const posts = await db
    .selectFrom('SourcePost')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .orderBy('publishedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(5000)
    .execute();
  const decodes = await listDecodes(db, posts.map((p) => p.id));
  const byPost = new Map(decodes.map((d) => [d.postId, d]));
  return posts.flatMap((post) => {
    const d = byPost.get(post.id);
    return d ? [{ post, decode: d }] : [];
  });
}
