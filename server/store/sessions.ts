// Sessions, their items, variant rounds and activity rows. A session is created on first use;
// every change writes its activity row in the same transaction.
import { first, isUniqueViolation, transaction, type Db, type Row } from './database.js';
import type { DraftTx } from './drafts.js';

export type SessionItemRow = Row<'SessionItem'>;
export type ActivityRow = Row<'Activity'>;
export type RoundRow = Row<'VariantRound'>;

export interface NewActivity {
  id: string;
  workspaceId: string;
  sessionId: string;
  kind: string;
  summary: string;
  now: Date;
}

export async function insertActivity(tx: Db, a: NewActivity): Promise<ActivityRow> {
  return tx
    .insertInto('Activity')
    .values({ id: a.id, workspaceId: a.workspaceId, sessionId: a.sessionId, kind: a.kind, summary: a.summary.slice(0, 500), createdAt: a.now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface NewItem {
  id: string;
  workspaceId: string;
  sessionId: string;
  kind: 'note' | 'source' | 'artifact';
  text: string | null;
  url: string | null;
  artifactId: string | null;
  /** For a source item: the id to give the source when the workspace does not track its URL yet. */
  newSourceId: string | null;
  now: Date;
}

/**
 * Adds the item (creating the session on first use, and for a `source` item the workspace's
 * source for that URL unless it exists) and its activity row, in one transaction; `also` runs
 * last in that transaction.
 */
export async function addItem(
  db: Db,
  item: NewItem,
  activity: (item: SessionItemRow) => NewActivity,
  also?: (tx: DraftTx, item: SessionItemRow) => Promise<void>,
): Promise<SessionItemRow> {
  // The session and the source are upserts that yield to the unique key (ON CONFLICT), so two
  // first items of a new session no longer collide; a retry is kept for anything else unique.
  for (let attempt = 1; ; attempt++) {
    try {
      return await addItemOnce(db, item, activity, also);
    } catch (err) {
      if (attempt >= 3 || !isUniqueViolation(err) || db.isTransaction) throw err;
    }
  }
}

function addItemOnce(
  db: Db,
  item: NewItem,
  activity: (item: SessionItemRow) => NewActivity,
  also?: (tx: DraftTx, item: SessionItemRow) => Promise<void>,
): Promise<SessionItemRow> {
  return transaction(db, async (tx) => {
    await tx
      .insertInto('Session')
      .values({ workspaceId: item.workspaceId, id: item.sessionId, createdAt: item.now })
      .onConflict((oc) => oc.columns(['workspaceId', 'id']).doNothing())
      .execute();
    let sourceId: string | null = null;
    if (item.kind === 'source' && item.url && item.newSourceId) {
      // DO UPDATE of the key to itself: a no-op that makes RETURNING give the existing row too.
      const source = await tx
        .insertInto('Source')
        .values({ id: item.newSourceId, workspaceId: item.workspaceId, url: item.url, createdAt: item.now, updatedAt: item.now })
        .onConflict((oc) => oc.columns(['workspaceId', 'url']).doUpdateSet((eb) => ({ url: eb.ref('excluded.url') })))
        .returning('id')
        .executeTakeFirstOrThrow();
      sourceId = source.id;
    }
    const row = await tx
      .insertInto('SessionItem')
      .values({
        id: item.id,
        workspaceId: item.workspaceId,
        sessionId: item.sessionId,
        kind: item.kind,
        text: item.text,
        url: item.url,
        artifactId: item.artifactId,
        sourceId,
        createdAt: item.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await insertActivity(tx, activity(row));
    await also?.(tx, row);
    return row;
  });
}

export function findItem(db: Db, workspaceId: string, sessionId: string, id: string): Promise<SessionItemRow | null> {
  return first(db.selectFrom('SessionItem').selectAll().where('workspaceId', '=', workspaceId).where('sessionId', '=', sessionId).where('id', '=', id));
}

export function listActivity(db: Db, workspaceId: string, limit: number): Promise<ActivityRow[]> {
  return db.selectFrom('Activity').selectAll().where('workspaceId', '=', workspaceId).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export function lastRound(db: Db, variantId: string): Promise<RoundRow | null> {
  return first(db.selectFrom('VariantRound').selectAll().where('variantId', '=', variantId).orderBy('round', 'desc').limit(1));
}

/**
 * Appends round `next` to a variant; `build` reserves the round's artifact and run in the same
 * transaction. Two concurrent regenerations cannot take the same number (unique variant+round):
 * the loser gets null and the caller retries.
 */
export async function appendRound(
  db: Db,
  q: { id: string; workspaceId: string; sessionId: string; variantId: string; next: number; now: Date },
  build: (tx: DraftTx) => Promise<{ runId: string; artifactId: string; activity: NewActivity }>,
): Promise<RoundRow | null> {
  try {
    return await transaction(db, async (tx) => {
      const made = await build(tx);
      const row = await tx
        .insertInto('VariantRound')
        .values({
          id: q.id,
          workspaceId: q.workspaceId,
          sessionId: q.sessionId,
          variantId: q.variantId,
          round: q.next,
          runId: made.runId,
          artifactId: made.artifactId,
          createdAt: q.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await insertActivity(tx, made.activity);
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err) && !db.isTransaction) return null;
    throw err;
  }
}

/** The sessions that hold an item tracking this source. */
export async function sessionsTracking(db: Db, workspaceId: string, sourceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('SessionItem')
    .select('sessionId')
    .distinct()
    .where('workspaceId', '=', workspaceId)
    .where('sourceId', '=', sourceId)
    .execute();
  return rows.map((r) => r.sessionId);
}
