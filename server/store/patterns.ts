// Patterns of a pipeline, one row per (kind, key).
import { transaction, type Db, type Row } from './database.js';

export type PatternRow = Row<'Pattern'>;
/** The transaction that stores a detection, for the events about it. */
export type PatternTx = Db;

export interface PatternData {
  kind: string;
  key: string;
  occurrences: number;
  description: string;
}

/**
 * Stores the result of one detection: each pattern is created or updated; patterns no longer
 * seen keep their row with `occurrences = 0`. `onChange` runs (in the transaction) for every
 * pattern that is new or whose occurrences changed.
 */
export async function replacePatterns(
  db: Db,
  q: { workspaceId: string; pipelineId: string; patterns: PatternData[]; newId: () => string; now: Date },
  onChange: (tx: PatternTx, row: PatternRow, isNew: boolean) => Promise<void>,
): Promise<PatternRow[]> {
  return transaction(db, async (tx) => {
    const existing = await tx.selectFrom('Pattern').selectAll().where('pipelineId', '=', q.pipelineId).execute();
    const byKey = new Map(existing.map((p) => [`${p.kind}\u0000${p.key}`, p]));
    const changed: Array<{ row: PatternRow; isNew: boolean }> = [];
    for (const p of q.patterns) {
      const old = byKey.get(`${p.kind}\u0000${p.key}`);
      byKey.delete(`${p.kind}\u0000${p.key}`);
      if (old && old.occurrences === p.occurrences && old.description === p.description) continue;
      const row = old
        ? await tx
            .updateTable('Pattern')
            .set({ occurrences: p.occurrences, description: p.description, updatedAt: q.now })
            .where('id', '=', old.id)
            .returningAll()
            .executeTakeFirstOrThrow()
        : await tx
            .insertInto('Pattern')
            .values({ id: q.newId(), workspaceId: q.workspaceId, pipelineId: q.pipelineId, ...p, createdAt: q.now, updatedAt: q.now })
            .returningAll()
            .executeTakeFirstOrThrow();
      if (!old || old.occurrences !== p.occurrences) changed.push({ row, isNew: !old });
    }
    const gone = [...byKey.values()].filter((p) => p.occurrences > 0).map((p) => p.id);
    if (gone.length) await tx.updateTable('Pattern').set({ occurrences: 0, updatedAt: q.now }).where('id', 'in', gone).execute();
    // Events last: on PostgreSQL recording one takes the outbox lock until commit.
    for (const c of changed) await onChange(tx, c.row, c.isNew);
    return changed.map((c) => c.row);
  });
}
