// Ingested posts and their decodes, written together: a post and its analysis commit in one
// transaction with the events about them.
import type { Db, Provider } from './database.js';
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

/** One post of an ingest batch (an archive's posts carry their audience, media and thread parent). */
export interface BatchPost extends NewPost {
  visibility: string;
  media: string;
  replyTo: string | null;
}

export interface SavedBatch {
  /** The posts as stored, in the batch's order, and whether each was new. */
  posts: Array<{ id: string; created: boolean }>;
  /** The ids of the posts whose decode is new or changed, with the decode's id. */
  decoded: Array<{ postId: string; decodeId: string }>;
}

/** Positional parameters in each provider's syntax: `?` on SQLite, `$n` (with a cast) on PostgreSQL. */
function params(provider: Provider) {
  let n = 0;
  return (cast?: string) => (provider === 'postgresql' ? `$${++n}${cast ? `::${cast}` : ''}` : '?');
}

/** A date as Prisma stores it: ISO text with `+00:00` on SQLite, UTC `timestamp(3)` on PostgreSQL. */
const dateParam = (provider: Provider, d: Date) => (provider === 'postgresql' ? d.toISOString().slice(0, 23) : d.toISOString().replace('Z', '+00:00'));

const POST_COLUMNS = ['id', 'workspaceId', 'pipelineId', 'platform', 'externalId', 'url', 'text', 'publishedAt', 'likes', 'reposts', 'replies', 'quotes', 'visibility', 'media', 'replyTo', 'createdAt', 'updatedAt'] as const;
const q = (c: string) => `"${c}"`;

/**
 * Stores a batch of ingested posts and their decodes in one transaction of four statements
 * (which posts exist; one multi-row upsert of the posts; which decodes exist; one upsert of the
 * new or changed decodes), then `also` writes the events in the same transaction. Re-ingesting
 * updates text, metrics, audience and media by (pipeline, external id), never duplicates.
 */
export async function saveIngestBatch(
  db: Db,
  provider: Provider,
  batch: { posts: BatchPost[]; now: Date; decode: (text: string) => DecodeData; newDecodeId: () => string },
  also: (tx: IngestTx, saved: SavedBatch) => Promise<void>,
): Promise<SavedBatch> {
  if (!batch.posts.length) return { posts: [], decoded: [] };
  const pipelineId = batch.posts[0]!.pipelineId;
  // The same external id twice in one batch: the last one wins, as two upserts would.
  const unique = [...new Map(batch.posts.map((p) => [p.externalId, p])).values()];
  return db.$transaction(async (tx) => {
    const known = await tx.sourcePost.findMany({ where: { pipelineId, externalId: { in: unique.map((p) => p.externalId) } }, select: { id: true, externalId: true } });
    const idOf = new Map(known.map((k) => [k.externalId, k.id]));
    const rows = unique.map((p) => ({ ...p, id: idOf.get(p.externalId) ?? p.id }));
    const p = params(provider);
    const values: unknown[] = [];
    const tuples = rows.map((r) => {
      const cells = POST_COLUMNS.map((c) => {
        if (c === 'publishedAt' || c === 'createdAt' || c === 'updatedAt') {
          values.push(dateParam(provider, c === 'publishedAt' ? r.publishedAt : batch.now));
          return p('timestamp(3)');
        }
        values.push(r[c as keyof typeof r] ?? null);
        return p();
      });
      return `(${cells.join(', ')})`;
    });
    const update = ['url', 'text', 'likes', 'reposts', 'replies', 'quotes', 'visibility', 'media', 'replyTo', 'updatedAt'].map((c) => `${q(c)} = excluded.${q(c)}`).join(', ');
    await tx.$executeRawUnsafe(
      `INSERT INTO "SourcePost" (${POST_COLUMNS.map(q).join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT ("pipelineId", "externalId") DO UPDATE SET ${update}`,
      ...values,
    );
    const existing = await tx.decode.findMany({ where: { postId: { in: rows.map((r) => r.id) } } });
    const byPost = new Map(existing.map((d) => [d.postId, d]));
    const changed: Array<{ id: string; postId: string; workspaceId: string; d: DecodeData }> = [];
    for (const r of rows) {
      const d = batch.decode(r.text);
      const old = byPost.get(r.id);
      if (!old) changed.push({ id: batch.newDecodeId(), postId: r.id, workspaceId: r.workspaceId, d });
      else if (!sameDecode(old, d)) changed.push({ id: old.id, postId: r.id, workspaceId: r.workspaceId, d });
    }
    if (changed.length) {
      const dp = params(provider);
      const dv: unknown[] = [];
      const dt = changed.map((c) => {
        dv.push(c.id, c.workspaceId, c.postId, c.d.hook, c.d.format, c.d.length, JSON.stringify(c.d.hashtags), JSON.stringify(c.d.links), dateParam(provider, batch.now));
        return `(${dp()}, ${dp()}, ${dp()}, ${dp()}, ${dp()}, ${dp()}, ${dp()}, ${dp()}, ${dp('timestamp(3)')})`;
      });
      const set = ['hook', 'format', 'length', 'hashtags', 'links'].map((c) => `${q(c)} = excluded.${q(c)}`).join(', ');
      await tx.$executeRawUnsafe(
        `INSERT INTO "Decode" ("id", "workspaceId", "postId", "hook", "format", "length", "hashtags", "links", "createdAt") VALUES ${dt.join(', ')} ON CONFLICT ("postId") DO UPDATE SET ${set}`,
        ...dv,
      );
    }
    const saved: SavedBatch = { posts: rows.map((r) => ({ id: r.id, created: !idOf.has(r.externalId) })), decoded: changed.map((c) => ({ postId: c.postId, decodeId: c.id })) };
    await also(tx, saved);
    return saved;
  });
}
