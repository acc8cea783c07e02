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
  text: string;
  state: string;
  now: Date;
}

/** Creates the artifact and counts it on its source post, in one transaction. */
export async function createArtifact(db: Db, a: NewArtifact): Promise<ArtifactRow> {
  return db.$transaction(async (tx) => {
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
        text: a.text,
        state: a.state,
        createdAt: a.now,
        updatedAt: a.now,
      },
    });
    await tx.sourcePost.update({ where: { id: a.sourcePostId }, data: { artifactCount: { increment: 1 } } });
    return row;
  });
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
  const { count } = await db.artifact.updateMany({ where: { id: q.id, workspaceId: q.workspaceId, state: { in: q.from } }, data });
  if (count === 0) return null;
  return db.artifact.findFirst({ where: { id: q.id } });
}
