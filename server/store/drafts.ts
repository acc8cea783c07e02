// Drafting's writes: an artifact is reserved (state `draft`, empty text) together with the run
// that writes it, then the run fills the text and moves it to `review` with a compare-and-set,
// so that an artifact discarded meanwhile is never written, and a failed run discards it.
import type { Db } from './database.js';
import type { Prisma } from './generated/sqlite/client.js';
import { insertArtifact, type ArtifactRow, type NewArtifact } from './artifacts.js';

/** An interactive transaction (artifact, run, session rows and events of one change). */
export type DraftTx = Prisma.TransactionClient;

/** Reserves the artifact and lets `also` queue its run (and more) in the same transaction. */
export function reserveArtifact<T>(db: Db, a: NewArtifact, also: (tx: DraftTx, row: ArtifactRow) => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => also(tx, await insertArtifact(tx, a)));
}

export function findPosts(db: Db, workspaceId: string, ids: string[]) {
  return db.sourcePost.findMany({ where: { workspaceId, id: { in: ids } } });
}

/**
 * Writes the text of a reserved artifact and moves it draft → review, then runs `also` (the
 * events) in the same transaction. Null when the artifact is no longer a draft (discarded while
 * it was being written, or written by an earlier attempt).
 */
export async function writeDraft(
  db: Db,
  q: { id: string; text: string; now: Date },
  also: (tx: DraftTx, row: ArtifactRow) => Promise<void>,
): Promise<ArtifactRow | null> {
  return db.$transaction(async (tx) => {
    const [row] = await tx.artifact.updateManyAndReturn({ where: { id: q.id, state: 'draft' }, data: { text: q.text, state: 'review', updatedAt: q.now } });
    if (!row) return null;
    await also(tx, row);
    return row;
  });
}

/**
 * Discards an artifact whose run failed before writing it, and takes it off its source posts'
 * counts (nothing was drafted from them after all). No-op unless it is still a draft.
 */
export async function discardUnwritten(tx: DraftTx, q: { id: string; now: Date }): Promise<boolean> {
  const a = await tx.artifact.findUnique({ where: { id: q.id } });
  if (!a) return false;
  const { count } = await tx.artifact.updateMany({ where: { id: q.id, state: 'draft' }, data: { state: 'discarded', updatedAt: q.now } });
  if (count === 0) return false;
  const listed = JSON.parse(a.sourcePostIds) as string[];
  const sources = listed.length ? listed : [a.sourcePostId];
  await tx.sourcePost.updateMany({ where: { id: { in: sources }, artifactCount: { gt: 0 } }, data: { artifactCount: { decrement: 1 } } });
  return true;
}
