// Webhook deliveries (one event to one receiver URL) and their attempts. The rows are created
// with the event (store/events.ts); the delivery worker claims, attempts and settles them here.
import type { ExpressionBuilder } from 'kysely';
import { transaction, type DB, type Db, type Row } from './database.js';

export type DeliveryRow = Row<'Delivery'>;
export type AttemptRow = Row<'DeliveryAttempt'>;
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * Claims up to `limit` due deliveries for this worker until `lockedUntil`. The claim is one
 * conditional UPDATE … RETURNING over the candidates, so that two workers (two instances on one
 * database) never take the same delivery; a claim whose worker died expires with its lease and
 * is taken again.
 */
export async function claimDue(db: Db, q: { now: Date; lockedUntil: Date; limit: number }): Promise<DeliveryRow[]> {
  if (q.limit <= 0) return [];
  const free = (eb: ExpressionBuilder<DB, 'Delivery'>) =>
    eb.and([eb('status', '=', 'pending'), eb('nextAttemptAt', '<=', q.now), eb.or([eb('lockedUntil', 'is', null), eb('lockedUntil', '<', q.now)])]);
  // The candidates are computed once (MATERIALIZED), so that the UPDATE cannot take more than `limit`.
  const rows = await db
    .with(
      (cte) => cte('due').materialized(),
      (qc) => qc.selectFrom('Delivery').select('id').where(free).orderBy('nextAttemptAt', 'asc').limit(q.limit),
    )
    .updateTable('Delivery')
    .set({ lockedUntil: q.lockedUntil, updatedAt: q.now })
    .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
    // re-checked by the UPDATE itself: a delivery another worker claimed meanwhile is not free
    .where(free)
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
}

/** One attempt (the row to insert) and what it makes of its delivery. */
export type AttemptResult = AttemptRow & {
  /** The delivery afterwards: pending again (with its next time), succeeded or failed. */
  next: { status: DeliveryStatus; nextAttemptAt: Date };
};

/** Records one attempt and settles its delivery, in one transaction. */
export async function recordAttempt(db: Db, a: AttemptResult): Promise<void> {
  await transaction(db, async (tx) => {
    await tx
      .insertInto('DeliveryAttempt')
      .values({
        id: a.id,
        deliveryId: a.deliveryId,
        attempt: a.attempt,
        status: a.status,
        error: a.error,
        responseBody: a.responseBody,
        startedAt: a.startedAt,
        finishedAt: a.finishedAt,
      })
      .execute();
    await tx
      .updateTable('Delivery')
      .set({
        attempts: a.attempt,
        status: a.next.status,
        nextAttemptAt: a.next.nextAttemptAt,
        lockedUntil: null,
        lastStatus: a.status,
        lastError: a.error,
        updatedAt: a.finishedAt,
      })
      .where('id', '=', a.deliveryId)
      .execute();
  });
}

export function listDeliveries(db: Db, q: { status?: DeliveryStatus; eventId?: string; limit: number }): Promise<DeliveryRow[]> {
  let query = db.selectFrom('Delivery').selectAll();
  if (q.status) query = query.where('status', '=', q.status);
  if (q.eventId) query = query.where('eventId', '=', q.eventId);
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

/** A delivery by its own id, or by the id of one of its attempts (`wd_…`). */
export async function findDelivery(db: Db, id: string): Promise<DeliveryRow | null> {
  // One statement: the delivery with this id, or the one the attempt with this id belongs to.
  const rows = await db
    .selectFrom('Delivery')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', id), eb('id', '=', eb.selectFrom('DeliveryAttempt').select('deliveryId').where('id', '=', id))]))
    .execute();
  return rows.find((r) => r.id === id) ?? rows[0] ?? null;
}

export function attemptsOf(db: Db, deliveryId: string): Promise<AttemptRow[]> {
  return db.selectFrom('DeliveryAttempt').selectAll().where('deliveryId', '=', deliveryId).orderBy('attempt', 'asc').execute();
}

/** Makes a delivery due now again; only a delivery in one of `from` states moves. Returns whether it moved. */
export async function rescheduleNow(db: Db, q: { id: string; now: Date; from: DeliveryStatus[] }): Promise<boolean> {
  if (!q.from.length) return false;
  const r = await db
    .updateTable('Delivery')
    .set({ status: 'pending', nextAttemptAt: q.now, lockedUntil: null, updatedAt: q.now })
    .where('id', '=', q.id)
    .where('status', 'in', q.from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Removes settled deliveries (and their attempts) last touched before `cutoff`. */
export async function deleteSettledBefore(db: Db, cutoff: Date): Promise<number> {
  const old = await db.selectFrom('Delivery').select('id').where('status', 'in', ['succeeded', 'failed']).where('updatedAt', '<', cutoff).limit(1000).execute();
  if (!old.length) return 0;
  const ids = old.map((d) => d.id);
  await transaction(db, async (tx) => {
    await tx.deleteFrom('DeliveryAttempt').where('deliveryId', 'in', ids).execute();
    await tx.deleteFrom('Delivery').where('id', 'in', ids).execute();
  });
  return ids.length;
}
