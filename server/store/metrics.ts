// What GET /metrics reads from the database at each scrape: counts across every workspace (an
// operator's view, never a workspace's content). Read-only.
import type { Db } from './database.js';

/** Runs by kind and status. */
export async function runCounts(db: Db): Promise<Array<{ kind: string; status: string; n: number }>> {
  const rows = await db
    .selectFrom('Run')
    .select(['kind', 'status', (eb) => eb.fn.countAll().as('n')])
    .groupBy(['kind', 'status'])
    .execute();
  return rows.map((r) => ({ kind: r.kind, status: r.status, n: Number(r.n) }));
}

/** The oldest due moment of the runs still queued and due by `now`, per kind. */
export async function oldestDueQueued(db: Db, now: Date): Promise<Array<{ kind: string; runAfter: Date }>> {
  const rows = await db
    .selectFrom('Run')
    .select(['kind', (eb) => eb.fn.min('runAfter').as('oldest')])
    .where('status', '=', 'queued')
    .where('runAfter', '<=', now)
    .groupBy('kind')
    .execute();
  return rows.filter((r) => r.oldest !== null).map((r) => ({ kind: r.kind, runAfter: new Date(r.oldest as unknown as string | Date) }));
}

/** Publish runs by the platform of their pipeline and their status. */
export async function publishCounts(db: Db): Promise<Array<{ platform: string; status: string; n: number }>> {
  const rows = await db
    .selectFrom('Run')
    .innerJoin('Pipeline', 'Pipeline.id', 'Run.pipelineId')
    .select(['Pipeline.platform as platform', 'Run.status as status', (eb) => eb.fn.countAll().as('n')])
    .where('Run.kind', '=', 'publish')
    .groupBy(['Pipeline.platform', 'Run.status'])
    .execute();
  return rows.map((r) => ({ platform: r.platform, status: r.status, n: Number(r.n) }));
}

/** Webhook deliveries by status. */
export async function deliveryCounts(db: Db): Promise<Array<{ status: string; n: number }>> {
  const rows = await db
    .selectFrom('Delivery')
    .select(['status', (eb) => eb.fn.countAll().as('n')])
    .groupBy('status')
    .execute();
  return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
}
