// Upstream sources (tracked webpages) and their snapshots. A refresh stores a snapshot only when
// the content's hash changed; the source row remembers the last one.
import { first, transaction, type Db, type Row } from './database.js';

export type SourceRow = Row<'Source'>;
export type SnapshotRow = Row<'Snapshot'>;
export type SourceTx = Db;

export function findSource(db: Db, workspaceId: string, id: string): Promise<SourceRow | null> {
  return first(db.selectFrom('Source').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id));
}

export interface FetchedPage {
  snapshotId: string;
  contentHash: string;
  title: string | null;
  markdown: string;
  now: Date;
}

/**
 * Records a refresh in one transaction: a new snapshot when the hash differs from the source's
 * last one (compare-and-set on `lastHash`, so two refreshes of the same content store it once),
 * then `also` (activity rows, the event) with the snapshot or null when nothing changed.
 */
export async function recordRefresh(
  db: Db,
  q: { source: SourceRow; page: FetchedPage },
  also: (tx: SourceTx, snapshot: SnapshotRow | null) => Promise<void>,
): Promise<SnapshotRow | null> {
  const { source, page } = q;
  return transaction(db, async (tx) => {
    let snapshot: SnapshotRow | null = null;
    if (page.contentHash !== source.lastHash) {
      const r = await tx
        .updateTable('Source')
        .set({ lastHash: page.contentHash, lastSnapshotId: page.snapshotId, updatedAt: page.now })
        .where('id', '=', source.id)
        .where('lastHash', source.lastHash === null ? 'is' : '=', source.lastHash)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) {
        snapshot = await tx
          .insertInto('Snapshot')
          .values({
            id: page.snapshotId,
            workspaceId: source.workspaceId,
            sourceId: source.id,
            contentHash: page.contentHash,
            title: page.title,
            markdown: page.markdown,
            fetchedAt: page.now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      }
    }
    await also(tx, snapshot);
    return snapshot;
  });
}
