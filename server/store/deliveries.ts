// Webhook deliveries (one event to one receiver URL) and their attempts. The rows are created
// with the event (store/events.ts); the delivery worker claims, attempts and settles them here.
import type { Db } from './database.js';

export type DeliveryRow = NonNullable<Awaited<ReturnType<Db['delivery']['findFirst']>>>;
export type AttemptRow = NonNullable<Awaited<ReturnType<Db['deliveryAttempt']['findFirst']>>>;
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * Claims up to `limit` due deliveries for this worker until `lockedUntil`. Each claim is a
 * conditional update, so that two workers (two instances on one database) never take the same
 * delivery; a claim whose worker died expires with its lease and is taken again.
 */
export async function claimDue(db: Db, q: { now: Date; lockedUntil: Date; limit: number }): Promise<DeliveryRow[]> {
  const free = { status: 'pending', nextAttemptAt: { lte: q.now }, OR: [{ lockedUntil: null }, { lockedUntil: { lt: q.now } }] };
  const candidates = await db.delivery.findMany({ where: free, orderBy: { nextAttemptAt: 'asc' }, take: q.limit });
  const claimed: DeliveryRow[] = [];
  for (const c of candidates) {
    const r = await db.delivery.updateMany({ where: { id: c.id, ...free }, data: { lockedUntil: q.lockedUntil } });
    if (r.count === 1) claimed.push({ ...c, lockedUntil: q.lockedUntil });
  }
  return claimed;
}

export interface AttemptResult {
  id: string;
  deliveryId: string;
  attempt: number;
  status: number | null;
  error: string | null;
  responseBody: string | null;
  startedAt: Date;
  finishedAt: Date;
  /** The delivery afterwards: pending again (with its next time), succeeded or failed. */
  next: { status: DeliveryStatus; nextAttemptAt: Date };
}

/** Records one attempt and settles its delivery, in one transaction. */
export async function recordAttempt(db: Db, a: AttemptResult): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.deliveryAttempt.create({
      data: { id: a.id, deliveryId: a.deliveryId, attempt: a.attempt, status: a.status, error: a.error, responseBody: a.responseBody, startedAt: a.startedAt, finishedAt: a.finishedAt },
    });
    await tx.delivery.update({
      where: { id: a.deliveryId },
      data: { attempts: a.attempt, status: a.next.status, nextAttemptAt: a.next.nextAttemptAt, lockedUntil: null, lastStatus: a.status, lastError: a.error, updatedAt: a.finishedAt },
    });
  });
}

export function listDeliveries(db: Db, q: { status?: DeliveryStatus; eventId?: string; limit: number }) {
  return db.delivery.findMany({
    where: { ...(q.status ? { status: q.status } : {}), ...(q.eventId ? { eventId: q.eventId } : {}) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: q.limit,
  });
}

/** A delivery by its own id, or by the id of one of its attempts (`wd_…`). */
export async function findDelivery(db: Db, id: string): Promise<DeliveryRow | null> {
  const direct = await db.delivery.findUnique({ where: { id } });
  if (direct) return direct;
  const attempt = await db.deliveryAttempt.findUnique({ where: { id }, select: { deliveryId: true } });
  return attempt ? db.delivery.findUnique({ where: { id: attempt.deliveryId } }) : null;
}

export function attemptsOf(db: Db, deliveryId: string) {
  return db.deliveryAttempt.findMany({ where: { deliveryId }, orderBy: { attempt: 'asc' } });
}

/** Makes a delivery due now again; only a delivery in one of `from` states moves. Returns whether it moved. */
export async function rescheduleNow(db: Db, q: { id: string; now: Date; from: DeliveryStatus[] }): Promise<boolean> {
  const r = await db.delivery.updateMany({
    where: { id: q.id, status: { in: q.from } },
    data: { status: 'pending', nextAttemptAt: q.now, lockedUntil: null, updatedAt: q.now },
  });
  return r.count === 1;
}

/** Removes settled deliveries (and their attempts) last touched before `cutoff`. */
export async function deleteSettledBefore(db: Db, cutoff: Date): Promise<number> {
  const old = await db.delivery.findMany({ where: { status: { in: ['succeeded', 'failed'] }, updatedAt: { lt: cutoff } }, select: { id: true }, take: 1000 });
  if (!old.length) return 0;
  const ids = old.map((d) => d.id);
  await db.$transaction([db.deliveryAttempt.deleteMany({ where: { deliveryId: { in: ids } } }), db.delivery.deleteMany({ where: { id: { in: ids } } })]);
  return ids.length;
}
