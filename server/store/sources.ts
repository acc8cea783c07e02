// Upstream sources (tracked webpages) and their snapshots. A refresh stores a snapshot only when
// the content's hash changed; the source row remembers the last one.
import type { Db } from './database.js';
import type { Prisma } from './generated/sqlite/client.js';

export type SourceRow = NonNullable<Awaited<ReturnType<Db['source']['findFirst']>>>;
export type SnapshotRow = NonNullable<Awaited<ReturnType<Db['snapshot']['findFirst']>>>;
export type SourceTx = Prisma.TransactionClient;

export function findSource(db: Db, workspaceId: string, id: string) {
  return db.source.findFirst({ where: { workspaceId, id } });
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
  return db.$transaction(async (tx) => {
    let snapshot: SnapshotRow | null = null;
    if (page.contentHash !== source.lastHash) {
      const { count } = await tx.source.updateMany({
        where: { id: source.id, lastHash: source.lastHash },
        data: { lastHash: page.contentHash, lastSnapshotId: page.snapshotId, updatedAt: page.now },
      });
      if (count === 1) {
        snapshot = await tx.snapshot.create({
          data: { id: page.snapshotId, workspaceId: source.workspaceId, sourceId: source.id, contentHash: page.contentHash, title: page.title, markdown: page.markdown, fetchedAt: page.now },
        });
      }
    }
    await also(tx, snapshot);
    return snapshot;
  });
}
