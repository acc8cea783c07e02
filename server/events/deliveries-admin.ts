// What operators see and do with webhook deliveries (`cpa admin deliveries list|show|retry`).
// There is no HTTP API for this on purpose (the spec has no public retry API); the command line
// works on the database directly, beside the server.
import { missing, stateConflict } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { Db } from '../store/database.js';
import * as store from '../store/deliveries.js';
import { MAX_ATTEMPTS } from './schedule.js';

export type DeliveryStatus = store.DeliveryStatus;
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

export function deliveryView(d: store.DeliveryRow) {
  return {
    id: d.id,
    event_id: d.eventId,
    target: d.target,
    status: d.status,
    attempts: d.attempts,
    max_attempts: Math.max(MAX_ATTEMPTS, d.attempts),
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    last_status: d.lastStatus,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

export function attemptView(a: store.AttemptRow) {
  return {
    id: a.id, // the X-Service-Delivery-Id of the attempt
    attempt: a.attempt,
    status: a.status,
    error: a.error,
    started_at: a.startedAt.toISOString(),
    finished_at: a.finishedAt.toISOString(),
    response_body: a.responseBody,
  };
}

export async function listDeliveries(db: Db, q: { status?: DeliveryStatus; eventId?: string; limit?: number }) {
  const rows = await store.listDeliveries(db, { status: q.status, eventId: q.eventId, limit: q.limit ?? 20 });
  return rows.map(deliveryView);
}

/** A delivery (by its id or by one of its attempts' `wd_…` ids) with every attempt. */
export async function showDelivery(db: Db, id: string) {
  const d = await store.findDelivery(db, id);
  if (!d) throw missing(`No delivery ${id}.`);
  return { ...deliveryView(d), attempts: (await store.attemptsOf(db, d.id)).map(attemptView) };
}

/**
 * Makes a failed (or still pending) delivery due now; the running server's worker sends it
 * within its poll interval. One more attempt is made; a failure after it follows the schedule
 * while fewer than 7 attempts were made, and otherwise leaves the delivery `failed` again.
 */
export async function retryDelivery(db: Db, clock: Clock, id: string) {
  const d = await store.findDelivery(db, id);
  if (!d) throw missing(`No delivery ${id}.`);
  if (!(await store.rescheduleNow(db, { id: d.id, now: clock.now(), from: ['failed', 'pending'] }))) {
    throw stateConflict(`Delivery ${d.id} has succeeded; there is nothing to retry.`);
  }
  return showDelivery(db, d.id);
}
