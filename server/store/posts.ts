// Source posts, listed newest first with keyset pagination.
import { first, type Db, type Row } from './database.js';
import type { ArtifactRow } from './artifacts.js';
import { precompiled } from './precompiled.js';

export type PostRow = Row<'SourcePost'>;

/**
 * The audience of a retired post (a Mastodon direct message stored as public by a version that
 * did not read audiences) and of every artifact drawn from one: never a source, never publishable
 * without `confirm_non_public`.
 */
export const RETIRED = 'direct';

export interface PostPosition {
  publishedAt: Date;
  id: string;
}

/** The first page without a filter (the common case), precompiled; the other shapes below. */
const firstPage = precompiled((db, pipelineId: string, limit: number) =>
  db
    .selectFrom('SourcePost')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .where('visibility', '!=', RETIRED)
    .orderBy('publishedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit),
);
/** A following page without a filter, precompiled. */
const nextPage = precompiled((db, pipelineId: string, publishedAt: Date, id: string, limit: number) =>
  db
    .selectFrom('SourcePost')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .where('visibility', '!=', RETIRED)
    .where((eb) => eb.or([eb('publishedAt', '<', publishedAt), eb.and([eb('publishedAt', '=', publishedAt), eb('id', '<', id)])]))
    .orderBy('publishedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit),
);

export function listPosts(db: Db, q: { pipelineId: string; after: PostPosition | null; limit: number; hasArtifact?: boolean }): Promise<PostRow[]> {
  if (q.hasArtifact === undefined) return q.after ? nextPage(db, q.pipelineId, q.after.publishedAt, q.after.id, q.limit) : firstPage(db, q.pipelineId, q.limit);
  let query = db.selectFrom('SourcePost').selectAll().where('pipelineId', '=', q.pipelineId).where('visibility', '!=', RETIRED);
  query = q.hasArtifact ? query.where('artifactCount', '>', 0) : query.where('artifactCount', '=', 0);
  const after = q.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([eb('publishedAt', '<', after.publishedAt), eb.and([eb('publishedAt', '=', after.publishedAt), eb('id', '<', after.id)])]),
    );
  }
  return query.orderBy('publishedAt', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

export function findPost(db: Db, workspaceId: string, id: string): Promise<PostRow | null> {
  return first(db.selectFrom('SourcePost').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId));
}

/** A post as ingest produces it: every column but the counters and times the store keeps. */
/** A post to store; audience, media and thread parent default to public, none and none (API adapters). */
export type NewPost = Omit<PostRow, 'artifactCount' | 'createdAt' | 'updatedAt' | PostExtras> & Partial<Pick<PostRow, PostExtras>>;
type PostExtras = 'visibility' | 'media' | 'replyTo' | 'contentWarning' | 'poll' | 'firstVersionUrl' | 'unreadDate';

/**
 * Inserts a post, or updates the metrics, text (and media and audience, when given) of the post with the same external id. A new
 * post is one statement (the insert yields to the unique key with ON CONFLICT DO NOTHING); a known
 * one two. `updatedAt` (and a new post's `createdAt`) take the wall clock, as Prisma's did.
 */
export async function upsertPost(db: Db, p: NewPost): Promise<{ post: PostRow; created: boolean }> {
  const now = new Date();
  const inserted = await db
    .insertInto('SourcePost')
    .values({ ...p, createdAt: now, updatedAt: now })
    .onConflict((oc) => oc.columns(['pipelineId', 'externalId']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { post: inserted, created: true };
  const post = await db
    .updateTable('SourcePost')
    .set({
      text: p.text,
      url: p.url,
      likes: p.likes,
      reposts: p.reposts,
      replies: p.replies,
      quotes: p.quotes,
      ...(p.media === undefined ? {} : { media: p.media }),
      ...(p.visibility === undefined ? {} : { visibility: p.visibility }),
      contentWarning: p.contentWarning ?? null,
      poll: p.poll ?? null,
      firstVersionUrl: p.firstVersionUrl ?? null,
      // A date read now replaces an unread one's mark; `publishedAt` stays the first ingest's.
      unreadDate: p.unreadDate ?? null,
      updatedAt: now,
    })
    .where('pipelineId', '=', p.pipelineId)
    .where('externalId', '=', p.externalId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { post, created: false };
}

/**
 * Retires the pipeline's posts with these external ids that are not retired yet: each becomes a
 * tombstone kept only so that its artifacts still name it (audience `direct`, its text, address and
 * media erased) and its decode is deleted. Returns the posts as they were. Run in the transaction
 * that also narrows their artifacts (`narrowArtifactsOf`).
 */
export async function retirePosts(tx: Db, q: { pipelineId: string; externalIds: string[]; now: Date }): Promise<PostRow[]> {
  if (!q.externalIds.length) return [];
  const found = await tx
    .selectFrom('SourcePost')
    .selectAll()
    .where('pipelineId', '=', q.pipelineId)
    .where('externalId', 'in', q.externalIds)
    .where('visibility', '!=', RETIRED)
    .execute();
  if (!found.length) return [];
  const ids = found.map((p) => p.id);
  await tx.updateTable('SourcePost').set({ visibility: RETIRED, text: '', url: null, media: '[]', updatedAt: q.now }).where('id', 'in', ids).execute();
  await tx.deleteFrom('Decode').where('postId', 'in', ids).execute();
  return found;
}

/**
 * Gives every artifact of the pipeline drawn from one of these posts (the post it was drafted from,
 * or one of a brief's sources) the retired audience, whatever its state; returns them as they are now.
 */
export async function narrowArtifactsOf(tx: Db, q: { pipelineId: string; postIds: string[]; now: Date }): Promise<ArtifactRow[]> {
  if (!q.postIds.length) return [];
  // LIKE finds the candidates (`_` in an id matches any character there); the JSON list decides.
  const candidates = await tx
    .selectFrom('Artifact')
    .select(['id', 'sourcePostId', 'sourcePostIds'])
    .where('pipelineId', '=', q.pipelineId)
    .where((eb) => eb.or([eb('sourcePostId', 'in', q.postIds), ...q.postIds.map((id) => eb('sourcePostIds', 'like', `%${JSON.stringify(id)}%`))]))
    .execute();
  const ids = candidates
    .filter((a) => q.postIds.includes(a.sourcePostId) || (JSON.parse(a.sourcePostIds) as string[]).some((id) => q.postIds.includes(id)))
    .map((a) => a.id);
  if (!ids.length) return [];
  return tx.updateTable('Artifact').set({ sourceVisibility: RETIRED, updatedAt: q.now }).where('id', 'in', ids).returningAll().execute();
}

/** Artifacts of the pipeline drawn from a retired post that are not discarded (for diagnose and the inbox), newest first. */
export function artifactsFromRetired(db: Db, pipelineId: string, limit: number): Promise<ArtifactRow[]> {
  return db
    .selectFrom('Artifact')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .where('sourceVisibility', '=', RETIRED)
    .where('state', '!=', 'discarded')
    .orderBy('updatedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
