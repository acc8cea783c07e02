// Source posts, listed newest first with keyset pagination.
import type { Db } from './database.js';

export type PostRow = NonNullable<Awaited<ReturnType<Db['sourcePost']['findFirst']>>>;

export interface PostPosition {
  publishedAt: Date;
  id: string;
}

export function listPosts(db: Db, q: { pipelineId: string; after: PostPosition | null; limit: number; hasArtifact?: boolean }) {
  const where: Record<string, unknown> = { pipelineId: q.pipelineId };
  if (q.hasArtifact === true) where.artifactCount = { gt: 0 };
  if (q.hasArtifact === false) where.artifactCount = 0;
  if (q.after) {
    where.OR = [
      { publishedAt: { lt: q.after.publishedAt } },
      { publishedAt: q.after.publishedAt, id: { lt: q.after.id } },
    ];
  }
  return db.sourcePost.findMany({
    where,
    orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
    take: q.limit,
  });
}

export function findPost(db: Db, workspaceId: string, id: string) {
  return db.sourcePost.findFirst({ where: { id, workspaceId } });
}

export interface NewPost {
  id: string;
  workspaceId: string;
  pipelineId: string;
  platform: string;
  externalId: string;
  url: string | null;
  text: string;
  publishedAt: Date;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
}

/** Inserts a post, or updates the metrics (and text) of the post with the same external id. */
export async function upsertPost(db: Pick<Db, 'sourcePost'>, p: NewPost): Promise<{ post: PostRow; created: boolean }> {
  const existing = await db.sourcePost.findUnique({ where: { pipelineId_externalId: { pipelineId: p.pipelineId, externalId: p.externalId } } });
  if (existing) {
    const post = await db.sourcePost.update({
      where: { id: existing.id },
      data: { text: p.text, url: p.url, likes: p.likes, reposts: p.reposts, replies: p.replies, quotes: p.quotes },
    });
    return { post, created: false };
  }
  return { post: await db.sourcePost.create({ data: p }), created: true };
}
