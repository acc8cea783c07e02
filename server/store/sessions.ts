// Sessions, their items, variant rounds and activity rows. A session is created on first use;
// every change writes its activity row in the same transaction.
import type { Db } from './database.js';
import type { DraftTx } from './drafts.js';

export type SessionItemRow = NonNullable<Awaited<ReturnType<Db['sessionItem']['findFirst']>>>;
export type ActivityRow = NonNullable<Awaited<ReturnType<Db['activity']['findFirst']>>>;
export type RoundRow = NonNullable<Awaited<ReturnType<Db['variantRound']['findFirst']>>>;

export interface NewActivity {
  id: string;
  workspaceId: string;
  sessionId: string;
  kind: string;
  summary: string;
  now: Date;
}

export function insertActivity(tx: Pick<Db, 'activity'>, a: NewActivity) {
  return tx.activity.create({ data: { id: a.id, workspaceId: a.workspaceId, sessionId: a.sessionId, kind: a.kind, summary: a.summary.slice(0, 500), createdAt: a.now } });
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
export async function addItem(db: Db, item: NewItem, activity: (item: SessionItemRow) => NewActivity, also?: (tx: DraftTx, item: SessionItemRow) => Promise<void>): Promise<SessionItemRow> {
  // Prisma's upsert reads then inserts: two first items of a new session (or of a new source URL)
  // can both try the insert, and the loser fails on the unique key. Its whole transaction is
  // rolled back, so running it again finds the row the winner created.
  for (let attempt = 1; ; attempt++) {
    try {
      return await addItemOnce(db, item, activity, also);
    } catch (err) {
      if (attempt >= 3 || (err as { code?: string }).code !== 'P2002') throw err;
    }
  }
}

function addItemOnce(db: Db, item: NewItem, activity: (item: SessionItemRow) => NewActivity, also?: (tx: DraftTx, item: SessionItemRow) => Promise<void>): Promise<SessionItemRow> {
  return db.$transaction(async (tx) => {
    const key = { workspaceId_id: { workspaceId: item.workspaceId, id: item.sessionId } };
    await tx.session.upsert({ where: key, create: { workspaceId: item.workspaceId, id: item.sessionId, createdAt: item.now }, update: {} });
    let sourceId: string | null = null;
    if (item.kind === 'source' && item.url && item.newSourceId) {
      const source = await tx.source.upsert({
        where: { workspaceId_url: { workspaceId: item.workspaceId, url: item.url } },
        create: { id: item.newSourceId, workspaceId: item.workspaceId, url: item.url, createdAt: item.now, updatedAt: item.now },
        update: {},
      });
      sourceId = source.id;
    }
    const row = await tx.sessionItem.create({
      data: { id: item.id, workspaceId: item.workspaceId, sessionId: item.sessionId, kind: item.kind, text: item.text, url: item.url, artifactId: item.artifactId, sourceId, createdAt: item.now },
    });
    await insertActivity(tx, activity(row));
    await also?.(tx, row);
    return row;
  });
}

export function findItem(db: Db, workspaceId: string, sessionId: string, id: string) {
  return db.sessionItem.findFirst({ where: { workspaceId, sessionId, id } });
}

export function listActivity(db: Db, workspaceId: string, limit: number) {
  return db.activity.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit });
}

export function lastRound(db: Db, variantId: string) {
  return db.variantRound.findFirst({ where: { variantId }, orderBy: { round: 'desc' } });
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
    return await db.$transaction(async (tx) => {
      const made = await build(tx);
      const row = await tx.variantRound.create({
        data: { id: q.id, workspaceId: q.workspaceId, sessionId: q.sessionId, variantId: q.variantId, round: q.next, runId: made.runId, artifactId: made.artifactId, createdAt: q.now },
      });
      await insertActivity(tx, made.activity);
      return row;
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') return null;
    throw err;
  }
}

/** The sessions that hold an item tracking this source. */
export async function sessionsTracking(db: Pick<Db, 'sessionItem'>, workspaceId: string, sourceId: string): Promise<string[]> {
  const rows = await db.sessionItem.findMany({ where: { workspaceId, sourceId }, select: { sessionId: true }, distinct: ['sessionId'] });
  return rows.map((r) => r.sessionId);
}
