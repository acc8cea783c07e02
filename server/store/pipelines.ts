// Pipelines and the runs that belong to them.
import type { ExpressionBuilder } from 'kysely';
import { first, transaction, type DB, type Db, type Row } from './database.js';
import { RETIRED } from './posts.js';
import { firstOf, precompiled } from './precompiled.js';

export type PipelineRow = Row<'Pipeline'>;
export type RunRow = Row<'Run'>;

const pipelineById = precompiled((db, workspaceId: string, id: string) =>
  db.selectFrom('Pipeline').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId),
);

export async function findPipeline(db: Db, workspaceId: string, id: string): Promise<PipelineRow | null> {
  return firstOf(await pipelineById(db, workspaceId, id));
}

/** A pipeline's post count (retired posts left out) and artifact count: subqueries of a select from Pipeline. */
export const pipelineCounts = (eb: ExpressionBuilder<DB, 'Pipeline'>) => [
  eb
    .selectFrom('SourcePost')
    .select((c) => c.fn.countAll().as('n'))
    .whereRef('SourcePost.pipelineId', '=', 'Pipeline.id')
    .where('SourcePost.visibility', '!=', RETIRED)
    .as('postCount'),
  eb
    .selectFrom('Artifact')
    .select((c) => c.fn.countAll().as('n'))
    .whereRef('Artifact.pipelineId', '=', 'Pipeline.id')
    .as('artifactCount'),
];

const pipelineWithCounts = precompiled((db, workspaceId: string, id: string) =>
  db.selectFrom('Pipeline').selectAll('Pipeline').select(pipelineCounts).where('Pipeline.id', '=', id).where('Pipeline.workspaceId', '=', workspaceId),
);

const lastRunOf = precompiled((db, pipelineId: string) =>
  db.selectFrom('Run').selectAll().where('pipelineId', '=', pipelineId).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(1),
);

/**
 * The pipeline with its post and artifact counts (one statement), and its last run (a second):
 * what GET /pipelines/{id} shows. Null when the workspace has no such pipeline.
 */
export async function findPipelineWithStats(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<{ pipeline: PipelineRow; counts: { posts: number; artifacts: number }; last: RunRow | null } | null> {
  const row = firstOf(await pipelineWithCounts(db, workspaceId, id));
  if (!row) return null;
  const { postCount, artifactCount, ...pipeline } = row;
  return { pipeline, counts: { posts: Number(postCount ?? 0), artifacts: Number(artifactCount ?? 0) }, last: await lastRun(db, id) };
}

/**
 * Creates the pipeline for (handle, intent), or updates the tone of the existing one, then runs
 * `also` in the same transaction (it queues the ingest run); `resumed` says the pipeline existed.
 */
export async function upsertPipelineWithRun<T>(
  db: Db,
  p: { pipelineId: string; workspaceId: string; handle: string; intent: string; tone: string | null; platform: string; now: Date; destinations?: string },
  also: (tx: Db, pipeline: PipelineRow, resumed: boolean) => Promise<T>,
): Promise<{ pipeline: PipelineRow; answer: T }> {
  return transaction(db, async (tx) => {
    const existing = await first(
      tx.selectFrom('Pipeline').selectAll().where('workspaceId', '=', p.workspaceId).where('handle', '=', p.handle).where('intent', '=', p.intent),
    );
    const pipeline = existing
      ? await tx
          .updateTable('Pipeline')
          .set({ tone: p.tone ?? existing.tone, updatedAt: p.now, ...(p.destinations !== undefined ? { destinations: p.destinations } : {}) })
          .where('id', '=', existing.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await tx
          .insertInto('Pipeline')
          .values({
            id: p.pipelineId,
            workspaceId: p.workspaceId,
            handle: p.handle,
            intent: p.intent,
            tone: p.tone,
            platform: p.platform,
            destinations: p.destinations ?? null,
            createdAt: p.now,
            updatedAt: p.now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
    return { pipeline, answer: await also(tx, pipeline, Boolean(existing)) };
  });
}

async function lastRun(db: Db, pipelineId: string): Promise<RunRow | null> {
  return firstOf(await lastRunOf(db, pipelineId));
}

/** Sets the pipeline's default destinations (JSON, services/destinations.ts); the pipeline, or null when not found. */
export function setPipelineDestinations(db: Db, q: { workspaceId: string; id: string; destinations: string; now: Date }): Promise<PipelineRow | null> {
  return first(
    db
      .updateTable('Pipeline')
      .set({ destinations: q.destinations, updatedAt: q.now })
      .where('id', '=', q.id)
      .where('workspaceId', '=', q.workspaceId)
      .returningAll(),
  );
}
