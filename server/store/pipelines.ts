// Pipelines and the runs that belong to them.
import type { Db } from './database.js';

export type PipelineRow = NonNullable<Awaited<ReturnType<Db['pipeline']['findFirst']>>>;
export type RunRow = NonNullable<Awaited<ReturnType<Db['run']['findFirst']>>>;

export function findPipeline(db: Db, workspaceId: string, id: string) {
  return db.pipeline.findFirst({ where: { id, workspaceId } });
}

/**
 * Creates the pipeline for (handle, intent), or updates the tone of the existing one, then runs
 * `also` in the same transaction (it queues the ingest run); `resumed` says the pipeline existed.
 */
export async function upsertPipelineWithRun<T>(
  db: Db,
  p: { pipelineId: string; workspaceId: string; handle: string; intent: string; tone: string | null; platform: string; now: Date },
  also: (tx: Pick<Db, 'run' | 'idempotencyRecord'>, pipeline: PipelineRow, resumed: boolean) => Promise<T>,
): Promise<{ pipeline: PipelineRow; answer: T }> {
  return db.$transaction(async (tx) => {
    const key = { workspaceId_handle_intent: { workspaceId: p.workspaceId, handle: p.handle, intent: p.intent } };
    const existing = await tx.pipeline.findUnique({ where: key });
    const pipeline = existing
      ? await tx.pipeline.update({ where: { id: existing.id }, data: { tone: p.tone ?? existing.tone, updatedAt: p.now } })
      : await tx.pipeline.create({
          data: { id: p.pipelineId, workspaceId: p.workspaceId, handle: p.handle, intent: p.intent, tone: p.tone, platform: p.platform, createdAt: p.now, updatedAt: p.now },
        });
    return { pipeline, answer: await also(tx, pipeline, Boolean(existing)) };
  });
}

export function lastRun(db: Db, pipelineId: string) {
  return db.run.findFirst({ where: { pipelineId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

export async function pipelineCounts(db: Db, pipelineId: string) {
  const [posts, artifacts] = await Promise.all([
    db.sourcePost.count({ where: { pipelineId } }),
    db.artifact.count({ where: { pipelineId } }),
  ]);
  return { posts, artifacts };
}
