// Reads for diagnose and the inbox: a pipeline's runs, its drafts in review, its posts without a
// draft, and the failed webhook deliveries of a workspace's events. Read-only.
import { first, type Db } from './database.js';
import type { ArtifactRow } from './artifacts.js';
import type { DeliveryRow } from './deliveries.js';
import type { RunRow } from './pipelines.js';
import { RETIRED, type PostRow } from './posts.js';

const DRAFT_KINDS = ['draft', 'regenerate_variant'];

const ingest = (db: Db, pipelineId: string) => db.selectFrom('Run').where('pipelineId', '=', pipelineId).where('kind', '=', 'ingest');

/** The newest finished ingest run, and the newest successful one. */
export async function ingestRuns(db: Db, pipelineId: string): Promise<{ last: RunRow | null; lastGood: RunRow | null; count: number }> {
  const newest = (statuses: string[]) =>
    first(ingest(db, pipelineId).selectAll().where('status', 'in', statuses).orderBy('finishedAt', 'desc').orderBy('id', 'desc').limit(1));
  const [last, lastGood, any] = await Promise.all([
    newest(['succeeded', 'failed']),
    newest(['succeeded']),
    ingest(db, pipelineId)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { last, lastGood, count: Number(any.n) };
}

/** Runs of the pipeline still queued although they were due before `dueBefore`. */
export function stalledRuns(db: Db, pipelineId: string, dueBefore: Date): Promise<RunRow[]> {
  return db
    .selectFrom('Run')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .where('status', '=', 'queued')
    .where('runAfter', '<', dueBefore)
    .orderBy('runAfter', 'asc')
    .limit(20)
    .execute();
}

/** Runs of the pipeline waiting for another attempt after a transient failure (queued, with an error kept), soonest first. */
export function retryingRuns(db: Db, pipelineId: string): Promise<RunRow[]> {
  return db
    .selectFrom('Run')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .where('status', '=', 'queued')
    .where('errorCode', 'is not', null)
    .orderBy('runAfter', 'asc')
    .limit(20)
    .execute();
}

/** Drafting runs of the pipeline that failed since `since`, newest first. */
export function failedDraftRuns(db: Db, pipelineId: string, since: Date, take: number): Promise<RunRow[]> {
  return db
    .selectFrom('Run')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .where('kind', 'in', DRAFT_KINDS)
    .where('status', '=', 'failed')
    .where('finishedAt', '>=', since)
    .orderBy('finishedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(take)
    .execute();
}

export function artifactsInReview(db: Db, pipelineId: string, take: number): Promise<ArtifactRow[]> {
  return db
    .selectFrom('Artifact')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .where('state', '=', 'review')
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(take)
    .execute();
}

/** Posts without any draft, newest first. */
export function postsWithoutArtifact(db: Db, pipelineId: string, take: number): Promise<PostRow[]> {
  return db
    .selectFrom('SourcePost')
    .selectAll()
    .where('pipelineId', '=', pipelineId)
    .where('artifactCount', '=', 0)
    .where('visibility', '!=', RETIRED)
    .orderBy('publishedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(take)
    .execute();
}

/** The pipeline's posts whose date could not be read (`unreadDate` set): how many, and up to 3 of the dates as written. */
export async function unreadDates(db: Db, pipelineId: string): Promise<{ count: number; samples: string[] }> {
  const base = db.selectFrom('SourcePost').where('pipelineId', '=', pipelineId).where('unreadDate', 'is not', null).where('visibility', '!=', RETIRED);
  const [n, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    base.select('unreadDate').orderBy('publishedAt', 'desc').limit(3).execute(),
  ]);
  return { count: Number(n.n), samples: rows.map((r) => r.unreadDate ?? '') };
}

export async function countPosts(db: Db, pipelineId: string): Promise<number> {
  const r = await db
    .selectFrom('SourcePost')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('pipelineId', '=', pipelineId)
    .where('visibility', '!=', RETIRED)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function findArtifacts(db: Db, workspaceId: string, ids: string[]): Promise<ArtifactRow[]> {
  if (!ids.length) return [];
  return db.selectFrom('Artifact').selectAll().where('workspaceId', '=', workspaceId).where('id', 'in', ids).execute();
}

/** Webhook deliveries that ended `failed` since `since`, of events of this workspace (newest first). */
export async function failedDeliveries(db: Db, workspaceId: string, since: Date): Promise<DeliveryRow[]> {
  const failed = await db
    .selectFrom('Delivery')
    .selectAll()
    .where('status', '=', 'failed')
    .where('updatedAt', '>=', since)
    .orderBy('updatedAt', 'desc')
    .limit(500)
    .execute();
  if (!failed.length) return [];
  const ours = await db
    .selectFrom('Event')
    .select('id')
    .where('workspaceId', '=', workspaceId)
    .where(
      'id',
      'in',
      failed.map((d) => d.eventId),
    )
    .execute();
  const ids = new Set(ours.map((e) => e.id));
  return failed.filter((d) => ids.has(d.eventId));
}
