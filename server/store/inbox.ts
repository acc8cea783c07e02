// Reads for the inbox's pages and counts (services/inbox.ts): a pipeline's drafts in one state
// as keyset pages oldest first, how many it has in each state, and where its waiting drafts go.
// Read-only; every query is bound to one pipeline.
import type { ArtifactRow } from './artifacts.js';
import type { Db } from './database.js';
import { MANUAL_PREFIX } from './destinations.js';

/** A page of the pipeline's artifacts in `state`, oldest first (createdAt, then id), strictly after `after`. */
export function draftsInState(db: Db, q: { pipelineId: string; state: string; after: { at: Date; id: string } | null; limit: number }): Promise<ArtifactRow[]> {
  let query = db.selectFrom('Artifact').selectAll().where('pipelineId', '=', q.pipelineId).where('state', '=', q.state);
  const after = q.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('createdAt', 'id'), '>', eb.tuple(after.at, after.id)));
  return query.orderBy('createdAt', 'asc').orderBy('id', 'asc').limit(q.limit).execute();
}

/** How many of the pipeline's artifacts are in each of `states` (a state without any is absent). */
export async function countByState(db: Db, pipelineId: string, states: string[]): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('Artifact')
    .select(['state', (eb) => eb.fn.countAll().as('n')])
    .where('pipelineId', '=', pipelineId)
    .where('state', 'in', states)
    .groupBy('state')
    .execute();
  return new Map(rows.map((r) => [r.state, Number(r.n)]));
}

export interface DestinationCount {
  destination: string;
  accountId: string | null;
  platform: string;
  handle: string | null;
  n: number;
}

/**
 * Where the pipeline's artifacts in `states` go: per destination not yet live (manual ones left
 * out), how many; and how many have no such destination (they go to the pipeline's defaults).
 */
export async function waitingByDestination(db: Db, pipelineId: string, states: string[]): Promise<{ rows: DestinationCount[]; withoutOwn: number }> {
  const [rows, none] = await Promise.all([
    db
      .selectFrom('ArtifactDestination as d')
      .where('d.state', '!=', 'live')
      .where('d.destination', 'not like', `${MANUAL_PREFIX}%`)
      .innerJoin('Artifact as a', 'a.id', 'd.artifactId')
      .select(['d.destination', 'd.accountId', 'd.platform', 'd.handle', (eb) => eb.fn.count('d.artifactId').distinct().as('n')])
      .where('a.pipelineId', '=', pipelineId)
      .where('a.state', 'in', states)
      .groupBy(['d.destination', 'd.accountId', 'd.platform', 'd.handle'])
      .execute(),
    db
      .selectFrom('Artifact as a')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('a.pipelineId', '=', pipelineId)
      .where('a.state', 'in', states)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('ArtifactDestination as d')
              .select('d.artifactId')
              .whereRef('d.artifactId', '=', 'a.id')
              .where('d.state', '!=', 'live')
              .where('d.destination', 'not like', `${MANUAL_PREFIX}%`),
          ),
        ),
      )
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map((r) => ({ ...r, n: Number(r.n) })), withoutOwn: Number(none.n) };
}
