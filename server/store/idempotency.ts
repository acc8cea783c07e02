// Idempotency records: one row per (workspace, operation, key).
import { first, type Db, type Provider, type Row } from './database.js';

export type IdempotencyRow = Row<'IdempotencyRecord'>;

export interface RecordKey {
  workspaceId: string;
  operation: string;
  key: string;
}

type NewClaim = RecordKey & { requestHash: string; now: Date; lockedUntil: Date; expiresAt: Date };

/** The columns a claim sets, on a new row and on a row taken over. */
function claimFields(k: NewClaim) {
  return { requestHash: k.requestHash, state: 'in_progress', lockedUntil: k.lockedUntil, createdAt: k.now, expiresAt: k.expiresAt };
}

/** The row's primary key, for `.where((eb) => eb.and(keyOf(k)))`. */
const keyOf = (k: RecordKey) => ({ workspaceId: k.workspaceId, operation: k.operation, key: k.key });

/**
 * Inserts the claim unless the key exists; true when this call inserted it. One statement on both
 * providers, the unique key deciding between concurrent claims: INSERT … ON CONFLICT DO NOTHING
 * (a failed INSERT would cost a rolled-back statement and an error in the server's log on every
 * replay).
 */
async function insertClaim(db: Db, k: NewClaim): Promise<boolean> {
  const r = await db
    .insertInto('IdempotencyRecord')
    .values({ workspaceId: k.workspaceId, operation: k.operation, key: k.key, ...claimFields(k) })
    .onConflict((oc) => oc.columns(['workspaceId', 'operation', 'key']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

function findKey(db: Db, k: RecordKey): Promise<IdempotencyRow | null> {
  return first(db.selectFrom('IdempotencyRecord').selectAll().where((eb) => eb.and(keyOf(k))));
}

/**
 * Claims the key. Returns null when this call claimed it, or the existing row when it did not.
 * A fresh key (the common case) is one statement.
 */
export async function claimKey(db: Db, provider: Provider, k: NewClaim): Promise<IdempotencyRow | null> {
  if (await insertClaim(db, k)) return null;
  const existing = await findKey(db, k);
  // Deleted between the two statements (released, or swept as expired): claim it again.
  if (!existing) return claimKey(db, provider, k);
  // An abandoned claim (its holder died before finishing) or an expired record may be taken over.
  const abandoned = existing.state === 'in_progress' && existing.lockedUntil < k.now;
  const expired = existing.expiresAt < k.now;
  if (!abandoned && !expired) return existing;
  const r = await db
    .updateTable('IdempotencyRecord')
    .set({ ...claimFields(k), responseStatus: null, responseBody: null })
    .where((eb) => eb.and(keyOf(k)))
    .where('lockedUntil', '=', existing.lockedUntil)
    .where('state', '=', existing.state)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1 ? null : findKey(db, k);
}

/** The database or the transaction that did the work: a reply may be stored in that transaction. */
export type IdempotencyTx = Db;

export async function completeKey(db: IdempotencyTx, k: RecordKey & { status: number; body: string }): Promise<void> {
  await db.updateTable('IdempotencyRecord').set({ state: 'completed', responseStatus: k.status, responseBody: k.body }).where((eb) => eb.and(keyOf(k))).execute();
}

export async function releaseKey(db: Db, k: RecordKey): Promise<void> {
  await db.deleteFrom('IdempotencyRecord').where((eb) => eb.and(keyOf(k))).where('state', '=', 'in_progress').execute();
}

export async function deleteExpiredKeys(db: Db, now: Date): Promise<number> {
  const r = await db.deleteFrom('IdempotencyRecord').where('expiresAt', '<', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
