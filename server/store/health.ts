// Reads for diagnose and the inbox: a pipeline's runs, its drafts in review, its posts without a
// draft, and the failed webhook deliveries of a workspace's events. Read-only.
import type { Db } from './database.js';

const DRAFT_KINDS = ['draft', 'regenerate_variant'];

/** The newest finished ingest run, and the newest successful one. */
export async function ingestRuns(db: Db, pipelineId: string) {
  const finished = { pipelineId, kind: 'ingest' };
  const newest = [{ finishedAt: 'desc' as const }, { id: 'desc' as const }];
  const [last, lastGood, any] = await Promise.all([
    db.run.findFirst({ where: { ...finished, status: { in: ['succeeded', 'failed'] } }, orderBy: newest }),
    db.run.findFirst({ where: { ...finished, status: 'succeeded' }, orderBy: newest }),
    db.run.count({ where: finished }),
  ]);
  return { last, lastGood, count: any };
}

/** Runs of the pipeline still queued although they were due before `dueBefore`. */
export function stalledRuns(db: Db, pipelineId: string, dueBefore: Date) {
  return db.run.findMany({ where: { pipelineId, status: 'queued', runAfter: { lt: dueBefore } }, orderBy: { runAfter: 'asc' }, take: 20 });
}

/** Runs of the pipeline waiting for another attempt after a transient failure (queued, with an error kept), soonest first. */
export function retryingRuns(db: Db, pipelineId: string) {
  return db.run.findMany({ where: { pipelineId, status: 'queued', errorCode: { not: null } }, orderBy: { runAfter: 'asc' }, take: 20 });
}

/** Drafting runs of the pipeline that failed since `since`, newest first. */
export function failedDraftRuns(db: Db, pipelineId: string, since: Date, take: number) {
  return db.run.findMany({
    where: { pipelineId, kind: { in: DRAFT_KINDS }, status: 'failed', finishedAt: { gte: since } },
    orderBy: [{ finishedAt: 'desc' }, { id: 'desc' }],
    take,
  });
}

export function artifactsInReview(db: Db, pipelineId: string, take: number) {
  return db.artifact.findMany({ where: { pipelineId, state: 'review' }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take });
}

/** Posts without any draft, newest first. */
export function postsWithoutArtifact(db: Db, pipelineId: string, take: number) {
  return db.sourcePost.findMany({ where: { pipelineId, artifactCount: 0 }, orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }], take });
}

export function countPosts(db: Db, pipelineId: string) {
  return db.sourcePost.count({ where: { pipelineId } });
}

export function findArtifacts(db: Db, workspaceId: string, ids: string[]) {
  return ids.length ? db.artifact.findMany({ where: { workspaceId, id: { in: ids } } }) : Promise.resolve([]);
}

/** Webhook deliveries that ended `failed` since `since`, of events of this workspace (newest first). */
export async function failedDeliveries(db: Db, workspaceId: string, since: Date) {
  const failed = await db.delivery.findMany({ where: { status: 'failed', updatedAt: { gte: since } }, orderBy: { updatedAt: 'desc' }, take: 500 });
  if (!failed.length) return [];
  const ours = await db.event.findMany({ where: { workspaceId, id: { in: failed.map((d) => d.eventId) } }, select: { id: true } });
  const ids = new Set(ours.map((e) => e.id));
  return failed.filter((d) => ids.has(d.eventId));
}
