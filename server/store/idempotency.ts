// Idempotency records: one row per (workspace, operation, key).
import type { Db, Provider } from './database.js';

export type IdempotencyRow = NonNullable<Awaited<ReturnType<Db['idempotencyRecord']['findFirst']>>>;

export interface RecordKey {
  workspaceId: string;
  operation: string;
  key: string;
}

type NewClaim = RecordKey & { requestHash: string; now: Date; lockedUntil: Date; expiresAt: Date };

/**
 * Inserts the claim unless the key exists; true when this call inserted it. One statement on both
 * providers, the unique key deciding between concurrent claims: on PostgreSQL an INSERT … ON
 * CONFLICT DO NOTHING (Prisma's skipDuplicates, which it offers there only; a failed INSERT would
 * cost a rolled-back statement and an error in the server's log on every replay), on SQLite a
 * plain INSERT whose unique violation (P2002) means "exists".
 */
/** The columns a claim sets, on a new row and on a row taken over. */
function claimFields(k: NewClaim) {
  return { requestHash: k.requestHash, state: 'in_progress', lockedUntil: k.lockedUntil, createdAt: k.now, expiresAt: k.expiresAt };
}

async function insertClaim(db: Db, provider: Provider, k: NewClaim): Promise<boolean> {
  const data = { workspaceId: k.workspaceId, operation: k.operation, key: k.key, ...claimFields(k) };
  if (provider === 'postgresql') {
    // The store's client type is SQLite's, whose createMany has no skipDuplicates.
    const createMany = db.idempotencyRecord.createMany as unknown as (args: { data: (typeof data)[]; skipDuplicates: true }) => Promise<{ count: number }>;
    return (await createMany({ data: [data], skipDuplicates: true })).count === 1;
  }
  try {
    await db.idempotencyRecord.create({ data });
    return true;
  } catch (err) {
    if ((err as { code?: string }).code !== 'P2002') throw err;
    return false;
  }
}

/**
 * Claims the key. Returns null when this call claimed it, or the existing row when it did not.
 * A fresh key (the common case) is one statement.
 */
export async function claimKey(db: Db, provider: Provider, k: NewClaim): Promise<IdempotencyRow | null> {
  const id = { workspaceId: k.workspaceId, operation: k.operation, key: k.key };
  if (await insertClaim(db, provider, k)) return null;
  const existing = await db.idempotencyRecord.findUnique({ where: { workspaceId_operation_key: id } });
  // Deleted between the two statements (released, or swept as expired): claim it again.
  if (!existing) return claimKey(db, provider, k);
  // An abandoned claim (its holder died before finishing) or an expired record may be taken over.
  const abandoned = existing.state === 'in_progress' && existing.lockedUntil < k.now;
  const expired = existing.expiresAt < k.now;
  if (!abandoned && !expired) return existing;
  const { count } = await db.idempotencyRecord.updateMany({
    where: { ...id, lockedUntil: existing.lockedUntil, state: existing.state },
    data: { ...claimFields(k), responseStatus: null, responseBody: null },
  });
  return count === 1 ? null : db.idempotencyRecord.findUnique({ where: { workspaceId_operation_key: id } });
}

/** A client or an interactive transaction: a reply may be stored in the transaction that did the work. */
export type IdempotencyTx = Pick<Db, 'idempotencyRecord'>;

export async function completeKey(db: IdempotencyTx, k: RecordKey & { status: number; body: string }): Promise<void> {
  await db.idempotencyRecord.update({
    where: { workspaceId_operation_key: { workspaceId: k.workspaceId, operation: k.operation, key: k.key } },
    data: { state: 'completed', responseStatus: k.status, responseBody: k.body },
  });
}

export async function releaseKey(db: Db, k: RecordKey): Promise<void> {
  await db.idempotencyRecord.deleteMany({ where: { workspaceId: k.workspaceId, operation: k.operation, key: k.key, state: 'in_progress' } });
}

export async function deleteExpiredKeys(db: Db, now: Date): Promise<number> {
  const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}
