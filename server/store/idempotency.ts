// Idempotency records: one row per (workspace, operation, key).
import { sql } from 'kysely';
import { first, type Db, type Provider, type Row } from './database.js';
import { batched, type Batcher } from './group-commit.js';

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

/** One string per record key (to match rows a statement returned with the items that asked). */
const keyText = (k: RecordKey) => JSON.stringify([k.workspaceId, k.operation, k.key]);

/**
 * Inserts the claims whose key does not exist yet; for each, true when this statement inserted
 * it. One statement for all (a group-commit batch's claims: group-commit.ts `batched`), the
 * unique key deciding between concurrent claims: INSERT … ON CONFLICT DO NOTHING RETURNING (a
 * failed INSERT would cost a rolled-back statement and an error in the server's log on every
 * replay). A key twice among them is inserted for the first only.
 */
const insertClaims: Batcher<NewClaim, boolean> = {
  async run(db, claims) {
    const rows = await db
      .insertInto('IdempotencyRecord')
      .values(claims.map((k) => ({ workspaceId: k.workspaceId, operation: k.operation, key: k.key, ...claimFields(k) })))
      .onConflict((oc) => oc.columns(['workspaceId', 'operation', 'key']).doNothing())
      .returning(['workspaceId', 'operation', 'key'])
      .execute();
    const inserted = new Set(rows.map(keyText));
    return claims.map((k) => inserted.delete(keyText(k)));
  },
};

function findKey(db: Db, k: RecordKey): Promise<IdempotencyRow | null> {
  return first(
    db
      .selectFrom('IdempotencyRecord')
      .selectAll()
      .where((eb) => eb.and(keyOf(k))),
  );
}

/**
 * Claims the key. Returns null when this call claimed it, or the existing row when it did not.
 * A fresh key (the common case) is one statement.
 */
export async function claimKey(db: Db, provider: Provider, k: NewClaim): Promise<IdempotencyRow | null> {
  if (await batched(db, insertClaims, k)) return null;
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

type Completion = RecordKey & { status: number; body: string };

/**
 * Stores the answers of completed keys: one UPDATE … FROM (VALUES …) for all of them (a
 * group-commit batch's answers, each in the transaction of the work it answers).
 */
const completeKeys: Batcher<Completion, void> = {
  async run(db, done) {
    if (done.length === 1) {
      const k = done[0]!;
      await db
        .updateTable('IdempotencyRecord')
        .set({ state: 'completed', responseStatus: k.status, responseBody: k.body })
        .where((eb) => eb.and(keyOf(k)))
        .execute();
      return [undefined];
    }
    const rows = sql.join(done.map((k) => sql`(${k.workspaceId}, ${k.operation}, ${k.key}, CAST(${k.status} AS INTEGER), ${k.body})`));
    await sql`WITH v(ws, op, k, st, body) AS (VALUES ${rows})
      UPDATE "IdempotencyRecord" SET "state" = 'completed', "responseStatus" = v.st, "responseBody" = v.body FROM v
      WHERE "IdempotencyRecord"."workspaceId" = v.ws AND "IdempotencyRecord"."operation" = v.op AND "IdempotencyRecord"."key" = v.k`.execute(db);
    return done.map(() => undefined);
  },
};

export function completeKey(db: IdempotencyTx, k: Completion): Promise<void> {
  return batched(db, completeKeys, k);
}

export async function releaseKey(db: Db, k: RecordKey): Promise<void> {
  await db
    .deleteFrom('IdempotencyRecord')
    .where((eb) => eb.and(keyOf(k)))
    .where('state', '=', 'in_progress')
    .execute();
}

export async function deleteExpiredKeys(db: Db, now: Date): Promise<number> {
  const r = await db.deleteFrom('IdempotencyRecord').where('expiresAt', '<', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
