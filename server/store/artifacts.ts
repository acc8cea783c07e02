// Artifacts (drafts) and their state.
import type { Db } from './database.js';

export type ArtifactRow = NonNullable<Awaited<ReturnType<Db['artifact']['findFirst']>>>;

export function findArtifact(db: Db, workspaceId: string, id: string) {
  return db.artifact.findFirst({ where: { id, workspaceId } });
}

export interface NewArtifact {
  id: string;
  workspaceId: string;
  pipelineId: string;
  sourcePostId: string;
  parentArtifactId: string | null;
  rootArtifactId: string;
  generation: number;
  ancestors: string[];
  /** A brief's further source posts, after `sourcePostId` (absent or empty for a riff). */
  moreSourcePostIds?: string[];
  text: string;
  state: string;
  /** The most restricted audience of its sources (`public` unless a source is followers/connections-only). */
  sourceVisibility: string;
  now: Date;
}

/** A Prisma client or an interactive-transaction client. */
export type ArtifactTx = Pick<Db, 'artifact' | 'sourcePost'>;

/** Creates the artifact and counts it on each of its source posts, in one transaction. */
export async function createArtifact(db: Db, a: NewArtifact): Promise<ArtifactRow> {
  return db.$transaction((tx) => insertArtifact(tx, a));
}

/** `createArtifact` inside the caller's transaction (with the run or the events of the same change). */
export async function insertArtifact(tx: ArtifactTx, a: NewArtifact): Promise<ArtifactRow> {
  const sources = [a.sourcePostId, ...(a.moreSourcePostIds ?? [])];
  const row = await tx.artifact.create({
    data: {
      id: a.id,
      workspaceId: a.workspaceId,
      pipelineId: a.pipelineId,
      sourcePostId: a.sourcePostId,
      parentArtifactId: a.parentArtifactId,
      rootArtifactId: a.rootArtifactId,
      generation: a.generation,
      ancestors: JSON.stringify(a.ancestors),
      sourcePostIds: JSON.stringify(sources),
      text: a.text,
      state: a.state,
      sourceVisibility: a.sourceVisibility,
      createdAt: a.now,
      updatedAt: a.now,
    },
  });
  await tx.sourcePost.updateMany({ where: { id: { in: sources } }, data: { artifactCount: { increment: 1 } } });
  return row;
}

/**
 * Moves an artifact from one of `from` to `to`, only if it is still in one of `from` (a compare
 * and set, so that two concurrent moves cannot both win). Returns the new row, or null when the
 * state had changed.
 */
export async function transitionArtifact(
  db: Db,
  q: { id: string; workspaceId: string; from: string[]; to: string; now: Date; publishedUrl?: string | null },
): Promise<ArtifactRow | null> {
  const data: Record<string, unknown> = { state: q.to, updatedAt: q.now };
  if (q.to === 'published') {
    data.publishedAt = q.now;
    data.publishedUrl = q.publishedUrl ?? null;
  }
  const [row] = await db.artifact.updateManyAndReturn({ where: { id: q.id, workspaceId: q.workspaceId, state: { in: q.from } }, data });
  return row ?? null;
}
