// Artifacts (drafts) and their state.
import { first, transaction, type Db, type Row } from './database.js';
import { linkUploads } from './media.js';
import { firstOf, precompiled } from './precompiled.js';

export type ArtifactRow = Row<'Artifact'>;

const artifactById = precompiled((db, workspaceId: string, id: string) => db.selectFrom('Artifact').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId));

export async function findArtifact(db: Db, workspaceId: string, id: string): Promise<ArtifactRow | null> {
  return firstOf(await artifactById(db, workspaceId, id));
}

export type NewArtifact = Pick<ArtifactRow, 'id' | 'workspaceId' | 'pipelineId' | 'sourcePostId' | 'parentArtifactId' | 'rootArtifactId' | 'generation' | 'text' | 'state' | 'sourceVisibility'> & {
  ancestors: string[];
  /** A brief's further source posts, after `sourcePostId` (absent or empty for a riff). */
  moreSourcePostIds?: string[];
  /** The media list (JSON) and the uploads it uses (absent: none). */
  media?: { json: string; uploadIds: string[] };
  now: Date;
};

/** The database or a transaction on it. */
export type ArtifactTx = Db;

/** Creates the artifact and counts it on each of its source posts, in one transaction. */
export async function createArtifact(db: Db, a: NewArtifact): Promise<ArtifactRow> {
  return transaction(db, (tx) => insertArtifact(tx, a));
}

/** `createArtifact` inside the caller's transaction (with the run or the events of the same change). */
export async function insertArtifact(tx: ArtifactTx, a: NewArtifact): Promise<ArtifactRow> {
  const sources = [a.sourcePostId, ...(a.moreSourcePostIds ?? [])];
  const row = await tx
    .insertInto('Artifact')
    .values({
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
      media: a.media?.json ?? '[]',
      createdAt: a.now,
      updatedAt: a.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx
    .updateTable('SourcePost')
    .set((eb) => ({ artifactCount: eb('artifactCount', '+', 1), updatedAt: a.now }))
    .where('id', 'in', sources)
    .execute();
  if (a.media) await linkUploads(tx, row, a.media.uploadIds);
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
  const published = q.to === 'published' ? { publishedAt: q.now, publishedUrl: q.publishedUrl ?? null } : {};
  return first(
    db
      .updateTable('Artifact')
      .set({ state: q.to, updatedAt: q.now, ...published })
      .where('id', '=', q.id)
      .where('workspaceId', '=', q.workspaceId)
      .where('state', 'in', q.from)
      .returningAll(),
  );
}
