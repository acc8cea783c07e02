// Drafting's writes: an artifact is reserved (state `draft`, empty text) together with the run
// that writes it, then the run fills the text and moves it to `review` with a compare-and-set,
// so that an artifact discarded meanwhile is never written, and a failed run discards it.
import { sql } from 'kysely';
import { dateValue, first, type Db, type Provider } from './database.js';
import { batched, groupCommit, type Batcher } from './group-commit.js';
import { insertArtifact, type ArtifactRow, type NewArtifact } from './artifacts.js';
import type { PostRow } from './posts.js';

/** A transaction (artifact, run, session rows and events of one change). */
export type DraftTx = Db;

/**
 * Reserves the artifact and lets `also` queue its run (and more) in the same transaction, committed
 * together with the other changes that arrive at the same time (group-commit.ts: `also` may run
 * twice, the first time rolled back; it must only write through `tx`).
 */
export function reserveArtifact<T>(db: Db, a: NewArtifact, also: (tx: DraftTx, row: ArtifactRow) => Promise<T>): Promise<T> {
  return groupCommit(db, 'requests', async (tx) => also(tx, await insertArtifact(tx, a)));
}

export async function findPosts(db: Db, workspaceId: string, ids: string[]): Promise<PostRow[]> {
  if (!ids.length) return [];
  return db.selectFrom('SourcePost').selectAll().where('workspaceId', '=', workspaceId).where('id', 'in', ids).execute();
}

/**
 * Writes the text of a reserved artifact and moves it draft → review, then runs `also` (the
 * events) in the same transaction. Null when the artifact is no longer a draft (discarded while
 * it was being written, or written by an earlier attempt).
 */
export async function writeDraft(
  db: Db,
  provider: Provider,
  q: { id: string; text: string; now: Date },
  also: (tx: DraftTx, row: ArtifactRow) => Promise<void>,
): Promise<ArtifactRow | null> {
  // Committed with the other runs' writes of the moment (group-commit.ts), the texts of the
  // batch written by one statement.
  return groupCommit(db, 'runs', async (tx) => {
    const row = await batched(tx, writeTexts, { provider, ...q });
    if (!row) return null;
    await also(tx, row);
    return row;
  });
}

type Written = { provider: Provider; id: string; text: string; now: Date };

/**
 * The compare-and-sets draft → review of a batch's drafting runs: one UPDATE … FROM (VALUES …)
 * … RETURNING on PostgreSQL (one round trip for all); one UPDATE … RETURNING each on SQLite (in
 * process: nothing to save but the statement, and SQLite's RETURNING cannot name the FROM).
 */
const writeTexts: Batcher<Written, ArtifactRow | null> = {
  async run(tx, items) {
    if (items.length === 1 || items[0]!.provider === 'sqlite') {
      const out: Array<ArtifactRow | null> = [];
      for (const q of items) {
        out.push(
          await first(
            tx
              .updateTable('Artifact')
              .set({ text: q.text, state: 'review', updatedAt: q.now })
              .where('id', '=', q.id)
              .where('state', '=', 'draft')
              .returningAll(),
          ),
        );
      }
      return out;
    }
    const rows = sql.join(items.map((q) => sql`(${q.id}, ${q.text}, ${dateValue('postgresql', q.now)})`));
    const { rows: written } = await sql<ArtifactRow>`WITH v(id, text, at) AS (VALUES ${rows})
      UPDATE "Artifact" SET "text" = v.text, "state" = 'review', "updatedAt" = v.at FROM v
      WHERE "Artifact"."id" = v.id AND "Artifact"."state" = 'draft' RETURNING "Artifact".*`.execute(tx);
    const byId = new Map(written.map((r) => [r.id, r]));
    // An id twice in one batch (two attempts of one run) is written once: the first one has it.
    return items.map((q) => {
      const r = byId.get(q.id) ?? null;
      byId.delete(q.id);
      return r;
    });
  },
};

/**
 * Discards an artifact whose run failed before writing it, and takes it off its source posts'
 * counts (nothing was drafted from them after all). No-op unless it is still a draft.
 */
export async function discardUnwritten(tx: DraftTx, q: { id: string; now: Date }): Promise<boolean> {
  // The compare-and-set returns the row it moved: no read before it.
  const a = await first(
    tx
      .updateTable('Artifact')
      .set({ state: 'discarded', updatedAt: q.now })
      .where('id', '=', q.id)
      .where('state', '=', 'draft')
      .returning(['sourcePostIds', 'sourcePostId']),
  );
  if (!a) return false;
  const listed = JSON.parse(a.sourcePostIds) as string[];
  const sources = listed.length ? listed : [a.sourcePostId];
  await tx
    .updateTable('SourcePost')
    .set((eb) => ({ artifactCount: eb('artifactCount', '-', 1), updatedAt: q.now }))
    .where('id', 'in', sources)
    .where('artifactCount', '>', 0)
    .execute();
  return true;
}
