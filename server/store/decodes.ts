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
  row.hook === d.hook &&
  row.format === d.format &&
  row.length === d.length &&
  row.hashtags === JSON.stringify(d.hashtags) &&
  row.links === JSON.stringify(d.links);

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
export async function savePostWithDecode(
  db: Db,
  p: NewPost,
  decode: (text: string) => DecodeData,
  decodeId: string,
  also: (tx: IngestTx, saved: SavedPost) => Promise<void>,
): Promise<SavedPost> {
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
  const decodes = await listDecodes(
    db,
    posts.map((p) => p.id),
  );
  const byPost = new Map(decodes.map((d) => [d.postId, d]));
  return posts.flatMap((post) => {
    const d = byPost.get(post.id);
    return d ? [{ post, decode: d }] : [];
  });
}

/** One post of an ingest batch (an archive's posts carry their audience, media and thread parent). */
export interface BatchPost extends NewPost {
  visibility: string;
  media: string;
  replyTo: string | null;
  contentWarning: string | null;
  poll: string | null;
  firstVersionUrl: string | null;
  unreadDate: string | null;
}

export interface SavedBatch {
  /** The posts as stored, in the batch's order, and whether each was new. */
  posts: Array<{ id: string; created: boolean }>;
  /** The ids of the posts whose decode is new or changed, with the decode's id. */
  decoded: Array<{ postId: string; decodeId: string }>;
}

/**
 * Stores a batch of ingested posts and their decodes in one transaction of four statements
 * (which posts exist; one multi-row upsert of the posts; which decodes exist; one multi-row upsert
 * of the new or changed decodes), then `also` writes the events in the same transaction. Re-ingesting
 * updates text, metrics, audience and media by (pipeline, external id), never duplicates.
 */
export async function saveIngestBatch(
  db: Db,
  batch: { posts: BatchPost[]; now: Date; decode: (text: string) => DecodeData; newDecodeId: () => string },
  also: (tx: IngestTx, saved: SavedBatch) => Promise<void>,
): Promise<SavedBatch> {
  if (!batch.posts.length) return { posts: [], decoded: [] };
  const pipelineId = batch.posts[0]!.pipelineId;
  // The same external id twice in one batch: the last one wins, as two upserts would.
  const unique = [...new Map(batch.posts.map((p) => [p.externalId, p])).values()];
  return transaction(db, async (tx) => {
    const known = await tx
      .selectFrom('SourcePost')
      .select(['id', 'externalId'])
      .where('pipelineId', '=', pipelineId)
      .where(
        'externalId',
        'in',
        unique.map((p) => p.externalId),
      )
      .execute();
    const idOf = new Map(known.map((k) => [k.externalId, k.id]));
    const rows = unique.map((p) => ({ ...p, id: idOf.get(p.externalId) ?? p.id, createdAt: batch.now, updatedAt: batch.now }));
    await tx
      .insertInto('SourcePost')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['pipelineId', 'externalId']).doUpdateSet((eb) => ({
          url: eb.ref('excluded.url'),
          text: eb.ref('excluded.text'),
          likes: eb.ref('excluded.likes'),
          reposts: eb.ref('excluded.reposts'),
          replies: eb.ref('excluded.replies'),
          quotes: eb.ref('excluded.quotes'),
          visibility: eb.ref('excluded.visibility'),
          media: eb.ref('excluded.media'),
          replyTo: eb.ref('excluded.replyTo'),
          contentWarning: eb.ref('excluded.contentWarning'),
          poll: eb.ref('excluded.poll'),
          firstVersionUrl: eb.ref('excluded.firstVersionUrl'),
          unreadDate: eb.ref('excluded.unreadDate'),
          updatedAt: eb.ref('excluded.updatedAt'),
        })),
      )
      .execute();
    const existing = await listDecodes(
      tx,
      rows.map((r) => r.id),
    );
    const byPost = new Map(existing.map((d) => [d.postId, d]));
    const changed: Array<{ id: string; postId: string; workspaceId: string; d: DecodeData }> = [];
    for (const r of rows) {
      const d = batch.decode(r.text);
      const old = byPost.get(r.id);
      if (!old) changed.push({ id: batch.newDecodeId(), postId: r.id, workspaceId: r.workspaceId, d });
      else if (!sameDecode(old, d)) changed.push({ id: old.id, postId: r.id, workspaceId: r.workspaceId, d });
    }
    if (changed.length) {
      await tx
        .insertInto('Decode')
        .values(
          changed.map((c) => ({
            id: c.id,
            workspaceId: c.workspaceId,
            postId: c.postId,
            hook: c.d.hook,
            format: c.d.format,
            length: c.d.length,
            hashtags: JSON.stringify(c.d.hashtags),
            links: JSON.stringify(c.d.links),
            createdAt: batch.now,
          })),
        )
        .onConflict((oc) =>
          oc.column('postId').doUpdateSet((eb) => ({
            hook: eb.ref('excluded.hook'),
            format: eb.ref('excluded.format'),
            length: eb.ref('excluded.length'),
            hashtags: eb.ref('excluded.hashtags'),
            links: eb.ref('excluded.links'),
          })),
        )
        .execute();
    }
    const saved: SavedBatch = {
      posts: rows.map((r) => ({ id: r.id, created: !idOf.has(r.externalId) })),
      decoded: changed.map((c) => ({ postId: c.postId, decodeId: c.id })),
    };
    await also(tx, saved);
    return saved;
  });
}
