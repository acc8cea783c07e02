// Uploaded images (MediaUpload) and which artifacts use them (ArtifactUpload, kept in step with
// Artifact.media), for the retention of unused uploads.
import { sql } from 'kysely';
import { first, type Db, type Row } from './database.js';

export type MediaUploadRow = Row<'MediaUpload'>;

export async function insertUpload(db: Db, row: MediaUploadRow): Promise<void> {
  await db.insertInto('MediaUpload').values(row).execute();
}

export function findUpload(db: Db, workspaceId: string, id: string): Promise<MediaUploadRow | null> {
  return first(db.selectFrom('MediaUpload').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId));
}

export function findUploads(db: Db, workspaceId: string, ids: string[]): Promise<MediaUploadRow[]> {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('MediaUpload').selectAll().where('workspaceId', '=', workspaceId).where('id', 'in', ids).execute();
}

export function findUploadByKey(db: Db, workspaceId: string, key: string): Promise<MediaUploadRow | null> {
  return first(db.selectFrom('MediaUpload').selectAll().where('workspaceId', '=', workspaceId).where('idempotencyKey', '=', key));
}

/** Whether any artifact uses the upload. */
export async function uploadInUse(db: Db, uploadId: string): Promise<boolean> {
  return (await first(db.selectFrom('ArtifactUpload').select('artifactId').where('uploadId', '=', uploadId).limit(1))) !== null;
}

/** Records the uploads a new artifact uses (inside the transaction that creates it). */
export async function linkUploads(db: Db, a: { id: string; workspaceId: string }, uploadIds: string[]): Promise<void> {
  const unique = [...new Set(uploadIds)];
  if (unique.length)
    await db
      .insertInto('ArtifactUpload')
      .values(unique.map((uploadId) => ({ artifactId: a.id, uploadId, workspaceId: a.workspaceId })))
      .execute();
}

/** Replaces the artifact's media list and the uploads it uses (call inside the transaction that changes the artifact). */
export async function setArtifactMedia(db: Db, a: { id: string; workspaceId: string }, media: string, uploadIds: string[], now: Date): Promise<void> {
  await db.updateTable('Artifact').set({ media, updatedAt: now }).where('id', '=', a.id).where('workspaceId', '=', a.workspaceId).execute();
  await db.deleteFrom('ArtifactUpload').where('artifactId', '=', a.id).execute();
  const unique = [...new Set(uploadIds)];
  // Two replacements at once may insert the same pair: the second yields.
  if (unique.length) {
    await db
      .insertInto('ArtifactUpload')
      .values(unique.map((uploadId) => ({ artifactId: a.id, uploadId, workspaceId: a.workspaceId })))
      .onConflict((oc) => oc.columns(['artifactId', 'uploadId']).doNothing())
      .execute();
  }
}

/** Uploads made before `before` that no artifact uses (at most `limit`). */
export function unusedUploadsBefore(db: Db, before: Date, limit: number): Promise<Array<{ id: string; blobId: string }>> {
  return db
    .selectFrom('MediaUpload as m')
    .select(['m.id', 'm.blobId'])
    .where('m.createdAt', '<', before)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('ArtifactUpload as u').select(sql`1`.as('one')).whereRef('u.uploadId', '=', 'm.id'))))
    .limit(limit)
    .execute();
}

/** Deletes the upload row unless an artifact took it meanwhile; true when deleted. */
export async function deleteUnusedUpload(db: Db, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('MediaUpload')
    .where('id', '=', id)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('ArtifactUpload as u').select(sql`1`.as('one')).where('u.uploadId', '=', id))))
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The pipeline's artifacts in one of `states` that have media, newest first (for the alt-text checks). */
export function artifactsWithMedia(db: Db, pipelineId: string, states: string[], take: number): Promise<Array<Row<'Artifact'>>> {
  return db
    .selectFrom('Artifact')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .where('state', 'in', states)
    .where('media', '!=', '[]')
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(take)
    .execute();
}
