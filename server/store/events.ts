// The outbox: events are appended in the transaction of the change that caused it; the stream,
// the retention sweep and the webhook receivers read and write it here.
import type { Db, Provider } from './database.js';

/** A Prisma interactive-transaction client (or the client itself, see `appendEvents`). */
export type Tx = Pick<Db, 'event' | 'delivery' | '$executeRawUnsafe'>;

export type EventRow = NonNullable<Awaited<ReturnType<Db['event']['findFirst']>>>;

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

const isRootClient = (tx: Tx | Db): tx is Db => '$transaction' in tx;

/**
 * Appends events (and their deliveries), in order. On PostgreSQL two statements come first, both
 * bound to the transaction: an advisory lock held until commit, so that `seq` values become
 * visible in the order they were taken (a reader that has seen seq N has seen everything below
 * it, which is what makes Last-Event-ID resumption gap-free); and a NOTIFY, which PostgreSQL
 * delivers to every listening instance only when (and if) the transaction commits. Called with
 * the client itself rather than a transaction, it opens one so that both still hold.
 */
export async function appendEvents(tx: Tx | Db, provider: Provider, events: NewEvent[]): Promise<void> {
  if (isRootClient(tx)) return tx.$transaction((inner) => appendEvents(inner, provider, events));
  if (!events.length) return;
  if (provider === 'postgresql') {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${OUTBOX_LOCK_KEY})`);
    await tx.$executeRawUnsafe(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`);
  }
  await tx.event.createMany({
    data: events.map((e) => ({ id: e.id, workspaceId: e.workspaceId, type: e.type, data: JSON.stringify(e.data), createdAt: e.createdAt })),
  });
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
  if (deliveries.length) await tx.delivery.createMany({ data: deliveries });
}

export function findEventById(db: Db, id: string) {
  return db.event.findUnique({ where: { id } });
}

export async function maxEventSeq(db: Db): Promise<number> {
  const r = await db.event.aggregate({ _max: { seq: true } });
  return r._max.seq ?? 0;
}

/** Events of every workspace after `afterSeq`, oldest first (the hub's fan-out read). */
export function eventsAfter(db: Db, afterSeq: number, limit: number) {
  return db.event.findMany({ where: { seq: { gt: afterSeq } }, orderBy: { seq: 'asc' }, take: limit });
}

/** One workspace's events in (afterSeq, upToSeq], optionally of some types only (a stream's backlog). */
export function workspaceEventsBetween(db: Db, q: { workspaceId: string; afterSeq: number; upToSeq: number; types: string[] | null; limit: number }) {
  return db.event.findMany({
    where: { workspaceId: q.workspaceId, seq: { gt: q.afterSeq, lte: q.upToSeq }, ...(q.types ? { type: { in: q.types } } : {}) },
    orderBy: { seq: 'asc' },
    take: q.limit,
  });
}

/** Removes events created before `cutoff`, except those a delivery still waits to send. */
export async function deleteEventsBefore(db: Db, cutoff: Date): Promise<number> {
  const waiting = await db.delivery.findMany({ where: { status: 'pending' }, select: { eventId: true }, distinct: ['eventId'] });
  const r = await db.event.deleteMany({ where: { createdAt: { lt: cutoff }, id: { notIn: waiting.map((w) => w.eventId) } } });
  return r.count;
}

type OwnerLookup = (db: Db, id: string) => Promise<{ workspaceId: string } | null>;
const owner = { workspaceId: true } as const;
const pipeline: OwnerLookup = (db, id) => db.pipeline.findUnique({ where: { id }, select: owner });
const artifact: OwnerLookup = (db, id) => db.artifact.findUnique({ where: { id }, select: owner });
const post: OwnerLookup = (db, id) => db.sourcePost.findUnique({ where: { id }, select: owner });

/** The resources an event's data may name, in the order they are tried, and their owners. */
const RESOURCE_OWNERS: Array<[field: string, lookup: OwnerLookup]> = [
  ['pipeline_id', pipeline],
  // The service's ingest "operator" of a handle is its pipeline.
  ['operator_id', pipeline],
  ['riff_id', artifact],
  ['brief_id', artifact],
  ['parent_id', artifact],
  ['post_id', post],
  ['source_post_id', post],
  ['run_id', (db, id) => db.run.findUnique({ where: { id }, select: owner })],
  ['decode_id', (db, id) => db.decode.findUnique({ where: { id }, select: owner })],
  ['pattern_id', (db, id) => db.pattern.findUnique({ where: { id }, select: owner })],
  ['webpage_id', (db, id) => db.source.findUnique({ where: { id }, select: owner })],
  ['snapshot_id', (db, id) => db.snapshot.findUnique({ where: { id }, select: owner })],
];

/** The workspace owning the first resource of `data` this database knows, or null. */
export async function workspaceOfResources(db: Db, data: Record<string, unknown>): Promise<string | null> {
  for (const [field, lookup] of RESOURCE_OWNERS) {
    const id = data[field];
    if (typeof id !== 'string') continue;
    const row = await lookup(db, id);
    if (row) return row.workspaceId;
  }
  return null;
}

export async function workspaceExists(db: Db, id: string): Promise<boolean> {
  return (await db.workspace.count({ where: { id } })) > 0;
}

/** The only workspace of the instance (a desktop instance), or null when there are none or several. */
export async function soleWorkspace(db: Db): Promise<string | null> {
  const rows = await db.workspace.findMany({ select: { id: true }, take: 2 });
  return rows.length === 1 ? rows[0]!.id : null;
}
