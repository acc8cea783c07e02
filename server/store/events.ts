// The outbox: events are appended in the transaction of the change that caused it; the stream,
// the retention sweep and the webhook receivers read and write it here.
import { sql } from 'kysely';
import { first, transaction, type Db, type Provider, type Row } from './database.js';
import { batched, type Batcher } from './group-commit.js';

/** The database or a transaction on it (see `appendEvents`). */
export type Tx = Db;

export type EventRow = Row<'Event'>;

/** The PostgreSQL channel every instance LISTENs on; a NOTIFY on it means "new events committed". */
export const EVENTS_CHANNEL = 'cp_events';
/** Key of the transaction-level advisory lock that serializes outbox appends on PostgreSQL. */
const OUTBOX_LOCK_KEY = 4_207_310_001;

export interface NewEvent {
  id: string;
  workspaceId: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
  /** Receiver URLs of the webhook emitter: one pending delivery each, in the same transaction. */
  targets: string[];
}

/**
 * Appends events (and their deliveries), in order. On PostgreSQL one statement comes first, bound
 * to the transaction: an advisory lock held until commit, so that `seq` values become visible in
 * the order they were taken (a reader that has seen seq N has seen everything below it, which is
 * what makes Last-Event-ID resumption gap-free), and a NOTIFY, which PostgreSQL delivers to every
 * listening instance only when (and if) the transaction commits. Called outside a transaction, it
 * opens one so that both still hold. Inside a group-commit batch, the events of the batch's works
 * are appended together: one lock, one INSERT (group-commit.ts `batched`).
 */
export async function appendEvents(tx: Tx, provider: Provider, events: NewEvent[]): Promise<void> {
  if (!tx.isTransaction) return transaction(tx, (inner) => appendEvents(inner, provider, events));
  if (!events.length) return;
  await batched(tx, appendAll, { provider, events });
}

const appendAll: Batcher<{ provider: Provider; events: NewEvent[] }, void> = {
  async run(tx, items) {
    const events = items.flatMap((i) => i.events);
    if (items[0]!.provider === 'postgresql') {
      await sql`SELECT pg_advisory_xact_lock(${sql.lit(OUTBOX_LOCK_KEY)}), pg_notify(${sql.lit(EVENTS_CHANNEL)}, '')`.execute(tx);
    }
    await tx
      .insertInto('Event')
      .values(events.map((e) => ({ id: e.id, workspaceId: e.workspaceId, type: e.type, data: JSON.stringify(e.data), createdAt: e.createdAt })))
      .execute();
    const deliveries = events.flatMap((e) =>
      e.targets.map((target, i) => ({
        id: `${e.id.replace(/^evt_/, 'dlv_')}_${i}`,
        eventId: e.id,
        target,
        status: 'pending',
        nextAttemptAt: e.createdAt,
        createdAt: e.createdAt,
        updatedAt: e.createdAt,
      })),
    );
    if (deliveries.length) await tx.insertInto('Delivery').values(deliveries).execute();
    return items.map(() => undefined);
  },
};

export function findEventById(db: Db, id: string): Promise<EventRow | null> {
  return first(db.selectFrom('Event').selectAll().where('id', '=', id));
}

export async function maxEventSeq(db: Db): Promise<number> {
  const r = await db
    .selectFrom('Event')
    .select((eb) => eb.fn.max('seq').as('max'))
    .executeTakeFirst();
  return Number(r?.max ?? 0);
}

/** Events of every workspace after `afterSeq`, oldest first (the hub's fan-out read). */
export function eventsAfter(db: Db, afterSeq: number, limit: number): Promise<EventRow[]> {
  return db.selectFrom('Event').selectAll().where('seq', '>', afterSeq).orderBy('seq', 'asc').limit(limit).execute();
}

/** One workspace's events in (afterSeq, upToSeq], optionally of some types only (a stream's backlog). */
export async function workspaceEventsBetween(
  db: Db,
  q: { workspaceId: string; afterSeq: number; upToSeq: number; types: string[] | null; limit: number },
): Promise<EventRow[]> {
  if (q.types && !q.types.length) return [];
  let query = db.selectFrom('Event').selectAll().where('workspaceId', '=', q.workspaceId).where('seq', '>', q.afterSeq).where('seq', '<=', q.upToSeq);
  if (q.types) query = query.where('type', 'in', q.types);
  return query.orderBy('seq', 'asc').limit(q.limit).execute();
}

/** Removes events created before `cutoff`, except those a delivery still waits to send. */
export async function deleteEventsBefore(db: Db, cutoff: Date): Promise<number> {
  const r = await db
    .deleteFrom('Event')
    .where('createdAt', '<', cutoff)
    .where('id', 'not in', (eb) => eb.selectFrom('Delivery').select('eventId').where('status', '=', 'pending'))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

type Owned = 'Pipeline' | 'Artifact' | 'SourcePost' | 'Run' | 'Decode' | 'Pattern' | 'Source' | 'Snapshot';

/** The resources an event's data may name, in the order they are tried, and their tables. */
const RESOURCE_OWNERS: Array<[field: string, table: Owned]> = [
  ['pipeline_id', 'Pipeline'],
  // The service's ingest "operator" of a handle is its pipeline.
  ['operator_id', 'Pipeline'],
  ['riff_id', 'Artifact'],
  ['brief_id', 'Artifact'],
  ['parent_id', 'Artifact'],
  ['post_id', 'SourcePost'],
  ['source_post_id', 'SourcePost'],
  ['run_id', 'Run'],
  ['decode_id', 'Decode'],
  ['pattern_id', 'Pattern'],
  ['webpage_id', 'Source'],
  ['snapshot_id', 'Snapshot'],
];

/** The workspace owning the first resource of `data` this database knows, or null. */
export async function workspaceOfResources(db: Db, data: Record<string, unknown>): Promise<string | null> {
  for (const [field, table] of RESOURCE_OWNERS) {
    const id = data[field];
    if (typeof id !== 'string') continue;
    const row = await first(db.selectFrom(table).select('workspaceId').where('id', '=', id));
    if (row) return row.workspaceId;
  }
  return null;
}

export async function workspaceExists(db: Db, id: string): Promise<boolean> {
  return (await first(db.selectFrom('Workspace').select('id').where('id', '=', id))) !== null;
}

/** The only workspace of the instance (a desktop instance), or null when there are none or several. */
export async function soleWorkspace(db: Db): Promise<string | null> {
  const rows = await db.selectFrom('Workspace').select('id').limit(2).execute();
  return rows.length === 1 ? rows[0]!.id : null;
}
