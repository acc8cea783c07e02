// The outbox: events are appended in the transaction of the change that caused them.
import type { Db } from './database.js';

/** A Prisma client or an interactive-transaction client. */
export type Tx = Pick<Db, 'event'>;

export type EventRow = NonNullable<Awaited<ReturnType<Db['event']['findFirst']>>>;

export function appendEvent(tx: Tx, e: { id: string; workspaceId: string; type: string; data: Record<string, unknown>; createdAt: Date }) {
  return tx.event.create({ data: { id: e.id, workspaceId: e.workspaceId, type: e.type, data: JSON.stringify(e.data), createdAt: e.createdAt } });
}
